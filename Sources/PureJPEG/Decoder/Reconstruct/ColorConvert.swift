import ImageCore

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

    /// R, G, B of 16 pixels before clamping: lanes of `e` are pixels 0, 2, ..., 14 and lanes of
    /// `o` pixels 1, 3, ..., 15. Sixteen bytes loaded as eight 16-bit lanes give the even samples
    /// (masked) and the odd ones (shifted down) already widened.
    ///
    /// The table entries are rebuilt with libjpeg-turbo's SSE2 split (jdcolext-sse2):
    /// 1.402 = 1 + 0.402 and 1.772 = 2 - 0.228, so R = Y + Cr' + t(26345, Cr') and
    /// B = Y + 2 Cb' + t(-14942, Cb'), where t(c, x) = ((2x * c) >> 16 + 1) >> 1 is one `pmulhw`
    /// and equals floor((x * c + 32768) / 65536), the rounding of the tables. G uses
    /// -0.71414 = 0.28586 - 1: G = Y - Cr' + ((-22554 Cb' + 18734 Cr' + 32768) >> 16), the two
    /// products summed in 32 bits before the one rounding shift as jdcolor.c does (`pmaddwd`).
    /// Every intermediate fits its lanes: |2x * c| < 2^23, G's sum < 2^23.
    @inline(__always)
    static func yccVectors16(_ y: UnsafePointer<UInt8>, _ cb: UnsafePointer<UInt8>, _ cr: UnsafePointer<UInt8>)
        -> (e: (SIMD8<Int16>, SIMD8<Int16>, SIMD8<Int16>), o: (SIMD8<Int16>, SIMD8<Int16>, SIMD8<Int16>)) {
        typealias H = SIMD8<Int16>
        typealias V = SIMD8<Int32>
        @inline(__always) func load(_ p: UnsafePointer<UInt8>) -> H {
            UnsafeRawPointer(p).loadUnaligned(as: H.self)
        }
        // Widening and narrowing lane by lane: the generic SIMD conversions are calls here.
        @inline(__always) func wide(_ x: H) -> V {
            V(Int32(x[0]), Int32(x[1]), Int32(x[2]), Int32(x[3]), Int32(x[4]), Int32(x[5]), Int32(x[6]), Int32(x[7]))
        }
        @inline(__always) func high(_ v: V) -> H {
            let s = v &>> 16
            return H(Int16(truncatingIfNeeded: s[0]), Int16(truncatingIfNeeded: s[1]), Int16(truncatingIfNeeded: s[2]),
                     Int16(truncatingIfNeeded: s[3]), Int16(truncatingIfNeeded: s[4]), Int16(truncatingIfNeeded: s[5]),
                     Int16(truncatingIfNeeded: s[6]), Int16(truncatingIfNeeded: s[7]))
        }
        @inline(__always) func rounded(_ x: H, _ c: Int32) -> H {
            (high(wide(x &+ x) &* c) &+ 1) &>> 1
        }
        @inline(__always) func pixels(_ l: H, _ b: H, _ r: H) -> (H, H, H) {
            let red = l &+ r &+ rounded(r, 26345)
            let blue = l &+ (b &+ b) &+ rounded(b, -14942)
            let green = l &- r &+ high(wide(b) &* -22554 &+ wide(r) &* 18734 &+ 32768)
            return (red, green, blue)
        }
        let l = load(y), b = load(cb), r = load(cr)
        let low = H(repeating: 255), center = H(repeating: 128)
        let even = pixels(l & low, (b & low) &- center, (r & low) &- center)
        let odd = pixels(unsafeBitCast(unsafeBitCast(l, to: SIMD8<UInt16>.self) &>> 8, to: H.self),
                         unsafeBitCast(unsafeBitCast(b, to: SIMD8<UInt16>.self) &>> 8, to: H.self) &- center,
                         unsafeBitCast(unsafeBitCast(r, to: SIMD8<UInt16>.self) &>> 8, to: H.self) &- center)
        return (even, odd)
    }

    /// `a` then `b`, each lane clamped to 0...255, as 16 bytes: one `packuswb` (LLVM folds the
    /// clamp into the saturating pack).
    @inline(__always)
    static func packClamped(_ a: SIMD8<Int16>, _ b: SIMD8<Int16>) -> SIMD16<UInt8> {
        @inline(__always) func clamp(_ v: SIMD8<Int16>) -> SIMD8<Int16> {
            let u = v & ~(v &>> 15)
            return (u | ((255 &- u) &>> 15)) & 255
        }
        return SIMD16<UInt8>(truncatingLanesOf: clamp(a), clamp(b))
    }

    /// Byte k of the low half and byte k of the high half as word k (`punpcklbw` of the vector
    /// with its high half). Vectors built from lanes of other vectors at constant indices are
    /// how Swift's SIMD types reach the SSE2 shuffles.
    @inline(__always)
    static func zipHalves(_ p: SIMD16<UInt8>) -> SIMD8<UInt16> {
        unsafeBitCast(SIMD16<UInt8>(p[0], p[8], p[1], p[9], p[2], p[10], p[3], p[11],
                                    p[4], p[12], p[5], p[13], p[6], p[14], p[7], p[15]), to: SIMD8<UInt16>.self)
    }

    /// Words k of `a` and `b` as 32-bit lane k (`punpcklwd`), for k in 0...3 (`high`: 4...7).
    @inline(__always)
    static func zipWords(_ a: SIMD8<UInt16>, _ b: SIMD8<UInt16>, high: Bool) -> SIMD4<UInt32> {
        let w = high ? SIMD8<UInt16>(a[4], b[4], a[5], b[5], a[6], b[6], a[7], b[7])
                     : SIMD8<UInt16>(a[0], b[0], a[1], b[1], a[2], b[2], a[3], b[3])
        return unsafeBitCast(w, to: SIMD4<UInt32>.self)
    }

    /// 32-bit lanes k of `a` and `b` as 64-bit lane k (`punpckldq`), k in 0...1 (`high`: 2...3).
    @inline(__always)
    static func zipWords(_ a: SIMD4<UInt32>, _ b: SIMD4<UInt32>, high: Bool) -> SIMD2<UInt64> {
        let w = high ? SIMD4<UInt32>(a[2], b[2], a[3], b[3]) : SIMD4<UInt32>(a[0], b[0], a[1], b[1])
        return unsafeBitCast(w, to: SIMD2<UInt64>.self)
    }

    /// 16 pixels a step, the last step overlapping the one before; returns how many pixels it
    /// converted (all, all but a single last pixel, or none below 16). Pixel pair k
    /// (pixels 2k, 2k+1) is three words R G | B R | G B (`rg`, `br`, `gb` below, each from one
    /// saturating pack); interleaving the words (two `punpck` rounds) puts each pair's six bytes
    /// in one 64-bit lane, written with an 8-byte store at byte 6k. The last store runs 2 bytes
    /// into pixel 16, so a step runs only while one more pixel follows (written again by the
    /// next step); the final step writes its last pair with a 4- and a 2-byte store instead.
    static func yccToRGBSIMD(y: UnsafePointer<UInt8>, cb: UnsafePointer<UInt8>, cr: UnsafePointer<UInt8>, count: Int,
                             rgb: UnsafeMutablePointer<UInt8>) -> Int {
        #if _endian(little)
        @inline(__always) func step(_ i: Int, last: Bool) {
            let (e, o) = yccVectors16(y + i, cb + i, cr + i)
            let rg = zipHalves(packClamped(e.0, e.1))
            let br = zipHalves(packClamped(e.2, o.0))
            let gb = zipHalves(packClamped(o.1, o.2))
            let zero = SIMD8<UInt16>()
            let ab0 = zipWords(rg, br, high: false), ab1 = zipWords(rg, br, high: true)
            let c0 = zipWords(gb, zero, high: false), c1 = zipWords(gb, zero, high: true)
            let p01 = zipWords(ab0, c0, high: false), p23 = zipWords(ab0, c0, high: true)
            let p45 = zipWords(ab1, c1, high: false), p67 = zipWords(ab1, c1, high: true)
            let out = UnsafeMutableRawPointer(rgb + 3 &* i)
            out.storeBytes(of: p01[0], as: UInt64.self)
            out.storeBytes(of: p01[1], toByteOffset: 6, as: UInt64.self)
            out.storeBytes(of: p23[0], toByteOffset: 12, as: UInt64.self)
            out.storeBytes(of: p23[1], toByteOffset: 18, as: UInt64.self)
            out.storeBytes(of: p45[0], toByteOffset: 24, as: UInt64.self)
            out.storeBytes(of: p45[1], toByteOffset: 30, as: UInt64.self)
            out.storeBytes(of: p67[0], toByteOffset: 36, as: UInt64.self)
            if last {
                out.storeBytes(of: UInt32(truncatingIfNeeded: p67[1]), toByteOffset: 42, as: UInt32.self)
                out.storeBytes(of: UInt16(truncatingIfNeeded: p67[1] &>> 32), toByteOffset: 46, as: UInt16.self)
            } else {
                out.storeBytes(of: p67[1], toByteOffset: 42, as: UInt64.self)
            }
        }
        var i = 0
        while i &+ 17 <= count {
            step(i, last: false)
            i &+= 16
        }
        // The last pixels: a step overlapping the previous one (same values rewritten, and the
        // two bytes the previous step ran into its next pixel); a single last pixel is left to
        // the scalar code, which costs less than a whole step.
        if i < count &- 1 && count >= 16 {
            step(count &- 16, last: true)
            i = count
        }
        return i
        #else
        return 0
        #endif
    }

    /// 16 pixels a step (the last overlapping the one before; returns the pixels converted,
    /// all or none below 16): words R G and B 255 of the even and of the odd pixels, interleaved
    /// into 32-bit pixels (pixels 2k from the even words, 2k+1 from the odd ones), then even and
    /// odd pixels interleaved, four 16-byte stores.
    static func yccToRGBASIMD(y: UnsafePointer<UInt8>, cb: UnsafePointer<UInt8>, cr: UnsafePointer<UInt8>, count: Int,
                              rgba: UnsafeMutablePointer<UInt8>) -> Int {
        #if _endian(little)
        let opaque = SIMD8<Int16>(repeating: 255)
        @inline(__always) func step(_ i: Int) {
            let (e, o) = yccVectors16(y + i, cb + i, cr + i)
            let rgE = zipHalves(packClamped(e.0, e.1)), baE = zipHalves(packClamped(e.2, opaque))
            let rgO = zipHalves(packClamped(o.0, o.1)), baO = zipHalves(packClamped(o.2, opaque))
            let even0 = zipWords(rgE, baE, high: false), even1 = zipWords(rgE, baE, high: true)
            let odd0 = zipWords(rgO, baO, high: false), odd1 = zipWords(rgO, baO, high: true)
            let out = UnsafeMutableRawPointer(rgba + 4 &* i)
            out.storeBytes(of: zipWords(even0, odd0, high: false), as: SIMD2<UInt64>.self)
            out.storeBytes(of: zipWords(even0, odd0, high: true), toByteOffset: 16, as: SIMD2<UInt64>.self)
            out.storeBytes(of: zipWords(even1, odd1, high: false), toByteOffset: 32, as: SIMD2<UInt64>.self)
            out.storeBytes(of: zipWords(even1, odd1, high: true), toByteOffset: 48, as: SIMD2<UInt64>.self)
        }
        var i = 0
        while i &+ 16 <= count {
            step(i)
            i &+= 16
        }
        if i < count && count >= 16 {
            step(count &- 16)
            i = count
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

    /// CMYK -> RGB as djpeg (libjpeg-turbo's `cmyk_to_rgb`), Pillow and browsers convert every
    /// 4-component JPEG, with or without an Adobe APP14 marker: the samples are taken as stored
    /// inverted (255 = no ink, as Photoshop writes them) and R = C * K / 255, rounded to nearest.
    @usableFromInline
    static func cmykToRGB(cmyk: UnsafePointer<UInt8>, count: Int, rgb: UnsafeMutablePointer<UInt8>) {
        @inline(__always) func scale(_ a: UInt32, _ k: UInt32) -> UInt8 {
            // Exact round(a * k / 255) for a, k in 0...255.
            let t = a &* k &+ 128
            return UInt8(truncatingIfNeeded: (t &+ (t >> 8)) >> 8)
        }
        for i in 0..<max(count, 0) {
            let p = cmyk + 4 * i
            let k = UInt32(p[3])
            rgb[3 * i] = scale(UInt32(p[0]), k)
            rgb[3 * i + 1] = scale(UInt32(p[1]), k)
            rgb[3 * i + 2] = scale(UInt32(p[2]), k)
        }
    }
}
