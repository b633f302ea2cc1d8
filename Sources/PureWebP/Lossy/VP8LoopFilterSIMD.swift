/// The loop filters of `VP8LoopFilter` on 16 byte lanes at once (SSE2-style), same results:
/// each lane is one position along the edge, the eight vectors the pixels p3...q3 across it.
/// The masks (edge limit, interior limit, high edge variance) are taken on bytes with
/// saturating differences; the filter values are computed exactly on two halves of 8 Int16
/// lanes, narrowed to signed bytes, and applied with unsigned saturating adds and subtracts
/// (which clip to 0...255 as the scalar filter does). Horizontal edges are filtered in place;
/// vertical edges on a transposed copy of the macroblock (columns as rows), in libwebp's
/// order, so the result is that of the scalar filter (tested equal).
enum VP8LoopFilterSIMD {
    typealias U = SIMD16<UInt8>
    typealias I = SIMD16<Int8>
    typealias V = SIMD8<Int16>

    // Masks are vectors of 0 or all ones: the concrete lane comparisons' `SIMDMask`
    // reinterpreted as its storage (the generic `SIMDMask` blends compile to per-lane loops).
    // These patterns become single SSE2 instructions: psubusb, paddusb, pmaxub, pcmpgtw, and
    // for clamps against constants pmaxsw/pminsw.
    @inline(__always)
    static func splat(_ x: Int16) -> V { V(repeating: x) }
    /// -1 where a > b.
    @inline(__always)
    static func gt(_ a: V, _ b: V) -> V { unsafeBitCast(a .> b, to: V.self) }
    /// `a` where m is -1, else `b`.
    @inline(__always)
    static func select(_ m: V, _ a: V, _ b: V) -> V { b ^ ((a ^ b) & m) }
    @inline(__always)
    static func clamp(_ v: V, _ lo: Int16, _ hi: Int16) -> V {
        let l = splat(lo), h = splat(hi)
        let a = select(gt(l, v), l, v)
        return select(gt(a, h), h, a)
    }
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

    @inline(__always)
    static func widenLow(_ b: U) -> V {
        V(Int16(b[0]), Int16(b[1]), Int16(b[2]), Int16(b[3]), Int16(b[4]), Int16(b[5]), Int16(b[6]), Int16(b[7]))
    }
    @inline(__always)
    static func widenHigh(_ b: U) -> V {
        V(Int16(b[8]), Int16(b[9]), Int16(b[10]), Int16(b[11]), Int16(b[12]), Int16(b[13]), Int16(b[14]), Int16(b[15]))
    }
    /// Two halves whose lanes are in -128...127 as 16 signed bytes.
    @inline(__always)
    static func narrow(_ a: V, _ b: V) -> U {
        U(UInt8(truncatingIfNeeded: a[0]), UInt8(truncatingIfNeeded: a[1]), UInt8(truncatingIfNeeded: a[2]),
          UInt8(truncatingIfNeeded: a[3]), UInt8(truncatingIfNeeded: a[4]), UInt8(truncatingIfNeeded: a[5]),
          UInt8(truncatingIfNeeded: a[6]), UInt8(truncatingIfNeeded: a[7]), UInt8(truncatingIfNeeded: b[0]),
          UInt8(truncatingIfNeeded: b[1]), UInt8(truncatingIfNeeded: b[2]), UInt8(truncatingIfNeeded: b[3]),
          UInt8(truncatingIfNeeded: b[4]), UInt8(truncatingIfNeeded: b[5]), UInt8(truncatingIfNeeded: b[6]),
          UInt8(truncatingIfNeeded: b[7]))
    }

    /// A signed byte delta split into its positive part and the magnitude of its negative part.
    @inline(__always)
    static func split(_ d: U) -> (pos: U, neg: U) {
        let negative = unsafeBitCast(I(repeating: 0) .> unsafeBitCast(d, to: I.self), to: U.self)
        return (d & ~negative, (U(repeating: 0) &- d) & negative)
    }
    /// clip(p + d) for the split delta (and `minus` for clip(p - d)).
    @inline(__always)
    static func plus(_ p: U, _ d: (pos: U, neg: U)) -> U { subs(adds(p, d.pos), d.neg) }
    @inline(__always)
    static func minus(_ p: U, _ d: (pos: U, neg: U)) -> U { adds(subs(p, d.pos), d.neg) }

    /// The filter values of 8 lanes: the 2-tap ones (h1, h2), then by `kind` the inner-edge
    /// ones (a1, a2, a3 of filter4) or the macroblock-edge ones (a1, a2, a3 of filter6).
    @inline(__always)
    static func deltas(_ p1: V, _ p0: V, _ q0: V, _ q1: V, kind: Int) -> (V, V, V, V, V) {
        let d3 = splat(3) &* (q0 &- p0)
        let a = d3 &+ clamp(p1 &- q1, -128, 127)
        let h1 = clamp((a &+ splat(4)) &>> splat(3), -16, 15), h2 = clamp((a &+ splat(3)) &>> splat(3), -16, 15)
        if kind == 2 {
            let w = clamp(a, -128, 127)
            let r = splat(63), s7 = splat(7)
            return (h1, h2, (splat(27) &* w &+ r) &>> s7, (splat(18) &* w &+ r) &>> s7, (splat(9) &* w &+ r) &>> s7)
        }
        if kind == 1 {
            let a1 = clamp((d3 &+ splat(4)) &>> splat(3), -16, 15), a2 = clamp((d3 &+ splat(3)) &>> splat(3), -16, 15)
            return (h1, h2, a1, a2, (a1 &+ splat(1)) &>> splat(1))
        }
        return (h1, h2, h1, h2, h1)
    }

    /// The filter across one edge: `px[0...7]` are p3, p2, p1, p0, q0, q1, q2, q3.
    /// `kind`: 0 simple, 1 normal inner edge, 2 normal macroblock edge. `thresh` is the edge
    /// limit (4 |p0 - q0| + |p1 - q1| <= 2 thresh + 1, taken as 2 |p0 - q0| + |p1 - q1| / 2 <=
    /// thresh, the same on integers), at most 255.
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
        let (l1, l2, l3, l4, l5) = deltas(widenLow(p1), widenLow(p0), widenLow(q0), widenLow(q1), kind: kind)
        let (r1, r2, r3, r4, r5) = deltas(widenHigh(p1), widenHigh(p0), widenHigh(q0), widenHigh(q1), kind: kind)
        let h1 = narrow(l1, r1), h2 = narrow(l2, r2)
        if kind == 0 {
            px.3 = plus(p0, split(h2 & mask))
            px.4 = minus(q0, split(h1 & mask))
            return
        }
        let a1 = narrow(l3, r3), a2 = narrow(l4, r4), a3 = narrow(l5, r5)
        let hevMask = mask & hev, other = mask & ~hev
        if kind == 2 {
            let s2 = split(a2 & other), s3 = split(a3 & other)
            px.1 = plus(px.1, s3)
            px.2 = plus(p1, s2)
            px.3 = plus(p0, split((h2 & hevMask) | (a1 & other)))
            px.4 = minus(q0, split((h1 & hevMask) | (a1 & other)))
            px.5 = minus(q1, s2)
            px.6 = minus(px.6, s3)
        } else {
            let s3 = split(a3 & other)
            px.2 = plus(p1, s3)
            px.3 = plus(p0, split((h2 & hevMask) | (a2 & other)))
            px.4 = minus(q0, split((h1 & hevMask) | (a1 & other)))
            px.5 = minus(q1, s3)
        }
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
