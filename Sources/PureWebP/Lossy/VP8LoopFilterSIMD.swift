/// The loop filters of `VP8LoopFilter` on 16 byte lanes at once (SSE2-style), same results:
/// each lane is one position along the edge, the eight vectors the pixels p3...q3 across it.
/// The masks (edge limit, interior limit, high edge variance) are taken on bytes with
/// saturating differences; the filter values are the signed saturating sums of libwebp's SSE2
/// filters, held biased by 128 and summed with unsigned saturation (the 6-tap products on two
/// halves of 8 Int16 lanes); the saturation clips as the scalar filter does. Horizontal edges are filtered in place;
/// vertical edges on a transposed copy of the macroblock (columns as rows), in libwebp's
/// order, so the result is that of the scalar filter (tested equal).
enum VP8LoopFilterSIMD {
    typealias U = SIMD16<UInt8>
    typealias I = SIMD16<Int8>
    typealias V = SIMD8<Int16>

    // Masks are vectors of 0 or all ones: the concrete lane comparisons' `SIMDMask`
    // reinterpreted as its storage (the generic `SIMDMask` blends compile to per-lane loops).
    // These patterns become single SSE2 instructions (psubusb, paddusb, pmaxub), inlined. The
    // filter needs no signed saturating sum (paddsb, psubsb): written as the clamp of a 16-bit
    // sum they compile to that instruction, but stay calls, with the vectors live across them
    // spilled to the stack.
    /// a - b, floored at 0.
    @inline(__always)
    static func subs(_ a: U, _ b: U) -> U { (a &- b) & unsafeBitCast(a .> b, to: U.self) }
    /// a + b, capped at 255.
    @inline(__always)
    static func adds(_ a: U, _ b: U) -> U {
        let s = a &+ b
        return s | unsafeBitCast(s .< a, to: U.self)
    }
    @inline(__always)
    static func max(_ a: U, _ b: U) -> U { b ^ ((a ^ b) & unsafeBitCast(a .> b, to: U.self)) }
    @inline(__always)
    static func absDiff(_ a: U, _ b: U) -> U { subs(a, b) | subs(b, a) }
    /// All ones where a <= b.
    @inline(__always)
    static func le(_ a: U, _ b: U) -> U { unsafeBitCast(subs(a, b) .== U(repeating: 0), to: U.self) }

    /// Signed bytes sign-extended to 16-bit lanes (two halves of eight) and back (truncating).
    @inline(__always)
    static func widenLow(_ b: I) -> V {
        V(Int16(b[0]), Int16(b[1]), Int16(b[2]), Int16(b[3]), Int16(b[4]), Int16(b[5]), Int16(b[6]), Int16(b[7]))
    }
    @inline(__always)
    static func widenHigh(_ b: I) -> V {
        V(Int16(b[8]), Int16(b[9]), Int16(b[10]), Int16(b[11]), Int16(b[12]), Int16(b[13]), Int16(b[14]), Int16(b[15]))
    }
    @inline(__always)
    static func narrow(_ a: V, _ b: V) -> I {
        I(Int8(truncatingIfNeeded: a[0]), Int8(truncatingIfNeeded: a[1]), Int8(truncatingIfNeeded: a[2]),
          Int8(truncatingIfNeeded: a[3]), Int8(truncatingIfNeeded: a[4]), Int8(truncatingIfNeeded: a[5]),
          Int8(truncatingIfNeeded: a[6]), Int8(truncatingIfNeeded: a[7]), Int8(truncatingIfNeeded: b[0]),
          Int8(truncatingIfNeeded: b[1]), Int8(truncatingIfNeeded: b[2]), Int8(truncatingIfNeeded: b[3]),
          Int8(truncatingIfNeeded: b[4]), Int8(truncatingIfNeeded: b[5]), Int8(truncatingIfNeeded: b[6]),
          Int8(truncatingIfNeeded: b[7]))
    }

    /// `p + up - down`, clamped to 0...255: a signed update held as its positive and negative
    /// parts (one of them 0), added with unsigned saturation.
    @inline(__always)
    static func update(_ p: U, _ up: U, _ down: U) -> U { subs(adds(p, up), down) }
    /// Biased bytes (x - 128 held as x) as signed bytes.
    @inline(__always)
    static func signed(_ u: U) -> I { unsafeBitCast(u ^ U(repeating: 0x80), to: I.self) }

    /// The filter across one edge: `px[0...7]` are p3, p2, p1, p0, q0, q1, q2, q3.
    /// `kind`: 0 simple, 1 normal inner edge, 2 normal macroblock edge. `thresh` is the edge
    /// limit (4 |p0 - q0| + |p1 - q1| <= 2 thresh + 1, taken as 2 |p0 - q0| + |p1 - q1| / 2 <=
    /// thresh, the same on integers), at most 255.
    ///
    /// The filter values are signed bytes with saturating sums, as in libwebp's SSE2 filters:
    /// the base value 3 (q0 - p0) + (p1 - q1) saturates to -128...127, which is where the
    /// scalar filter clamps it (or where its shifted values clamp to -16...15 anyway); the
    /// updates saturate as the scalar clip does. The sums are unsigned saturating ones on
    /// values biased by 128 (see the body).
    @inline(__always)
    static func filter(_ px: inout (U, U, U, U, U, U, U, U), kind: Int, thresh: UInt8, interior: UInt8, hevThresh: UInt8) {
        let p1 = px.2, p0 = px.3, q0 = px.4, q1 = px.5
        let d0 = absDiff(p0, q0)
        var mask = le(adds(adds(d0, d0), absDiff(p1, q1) &>> 1), U(repeating: thresh))
        var hev = U(repeating: 0)
        if kind != 0 {
            let dp = absDiff(p1, p0), dq = absDiff(q1, q0)
            let inner = max(max(absDiff(px.0, px.1), absDiff(px.1, p1)), max(absDiff(px.7, px.6), absDiff(px.6, q1)))
            let edge = max(dp, dq)
            mask = mask & le(max(inner, edge), U(repeating: interior))
            hev = ~le(edge, U(repeating: hevThresh))
        }
        // No lane to filter (a strong edge along the whole span): the pixels stay.
        let any = unsafeBitCast(mask, to: SIMD2<UInt64>.self)
        if any[0] | any[1] == 0 { return }
        // The filter values are signed bytes held biased by 128 (0x80 is zero) in unsigned
        // lanes, so every saturating sum is an unsigned one (paddusb, psubusb), which the
        // compiler inlines (the signed ones stay calls, with the vectors live across them
        // spilled to the stack). q0 - p0 enters as its positive and negative parts, not
        // clamped to -128...127 first: three saturating steps of it give the same base value
        // either way (checked for every p1 - q1 and q0 - p0).
        let bias = U(repeating: 0x80)
        let qp = subs(q0, p0), pq = subs(p0, q0)
        var b = update(bias, subs(p1, q1), subs(q1, p1))
        // p1 - q1 is in the base value except on the inner edges' lanes without high edge
        // variance (their 4-tap filter).
        if kind == 1 { b = ((b ^ bias) & hev) ^ bias }
        b = update(b, qp, pq)
        b = update(b, qp, pq)
        b = update(b, qp, pq)
        // An update (a + k) >> 3 of a biased value a comes out as (a + k + 128) >> 3, logical,
        // which is the update plus 16: its positive and negative parts are the unsigned
        // saturating differences with 16.
        let sixteen = U(repeating: 16)
        // The 2-tap update of p0 and q0: every lane the masks pass, but only the high edge
        // variance lanes on macroblock edges (the others take the 6-tap filter below).
        let a = ((b ^ bias) & (kind == 2 ? mask & hev : mask)) ^ bias
        let t2 = adds(a, U(repeating: 3)) &>> 3, t1 = adds(a, U(repeating: 4)) &>> 3
        let np0 = update(p0, subs(t2, sixteen), subs(sixteen, t2))
        let nq0 = update(q0, subs(sixteen, t1), subs(t1, sixteen))
        if kind == 0 {
            px.3 = np0
            px.4 = nq0
            return
        }
        if kind == 1 {
            px.3 = np0
            px.4 = nq0
            // (a1 + 1) >> 1 on the outer pixels of lanes without high edge variance: from
            // a1 + 16 it comes out plus 8.
            let t3 = (t1 &+ U(repeating: 1)) &>> 1, eight = U(repeating: 8), low = ~hev
            let up = subs(t3, eight) & low, down = subs(eight, t3) & low
            px.2 = update(p1, up, down)
            px.5 = update(q1, down, up)
            return
        }
        let g = signed(b) & unsafeBitCast(mask & ~hev, to: I.self)
        let lo9 = widenLow(g) &* V(repeating: 9), hi9 = widenHigh(g) &* V(repeating: 9)
        // (k g + 63) >> 7 for k = 9, 18, 27, each plus 128 (the rounding term carries
        // 128 << 7; every sum stays in 12991...19876), so its parts are differences with 128.
        let r = V(repeating: 63 + 128 << 7)
        let lo2 = lo9 &+ r, hi2 = hi9 &+ r
        let lo1 = lo2 &+ lo9, hi1 = hi2 &+ hi9
        let lo0 = lo1 &+ lo9, hi0 = hi1 &+ hi9
        let w2 = unsafeBitCast(narrow(lo2 &>> 7, hi2 &>> 7), to: U.self)
        let w1 = unsafeBitCast(narrow(lo1 &>> 7, hi1 &>> 7), to: U.self)
        let w0 = unsafeBitCast(narrow(lo0 &>> 7, hi0 &>> 7), to: U.self)
        let up2 = subs(w2, bias), down2 = subs(bias, w2)
        let up1 = subs(w1, bias), down1 = subs(bias, w1)
        let up0 = subs(w0, bias), down0 = subs(bias, w0)
        px.1 = update(px.1, up2, down2)
        px.6 = update(px.6, down2, up2)
        px.2 = update(p1, up1, down1)
        px.5 = update(q1, down1, up1)
        px.3 = update(np0, up0, down0)
        px.4 = update(nq0, down0, up0)
    }

    @inline(__always)
    static func load(_ p: UnsafePointer<UInt8>) -> U { UnsafeRawPointer(p).loadUnaligned(as: U.self) }
    @inline(__always)
    static func store(_ v: U, _ p: UnsafeMutablePointer<UInt8>) { UnsafeMutableRawPointer(p).storeBytes(of: v, as: U.self) }
    /// Eight U bytes in lanes 0-7 and eight V bytes in lanes 8-15.
    @inline(__always)
    static func load(_ u: UnsafePointer<UInt8>, _ v: UnsafePointer<UInt8>) -> U {
        U(lowHalf: UnsafeRawPointer(u).loadUnaligned(as: SIMD8<UInt8>.self),
          highHalf: UnsafeRawPointer(v).loadUnaligned(as: SIMD8<UInt8>.self))
    }
    @inline(__always)
    static func store(_ x: U, _ u: UnsafeMutablePointer<UInt8>, _ v: UnsafeMutablePointer<UInt8>) {
        UnsafeMutableRawPointer(u).storeBytes(of: x.lowHalf, as: SIMD8<UInt8>.self)
        UnsafeMutableRawPointer(v).storeBytes(of: x.highHalf, as: SIMD8<UInt8>.self)
    }

    /// Filters a horizontal edge in place: `p` is the first row below the edge, lanes along it.
    @inline(__always)
    static func horizontalEdge(_ p: UnsafeMutablePointer<UInt8>, stride s: Int, kind: Int,
                               thresh: UInt8, interior: UInt8, hevThresh: UInt8) {
        var px = (load(p - 4 * s), load(p - 3 * s), load(p - 2 * s), load(p - s),
                  load(p), load(p + s), load(p + 2 * s), load(p + 3 * s))
        filter(&px, kind: kind, thresh: thresh, interior: interior, hevThresh: hevThresh)
        if kind != 0 {
            store(px.1, p - 3 * s); store(px.2, p - 2 * s); store(px.5, p + s); store(px.6, p + 2 * s)
        }
        store(px.3, p - s); store(px.4, p)
    }

    /// The same across a horizontal edge of the U and V planes together (8 lanes each).
    @inline(__always)
    static func horizontalEdge(_ u: UnsafeMutablePointer<UInt8>, _ v: UnsafeMutablePointer<UInt8>, stride s: Int,
                               kind: Int, thresh: UInt8, interior: UInt8, hevThresh: UInt8) {
        var px = (load(u - 4 * s, v - 4 * s), load(u - 3 * s, v - 3 * s), load(u - 2 * s, v - 2 * s),
                  load(u - s, v - s), load(u, v), load(u + s, v + s), load(u + 2 * s, v + 2 * s),
                  load(u + 3 * s, v + 3 * s))
        filter(&px, kind: kind, thresh: thresh, interior: interior, hevThresh: hevThresh)
        store(px.1, u - 3 * s, v - 3 * s); store(px.2, u - 2 * s, v - 2 * s)
        store(px.3, u - s, v - s); store(px.4, u, v)
        store(px.5, u + s, v + s); store(px.6, u + 2 * s, v + 2 * s)
    }

    /// Copies `rows` rows of `cols` bytes starting at `src` (stride `s`) transposed into `dst`
    /// (16 bytes a row: row r of dst is column r of the source, lane i its row i).
    @inline(__always)
    static func transpose(_ src: UnsafePointer<UInt8>, stride s: Int, rows: Int, cols: Int,
                          into dst: UnsafeMutablePointer<UInt8>, laneOffset: Int = 0) {
        for i in 0 ..< rows {
            let row = src + i * s
            for c in 0 ..< cols { dst[c * 16 + i + laneOffset] = row[c] }
        }
    }

    @inline(__always)
    static func untranspose(_ src: UnsafePointer<UInt8>, into dst: UnsafeMutablePointer<UInt8>, stride s: Int,
                            rows: Int, cols: Range<Int>, laneOffset: Int = 0) {
        for i in 0 ..< rows {
            let row = dst + i * s
            for c in cols { row[c] = src[c * 16 + i + laneOffset] }
        }
    }

    /// libwebp's DoFilter for one macroblock, vectorised; same contract as
    /// `VP8LoopFilter.filterMacroblock`. `scratch` holds at least 20 * 16 bytes.
    static func filterMacroblock(y: UnsafeMutablePointer<UInt8>, u: UnsafeMutablePointer<UInt8>,
                                 v: UnsafeMutablePointer<UInt8>, yStride: Int, uvStride: Int,
                                 strength: VP8FilterStrength, inner: Bool, left: Bool, top: Bool, simple: Bool,
                                 scratch: UnsafeMutablePointer<UInt8>) {
        guard strength.limit > 0 else { return }
        // The limits fit below 255 (the frame header makes limit at most 2 * 63 + 63, plus 4 on
        // macroblock edges), which the saturated mask sums need.
        @inline(__always) func byte(_ x: Int32) -> UInt8 { UInt8(truncatingIfNeeded: Swift.min(Swift.max(x, 0), 254)) }
        let limit = byte(strength.limit), edgeLimit = byte(strength.limit &+ 4)
        let il = byte(strength.interiorLimit), hev = byte(strength.hevThreshold)
        let t = scratch
        // Vertical edges (left edge, then the inner ones), on the transposed luma: row c + 4 of
        // the scratch is column c of the macroblock.
        if left || inner {
            VP8Transpose.lumaIn(y, stride: yStride, withLeft: left, into: t)
            let base = t + 4 * 16
            if left {
                horizontalEdge(base, stride: 16, kind: simple ? 0 : 2, thresh: edgeLimit, interior: il, hevThresh: hev)
            }
            if inner {
                for k in 1 ... 3 {
                    horizontalEdge(base + 64 * k, stride: 16, kind: simple ? 0 : 1, thresh: limit, interior: il, hevThresh: hev)
                }
            }
            VP8Transpose.lumaOut(t, into: y, stride: yStride, withLeft: left)
            if !simple {
                // U in lanes 0-7, V in lanes 8-15; row c + 8 is column c.
                VP8Transpose.chromaIn(u, v, stride: uvStride, withLeft: left, into: t)
                let uvBase = t + 8 * 16
                if left {
                    horizontalEdge(uvBase, stride: 16, kind: 2, thresh: edgeLimit, interior: il, hevThresh: hev)
                }
                if inner {
                    horizontalEdge(uvBase + 64, stride: 16, kind: 1, thresh: limit, interior: il, hevThresh: hev)
                }
                VP8Transpose.chromaOut(t, into: u, v, stride: uvStride, withLeft: left)
            }
        }
        if top {
            horizontalEdge(y, stride: yStride, kind: simple ? 0 : 2, thresh: edgeLimit, interior: il, hevThresh: hev)
        }
        if inner {
            for k in 1 ... 3 {
                horizontalEdge(y + 4 * k * yStride, stride: yStride, kind: simple ? 0 : 1, thresh: limit, interior: il,
                               hevThresh: hev)
            }
        }
        if !simple {
            if top {
                horizontalEdge(u, v, stride: uvStride, kind: 2, thresh: edgeLimit, interior: il, hevThresh: hev)
            }
            if inner {
                horizontalEdge(u + 4 * uvStride, v + 4 * uvStride, stride: uvStride, kind: 1, thresh: limit,
                               interior: il, hevThresh: hev)
            }
        }
    }
}
