/// RGB to YCbCr (JFIF / T.871 equations) in the 16-bit fixed point of libjpeg's
/// `rgb_ycc_convert` (jccolor.c), so that our planes equal cjpeg's sample for sample:
///
///     Y  = ( 19595 R + 38470 G +  7471 B + 32768) >> 16
///     Cb = (-11059 R - 21709 G + 32768 B + (128 << 16) + 32767) >> 16
///     Cr = ( 32768 R - 27439 G -  5329 B + (128 << 16) + 32767) >> 16
///
/// The chroma rounding constant is one half minus one unit so that the largest result is 255,
/// never 256, with no clamp. Each entry point has a plain scalar reference; the SIMD versions
/// work on eight pixels at a time in 32-bit lanes whose multiplicands are zero-extended 16-bit
/// values (so the compiler can use 16-bit multiplies) and are tested equal to the scalar ones.
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

    static func rgbToYCbCr(_ src: UnsafePointer<UInt8>, pixelStride: Int, count: Int,
                           y: UnsafeMutablePointer<UInt8>, cb: UnsafeMutablePointer<UInt8>,
                           cr: UnsafeMutablePointer<UInt8>) {
        var i = 0
        var p = src
        let step = 8 &* pixelStride
        while i &+ 8 <= count {
            let r = gather(p, pixelStride), g = gather(p + 1, pixelStride), b = gather(p + 2, pixelStride)
            store(r &* yR &+ g &* yG &+ b &* yB &+ half, y + i)
            store(b &* half &+ chromaOffset &- r &* cbR &- g &* cbG, cb + i)
            store(r &* half &+ chromaOffset &- g &* crG &- b &* crB, cr + i)
            i &+= 8
            p += step
        }
        if i < count {
            rgbToYCbCrScalar(p, pixelStride: pixelStride, count: count &- i, y: y + i, cb: cb + i, cr: cr + i)
        }
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
