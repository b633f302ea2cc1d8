/// YUV 4:2:0 to RGB as libwebp 1.2.4 does it: the 14-bit fixed-point conversion of yuv.h
/// (VP8YUVToR/G/B) and either its "fancy" upsampler (upsampling.c, the 9-3-3-1 chroma filter
/// computed in two rounded steps) or point sampling (`dwebp -nofancy`).
enum VP8Upsample {
    @inline(__always)
    static func multHi(_ v: Int32, _ c: Int32) -> Int32 { (v &* c) >> 8 }

    @inline(__always)
    static func clip8(_ v: Int32) -> UInt8 {
        (v & ~16383) == 0 ? UInt8(truncatingIfNeeded: v >> 6) : (v < 0 ? 0 : 255)
    }

    @inline(__always)
    static func writePixel(_ y: UInt8, _ u: Int32, _ v: Int32, _ dst: UnsafeMutablePointer<UInt8>) {
        let yy = multHi(Int32(y), 19077)
        dst[0] = clip8(yy &+ multHi(v, 26149) &- 14234)
        dst[1] = clip8(yy &- multHi(u, 6419) &- multHi(v, 13320) &+ 8708)
        dst[2] = clip8(yy &+ multHi(u, 33050) &- 17685)
    }

    /// One output row with point-sampled chroma: pixel x takes chroma x / 2.
    static func pointRow(y: UnsafePointer<UInt8>, u: UnsafePointer<UInt8>, v: UnsafePointer<UInt8>,
                         dst: UnsafeMutablePointer<UInt8>, width: Int, bytesPerPixel: Int) {
        var x = 0
        var d = dst
        while x < width {
            writePixel(y[x], Int32(u[x >> 1]), Int32(v[x >> 1]), d)
            d += bytesPerPixel
            x &+= 1
        }
    }

    /// One output row with fancy upsampling from its nearer chroma row `near` (weight 3) and the
    /// farther one `far` (weight 1); both the same row at the picture's top and bottom edges.
    static func fancyRow(y: UnsafePointer<UInt8>, nearU: UnsafePointer<UInt8>, nearV: UnsafePointer<UInt8>,
                         farU: UnsafePointer<UInt8>, farV: UnsafePointer<UInt8>,
                         dst: UnsafeMutablePointer<UInt8>, width: Int, bytesPerPixel: Int) {
        fancyPlaneRow(y: y, near: nearU, far: farU, nearV: nearV, farV: farV, dst: dst, width: width, bpp: bytesPerPixel)
    }

    @inline(__always)
    private static func fancyPlaneRow(y: UnsafePointer<UInt8>, near: UnsafePointer<UInt8>, far: UnsafePointer<UInt8>,
                                      nearV: UnsafePointer<UInt8>, farV: UnsafePointer<UInt8>,
                                      dst: UnsafeMutablePointer<UInt8>, width: Int, bpp: Int) {
        // u and v packed in the low and high 16 bits of one word, as libwebp does.
        @inline(__always) func load(_ a: UnsafePointer<UInt8>, _ b: UnsafePointer<UInt8>, _ i: Int) -> UInt32 {
            UInt32(a[i]) | (UInt32(b[i]) << 16)
        }
        let lastPair = (width - 1) >> 1
        var tl = load(near, nearV, 0)   // near row, column x - 1
        var l = load(far, farV, 0)      // far row, column x - 1
        do {
            let uv0 = (3 &* tl &+ l &+ 0x0002_0002) >> 2
            writePixel(y[0], Int32(uv0 & 0xff), Int32(uv0 >> 16), dst)
        }
        var x = 1
        while x <= lastPair {
            let t = load(near, nearV, x)
            let uv = load(far, farV, x)
            let avg = tl &+ t &+ l &+ uv &+ 0x0008_0008
            let diag12 = (avg &+ 2 &* (t &+ l)) >> 3
            let diag03 = (avg &+ 2 &* (tl &+ uv)) >> 3
            let uv0 = (diag12 &+ tl) >> 1
            let uv1 = (diag03 &+ t) >> 1
            writePixel(y[2 * x - 1], Int32(uv0 & 0xff), Int32((uv0 >> 16) & 0xff), dst + (2 * x - 1) * bpp)
            writePixel(y[2 * x], Int32(uv1 & 0xff), Int32((uv1 >> 16) & 0xff), dst + (2 * x) * bpp)
            tl = t
            l = uv
            x &+= 1
        }
        if width & 1 == 0 {
            let uv0 = (3 &* tl &+ l &+ 0x0002_0002) >> 2
            writePixel(y[width - 1], Int32(uv0 & 0xff), Int32(uv0 >> 16), dst + (width - 1) * bpp)
        }
    }

    /// Full-width chroma of one output row with fancy upsampling of one plane: `near` weight 3,
    /// `far` weight 1 vertically, then 3:1 horizontally, in libwebp's two rounded steps.
    static func fancyChroma(near: UnsafePointer<UInt8>, far: UnsafePointer<UInt8>, out: UnsafeMutablePointer<UInt8>,
                            width: Int) {
        let lastPair = (width - 1) >> 1
        var tl = UInt32(near[0]), l = UInt32(far[0])
        out[0] = UInt8(truncatingIfNeeded: (3 &* tl &+ l &+ 2) >> 2)
        var x = 1
        while x <= lastPair {
            let t = UInt32(near[x]), uv = UInt32(far[x])
            let avg = tl &+ t &+ l &+ uv &+ 8
            let diag12 = (avg &+ 2 &* (t &+ l)) >> 3
            let diag03 = (avg &+ 2 &* (tl &+ uv)) >> 3
            out[2 &* x &- 1] = UInt8(truncatingIfNeeded: (diag12 &+ tl) >> 1)
            out[2 &* x] = UInt8(truncatingIfNeeded: (diag03 &+ t) >> 1)
            tl = t
            l = uv
            x &+= 1
        }
        if width & 1 == 0 {
            out[width - 1] = UInt8(truncatingIfNeeded: (3 &* tl &+ l &+ 2) >> 2)
        }
    }

    /// Full-width chroma of one output row with point sampling.
    static func pointChroma(_ c: UnsafePointer<UInt8>, out: UnsafeMutablePointer<UInt8>, width: Int) {
        var x = 0
        while x < width {
            out[x] = c[x >> 1]
            x &+= 1
        }
    }

    typealias H = SIMD8<UInt16>
    typealias S = SIMD8<Int16>
    typealias W = SIMD8<UInt32>

    // Conversions are written lane by lane: the generic `init(truncatingIfNeeded:)` stays an
    // out-of-line call here (see PureJPEG's notes), lane-wise ones become shuffles.

    /// (a * c) >> 8 for bytes a, as the high half of (a << 8) * c (pmulhuw).
    @inline(__always)
    static func mulHi(_ a: H, _ c: UInt32) -> H {
        let w = (W(UInt32(a[0]), UInt32(a[1]), UInt32(a[2]), UInt32(a[3]),
                   UInt32(a[4]), UInt32(a[5]), UInt32(a[6]), UInt32(a[7])) &* W(repeating: c)) &>> 16
        return H(UInt16(truncatingIfNeeded: w[0]), UInt16(truncatingIfNeeded: w[1]), UInt16(truncatingIfNeeded: w[2]),
                 UInt16(truncatingIfNeeded: w[3]), UInt16(truncatingIfNeeded: w[4]), UInt16(truncatingIfNeeded: w[5]),
                 UInt16(truncatingIfNeeded: w[6]), UInt16(truncatingIfNeeded: w[7]))
    }

    /// Eight bytes at `p`, each shifted into the high byte of a 16-bit lane.
    @inline(__always)
    static func load8(_ p: UnsafePointer<UInt8>) -> H {
        let b = UnsafeRawPointer(p).loadUnaligned(as: SIMD8<UInt8>.self)
        return H(UInt16(b[0]), UInt16(b[1]), UInt16(b[2]), UInt16(b[3]),
                 UInt16(b[4]), UInt16(b[5]), UInt16(b[6]), UInt16(b[7])) &<< 8
    }

    /// clip8 on signed 16-bit lanes: (v >> 6) clamped to 0...255.
    @inline(__always)
    static func clip8(_ v: S) -> H {
        let s = v &>> 6
        let pos = s & ~(s &>> 15)
        let over = (S(repeating: 255) &- pos) &>> 15          // -1 where > 255
        return unsafeBitCast((pos & ~over) | (S(repeating: 255) & over), to: H.self)
    }

    /// Converts one row of full-width Y, U, V to RGB (3) or RGBA (4, alpha 255) pixels, eight
    /// pixels at a time in 16-bit lanes (libwebp's SSE2 arithmetic; the scalar `writePixel` is
    /// the twin). R and G fit signed 16 bits; B (up to 34238 before the shift) is kept unsigned,
    /// with sums below 17685 floored at 0 (they clip to 0 anyway).
    static func convertRow(y: UnsafePointer<UInt8>, u: UnsafePointer<UInt8>, v: UnsafePointer<UInt8>,
                           dst: UnsafeMutablePointer<UInt8>, width: Int, bytesPerPixel: Int) {
        var x = 0
        while x + 8 <= width {
            let y8 = load8(y + x), u8 = load8(u + x), v8 = load8(v + x)
            let yy = mulHi(y8, 19077)
            let r = clip8(unsafeBitCast(yy &+ mulHi(v8, 26149) &- H(repeating: 14234), to: S.self))
            let g = clip8(unsafeBitCast(yy &- mulHi(u8, 6419) &- mulHi(v8, 13320) &+ H(repeating: 8708), to: S.self))
            let bs = yy &+ mulHi(u8, 33050)
            let under = (unsafeBitCast(bs &>> 1, to: S.self) &- S(repeating: 8843)) &>> 15   // -1 where bs <= 17685
            let b6 = unsafeBitCast(((bs &- H(repeating: 17685)) & ~unsafeBitCast(under, to: H.self)) &>> 6, to: S.self)
            let bOver = (S(repeating: 255) &- b6) &>> 15
            let b = unsafeBitCast((b6 & ~bOver) | (S(repeating: 255) & bOver), to: H.self)
            let rg = r | (g &<< 8)
            let ba = bytesPerPixel == 4 ? b | H(repeating: 0xff00) : b
            let packed = unsafeBitCast(SIMD16<UInt16>(rg[0], ba[0], rg[1], ba[1], rg[2], ba[2], rg[3], ba[3],
                                                      rg[4], ba[4], rg[5], ba[5], rg[6], ba[6], rg[7], ba[7]), to: W.self)
            let d = dst + x * bytesPerPixel
            if bytesPerPixel == 4 {
                UnsafeMutableRawPointer(d).storeBytes(of: packed, as: W.self)
            } else {
                // Overlapping 4-byte stores, each pixel's fourth byte overwritten by the next;
                // the last one is written bytewise so nothing past the 8 pixels is touched.
                let raw = UnsafeMutableRawPointer(d)
                for i in 0 ..< 7 { raw.storeBytes(of: packed[i], toByteOffset: 3 * i, as: UInt32.self) }
                let last = packed[7]
                d[21] = UInt8(truncatingIfNeeded: last)
                d[22] = UInt8(truncatingIfNeeded: last >> 8)
                d[23] = UInt8(truncatingIfNeeded: last >> 16)
            }
            x &+= 8
        }
        while x < width {
            let d = dst + x * bytesPerPixel
            writePixel(y[x], Int32(u[x]), Int32(v[x]), d)
            if bytesPerPixel == 4 { d[3] = 255 }
            x &+= 1
        }
    }
}
