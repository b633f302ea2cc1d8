/// The loop filters of RFC 6386 15 with libwebp's arithmetic (dsp/dec.c): the simple filter on
/// luma only, the normal filter on luma and chroma with the high-edge-variance test. `step` is
/// the distance across the edge (1 for a vertical edge, the stride for a horizontal one).
enum VP8LoopFilter {
    @inline(__always)
    static func sclip1(_ v: Int32) -> Int32 { v < -128 ? -128 : v > 127 ? 127 : v }
    @inline(__always)
    static func sclip2(_ v: Int32) -> Int32 { v < -16 ? -16 : v > 15 ? 15 : v }
    @inline(__always)
    static func clip1(_ v: Int32) -> UInt8 { UInt8(truncatingIfNeeded: v < 0 ? 0 : v > 255 ? 255 : v) }
    @inline(__always)
    static func abs0(_ v: Int32) -> Int32 { v < 0 ? -v : v }

    @inline(__always)
    static func filter2(_ p: UnsafeMutablePointer<UInt8>, _ step: Int) {
        let p1 = Int32(p[-2 * step]), p0 = Int32(p[-step]), q0 = Int32(p[0]), q1 = Int32(p[step])
        let a = 3 &* (q0 &- p0) &+ sclip1(p1 &- q1)
        let a1 = sclip2((a &+ 4) >> 3)
        let a2 = sclip2((a &+ 3) >> 3)
        p[-step] = clip1(p0 &+ a2)
        p[0] = clip1(q0 &- a1)
    }

    @inline(__always)
    static func filter4(_ p: UnsafeMutablePointer<UInt8>, _ step: Int) {
        let p1 = Int32(p[-2 * step]), p0 = Int32(p[-step]), q0 = Int32(p[0]), q1 = Int32(p[step])
        let a = 3 &* (q0 &- p0)
        let a1 = sclip2((a &+ 4) >> 3)
        let a2 = sclip2((a &+ 3) >> 3)
        let a3 = (a1 &+ 1) >> 1
        p[-2 * step] = clip1(p1 &+ a3)
        p[-step] = clip1(p0 &+ a2)
        p[0] = clip1(q0 &- a1)
        p[step] = clip1(q1 &- a3)
    }

    @inline(__always)
    static func filter6(_ p: UnsafeMutablePointer<UInt8>, _ step: Int) {
        let p2 = Int32(p[-3 * step]), p1 = Int32(p[-2 * step]), p0 = Int32(p[-step])
        let q0 = Int32(p[0]), q1 = Int32(p[step]), q2 = Int32(p[2 * step])
        let a = sclip1(3 &* (q0 &- p0) &+ sclip1(p1 &- q1))
        let a1 = (27 &* a &+ 63) >> 7
        let a2 = (18 &* a &+ 63) >> 7
        let a3 = (9 &* a &+ 63) >> 7
        p[-3 * step] = clip1(p2 &+ a3)
        p[-2 * step] = clip1(p1 &+ a2)
        p[-step] = clip1(p0 &+ a1)
        p[0] = clip1(q0 &- a1)
        p[step] = clip1(q1 &- a2)
        p[2 * step] = clip1(q2 &- a3)
    }

    @inline(__always)
    static func hev(_ p: UnsafeMutablePointer<UInt8>, _ step: Int, _ thresh: Int32) -> Bool {
        let p1 = Int32(p[-2 * step]), p0 = Int32(p[-step]), q0 = Int32(p[0]), q1 = Int32(p[step])
        return abs0(p1 &- p0) > thresh || abs0(q1 &- q0) > thresh
    }

    @inline(__always)
    static func needsFilter(_ p: UnsafeMutablePointer<UInt8>, _ step: Int, _ t: Int32) -> Bool {
        let p1 = Int32(p[-2 * step]), p0 = Int32(p[-step]), q0 = Int32(p[0]), q1 = Int32(p[step])
        return 4 &* abs0(p0 &- q0) &+ abs0(p1 &- q1) <= t
    }

    @inline(__always)
    static func needsFilter2(_ p: UnsafeMutablePointer<UInt8>, _ step: Int, _ t: Int32, _ it: Int32) -> Bool {
        let p3 = Int32(p[-4 * step]), p2 = Int32(p[-3 * step]), p1 = Int32(p[-2 * step]), p0 = Int32(p[-step])
        let q0 = Int32(p[0]), q1 = Int32(p[step]), q2 = Int32(p[2 * step]), q3 = Int32(p[3 * step])
        if 4 &* abs0(p0 &- q0) &+ abs0(p1 &- q1) > t { return false }
        return abs0(p3 &- p2) <= it && abs0(p2 &- p1) <= it && abs0(p1 &- p0) <= it
            && abs0(q3 &- q2) <= it && abs0(q2 &- q1) <= it && abs0(q1 &- q0) <= it
    }

    /// Simple filter across one edge of 16 pixels; `along` steps along the edge.
    @inline(__always)
    static func simple(_ p: UnsafeMutablePointer<UInt8>, step: Int, along: Int, thresh: Int32) {
        let t2 = 2 &* thresh &+ 1
        for i in 0 ..< 16 {
            let q = p + i * along
            if needsFilter(q, step, t2) { filter2(q, step) }
        }
    }

    /// Normal filter across a macroblock edge (`mbEdge`: 6-tap) or an inner edge (4-tap).
    @inline(__always)
    static func normal(_ p: UnsafeMutablePointer<UInt8>, step: Int, along: Int, count: Int, mbEdge: Bool,
                       thresh: Int32, interior: Int32, hevThresh: Int32) {
        let t2 = 2 &* thresh &+ 1
        for i in 0 ..< count {
            let q = p + i * along
            guard needsFilter2(q, step, t2, interior) else { continue }
            if hev(q, step, hevThresh) {
                filter2(q, step)
            } else if mbEdge {
                filter6(q, step)
            } else {
                filter4(q, step)
            }
        }
    }

    /// Filters one macroblock in place (libwebp's DoFilter): `y`, `u`, `v` point at its top-left
    /// pixels in planes of the given strides, with the rows and columns above and left present.
    static func filterMacroblock(y: UnsafeMutablePointer<UInt8>, u: UnsafeMutablePointer<UInt8>,
                                 v: UnsafeMutablePointer<UInt8>, yStride: Int, uvStride: Int,
                                 strength: VP8FilterStrength, inner: Bool, left: Bool, top: Bool, simple: Bool) {
        let limit = strength.limit
        guard limit > 0 else { return }
        if simple {
            if left { Self.simple(y, step: 1, along: yStride, thresh: limit + 4) }
            if inner { for k in 1 ... 3 { Self.simple(y + 4 * k, step: 1, along: yStride, thresh: limit) } }
            if top { Self.simple(y, step: yStride, along: 1, thresh: limit + 4) }
            if inner { for k in 1 ... 3 { Self.simple(y + 4 * k * yStride, step: yStride, along: 1, thresh: limit) } }
            return
        }
        let il = strength.interiorLimit, hev = strength.hevThreshold
        if left {
            normal(y, step: 1, along: yStride, count: 16, mbEdge: true, thresh: limit + 4, interior: il, hevThresh: hev)
            normal(u, step: 1, along: uvStride, count: 8, mbEdge: true, thresh: limit + 4, interior: il, hevThresh: hev)
            normal(v, step: 1, along: uvStride, count: 8, mbEdge: true, thresh: limit + 4, interior: il, hevThresh: hev)
        }
        if inner {
            for k in 1 ... 3 {
                normal(y + 4 * k, step: 1, along: yStride, count: 16, mbEdge: false, thresh: limit, interior: il, hevThresh: hev)
            }
            normal(u + 4, step: 1, along: uvStride, count: 8, mbEdge: false, thresh: limit, interior: il, hevThresh: hev)
            normal(v + 4, step: 1, along: uvStride, count: 8, mbEdge: false, thresh: limit, interior: il, hevThresh: hev)
        }
        if top {
            normal(y, step: yStride, along: 1, count: 16, mbEdge: true, thresh: limit + 4, interior: il, hevThresh: hev)
            normal(u, step: uvStride, along: 1, count: 8, mbEdge: true, thresh: limit + 4, interior: il, hevThresh: hev)
            normal(v, step: uvStride, along: 1, count: 8, mbEdge: true, thresh: limit + 4, interior: il, hevThresh: hev)
        }
        if inner {
            for k in 1 ... 3 {
                normal(y + 4 * k * yStride, step: yStride, along: 1, count: 16, mbEdge: false,
                       thresh: limit, interior: il, hevThresh: hev)
            }
            normal(u + 4 * uvStride, step: uvStride, along: 1, count: 8, mbEdge: false, thresh: limit, interior: il, hevThresh: hev)
            normal(v + 4 * uvStride, step: uvStride, along: 1, count: 8, mbEdge: false, thresh: limit, interior: il, hevThresh: hev)
        }
    }
}
