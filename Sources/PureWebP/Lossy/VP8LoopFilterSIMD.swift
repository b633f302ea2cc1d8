/// The loop filters of `VP8LoopFilter` on 16 lanes of Int16 at once (SSE2-friendly), same
/// arithmetic: each lane is one position along the edge, the eight vectors the pixels p3...q3
/// across it. Horizontal edges are filtered in place; vertical edges on a transposed copy of the
/// macroblock (columns as rows), in libwebp's order, so the result is that of the scalar filter
/// (tested equal).
enum VP8LoopFilterSIMD {
    typealias V = SIMD16<Int16>

    @inline(__always)
    static func abs(_ v: V) -> V { v.replacing(with: 0 &- v, where: v .< 0) }
    @inline(__always)
    static func clamp(_ v: V, _ lo: Int16, _ hi: Int16) -> V {
        v.replacing(with: lo, where: v .< lo).replacing(with: hi, where: v .> hi)
    }

    @inline(__always)
    static func load(_ p: UnsafePointer<UInt8>) -> V {
        V(truncatingIfNeeded: UnsafeRawPointer(p).loadUnaligned(as: SIMD16<UInt8>.self))
    }
    @inline(__always)
    static func store(_ v: V, _ p: UnsafeMutablePointer<UInt8>) {
        UnsafeMutableRawPointer(p).storeBytes(of: SIMD16<UInt8>(truncatingIfNeeded: v), as: SIMD16<UInt8>.self)
    }
    /// Eight U bytes in lanes 0-7 and eight V bytes in lanes 8-15.
    @inline(__always)
    static func load(_ u: UnsafePointer<UInt8>, _ v: UnsafePointer<UInt8>) -> V {
        let a = UnsafeRawPointer(u).loadUnaligned(as: SIMD8<UInt8>.self)
        let b = UnsafeRawPointer(v).loadUnaligned(as: SIMD8<UInt8>.self)
        return V(truncatingIfNeeded: SIMD16<UInt8>(lowHalf: a, highHalf: b))
    }
    @inline(__always)
    static func store(_ x: V, _ u: UnsafeMutablePointer<UInt8>, _ v: UnsafeMutablePointer<UInt8>) {
        let b = SIMD16<UInt8>(truncatingIfNeeded: x)
        UnsafeMutableRawPointer(u).storeBytes(of: b.lowHalf, as: SIMD8<UInt8>.self)
        UnsafeMutableRawPointer(v).storeBytes(of: b.highHalf, as: SIMD8<UInt8>.self)
    }

    /// The filter across one edge: `px[0...7]` are p3, p2, p1, p0, q0, q1, q2, q3.
    /// `kind`: 0 simple, 1 normal inner edge, 2 normal macroblock edge.
    @inline(__always)
    static func filter(_ px: inout (V, V, V, V, V, V, V, V), kind: Int, thresh: Int16, interior: Int16, hevThresh: Int16) {
        let p1 = px.2, p0 = px.3, q0 = px.4, q1 = px.5
        let t2 = 2 &* thresh &+ 1
        var mask = (4 &* abs(p0 &- q0) &+ abs(p1 &- q1)) .<= t2
        let d3 = 3 &* (q0 &- p0)
        let outer = clamp(p1 &- q1, -128, 127)
        if kind == 0 {
            let a = d3 &+ outer
            let a1 = clamp((a &+ 4) &>> 3, -16, 15), a2 = clamp((a &+ 3) &>> 3, -16, 15)
            px.3 = p0.replacing(with: clamp(p0 &+ a2, 0, 255), where: mask)
            px.4 = q0.replacing(with: clamp(q0 &- a1, 0, 255), where: mask)
            return
        }
        let p3 = px.0, p2 = px.1, q2 = px.6, q3 = px.7
        let it = interior
        mask = mask .& (abs(p3 &- p2) .<= it) .& (abs(p2 &- p1) .<= it) .& (abs(p1 &- p0) .<= it)
            .& (abs(q3 &- q2) .<= it) .& (abs(q2 &- q1) .<= it) .& (abs(q1 &- q0) .<= it)
        let hev = (abs(p1 &- p0) .> hevThresh) .| (abs(q1 &- q0) .> hevThresh)
        // High edge variance: the 2-tap filter with the outer taps.
        let a = d3 &+ outer
        let h1 = clamp((a &+ 4) &>> 3, -16, 15), h2 = clamp((a &+ 3) &>> 3, -16, 15)
        let hevMask = mask .& hev
        let other = mask .& .!hev
        var np0 = p0.replacing(with: clamp(p0 &+ h2, 0, 255), where: hevMask)
        var nq0 = q0.replacing(with: clamp(q0 &- h1, 0, 255), where: hevMask)
        if kind == 2 {
            let w = clamp(a, -128, 127)
            let a1 = (27 &* w &+ 63) &>> 7, a2 = (18 &* w &+ 63) &>> 7, a3 = (9 &* w &+ 63) &>> 7
            px.1 = p2.replacing(with: clamp(p2 &+ a3, 0, 255), where: other)
            px.2 = p1.replacing(with: clamp(p1 &+ a2, 0, 255), where: other)
            np0 = np0.replacing(with: clamp(p0 &+ a1, 0, 255), where: other)
            nq0 = nq0.replacing(with: clamp(q0 &- a1, 0, 255), where: other)
            px.5 = q1.replacing(with: clamp(q1 &- a2, 0, 255), where: other)
            px.6 = q2.replacing(with: clamp(q2 &- a3, 0, 255), where: other)
        } else {
            let a1 = clamp((d3 &+ 4) &>> 3, -16, 15), a2 = clamp((d3 &+ 3) &>> 3, -16, 15)
            let a3 = (a1 &+ 1) &>> 1
            px.2 = p1.replacing(with: clamp(p1 &+ a3, 0, 255), where: other)
            np0 = np0.replacing(with: clamp(p0 &+ a2, 0, 255), where: other)
            nq0 = nq0.replacing(with: clamp(q0 &- a1, 0, 255), where: other)
            px.5 = q1.replacing(with: clamp(q1 &- a3, 0, 255), where: other)
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
            transpose(y + firstCol, stride: yStride, rows: 16, cols: 20 + (left ? 0 : -4), into: t + (firstCol + 4) * 16)
            let base = t + 4 * 16
            if left {
                horizontalEdge(base, stride: 16, kind: simple ? 0 : 2, thresh: limit + 4, interior: il, hevThresh: hev)
            }
            if inner {
                for k in 1 ... 3 {
                    horizontalEdge(base + 64 * k, stride: 16, kind: simple ? 0 : 1, thresh: limit, interior: il, hevThresh: hev)
                }
            }
            untranspose(t + (firstCol + 4) * 16, into: y + firstCol, stride: yStride, rows: 16,
                        cols: (left ? 1 : 0) ..< 20 + (left ? 0 : -4))
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
