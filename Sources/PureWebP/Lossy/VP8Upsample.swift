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

    typealias U16 = SIMD16<UInt16>
    typealias I32 = SIMD16<Int32>

    /// (a * c) >> 8 for bytes a, as the high half of (a << 8) * c (pmulhuw).
    @inline(__always)
    static func mulHi(_ a8: U16, _ c: UInt16) -> I32 {
        let wide = SIMD16<UInt32>(truncatingIfNeeded: a8) &* SIMD16<UInt32>(repeating: UInt32(c))
        return I32(truncatingIfNeeded: SIMD16<UInt16>(truncatingIfNeeded: wide &>> SIMD16<UInt32>(repeating: 16)))
    }

    /// clip8 on 16 lanes: (v >> 6) clamped to 0...255.
    @inline(__always)
    static func clip8(_ v: I32) -> I32 {
        let s = v &>> I32(repeating: 6)
        let neg = s &>> I32(repeating: 31)          // -1 where negative
        let pos = s & ~neg
        let over = (I32(repeating: 255) &- pos) &>> I32(repeating: 31)  // -1 where > 255
        return (pos & ~over) | (I32(repeating: 255) & over)
    }

    /// Converts one row of full-width Y, U, V to RGB (3) or RGBA (4, alpha 255) pixels.
    static func convertRow(y: UnsafePointer<UInt8>, u: UnsafePointer<UInt8>, v: UnsafePointer<UInt8>,
                           dst: UnsafeMutablePointer<UInt8>, width: Int, bytesPerPixel: Int) {
        var x = 0
        while x + 16 <= width {
            @inline(__always) func load(_ p: UnsafePointer<UInt8>) -> U16 {
                U16(truncatingIfNeeded: UnsafeRawPointer(p + x).loadUnaligned(as: SIMD16<UInt8>.self)) &<< U16(repeating: 8)
            }
            let y8 = load(y), u8 = load(u), v8 = load(v)
            let yy = mulHi(y8, 19077)
            let r = clip8(yy &+ mulHi(v8, 26149) &- I32(repeating: 14234))
            let g = clip8(yy &- mulHi(u8, 6419) &- mulHi(v8, 13320) &+ I32(repeating: 8708))
            let b = clip8(yy &+ mulHi(u8, 33050) &- I32(repeating: 17685))
            let packed = SIMD16<UInt32>(truncatingIfNeeded: r | (g &<< I32(repeating: 8)) | (b &<< I32(repeating: 16)))
            let d = dst + x * bytesPerPixel
            if bytesPerPixel == 4 {
                UnsafeMutableRawPointer(d).storeBytes(of: packed | SIMD16<UInt32>(repeating: 0xff00_0000), as: SIMD16<UInt32>.self)
            } else {
                // Overlapping 4-byte stores, each pixel's fourth byte overwritten by the next;
                // the last one is written bytewise so nothing past the 16 pixels is touched.
                let raw = UnsafeMutableRawPointer(d)
                for i in 0 ..< 15 { raw.storeBytes(of: packed[i], toByteOffset: 3 * i, as: UInt32.self) }
                let last = packed[15]
                d[45] = UInt8(truncatingIfNeeded: last)
                d[46] = UInt8(truncatingIfNeeded: last >> 8)
                d[47] = UInt8(truncatingIfNeeded: last >> 16)
            }
            x &+= 16
        }
        while x < width {
            let d = dst + x * bytesPerPixel
            writePixel(y[x], Int32(u[x]), Int32(v[x]), d)
            if bytesPerPixel == 4 { d[3] = 255 }
            x &+= 1
        }
    }
}
