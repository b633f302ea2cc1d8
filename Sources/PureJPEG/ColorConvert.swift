/// Colour conversion of decoded planes to interleaved pixels.
///
/// YCbCr -> RGB is libjpeg's jdcolor.c `ycc_rgb_convert`, bit-exact: JFIF's equations
/// (R = Y + 1.402 Cr', G = Y - 0.34414 Cb' - 0.71414 Cr', B = Y + 1.772 Cb', with Cb' = Cb - 128)
/// in 16-bit fixed point (SCALEBITS 16, FIX(x) = round(x * 65536)), the R and B terms rounded
/// on their own (+ONE_HALF, shift), the G term summed before one rounding shift, then clamped.
/// The SIMD version computes the same integer expressions in 16-bit lanes (see ``yccVectors16``)
/// instead of looking up the tables, bit-exact with them (tested on every (Cb, Cr) pair).
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

    /// R, G, B of 16 pixels, exactly the table entries, clamped to 0...255: lanes of `e` are
    /// pixels 0, 2, ..., 14 and lanes of `o` pixels 1, 3, ..., 15.
    ///
    /// Only concrete SIMD8<Int16> operators are used (pmullw, paddw, psraw, psrlw, pand, por):
    /// the generic conversions and `pointwiseMin/Max` are not inlined into this module and cost
    /// a call per vector. Loading 16 bytes as eight 16-bit lanes and masking or shifting them
    /// gives the even and odd pixels already widened.
    ///
    /// Each product x * c with 8-bit x and a 17-bit table constant is rebuilt in 16 bits. First
    /// whole multiples of 65536 leave the rounding shift unchanged: 91881 = 65536 + 26345,
    /// 116130 = 2 * 65536 - 14942, -46802 = -65536 + 18734. Then the remaining constant is split
    /// as c = 256 * ch + cl with cl in -128...127, and floor((x*c + 32768) / 65536) equals
    /// floor((x*ch + floor((x*cl + 32768) / 256)) / 256), where x*cl + 32768 stays in 0...65535
    /// (read as unsigned) and every other term fits Int16. The G term sums both products before
    /// its single rounding, as jdcolor.c does.
    @inline(__always)
    static func yccVectors16(_ y: UnsafePointer<UInt8>, _ cb: UnsafePointer<UInt8>, _ cr: UnsafePointer<UInt8>)
        -> (e: (SIMD8<Int16>, SIMD8<Int16>, SIMD8<Int16>), o: (SIMD8<Int16>, SIMD8<Int16>, SIMD8<Int16>)) {
        typealias H = SIMD8<Int16>
        @inline(__always) func load(_ p: UnsafePointer<UInt8>) -> H {
            UnsafeRawPointer(p).loadUnaligned(as: H.self)
        }
        // floor((256 * a + b) / 65536) for b = x*cl + 32768 taken as unsigned.
        @inline(__always) func round(_ a: H, _ b: H) -> H {
            let low = unsafeBitCast(unsafeBitCast(b, to: SIMD8<UInt16>.self) &>> 8, to: H.self)
            return (a &+ low) &>> 8
        }
        @inline(__always) func clamp(_ v: H) -> H {
            let u = v & ~(v &>> 15)
            return (u | ((255 &- u) &>> 15)) & 255
        }
        let bias = H(repeating: -32768)
        @inline(__always) func pixels(_ l: H, _ b: H, _ r: H) -> (H, H, H) {
            let red = l &+ r &+ round(r &* 103, r &* -23 &+ bias)
            let blue = l &+ (b &+ b) &+ round(b &* -58, b &* -94 &+ bias)
            let green = l &- r &+ round(b &* -88 &+ r &* 73, b &* -26 &+ r &* 46 &+ bias)
            return (clamp(red), clamp(green), clamp(blue))
        }
        let l = load(y), b = load(cb), r = load(cr)
        let low = H(repeating: 255), center = H(repeating: 128)
        let even = pixels(l & low, (b & low) &- center, (r & low) &- center)
        let odd = pixels(unsafeBitCast(unsafeBitCast(l, to: SIMD8<UInt16>.self) &>> 8, to: H.self),
                         unsafeBitCast(unsafeBitCast(b, to: SIMD8<UInt16>.self) &>> 8, to: H.self) &- center,
                         unsafeBitCast(unsafeBitCast(r, to: SIMD8<UInt16>.self) &>> 8, to: H.self) &- center)
        return (even, odd)
    }

    /// 16 pixels a step; returns how many pixels it converted (a multiple of 16). Pixel pair k
    /// (pixels 2k, 2k+1) is three 16-bit words R G | B R | G B; masks and shifts on 32- and
    /// 64-bit views of the vectors gather each pair's words into one 64-bit lane, written with
    /// an 8-byte store at byte 6k. The last store runs 2 bytes into pixel 16, so a step runs
    /// only while one more pixel follows (written later by the next step or the scalar tail).
    /// Few lane extractions keep LLVM from scalarizing the clamps.
    static func yccToRGBSIMD(y: UnsafePointer<UInt8>, cb: UnsafePointer<UInt8>, cr: UnsafePointer<UInt8>, count: Int,
                             rgb: UnsafeMutablePointer<UInt8>) -> Int {
        #if _endian(little)
        var i = 0
        let mask16 = SIMD4<UInt32>(repeating: 0xFFFF), mask32 = SIMD2<UInt64>(repeating: 0xFFFF_FFFF)
        while i &+ 17 <= count {
            let (e, o) = yccVectors16(y + i, cb + i, cr + i)
            let first = unsafeBitCast(e.0 | (e.1 &<< 8), to: SIMD4<UInt32>.self)
            let second = unsafeBitCast(e.2 | (o.0 &<< 8), to: SIMD4<UInt32>.self)
            let third = unsafeBitCast(o.1 | (o.2 &<< 8), to: SIMD4<UInt32>.self)
            // 32-bit lane m: words of pair 2m (evenAB, evenC) and pair 2m+1 (oddAB, oddC).
            let evenAB = unsafeBitCast((first & mask16) | (second &<< 16), to: SIMD2<UInt64>.self)
            let oddAB = unsafeBitCast((first &>> 16) | (second & ~mask16), to: SIMD2<UInt64>.self)
            let evenC = unsafeBitCast(third & mask16, to: SIMD2<UInt64>.self)
            let oddC = unsafeBitCast(third &>> 16, to: SIMD2<UInt64>.self)
            // 64-bit lane n: pairs 4n (p0), 4n+1 (p1), 4n+2 (p2), 4n+3 (p3).
            let p0 = (evenAB & mask32) | (evenC &<< 32), p2 = (evenAB &>> 32) | (evenC & ~mask32)
            let p1 = (oddAB & mask32) | (oddC &<< 32), p3 = (oddAB &>> 32) | (oddC & ~mask32)
            let out = UnsafeMutableRawPointer(rgb + 3 &* i)
            out.storeBytes(of: p0[0], as: UInt64.self)
            out.storeBytes(of: p1[0], toByteOffset: 6, as: UInt64.self)
            out.storeBytes(of: p2[0], toByteOffset: 12, as: UInt64.self)
            out.storeBytes(of: p3[0], toByteOffset: 18, as: UInt64.self)
            out.storeBytes(of: p0[1], toByteOffset: 24, as: UInt64.self)
            out.storeBytes(of: p1[1], toByteOffset: 30, as: UInt64.self)
            out.storeBytes(of: p2[1], toByteOffset: 36, as: UInt64.self)
            out.storeBytes(of: p3[1], toByteOffset: 42, as: UInt64.self)
            i &+= 16
        }
        return i
        #else
        return 0
        #endif
    }

    /// 16 pixels a step: pixel 2k is R G | B 255 from the even lanes, pixel 2k+1 the same from
    /// the odd lanes, stored as 32-bit words.
    static func yccToRGBASIMD(y: UnsafePointer<UInt8>, cb: UnsafePointer<UInt8>, cr: UnsafePointer<UInt8>, count: Int,
                              rgba: UnsafeMutablePointer<UInt8>) -> Int {
        #if _endian(little)
        var i = 0
        let opaque = SIMD8<Int16>(repeating: -256)
        while i &+ 16 <= count {
            let (e, o) = yccVectors16(y + i, cb + i, cr + i)
            let evenRG = unsafeBitCast(e.0 | (e.1 &<< 8), to: SIMD4<UInt32>.self)
            let evenBA = unsafeBitCast(e.2 | opaque, to: SIMD4<UInt32>.self)
            let oddRG = unsafeBitCast(o.0 | (o.1 &<< 8), to: SIMD4<UInt32>.self)
            let oddBA = unsafeBitCast(o.2 | opaque, to: SIMD4<UInt32>.self)
            let mask = SIMD4<UInt32>(repeating: 0xFFFF)
            // Pixels 4m and 4m+2 (even lanes 2m, 2m+1), pixels 4m+1 and 4m+3 (odd lanes).
            let p0 = (evenRG & mask) | (evenBA &<< 16), p2 = (evenRG &>> 16) | (evenBA & ~mask)
            let p1 = (oddRG & mask) | (oddBA &<< 16), p3 = (oddRG &>> 16) | (oddBA & ~mask)
            let o8 = UnsafeMutableRawPointer(rgba + 4 &* i)
            for m in 0 ..< 4 {
                o8.storeBytes(of: p0[m], toByteOffset: 16 &* m, as: UInt32.self)
                o8.storeBytes(of: p1[m], toByteOffset: 16 &* m &+ 4, as: UInt32.self)
                o8.storeBytes(of: p2[m], toByteOffset: 16 &* m &+ 8, as: UInt32.self)
                o8.storeBytes(of: p3[m], toByteOffset: 16 &* m &+ 12, as: UInt32.self)
            }
            i &+= 16
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
