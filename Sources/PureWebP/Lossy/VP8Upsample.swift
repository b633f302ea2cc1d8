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
    /// `far` weight 1 vertically, then 3:1 horizontally, in libwebp's two rounded steps. Eight
    /// chroma samples (sixteen outputs) at a time on 16-bit lanes; `fancyChromaScalar` is the twin.
    static func fancyChroma(near: UnsafePointer<UInt8>, far: UnsafePointer<UInt8>, out: UnsafeMutablePointer<UInt8>,
                            width: Int) {
        let lastPair = (width - 1) >> 1
        out[0] = UInt8(truncatingIfNeeded: (3 &* UInt32(near[0]) &+ UInt32(far[0]) &+ 2) >> 2)
        var x = 1
        // Chroma columns x - 1 ... x + 7 are read, outputs 2x - 1 ... 2x + 14 written.
        while x &+ 7 <= lastPair {
            let tl = widen8(near + (x &- 1)), t = widen8(near + x)
            let l = widen8(far + (x &- 1)), uv = widen8(far + x)
            let avg = tl &+ t &+ l &+ uv &+ H(repeating: 8)
            let diag12 = (avg &+ ((t &+ l) &<< 1)) &>> 3
            let diag03 = (avg &+ ((tl &+ uv) &<< 1)) &>> 3
            let odd = (diag12 &+ tl) &>> 1      // output 2x - 1
            let even = (diag03 &+ t) &>> 1      // output 2x
            UnsafeMutableRawPointer(out + (2 &* x &- 1)).storeBytes(of: odd | (even &<< 8), as: H.self)
            x &+= 8
        }
        fancyChromaTail(near: near, far: far, out: out, width: width, from: x)
    }

    /// `fancyChroma` of two output rows at once: `outA` with chroma row `a` near and `b` far,
    /// `outB` the other way round (the rows 2k - 1 and 2k of a picture). The diagonal sums of
    /// one row are the other's, swapped; the twin is `fancyChromaScalar` twice.
    static func fancyChromaPair(_ a: UnsafePointer<UInt8>, _ b: UnsafePointer<UInt8>,
                                outA: UnsafeMutablePointer<UInt8>, outB: UnsafeMutablePointer<UInt8>, width: Int) {
        let lastPair = (width - 1) >> 1
        outA[0] = UInt8(truncatingIfNeeded: (3 &* UInt32(a[0]) &+ UInt32(b[0]) &+ 2) >> 2)
        outB[0] = UInt8(truncatingIfNeeded: (3 &* UInt32(b[0]) &+ UInt32(a[0]) &+ 2) >> 2)
        var x = 1
        while x &+ 7 <= lastPair {
            let al = widen8(a + (x &- 1)), ax = widen8(a + x)
            let bl = widen8(b + (x &- 1)), bx = widen8(b + x)
            let avg = al &+ ax &+ bl &+ bx &+ H(repeating: 8)
            let d1 = (avg &+ ((ax &+ bl) &<< 1)) &>> 3   // diag12 of A, diag03 of B
            let d2 = (avg &+ ((al &+ bx) &<< 1)) &>> 3   // diag03 of A, diag12 of B
            let aOdd = (d1 &+ al) &>> 1, aEven = (d2 &+ ax) &>> 1
            let bOdd = (d2 &+ bl) &>> 1, bEven = (d1 &+ bx) &>> 1
            UnsafeMutableRawPointer(outA + (2 &* x &- 1)).storeBytes(of: aOdd | (aEven &<< 8), as: H.self)
            UnsafeMutableRawPointer(outB + (2 &* x &- 1)).storeBytes(of: bOdd | (bEven &<< 8), as: H.self)
            x &+= 8
        }
        fancyChromaTail(near: a, far: b, out: outA, width: width, from: x)
        fancyChromaTail(near: b, far: a, out: outB, width: width, from: x)
    }

    /// The scalar twin of `fancyChroma`.
    static func fancyChromaScalar(near: UnsafePointer<UInt8>, far: UnsafePointer<UInt8>,
                                  out: UnsafeMutablePointer<UInt8>, width: Int) {
        out[0] = UInt8(truncatingIfNeeded: (3 &* UInt32(near[0]) &+ UInt32(far[0]) &+ 2) >> 2)
        fancyChromaTail(near: near, far: far, out: out, width: width, from: 1)
    }

    /// Outputs `2 * from - 1` to the end of the row, one chroma pair at a time.
    @inline(__always)
    static func fancyChromaTail(near: UnsafePointer<UInt8>, far: UnsafePointer<UInt8>, out: UnsafeMutablePointer<UInt8>,
                                width: Int, from: Int) {
        let lastPair = (width - 1) >> 1
        var x = from
        var tl = UInt32(near[x &- 1]), l = UInt32(far[x &- 1])
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

    /// Full-width chroma of one output row with point sampling, eight samples at a time.
    static func pointChroma(_ c: UnsafePointer<UInt8>, out: UnsafeMutablePointer<UInt8>, width: Int) {
        var x = 0
        while 2 &* x &+ 16 <= width {
            let w = widen8(c + x)
            UnsafeMutableRawPointer(out + 2 &* x).storeBytes(of: w | (w &<< 8), as: H.self)
            x &+= 8
        }
        pointChromaTail(c, out: out, width: width, from: 2 &* x)
    }

    /// The scalar twin of `pointChroma`.
    static func pointChromaScalar(_ c: UnsafePointer<UInt8>, out: UnsafeMutablePointer<UInt8>, width: Int) {
        pointChromaTail(c, out: out, width: width, from: 0)
    }

    @inline(__always)
    static func pointChromaTail(_ c: UnsafePointer<UInt8>, out: UnsafeMutablePointer<UInt8>, width: Int, from: Int) {
        var x = from
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

    /// Eight bytes at `p` zero-extended to 16-bit lanes.
    @inline(__always)
    static func widen8(_ p: UnsafePointer<UInt8>) -> H {
        let b = UnsafeRawPointer(p).loadUnaligned(as: SIMD8<UInt8>.self)
        return H(UInt16(b[0]), UInt16(b[1]), UInt16(b[2]), UInt16(b[3]),
                 UInt16(b[4]), UInt16(b[5]), UInt16(b[6]), UInt16(b[7]))
    }

    /// clip8 on signed lanes, as max then min (pmaxsw, pminsw).
    @inline(__always)
    static func clamp255(_ v: S) -> S {
        v.clamped(lowerBound: S(repeating: 0), upperBound: S(repeating: 255))
    }

    /// Eight pixels' R, G and B in 16-bit lanes, each 0...255 (libwebp's SSE2 arithmetic; the
    /// scalar `writePixel` is the twin). R and G fit signed 16 bits; B (up to 51922 before the
    /// shift) is kept unsigned, with sums below 17685 floored at 0 (they clip to 0 anyway).
    @inline(__always)
    static func rgbLanes(_ y: UnsafePointer<UInt8>, _ u: UnsafePointer<UInt8>, _ v: UnsafePointer<UInt8>) -> (r: S, g: S, b: S) {
        let y8 = load8(y), u8 = load8(u), v8 = load8(v)
        let yy = mulHi(y8, 19077)
        let r = clamp255(unsafeBitCast(yy &+ mulHi(v8, 26149) &- H(repeating: 14234), to: S.self) &>> 6)
        let g = clamp255(unsafeBitCast(yy &- mulHi(u8, 6419) &- mulHi(v8, 13320) &+ H(repeating: 8708), to: S.self) &>> 6)
        let bs = yy &+ mulHi(u8, 33050)
        // bs - 17685 floored at 0 (the unsigned saturating difference, psubusw).
        let k = H(repeating: 17685)
        let b6 = unsafeBitCast(((bs &- k) & unsafeBitCast(bs .> k, to: H.self)) &>> 6, to: S.self)
        return (r, g, clamp255(b6))
    }

    /// Eight pixels' R | G << 8 and B in 16-bit lanes.
    @inline(__always)
    static func rgb8(_ y: UnsafePointer<UInt8>, _ u: UnsafePointer<UInt8>, _ v: UnsafePointer<UInt8>) -> (rg: H, b: H) {
        let (r, g, b) = rgbLanes(y, u, v)
        return (unsafeBitCast(r | (g &<< 8), to: H.self), unsafeBitCast(b, to: H.self))
    }

    typealias B = SIMD16<UInt8>

    /// Sixteen pixels' R, G and B as bytes (two conversions of eight, packed).
    @inline(__always)
    static func planes16(_ y: UnsafePointer<UInt8>, _ u: UnsafePointer<UInt8>, _ v: UnsafePointer<UInt8>) -> (r: B, g: B, b: B) {
        let a = rgbLanes(y, u, v), c = rgbLanes(y + 8, u + 8, v + 8)
        return (B(truncatingLanesOf: a.r, c.r), B(truncatingLanesOf: a.g, c.g), B(truncatingLanesOf: a.b, c.b))
    }

    /// The even bytes of `a` then of `b`, and the odd ones (pand or psrlw, then packuswb).
    @inline(__always)
    static func unzip(_ a: B, _ b: B) -> (even: B, odd: B) {
        let a16 = unsafeBitCast(a, to: H.self), b16 = unsafeBitCast(b, to: H.self)
        return (B(truncatingLanesOf: unsafeBitCast(a16, to: S.self), unsafeBitCast(b16, to: S.self)),
                B(truncatingLanesOf: unsafeBitCast(a16 &>> 8, to: S.self), unsafeBitCast(b16 &>> 8, to: S.self)))
    }

    /// 32 pixels to 96 bytes of RGB at `out`. The 96 bytes R0...R31 G0...G31 B0...B31, taken
    /// as one sequence, become its even bytes followed by its odd bytes five times over, which
    /// leaves R0 G0 B0 R1 G1 B1 ... (byte p moves to p / 2 or 48 + p / 2; five rounds move
    /// channel c's sample i to 3i + c).
    @inline(__always)
    static func rgb32(_ y: UnsafePointer<UInt8>, _ u: UnsafePointer<UInt8>, _ v: UnsafePointer<UInt8>,
                      _ out: UnsafeMutableRawPointer) {
        let p0 = planes16(y, u, v), p1 = planes16(y + 16, u + 16, v + 16)
        var v0 = p0.r, v1 = p1.r, v2 = p0.g, v3 = p1.g, v4 = p0.b, v5 = p1.b
        for _ in 0 ..< 5 {
            let a = unzip(v0, v1), b = unzip(v2, v3), c = unzip(v4, v5)
            (v0, v1, v2, v3, v4, v5) = (a.even, b.even, c.even, a.odd, b.odd, c.odd)
        }
        out.storeBytes(of: v0, as: B.self)
        out.storeBytes(of: v1, toByteOffset: 16, as: B.self)
        out.storeBytes(of: v2, toByteOffset: 32, as: B.self)
        out.storeBytes(of: v3, toByteOffset: 48, as: B.self)
        out.storeBytes(of: v4, toByteOffset: 64, as: B.self)
        out.storeBytes(of: v5, toByteOffset: 80, as: B.self)
    }

    /// 16 pixels to 64 bytes of RGBA (alpha 255) at `out`, by byte then 16-bit interleaves
    /// (punpck*).
    @inline(__always)
    static func rgba16(_ y: UnsafePointer<UInt8>, _ u: UnsafePointer<UInt8>, _ v: UnsafePointer<UInt8>,
                       _ out: UnsafeMutableRawPointer) {
        let p = planes16(y, u, v)
        let a = B(repeating: 255)
        let rgLo = VP8Transpose.lo8(p.r, p.g), rgHi = VP8Transpose.hi8(p.r, p.g)
        let baLo = VP8Transpose.lo8(p.b, a), baHi = VP8Transpose.hi8(p.b, a)
        out.storeBytes(of: VP8Transpose.lo16(rgLo, baLo), as: B.self)
        out.storeBytes(of: VP8Transpose.hi16(rgLo, baLo), toByteOffset: 16, as: B.self)
        out.storeBytes(of: VP8Transpose.lo16(rgHi, baHi), toByteOffset: 32, as: B.self)
        out.storeBytes(of: VP8Transpose.hi16(rgHi, baHi), toByteOffset: 48, as: B.self)
    }

    typealias Q = SIMD2<UInt64>

    /// Eight pixels as four pixel pairs in 64-bit lanes: RGB pairs in 6 bytes (R0 G0 B0 R1 G1
    /// B1), RGBA pairs in 8. Lane 0 of the first vector holds pixels 0-1, lane 1 pixels 4-5;
    /// the second vector pixels 2-3 and 6-7. Only lane-uniform masks and shifts (no lane moves):
    /// the compiler turns vector operations whose lanes are taken apart into scalar code.
    @inline(__always)
    static func pairs8(_ y: UnsafePointer<UInt8>, _ u: UnsafePointer<UInt8>, _ v: UnsafePointer<UInt8>,
                       rgba: Bool) -> (Q, Q) {
        let (rg16, b16) = rgb8(y, u, v)
        let rg = unsafeBitCast(rg16, to: Q.self)
        let w = Q(repeating: 0xffff)
        if rgba {
            let ba = unsafeBitCast(b16, to: Q.self) | Q(repeating: 0xff00_ff00_ff00_ff00)
            @inline(__always) func pair(_ rg: Q, _ ba: Q) -> Q {
                (rg & w) | ((ba & w) &<< 16) | ((rg & (w &<< 16)) &<< 16) | ((ba & (w &<< 16)) &<< 32)
            }
            return (pair(rg, ba), pair(rg &>> 32, ba &>> 32))
        }
        let b = unsafeBitCast(b16, to: Q.self)
        @inline(__always) func pair(_ rg: Q, _ b: Q) -> Q {
            (rg & w) | ((b & Q(repeating: 0xff)) &<< 16) | ((rg & (w &<< 16)) &<< 8) | ((b & Q(repeating: 0xff_0000)) &<< 24)
        }
        return (pair(rg, b), pair(rg &>> 32, b &>> 32))
    }

    /// Converts one row of full-width Y, U, V to RGB (3) or RGBA (4, alpha 255) pixels: 32
    /// pixels at a time converted to byte planes and interleaved in registers (`rgb32`,
    /// `rgba16`), stored 16 bytes at a time; the row's last 32 pixels overlap the ones before
    /// (rewritten with the same bytes). Rows under 32 pixels go through `convertRowPairs`.
    static func convertRow(y: UnsafePointer<UInt8>, u: UnsafePointer<UInt8>, v: UnsafePointer<UInt8>,
                           dst: UnsafeMutablePointer<UInt8>, width: Int, bytesPerPixel: Int) {
        guard width >= 32 else {
            convertRowPairs(y: y, u: u, v: v, dst: dst, width: width, bytesPerPixel: bytesPerPixel)
            return
        }
        let out = UnsafeMutableRawPointer(dst)
        var x = 0
        if bytesPerPixel == 4 {
            while true {
                rgba16(y + x, u + x, v + x, out + 4 &* x)
                rgba16(y + (x &+ 16), u + (x &+ 16), v + (x &+ 16), out + 4 &* (x &+ 16))
                if x &+ 32 == width { return }
                x = min(x &+ 32, width &- 32)
            }
        }
        while true {
            rgb32(y + x, u + x, v + x, out + 3 &* x)
            if x &+ 32 == width { return }
            x = min(x &+ 32, width &- 32)
        }
    }

    /// `convertRow` for rows under 32 pixels (it takes any width). In chunks of up to 512
    /// pixels: eight pixels at a time become pixel pairs (`pairs8`) stored whole into a scratch
    /// buffer, then the pairs are copied to the row 8 bytes at a time,
    /// 6 (RGB) or 8 (RGBA) bytes apart, an RGB store's last 2 bytes overwritten by the next
    /// one. The row's last 8 pixels overlap the ones before; its last RGB pair is stored as
    /// 4 + 2 bytes, so nothing past the row is touched. Rows under 8 pixels go scalar.
    static func convertRowPairs(y: UnsafePointer<UInt8>, u: UnsafePointer<UInt8>, v: UnsafePointer<UInt8>,
                                dst: UnsafeMutablePointer<UInt8>, width: Int, bytesPerPixel: Int) {
        guard width >= 8 else {
            convertRowScalar(y: y, u: u, v: v, dst: dst, width: width, bytesPerPixel: bytesPerPixel, from: 0)
            return
        }
        let rgba = bytesPerPixel == 4
        let pairStep = rgba ? 8 : 6
        let blocks = (width &+ 7) >> 3
        withUnsafeTemporaryAllocation(of: Q.self, capacity: 128) { buffer in
            let scratch = buffer.baseAddress!
            var first = 0
            while first < blocks {
                let count = min(64, blocks &- first)
                for k in 0 ..< count {
                    let x = min((first &+ k) &<< 3, width &- 8)
                    let (p0, p1) = pairs8(y + x, u + x, v + x, rgba: rgba)
                    scratch[2 &* k] = p0
                    scratch[2 &* k &+ 1] = p1
                }
                let words = UnsafeRawPointer(scratch)
                for k in 0 ..< count {
                    let x = min((first &+ k) &<< 3, width &- 8)
                    let out = UnsafeMutableRawPointer(dst + x &* bytesPerPixel)
                    let w = words + 32 &* k
                    out.storeBytes(of: w.load(as: UInt64.self), as: UInt64.self)
                    out.storeBytes(of: w.load(fromByteOffset: 16, as: UInt64.self), toByteOffset: pairStep, as: UInt64.self)
                    out.storeBytes(of: w.load(fromByteOffset: 8, as: UInt64.self), toByteOffset: 2 &* pairStep, as: UInt64.self)
                    let last = w.load(fromByteOffset: 24, as: UInt64.self)
                    if rgba || x &+ 8 < width {
                        out.storeBytes(of: last, toByteOffset: 3 &* pairStep, as: UInt64.self)
                    } else {
                        out.storeBytes(of: UInt32(truncatingIfNeeded: last), toByteOffset: 18, as: UInt32.self)
                        out.storeBytes(of: UInt16(truncatingIfNeeded: last &>> 32), toByteOffset: 22, as: UInt16.self)
                    }
                }
                first &+= count
            }
        }
    }

    /// The scalar twin of `convertRow` from pixel `from` on.
    static func convertRowScalar(y: UnsafePointer<UInt8>, u: UnsafePointer<UInt8>, v: UnsafePointer<UInt8>,
                                 dst: UnsafeMutablePointer<UInt8>, width: Int, bytesPerPixel: Int, from: Int = 0) {
        var x = from
        while x < width {
            let d = dst + x * bytesPerPixel
            writePixel(y[x], Int32(u[x]), Int32(v[x]), d)
            if bytesPerPixel == 4 { d[3] = 255 }
            x &+= 1
        }
    }
}
