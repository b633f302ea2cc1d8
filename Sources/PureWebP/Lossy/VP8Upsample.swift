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
}
