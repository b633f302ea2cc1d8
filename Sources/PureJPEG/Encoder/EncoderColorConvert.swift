/// RGB to YCbCr (JFIF / T.871 equations) in the 16-bit fixed point of libjpeg's
/// `rgb_ycc_convert` (jccolor.c), so that our planes equal cjpeg's sample for sample:
///
///     Y  = ( 19595 R + 38470 G +  7471 B + 32768) >> 16
///     Cb = (-11059 R - 21709 G + 32768 B + (128 << 16) + 32767) >> 16
///     Cr = ( 32768 R - 27439 G -  5329 B + (128 << 16) + 32767) >> 16
///
/// The chroma rounding constant is one half minus one unit so that the largest result is 255,
/// never 256, with no clamp. Each entry point has a plain scalar reference that the fast
/// versions are tested against: the table form, ``rgbToYCbCrRGB16(_:count:y:cb:cr:)`` (packed
/// RGB in 16-bit lanes, the pipeline's path) and ``rgbToGray(_:pixelStride:count:y:)`` (eight
/// gathered pixels in 32-bit lanes).
enum EncoderColorConvert {
    static let yR: UInt32 = 19595, yG: UInt32 = 38470, yB: UInt32 = 7471
    static let cbR: UInt32 = 11059, cbG: UInt32 = 21709
    static let crG: UInt32 = 27439, crB: UInt32 = 5329
    static let half: UInt32 = 32768
    static let chromaOffset: UInt32 = (128 << 16) + 32767

    // MARK: Scalar references

    /// Converts `count` pixels of interleaved R, G, B (`pixelStride` bytes apart) to three planes.
    static func rgbToYCbCrScalar(_ src: UnsafePointer<UInt8>, pixelStride: Int, count: Int,
                                 y: UnsafeMutablePointer<UInt8>, cb: UnsafeMutablePointer<UInt8>,
                                 cr: UnsafeMutablePointer<UInt8>) {
        var p = src
        for i in 0 ..< count {
            let r = UInt32(p[0]), g = UInt32(p[1]), b = UInt32(p[2])
            y[i] = UInt8(truncatingIfNeeded: (yR &* r &+ yG &* g &+ yB &* b &+ half) >> 16)
            cb[i] = UInt8(truncatingIfNeeded: (half &* b &+ chromaOffset &- cbR &* r &- cbG &* g) >> 16)
            cr[i] = UInt8(truncatingIfNeeded: (half &* r &+ chromaOffset &- crG &* g &- crB &* b) >> 16)
            p += pixelStride
        }
    }

    /// Luma only (libjpeg `rgb_gray_convert`: the same Y as above).
    static func rgbToGrayScalar(_ src: UnsafePointer<UInt8>, pixelStride: Int, count: Int,
                                y: UnsafeMutablePointer<UInt8>) {
        var p = src
        for i in 0 ..< count {
            let r = UInt32(p[0]), g = UInt32(p[1]), b = UInt32(p[2])
            y[i] = UInt8(truncatingIfNeeded: (yR &* r &+ yG &* g &+ yB &* b &+ half) >> 16)
            p += pixelStride
        }
    }

    // MARK: Table-driven (the pipeline's choice)

    /// Per input value, for R (0..<256), G (256..<512), B (512..<768): the Y term in the low 32
    /// bits and the Cb term in the high 32. Negative terms are stored as `c * (255 - v)`, the
    /// constant they lose folded into the offset (the weights of each row sum to 65536, so the
    /// offset comes to 65535), keeping every field positive and below 2^24: fields never carry
    /// into each other, and three table loads and two adds give Y and Cb at once.
    static let yCbTable: [UInt64] = (0 ..< 768).map { i in
        let v = UInt64(i & 255)
        switch i >> 8 {
        case 0: return UInt64(yR) * v | (UInt64(cbR) * (255 - v)) << 32
        case 1: return UInt64(yG) * v | (UInt64(cbG) * (255 - v)) << 32
        default: return (UInt64(yB) * v + UInt64(half)) | (UInt64(half) * v + 65535) << 32
        }
    }

    /// The Cr terms, likewise.
    static let crTable: [UInt32] = (0 ..< 768).map { i in
        let v = UInt32(i & 255)
        switch i >> 8 {
        case 0: return half * v + 65535
        case 1: return crG * (255 - v)
        default: return crB * (255 - v)
        }
    }

    static func rgbToYCbCrTable(_ src: UnsafePointer<UInt8>, pixelStride: Int, count: Int,
                                y: UnsafeMutablePointer<UInt8>, cb: UnsafeMutablePointer<UInt8>,
                                cr: UnsafeMutablePointer<UInt8>) {
        yCbTable.withUnsafeBufferPointer { tb in
            crTable.withUnsafeBufferPointer { tc in
                guard let t = tb.baseAddress, let c = tc.baseAddress else { return }
                var p = src
                for i in 0 ..< count {
                    let r = Int(p[0]), g = Int(p[1]) &+ 256, b = Int(p[2]) &+ 512
                    let yc = t[r] &+ t[g] &+ t[b]
                    y[i] = UInt8(truncatingIfNeeded: yc &>> 16)
                    cb[i] = UInt8(truncatingIfNeeded: yc &>> 48)
                    cr[i] = UInt8(truncatingIfNeeded: (c[r] &+ c[g] &+ c[b]) &>> 16)
                    p += pixelStride
                }
            }
        }
    }

    static func rgbToGrayTable(_ src: UnsafePointer<UInt8>, pixelStride: Int, count: Int,
                               y: UnsafeMutablePointer<UInt8>) {
        yCbTable.withUnsafeBufferPointer { tb in
            guard let t = tb.baseAddress else { return }
            var p = src
            for i in 0 ..< count {
                y[i] = UInt8(truncatingIfNeeded: (t[Int(p[0])] &+ t[Int(p[1]) &+ 256] &+ t[Int(p[2]) &+ 512]) &>> 16)
                p += pixelStride
            }
        }
    }

    // MARK: SIMD

    @inline(__always)
    static func gather(_ p: UnsafePointer<UInt8>, _ s: Int) -> SIMD8<UInt32> {
        let v = SIMD8<UInt16>(UInt16(p[0]), UInt16(p[s]), UInt16(p[2 &* s]), UInt16(p[3 &* s]),
                              UInt16(p[4 &* s]), UInt16(p[5 &* s]), UInt16(p[6 &* s]), UInt16(p[7 &* s]))
        return SIMD8<UInt32>(truncatingIfNeeded: v)
    }

    @inline(__always)
    static func store(_ v: SIMD8<UInt32>, _ dst: UnsafeMutablePointer<UInt8>) {
        let bytes = SIMD8<UInt8>(truncatingIfNeeded: v &>> 16)
        UnsafeMutableRawPointer(dst).storeBytes(of: bytes, as: SIMD8<UInt8>.self)
    }

    /// The pipeline's converter: packed RGB (`pixelStride` 3) goes through
    /// ``rgbToYCbCrRGB16(_:count:y:cb:cr:)`` 16 pixels a step, the rest (and other strides)
    /// through the table form.
    static func rgbToYCbCr(_ src: UnsafePointer<UInt8>, pixelStride: Int, count: Int,
                           y: UnsafeMutablePointer<UInt8>, cb: UnsafeMutablePointer<UInt8>,
                           cr: UnsafeMutablePointer<UInt8>) {
        let done = pixelStride == 3 ? rgbToYCbCrRGB16(src, count: count, y: y, cb: cb, cr: cr) : 0
        if done < count {
            rgbToYCbCrTable(src + done &* pixelStride, pixelStride: pixelStride, count: count &- done,
                            y: y + done, cb: cb + done, cr: cr + done)
        }
    }

    /// Y, Cb, Cr of eight pixels in 16-bit lanes (samples 0...255), equal to the scalar
    /// formulas above. Negative terms are rewritten as `c * (255 - v)` (the weights of each
    /// chroma row sum to 32768, so the offset becomes 65535, as in ``yCbTable``): every term is
    /// then positive. Each weight is split as c = 256 * ch + cl (both under 256, so every
    /// product of a sample fits 16 bits); with A = sum ch * v, L = sum cl * v and the offset
    /// K = 256 * kh + kl,
    ///
    ///     floor((256 * A + L + K) / 65536) = floor((A + kh + floor((L + kl) / 256)) / 256)
    ///
    /// exactly. The ch of each row sum to 255 and the cl to 256, so A <= 255 * 255,
    /// L <= 256 * 255, and with kh, kl <= 255 no sum passes 65535 (checked for all 2^24
    /// colours when this was written; the test compares against the scalar reference).
    @inline(__always)
    static func ycc8(_ r: SIMD8<UInt16>, _ g: SIMD8<UInt16>, _ b: SIMD8<UInt16>)
        -> (SIMD8<UInt16>, SIMD8<UInt16>, SIMD8<UInt16>) {
        let low = SIMD8<UInt16>(repeating: 255)
        // Y: 19595 = 76:139, 38470 = 150:70, 7471 = 29:47; K = 32768 (kh 128, kl 0).
        let ya = r &* 76 &+ g &* 150 &+ b &* 29
        let yl = r &* 139 &+ g &* 70 &+ b &* 47
        let luma = (ya &+ 128 &+ (yl &>> 8)) &>> 8
        let rn = r ^ low, gn = g ^ low, bn = b ^ low
        // Cb: 11059 (255 - R) = 43:51, 21709 (255 - G) = 84:205, 32768 B = 128:0; K = 65535.
        let ba = rn &* 43 &+ gn &* 84 &+ (b &<< 7)
        let bl = rn &* 51 &+ gn &* 205 &+ 255
        let blue = (ba &+ 255 &+ (bl &>> 8)) &>> 8
        // Cr: 32768 R = 128:0, 27439 (255 - G) = 107:47, 5329 (255 - B) = 20:209; K = 65535.
        let ra = (r &<< 7) &+ gn &* 107 &+ bn &* 20
        let rl = gn &* 47 &+ bn &* 209 &+ 255
        let red = (ra &+ 255 &+ (rl &>> 8)) &>> 8
        return (luma, blue, red)
    }

    /// Packed RGB, 16 pixels a step; returns how many pixels it converted (a multiple of 16).
    /// Pixel pair k (pixels 2k, 2k+1, bytes 6k ..< 6k+6) is three 16-bit words RG | BR | GB:
    /// the 48 bytes are read as three vectors of words and gathered into word j of pairs
    /// 0...7 (vector j) by one shuffle each, written lane by lane from constant lanes of the
    /// three vectors; LLVM lowers the three to about 50 instructions of 16-bit shuffles and
    /// masks (the earlier masks and shifts on 32- and 64-bit views over overlapping 8-byte
    /// loads took about 65). Each word's low and high bytes are then an even and an odd
    /// pixel's samples, and the results go back as `even | odd << 8`.
    static func rgbToYCbCrRGB16(_ src: UnsafePointer<UInt8>, count: Int, y: UnsafeMutablePointer<UInt8>,
                                cb: UnsafeMutablePointer<UInt8>, cr: UnsafeMutablePointer<UInt8>) -> Int {
        #if _endian(little)
        typealias U = SIMD8<UInt16>
        let low = U(repeating: 255)
        var i = 0
        while i &+ 16 <= count {
            let p = UnsafeRawPointer(src + i &* 3)
            let v0 = p.loadUnaligned(as: U.self), v1 = p.loadUnaligned(fromByteOffset: 16, as: U.self)
            let v2 = p.loadUnaligned(fromByteOffset: 32, as: U.self)
            let w0 = U(v0[0], v0[3], v0[6], v1[1], v1[4], v1[7], v2[2], v2[5])
            let w1 = U(v0[1], v0[4], v0[7], v1[2], v1[5], v2[0], v2[3], v2[6])
            let w2 = U(v0[2], v0[5], v1[0], v1[3], v1[6], v2[1], v2[4], v2[7])
            let even = ycc8(w0 & low, w0 &>> 8, w1 & low)
            let odd = ycc8(w1 &>> 8, w2 & low, w2 &>> 8)
            UnsafeMutableRawPointer(y + i).storeBytes(of: even.0 | (odd.0 &<< 8), as: U.self)
            UnsafeMutableRawPointer(cb + i).storeBytes(of: even.1 | (odd.1 &<< 8), as: U.self)
            UnsafeMutableRawPointer(cr + i).storeBytes(of: even.2 | (odd.2 &<< 8), as: U.self)
            i &+= 16
        }
        return i
        #else
        return 0
        #endif
    }

    static func rgbToGray(_ src: UnsafePointer<UInt8>, pixelStride: Int, count: Int,
                          y: UnsafeMutablePointer<UInt8>) {
        var i = 0
        var p = src
        let step = 8 &* pixelStride
        while i &+ 8 <= count {
            let r = gather(p, pixelStride), g = gather(p + 1, pixelStride), b = gather(p + 2, pixelStride)
            store(r &* yR &+ g &* yG &+ b &* yB &+ half, y + i)
            i &+= 8
            p += step
        }
        if i < count { rgbToGrayScalar(p, pixelStride: pixelStride, count: count &- i, y: y + i) }
    }
}
