/// Colour conversion of decoded planes to interleaved pixels.
///
/// YCbCr -> RGB is libjpeg's jdcolor.c `ycc_rgb_convert`, bit-exact: JFIF's equations
/// (R = Y + 1.402 Cr', G = Y - 0.34414 Cb' - 0.71414 Cr', B = Y + 1.772 Cb', with Cb' = Cb - 128)
/// in 16-bit fixed point (SCALEBITS 16, FIX(x) = round(x * 65536)), the R and B terms rounded
/// on their own (+ONE_HALF, shift), the G term summed before one rounding shift, then clamped.
/// The SIMD version computes the same integer expressions in 32-bit lanes instead of looking
/// up the tables, so it is bit-exact with them by construction (and tested on a dense grid).
@usableFromInline
enum ColorConvert {
    @inlinable static var scaleBits: Int32 { 16 }
    @inlinable static var oneHalf: Int32 { 1 << 15 }
    @inlinable static var fix1_40200: Int32 { 91881 }
    @inlinable static var fix1_77200: Int32 { 116130 }
    @inlinable static var fix0_71414: Int32 { 46802 }
    @inlinable static var fix0_34414: Int32 { 22554 }

    /// jdcolor.c build_ycc_rgb_table, indexed by the chroma sample 0...255.
    @usableFromInline static let crR: [Int32] = (0..<256).map { (fix1_40200 * Int32($0 - 128) + oneHalf) >> scaleBits }
    @usableFromInline static let cbB: [Int32] = (0..<256).map { (fix1_77200 * Int32($0 - 128) + oneHalf) >> scaleBits }
    @usableFromInline static let crG: [Int32] = (0..<256).map { -fix0_71414 * Int32($0 - 128) }
    @usableFromInline static let cbG: [Int32] = (0..<256).map { -fix0_34414 * Int32($0 - 128) + oneHalf }

    @inlinable @inline(__always)
    static func clamp(_ v: Int32) -> UInt8 { UInt8(truncatingIfNeeded: min(max(v, 0), 255)) }

    /// YCbCr planes -> interleaved RGB (3 bytes a pixel).
    @usableFromInline
    static func yccToRGB(y: UnsafePointer<UInt8>, cb: UnsafePointer<UInt8>, cr: UnsafePointer<UInt8>, count: Int,
                         rgb: UnsafeMutablePointer<UInt8>) {
        yccToPixels(y: y, cb: cb, cr: cr, count: count, out: rgb, alpha: false, useSIMD: true)
    }

    /// YCbCr planes -> interleaved RGBA (4 bytes a pixel, alpha 255).
    @usableFromInline
    static func yccToRGBA(y: UnsafePointer<UInt8>, cb: UnsafePointer<UInt8>, cr: UnsafePointer<UInt8>, count: Int,
                          rgba: UnsafeMutablePointer<UInt8>) {
        yccToPixels(y: y, cb: cb, cr: cr, count: count, out: rgba, alpha: true, useSIMD: true)
    }

    /// Shared body; `useSIMD: false` runs the table-driven scalar reference on every pixel.
    @usableFromInline
    static func yccToPixels(y: UnsafePointer<UInt8>, cb: UnsafePointer<UInt8>, cr: UnsafePointer<UInt8>, count: Int,
                            out: UnsafeMutablePointer<UInt8>, alpha: Bool, useSIMD: Bool) {
        guard count > 0 else { return }
        var i = 0
        if useSIMD {
            i = alpha ? yccToRGBASIMD(y: y, cb: cb, cr: cr, count: count, rgba: out)
                      : yccToRGBSIMD(y: y, cb: cb, cr: cr, count: count, rgb: out)
        }
        let bpp = alpha ? 4 : 3
        crR.withUnsafeBufferPointer { crR in
            cbB.withUnsafeBufferPointer { cbB in
                crG.withUnsafeBufferPointer { crG in
                    cbG.withUnsafeBufferPointer { cbG in
                        while i < count {
                            let l = Int32(y[i]), b = Int(cb[i]), r = Int(cr[i])
                            let o = out + i * bpp
                            o[0] = clamp(l &+ crR[r])
                            o[1] = clamp(l &+ ((cbG[b] &+ crG[r]) >> scaleBits))
                            o[2] = clamp(l &+ cbB[b])
                            if alpha { o[3] = 255 }
                            i += 1
                        }
                    }
                }
            }
        }
    }

    /// The three chroma terms of 16 pixels in 32-bit lanes, exactly the table entries.
    @inline(__always)
    static func yccVectors(_ y: UnsafePointer<UInt8>, _ cb: UnsafePointer<UInt8>, _ cr: UnsafePointer<UInt8>)
        -> (SIMD16<Int32>, SIMD16<Int32>, SIMD16<Int32>) {
        let l = SIMD16<Int32>(truncatingIfNeeded: UnsafeRawPointer(y).loadUnaligned(as: SIMD16<UInt8>.self))
        let b = SIMD16<Int32>(truncatingIfNeeded: UnsafeRawPointer(cb).loadUnaligned(as: SIMD16<UInt8>.self)) &- 128
        let r = SIMD16<Int32>(truncatingIfNeeded: UnsafeRawPointer(cr).loadUnaligned(as: SIMD16<UInt8>.self)) &- 128
        let half = SIMD16<Int32>(repeating: oneHalf)
        let red = l &+ ((r &* fix1_40200 &+ half) &>> scaleBits)
        let green = l &+ ((half &- b &* fix0_34414 &- r &* fix0_71414) &>> scaleBits)
        let blue = l &+ ((b &* fix1_77200 &+ half) &>> scaleBits)
        let lo = SIMD16<Int32>(repeating: 0), hi = SIMD16<Int32>(repeating: 255)
        return (red.clamped(lowerBound: lo, upperBound: hi),
                green.clamped(lowerBound: lo, upperBound: hi),
                blue.clamped(lowerBound: lo, upperBound: hi))
    }

    /// 16 pixels a step; returns how many pixels it converted (a multiple of 16). Each pixel is
    /// packed into a 32-bit lane and written with an unaligned 4-byte store at 3 bytes a pixel,
    /// the next store overwriting the spare byte; the last pixel of a step is written bytewise so
    /// nothing lands past the step's 48 bytes.
    static func yccToRGBSIMD(y: UnsafePointer<UInt8>, cb: UnsafePointer<UInt8>, cr: UnsafePointer<UInt8>, count: Int,
                             rgb: UnsafeMutablePointer<UInt8>) -> Int {
        #if _endian(little)
        var i = 0
        while i + 16 <= count {
            let (r, g, b) = yccVectors(y + i, cb + i, cr + i)
            let packed = SIMD16<UInt32>(truncatingIfNeeded: r | (g &<< 8) | (b &<< 16))
            let o = UnsafeMutableRawPointer(rgb + 3 * i)
            for k in 0..<15 { o.storeBytes(of: packed[k], toByteOffset: 3 * k, as: UInt32.self) }
            o.storeBytes(of: UInt8(truncatingIfNeeded: packed[15]), toByteOffset: 45, as: UInt8.self)
            o.storeBytes(of: UInt8(truncatingIfNeeded: packed[15] >> 8), toByteOffset: 46, as: UInt8.self)
            o.storeBytes(of: UInt8(truncatingIfNeeded: packed[15] >> 16), toByteOffset: 47, as: UInt8.self)
            i += 16
        }
        return i
        #else
        return 0
        #endif
    }

    /// 16 pixels a step, each packed into one 32-bit lane (R | G<<8 | B<<16 | 255<<24), which
    /// little-endian memory lays out as R, G, B, A.
    static func yccToRGBASIMD(y: UnsafePointer<UInt8>, cb: UnsafePointer<UInt8>, cr: UnsafePointer<UInt8>, count: Int,
                              rgba: UnsafeMutablePointer<UInt8>) -> Int {
        #if _endian(little)
        var i = 0
        let opaque = SIMD16<UInt32>(repeating: 0xFF00_0000)
        while i + 16 <= count {
            let (r, g, b) = yccVectors(y + i, cb + i, cr + i)
            let packed = SIMD16<UInt32>(truncatingIfNeeded: r | (g &<< 8) | (b &<< 16)) | opaque
            UnsafeMutableRawPointer(rgba + 4 * i).storeBytes(of: packed, as: SIMD16<UInt32>.self)
            i += 16
        }
        return i
        #else
        return 0
        #endif
    }

    /// Three planes interleaved as RGB (Adobe transform 0, or component ids 'R', 'G', 'B').
    @usableFromInline
    static func interleaveRGB(r: UnsafePointer<UInt8>, g: UnsafePointer<UInt8>, b: UnsafePointer<UInt8>, count: Int,
                              rgb: UnsafeMutablePointer<UInt8>) {
        for i in 0..<max(count, 0) {
            rgb[3 * i] = r[i]
            rgb[3 * i + 1] = g[i]
            rgb[3 * i + 2] = b[i]
        }
    }

    /// YCCK -> CMYK as jdcolor.c ycck_cmyk_convert: Y, Cb, Cr go through the YCbCr -> RGB
    /// equations and are inverted (C = 255 - R, ...), K is copied. The result keeps the Adobe
    /// inverted sense of the stored K, as libjpeg's CMYK output does.
    @usableFromInline
    static func ycckToCMYK(y: UnsafePointer<UInt8>, cb: UnsafePointer<UInt8>, cr: UnsafePointer<UInt8>,
                           k: UnsafePointer<UInt8>, count: Int, cmyk: UnsafeMutablePointer<UInt8>) {
        crR.withUnsafeBufferPointer { crR in
            cbB.withUnsafeBufferPointer { cbB in
                crG.withUnsafeBufferPointer { crG in
                    cbG.withUnsafeBufferPointer { cbG in
                        for i in 0..<max(count, 0) {
                            let l = Int32(y[i]), b = Int(cb[i]), r = Int(cr[i])
                            let o = cmyk + 4 * i
                            o[0] = 255 &- clamp(l &+ crR[r])
                            o[1] = 255 &- clamp(l &+ ((cbG[b] &+ crG[r]) >> scaleBits))
                            o[2] = 255 &- clamp(l &+ cbB[b])
                            o[3] = k[i]
                        }
                    }
                }
            }
        }
    }

    /// CMYK -> RGB by the rule Pillow and browsers apply to Adobe CMYK JPEGs: on inverted values
    /// (255 = no ink), R = C * K / 255, rounded to nearest. `inverted` says the samples are stored
    /// inverted (Adobe APP14 present, as Photoshop writes them); otherwise they are inverted first.
    @usableFromInline
    static func cmykToRGB(cmyk: UnsafePointer<UInt8>, count: Int, inverted: Bool, rgb: UnsafeMutablePointer<UInt8>) {
        let flip: UInt32 = inverted ? 0 : 255
        @inline(__always) func scale(_ a: UInt32, _ k: UInt32) -> UInt8 {
            // Exact round(a * k / 255) for a, k in 0...255.
            let t = a &* k &+ 128
            return UInt8(truncatingIfNeeded: (t &+ (t >> 8)) >> 8)
        }
        for i in 0..<max(count, 0) {
            let p = cmyk + 4 * i
            let k = UInt32(p[3]) ^ flip
            rgb[3 * i] = scale(UInt32(p[0]) ^ flip, k)
            rgb[3 * i + 1] = scale(UInt32(p[1]) ^ flip, k)
            rgb[3 * i + 2] = scale(UInt32(p[2]) ^ flip, k)
        }
    }
}
