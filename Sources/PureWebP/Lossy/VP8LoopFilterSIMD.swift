/// The loop filters of `VP8LoopFilter` on 16 lanes of Int16 at once (SSE2-friendly), same
/// arithmetic: each lane is one position along the edge, the eight vectors the pixels p3...q3
/// across it. Horizontal edges are filtered in place; vertical edges on a transposed copy of the
/// macroblock (columns as rows), in libwebp's order, so the result is that of the scalar filter
/// (tested equal).
enum VP8LoopFilterSIMD {
    typealias V = SIMD16<Int16>

    // Lane masks are Int16 vectors of 0 or -1: the concrete lane comparisons' `SIMDMask`
    // reinterpreted as its storage (the generic `SIMDMask` blends compile to per-lane loops).
    // A comparison then an xor/and blend against a constant becomes pmaxsw/pminsw.
    @inline(__always)
    static func splat(_ x: Int16) -> V { V(repeating: x) }
    /// -1 where a <= b.
    @inline(__always)
    static func le(_ a: V, _ b: V) -> V { unsafeBitCast(a .<= b, to: V.self) }
    /// -1 where a > b.
    @inline(__always)
    static func gt(_ a: V, _ b: V) -> V { unsafeBitCast(a .> b, to: V.self) }
    /// `a` where m is -1, else `b`.
    @inline(__always)
    static func select(_ m: V, _ a: V, _ b: V) -> V { b ^ ((a ^ b) & m) }
    @inline(__always)
    static func abs(_ v: V) -> V {
        let s = v &>> splat(15)
        return (v ^ s) &- s
    }
    @inline(__always)
    static func clamp(_ v: V, _ lo: Int16, _ hi: Int16) -> V {
        let l = splat(lo), h = splat(hi)
        let a = select(gt(l, v), l, v)
        return select(gt(a, h), h, a)
    }

    // Widening and narrowing lane by lane: the generic `init(truncatingIfNeeded:)` stays a
    // call here; these become unpacks and a pack.
    @inline(__always)
    static func widen(_ b: SIMD16<UInt8>) -> V {
        V(Int16(b[0]), Int16(b[1]), Int16(b[2]), Int16(b[3]), Int16(b[4]), Int16(b[5]), Int16(b[6]), Int16(b[7]), Int16(b[8]), Int16(b[9]), Int16(b[10]), Int16(b[11]), Int16(b[12]), Int16(b[13]), Int16(b[14]), Int16(b[15]))
    }
    @inline(__always)
    static func narrow(_ v: V) -> SIMD16<UInt8> {
        SIMD16<UInt8>(UInt8(truncatingIfNeeded: v[0]), UInt8(truncatingIfNeeded: v[1]), UInt8(truncatingIfNeeded: v[2]), UInt8(truncatingIfNeeded: v[3]), UInt8(truncatingIfNeeded: v[4]), UInt8(truncatingIfNeeded: v[5]), UInt8(truncatingIfNeeded: v[6]), UInt8(truncatingIfNeeded: v[7]), UInt8(truncatingIfNeeded: v[8]), UInt8(truncatingIfNeeded: v[9]), UInt8(truncatingIfNeeded: v[10]), UInt8(truncatingIfNeeded: v[11]), UInt8(truncatingIfNeeded: v[12]), UInt8(truncatingIfNeeded: v[13]), UInt8(truncatingIfNeeded: v[14]), UInt8(truncatingIfNeeded: v[15]))
    }
    @inline(__always)
    static func load(_ p: UnsafePointer<UInt8>) -> V {
        widen(UnsafeRawPointer(p).loadUnaligned(as: SIMD16<UInt8>.self))
    }
    @inline(__always)
    static func store(_ v: V, _ p: UnsafeMutablePointer<UInt8>) {
        UnsafeMutableRawPointer(p).storeBytes(of: narrow(v), as: SIMD16<UInt8>.self)
    }
    /// Eight U bytes in lanes 0-7 and eight V bytes in lanes 8-15.
    @inline(__always)
    static func load(_ u: UnsafePointer<UInt8>, _ v: UnsafePointer<UInt8>) -> V {
        let a = UnsafeRawPointer(u).loadUnaligned(as: SIMD8<UInt8>.self)
        let b = UnsafeRawPointer(v).loadUnaligned(as: SIMD8<UInt8>.self)
        return widen(SIMD16<UInt8>(lowHalf: a, highHalf: b))
    }
    @inline(__always)
    static func store(_ x: V, _ u: UnsafeMutablePointer<UInt8>, _ v: UnsafeMutablePointer<UInt8>) {
        let b = narrow(x)
        UnsafeMutableRawPointer(u).storeBytes(of: b.lowHalf, as: SIMD8<UInt8>.self)
        UnsafeMutableRawPointer(v).storeBytes(of: b.highHalf, as: SIMD8<UInt8>.self)
    }

    /// The filter across one edge: `px[0...7]` are p3, p2, p1, p0, q0, q1, q2, q3.
    /// `kind`: 0 simple, 1 normal inner edge, 2 normal macroblock edge.
    @inline(__always)
    static func filter(_ px: inout (V, V, V, V, V, V, V, V), kind: Int, thresh: Int16, interior: Int16, hevThresh: Int16) {
        let p1 = px.2, p0 = px.3, q0 = px.4, q1 = px.5
        let t2 = splat(2 &* thresh &+ 1)
        var mask = le(splat(4) &* abs(p0 &- q0) &+ abs(p1 &- q1), t2)
        let d3 = splat(3) &* (q0 &- p0)
        let outer = clamp(p1 &- q1, -128, 127)
        let a = d3 &+ outer
        let h1 = clamp((a &+ splat(4)) &>> splat(3), -16, 15), h2 = clamp((a &+ splat(3)) &>> splat(3), -16, 15)
        if kind == 0 {
            px.3 = select(mask, clamp(p0 &+ h2, 0, 255), p0)
            px.4 = select(mask, clamp(q0 &- h1, 0, 255), q0)
            return
        }
        let p3 = px.0, p2 = px.1, q2 = px.6, q3 = px.7
        let it = splat(interior)
        mask = mask & le(abs(p3 &- p2), it) & le(abs(p2 &- p1), it) & le(abs(p1 &- p0), it)
            & le(abs(q3 &- q2), it) & le(abs(q2 &- q1), it) & le(abs(q1 &- q0), it)
        let ht = splat(hevThresh)
        let hev = gt(abs(p1 &- p0), ht) | gt(abs(q1 &- q0), ht)
        // High edge variance: the 2-tap filter with the outer taps.
        let hevMask = mask & hev
        let other = mask & ~hev
        var np0 = select(hevMask, clamp(p0 &+ h2, 0, 255), p0)
        var nq0 = select(hevMask, clamp(q0 &- h1, 0, 255), q0)
        if kind == 2 {
            let w = clamp(a, -128, 127)
            let r = splat(63), s7 = splat(7)
            let a1 = (splat(27) &* w &+ r) &>> s7, a2 = (splat(18) &* w &+ r) &>> s7, a3 = (splat(9) &* w &+ r) &>> s7
            px.1 = select(other, clamp(p2 &+ a3, 0, 255), p2)
            px.2 = select(other, clamp(p1 &+ a2, 0, 255), p1)
            np0 = select(other, clamp(p0 &+ a1, 0, 255), np0)
            nq0 = select(other, clamp(q0 &- a1, 0, 255), nq0)
            px.5 = select(other, clamp(q1 &- a2, 0, 255), q1)
            px.6 = select(other, clamp(q2 &- a3, 0, 255), q2)
        } else {
            let a1 = clamp((d3 &+ splat(4)) &>> splat(3), -16, 15), a2 = clamp((d3 &+ splat(3)) &>> splat(3), -16, 15)
            let a3 = (a1 &+ splat(1)) &>> splat(1)
            px.2 = select(other, clamp(p1 &+ a3, 0, 255), p1)
            np0 = select(other, clamp(p0 &+ a2, 0, 255), np0)
            nq0 = select(other, clamp(q0 &- a1, 0, 255), nq0)
            px.5 = select(other, clamp(q1 &- a3, 0, 255), q1)
        }
        px.3 = np0
        px.4 = nq0
    }

    /// Filters a horizontal edge in place: `p` is the first row below the edge, lanes along it.
    @inline(__always)
    static func horizontalEdge(_ p: UnsafeMutablePointer<UInt8>, stride s: Int, kind: Int,
                               thresh: Int16, interior: Int16, hevThresh: Int16) {
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
                               kind: Int, thresh: Int16, interior: Int16, hevThresh: Int16) {
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
        let limit = Int16(truncatingIfNeeded: strength.limit)
        guard limit > 0 else { return }
        let il = Int16(truncatingIfNeeded: strength.interiorLimit), hev = Int16(truncatingIfNeeded: strength.hevThreshold)
        let t = scratch
        // Vertical edges (left edge, then the inner ones), on the transposed luma: row c + 4 of
        // the scratch is column c of the macroblock.
        if left || inner {
            let firstCol = left ? -4 : 0
            VP8Transpose.lumaIn(y, stride: yStride, withLeft: left, into: t)
            let base = t + 4 * 16
            if left {
                horizontalEdge(base, stride: 16, kind: simple ? 0 : 2, thresh: limit + 4, interior: il, hevThresh: hev)
            }
            if inner {
                for k in 1 ... 3 {
                    horizontalEdge(base + 64 * k, stride: 16, kind: simple ? 0 : 1, thresh: limit, interior: il, hevThresh: hev)
                }
            }
            VP8Transpose.lumaOut(t, into: y, stride: yStride, withLeft: left)
            if !simple {
                // U in lanes 0-7, V in lanes 8-15; row c + 4 is column c.
                transpose(u + firstCol, stride: uvStride, rows: 8, cols: 12 + (left ? 0 : -4), into: t + (firstCol + 4) * 16)
                transpose(v + firstCol, stride: uvStride, rows: 8, cols: 12 + (left ? 0 : -4), into: t + (firstCol + 4) * 16,
                          laneOffset: 8)
                if left {
                    horizontalEdge(base, stride: 16, kind: 2, thresh: limit + 4, interior: il, hevThresh: hev)
                }
                if inner {
                    horizontalEdge(base + 64, stride: 16, kind: 1, thresh: limit, interior: il, hevThresh: hev)
                }
                let cols = (left ? 1 : 0) ..< 12 + (left ? 0 : -4)
                untranspose(t + (firstCol + 4) * 16, into: u + firstCol, stride: uvStride, rows: 8, cols: cols)
                untranspose(t + (firstCol + 4) * 16, into: v + firstCol, stride: uvStride, rows: 8, cols: cols, laneOffset: 8)
            }
        }
        if top {
            horizontalEdge(y, stride: yStride, kind: simple ? 0 : 2, thresh: limit + 4, interior: il, hevThresh: hev)
        }
        if inner {
            for k in 1 ... 3 {
                horizontalEdge(y + 4 * k * yStride, stride: yStride, kind: simple ? 0 : 1, thresh: limit, interior: il,
                               hevThresh: hev)
            }
        }
        if !simple {
            if top {
                horizontalEdge(u, v, stride: uvStride, kind: 2, thresh: limit + 4, interior: il, hevThresh: hev)
            }
            if inner {
                horizontalEdge(u + 4 * uvStride, v + 4 * uvStride, stride: uvStride, kind: 1, thresh: limit,
                               interior: il, hevThresh: hev)
            }
        }
    }
}
