/// The loop filters of `VP8LoopFilter` on 16 byte lanes at once (SSE2-style), same results:
/// each lane is one position along the edge, the eight vectors the pixels p3...q3 across it.
/// The masks (edge limit, interior limit, high edge variance) are taken on bytes with
/// saturating differences; the filter values on signed bytes (pixels minus 128) with signed
/// saturating sums, as libwebp's SSE2 filters (the 6-tap products on two halves of 8 Int16
/// lanes); the saturation clips as the scalar filter does. Horizontal edges are filtered in place;
/// vertical edges on a transposed copy of the macroblock (columns as rows), in libwebp's
/// order, so the result is that of the scalar filter (tested equal).
enum VP8LoopFilterSIMD {
    typealias U = SIMD16<UInt8>
    typealias I = SIMD16<Int8>
    typealias V = SIMD8<Int16>

    // Masks are vectors of 0 or all ones: the concrete lane comparisons' `SIMDMask`
    // reinterpreted as its storage (the generic `SIMDMask` blends compile to per-lane loops).
    // These patterns become single SSE2 instructions: psubusb, paddusb, pmaxub; the signed
    // byte sums below paddsb and psubsb.
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

    typealias W = SIMD16<Int16>
    @inline(__always)
    static func wide(_ a: I) -> W {
        W(lowHalf: widenLow(a), highHalf: widenHigh(a))
    }
    /// Signed saturating byte sums and differences, written as the clamp of the 16-bit result
    /// (which the compiler turns into paddsb / psubsb).
    @inline(__always)
    static func saturate(_ s: W) -> I {
        let lo = W(repeating: -128), hi = W(repeating: 127)
        let c = s.replacing(with: lo, where: s .< lo)
        let d = c.replacing(with: hi, where: c .> hi)
        return narrow(d.lowHalf, d.highHalf)
    }
    // Not forced inline: written out in the filters they make the caller too large for the
    // optimiser's inlining of the edge functions; as calls they are one instruction each,
    // which the code generator inlines.
    static func adds(_ a: I, _ b: I) -> I { saturate(wide(a) &+ wide(b)) }
    static func subs(_ a: I, _ b: I) -> I { saturate(wide(a) &- wide(b)) }
    /// Pixels as signed bytes (x - 128) and back.
    @inline(__always)
    static func signed(_ u: U) -> I { unsafeBitCast(u ^ U(repeating: 0x80), to: I.self) }
    @inline(__always)
    static func unsigned(_ s: I) -> U { unsafeBitCast(s, to: U.self) ^ U(repeating: 0x80) }
    @inline(__always)
    static func bytes(_ n: Int8) -> I { I(repeating: n) }

    /// The filter across one edge: `px[0...7]` are p3, p2, p1, p0, q0, q1, q2, q3.
    /// `kind`: 0 simple, 1 normal inner edge, 2 normal macroblock edge. `thresh` is the edge
    /// limit (4 |p0 - q0| + |p1 - q1| <= 2 thresh + 1, taken as 2 |p0 - q0| + |p1 - q1| / 2 <=
    /// thresh, the same on integers), at most 255.
    ///
    /// The filter values are taken on signed bytes (pixels minus 128) with saturating sums, as
    /// libwebp's SSE2 filters do: the base value 3 (q0 - p0) + (p1 - q1) saturates to
    /// -128...127, which is where the scalar filter clamps it (or where its shifted values clamp
    /// to -16...15 anyway); the updates saturate as the scalar clip does.
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
        let m = unsafeBitCast(mask, to: I.self), h = unsafeBitCast(hev, to: I.self)
        let sp1 = signed(p1), sp0 = signed(p0), sq0 = signed(q0), sq1 = signed(q1)
        let q0p0 = subs(sq0, sp0)
        // p1 - q1 is in the base value except on the inner edges' lanes without high edge
        // variance (their 4-tap filter).
        let p1q1 = kind == 1 ? subs(sp1, sq1) & h : subs(sp1, sq1)
        let base = adds(adds(adds(p1q1, q0p0), q0p0), q0p0)
        if kind == 0 {
            let a = base & m
            px.3 = unsigned(adds(sp0, adds(a, bytes(3)) &>> 3))
            px.4 = unsigned(subs(sq0, adds(a, bytes(4)) &>> 3))
            return
        }
        if kind == 1 {
            let a = base & m
            let a2 = adds(a, bytes(3)) &>> 3, a1 = adds(a, bytes(4)) &>> 3
            px.3 = unsigned(adds(sp0, a2))
            px.4 = unsigned(subs(sq0, a1))
            let a3 = ((a1 &+ bytes(1)) &>> 1) & ~h
            px.2 = unsigned(adds(sp1, a3))
            px.5 = unsigned(subs(sq1, a3))
            return
        }
        // Macroblock edge: the 2-tap filter on hev lanes, the 6-tap one on the others.
        let f = base & (m & h)
        let np0 = adds(sp0, adds(f, bytes(3)) &>> 3), nq0 = subs(sq0, adds(f, bytes(4)) &>> 3)
        let g = base & (m & ~h)
        let lo9 = widenLow(g) &* V(repeating: 9), hi9 = widenHigh(g) &* V(repeating: 9)
        let r = V(repeating: 63)
        let lo2 = lo9 &+ r, hi2 = hi9 &+ r
        let lo1 = lo2 &+ lo9, hi1 = hi2 &+ hi9
        let lo0 = lo1 &+ lo9, hi0 = hi1 &+ hi9
        let w2 = narrow(lo2 &>> 7, hi2 &>> 7), w1 = narrow(lo1 &>> 7, hi1 &>> 7), w0 = narrow(lo0 &>> 7, hi0 &>> 7)
        px.1 = unsigned(adds(signed(px.1), w2))
        px.6 = unsigned(subs(signed(px.6), w2))
        px.2 = unsigned(adds(sp1, w1))
        px.5 = unsigned(subs(sq1, w1))
        px.3 = unsigned(adds(np0, w0))
        px.4 = unsigned(subs(nq0, w0))
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
