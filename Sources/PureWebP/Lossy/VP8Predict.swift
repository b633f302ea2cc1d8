/// Intra prediction (RFC 6386 12) in libwebp's work buffer: each block's top row at `-stride`,
/// its left column at `-1`, its top-left corner at `-stride - 1`; a 4x4 block's above-right
/// pixels at `-stride + 4 ..< -stride + 8`. Mode numbers are libwebp's: 0 DC, 1 TM, 2 VE, 3 HE,
/// 4 RD, 5 VR, 6 LD, 7 VL, 8 HD, 9 HU (16x16 and chroma use 0...3 with the same meanings);
/// the DC variants at picture edges are 4 no top, 5 no left, 6 neither.
enum VP8Predict {
    static let stride = 32
    static let dcNoTop = 4, dcNoLeft = 5, dcNoTopLeft = 6

    @inline(__always)
    static func avg3(_ a: Int, _ b: Int, _ c: Int) -> UInt8 { UInt8(truncatingIfNeeded: (a + 2 * b + c + 2) >> 2) }
    @inline(__always)
    static func avg2(_ a: Int, _ b: Int) -> UInt8 { UInt8(truncatingIfNeeded: (a + b + 1) >> 1) }

    /// `size` (4, 8 or 16) copies of `value` in one store (a memset call a row before).
    @inline(__always)
    static func fillRow(_ row: UnsafeMutablePointer<UInt8>, _ size: Int, _ value: UInt8) {
        let raw = UnsafeMutableRawPointer(row)
        switch size {
        case 16: raw.storeBytes(of: SIMD16<UInt8>(repeating: value), as: SIMD16<UInt8>.self)
        case 8: raw.storeBytes(of: UInt64(value) &* 0x0101_0101_0101_0101, as: UInt64.self)
        default: raw.storeBytes(of: UInt32(value) &* 0x0101_0101, as: UInt32.self)
        }
    }

    @inline(__always)
    static func fill(_ dst: UnsafeMutablePointer<UInt8>, _ size: Int, _ value: UInt8) {
        for j in 0 ..< size { fillRow(dst + j &* stride, size, value) }
    }

    /// TrueMotion: clip(left + top - top-left) on 8 Int16 lanes: a row of 8 at a time, or two
    /// rows of a 4x4 block (`trueMotionScalar` is the twin).
    @inline(__always)
    static func trueMotion(_ dst: UnsafeMutablePointer<UInt8>, _ size: Int) {
        typealias V = SIMD8<Int16>
        @inline(__always) func clampNarrow(_ x: V) -> SIMD8<UInt8> {
            // Clamps as comparison-and-blend against constants (pmaxsw, pminsw).
            let zero = V(repeating: 0), top = V(repeating: 255)
            var v = x ^ ((zero ^ x) & unsafeBitCast(zero .> x, to: V.self))
            v = v ^ ((top ^ v) & unsafeBitCast(v .> top, to: V.self))
            return SIMD8<UInt8>(UInt8(truncatingIfNeeded: v[0]), UInt8(truncatingIfNeeded: v[1]),
                                UInt8(truncatingIfNeeded: v[2]), UInt8(truncatingIfNeeded: v[3]),
                                UInt8(truncatingIfNeeded: v[4]), UInt8(truncatingIfNeeded: v[5]),
                                UInt8(truncatingIfNeeded: v[6]), UInt8(truncatingIfNeeded: v[7]))
        }
        if size == 4 {
            // Two rows a vector: the top row twice, each half plus its row's left sample.
            let top = dst - stride
            let c = Int16(top[-1])
            let t0 = Int16(top[0]) &- c, t1 = Int16(top[1]) &- c, t2 = Int16(top[2]) &- c, t3 = Int16(top[3]) &- c
            let t = V(t0, t1, t2, t3, t0, t1, t2, t3)
            for pair in 0 ..< 2 {
                let y = 2 &* pair
                let a = Int16(dst[y &* stride &- 1]), b = Int16(dst[(y &+ 1) &* stride &- 1])
                // Whole-vector bitcast to a word (lane extraction would turn the clamps scalar).
                let w = unsafeBitCast(clampNarrow(t &+ V(a, a, a, a, b, b, b, b)), to: UInt64.self)
                UnsafeMutableRawPointer(dst + y &* stride).storeBytes(of: UInt32(truncatingIfNeeded: w), as: UInt32.self)
                UnsafeMutableRawPointer(dst + (y &+ 1) &* stride).storeBytes(of: UInt32(truncatingIfNeeded: w &>> 32),
                                                                           as: UInt32.self)
            }
            return
        }
        let top = dst - stride
        let corner = Int16(top[-1])
        var c = 0
        while c < size {
            let b = UnsafeRawPointer(top + c).loadUnaligned(as: SIMD8<UInt8>.self)
            let t = V(Int16(b[0]), Int16(b[1]), Int16(b[2]), Int16(b[3]), Int16(b[4]), Int16(b[5]), Int16(b[6]), Int16(b[7]))
                &- V(repeating: corner)
            for y in 0 ..< size {
                let row = dst + y &* stride
                let o = clampNarrow(t &+ V(repeating: Int16(row[-1])))
                UnsafeMutableRawPointer(row + c).storeBytes(of: o, as: SIMD8<UInt8>.self)
            }
            c &+= 8
        }
    }

    static func trueMotionScalar(_ dst: UnsafeMutablePointer<UInt8>, _ size: Int) {
        let top = dst - stride
        let corner = Int(top[-1])
        for y in 0 ..< size {
            let row = dst + y * stride
            let base = Int(row[-1]) - corner
            for x in 0 ..< size {
                let v = base + Int(top[x])
                row[x] = UInt8(truncatingIfNeeded: v < 0 ? 0 : v > 255 ? 255 : v)
            }
        }
    }

    /// 16x16 luma (size 16) or 8x8 chroma (size 8) prediction with a mode after the edge check.
    static func predictBlock(_ dst: UnsafeMutablePointer<UInt8>, size: Int, mode: Int) {
        let shift = size == 16 ? 5 : 4
        switch mode {
        case 0:
            var dc = size
            for j in 0 ..< size { dc += Int(dst[j * stride - 1]) + Int(dst[j - stride]) }
            fill(dst, size, UInt8(truncatingIfNeeded: dc >> shift))
        case 1: trueMotion(dst, size)
        case 2:
            let top = UnsafeRawPointer(dst - stride)
            if size == 16 {
                let v = top.loadUnaligned(as: SIMD16<UInt8>.self)
                for j in 0 ..< 16 { UnsafeMutableRawPointer(dst + j &* stride).storeBytes(of: v, as: SIMD16<UInt8>.self) }
            } else {
                let v = top.loadUnaligned(as: UInt64.self)
                for j in 0 ..< 8 { UnsafeMutableRawPointer(dst + j &* stride).storeBytes(of: v, as: UInt64.self) }
            }
        case 3:
            for j in 0 ..< size { fillRow(dst + j &* stride, size, dst[j &* stride &- 1]) }
        case dcNoTop:
            var dc = size >> 1
            for j in 0 ..< size { dc += Int(dst[j * stride - 1]) }
            fill(dst, size, UInt8(truncatingIfNeeded: dc >> (shift - 1)))
        case dcNoLeft:
            var dc = size >> 1
            for j in 0 ..< size { dc += Int(dst[j - stride]) }
            fill(dst, size, UInt8(truncatingIfNeeded: dc >> (shift - 1)))
        default:
            fill(dst, size, 0x80)
        }
    }

    /// One 4x4 luma block.
    static func predict4x4(_ dst: UnsafeMutablePointer<UInt8>, mode: Int) {
        let s = stride
        @inline(__always) func p(_ i: Int) -> Int { Int(dst[i]) }
        @inline(__always) func set(_ x: Int, _ y: Int, _ v: UInt8) { dst[x + y * s] = v }
        switch mode {
        case 0:
            var dc = 4
            for i in 0 ..< 4 { dc += p(i - s) + p(-1 + i * s) }
            fill(dst, 4, UInt8(truncatingIfNeeded: dc >> 3))
        case 1: trueMotion(dst, 4)
        case 2:
            let v0 = avg3(p(-s - 1), p(-s), p(-s + 1)), v1 = avg3(p(-s), p(-s + 1), p(-s + 2))
            let v2 = avg3(p(-s + 1), p(-s + 2), p(-s + 3)), v3 = avg3(p(-s + 2), p(-s + 3), p(-s + 4))
            for y in 0 ..< 4 { set(0, y, v0); set(1, y, v1); set(2, y, v2); set(3, y, v3) }
        case 3:
            let a = p(-1 - s), b = p(-1), c = p(-1 + s), d = p(-1 + 2 * s), e = p(-1 + 3 * s)
            (dst).update(repeating: avg3(a, b, c), count: 4)
            (dst + s).update(repeating: avg3(b, c, d), count: 4)
            (dst + 2 * s).update(repeating: avg3(c, d, e), count: 4)
            (dst + 3 * s).update(repeating: avg3(d, e, e), count: 4)
        case 4: // RD
            let i = p(-1), j = p(-1 + s), k = p(-1 + 2 * s), l = p(-1 + 3 * s), x = p(-1 - s)
            let a = p(-s), b = p(1 - s), c = p(2 - s), d = p(3 - s)
            set(0, 3, avg3(j, k, l))
            let ijk = avg3(i, j, k); set(1, 3, ijk); set(0, 2, ijk)
            let xij = avg3(x, i, j); set(2, 3, xij); set(1, 2, xij); set(0, 1, xij)
            let axi = avg3(a, x, i); set(3, 3, axi); set(2, 2, axi); set(1, 1, axi); set(0, 0, axi)
            let bax = avg3(b, a, x); set(3, 2, bax); set(2, 1, bax); set(1, 0, bax)
            let cba = avg3(c, b, a); set(3, 1, cba); set(2, 0, cba)
            set(3, 0, avg3(d, c, b))
        case 5: // VR
            let i = p(-1), j = p(-1 + s), k = p(-1 + 2 * s), x = p(-1 - s)
            let a = p(-s), b = p(1 - s), c = p(2 - s), d = p(3 - s)
            let xa = avg2(x, a); set(0, 0, xa); set(1, 2, xa)
            let ab = avg2(a, b); set(1, 0, ab); set(2, 2, ab)
            let bc = avg2(b, c); set(2, 0, bc); set(3, 2, bc)
            set(3, 0, avg2(c, d))
            set(0, 3, avg3(k, j, i))
            set(0, 2, avg3(j, i, x))
            let ixa = avg3(i, x, a); set(0, 1, ixa); set(1, 3, ixa)
            let xab = avg3(x, a, b); set(1, 1, xab); set(2, 3, xab)
            let abc = avg3(a, b, c); set(2, 1, abc); set(3, 3, abc)
            set(3, 1, avg3(b, c, d))
        case 6: // LD
            let a = p(-s), b = p(1 - s), c = p(2 - s), d = p(3 - s)
            let e = p(4 - s), f = p(5 - s), g = p(6 - s), h = p(7 - s)
            set(0, 0, avg3(a, b, c))
            let bcd = avg3(b, c, d); set(1, 0, bcd); set(0, 1, bcd)
            let cde = avg3(c, d, e); set(2, 0, cde); set(1, 1, cde); set(0, 2, cde)
            let def = avg3(d, e, f); set(3, 0, def); set(2, 1, def); set(1, 2, def); set(0, 3, def)
            let efg = avg3(e, f, g); set(3, 1, efg); set(2, 2, efg); set(1, 3, efg)
            let fgh = avg3(f, g, h); set(3, 2, fgh); set(2, 3, fgh)
            set(3, 3, avg3(g, h, h))
        case 7: // VL
            let a = p(-s), b = p(1 - s), c = p(2 - s), d = p(3 - s)
            let e = p(4 - s), f = p(5 - s), g = p(6 - s), h = p(7 - s)
            set(0, 0, avg2(a, b))
            let bc = avg2(b, c); set(1, 0, bc); set(0, 2, bc)
            let cd = avg2(c, d); set(2, 0, cd); set(1, 2, cd)
            let de = avg2(d, e); set(3, 0, de); set(2, 2, de)
            set(0, 1, avg3(a, b, c))
            let bcd = avg3(b, c, d); set(1, 1, bcd); set(0, 3, bcd)
            let cde = avg3(c, d, e); set(2, 1, cde); set(1, 3, cde)
            let def = avg3(d, e, f); set(3, 1, def); set(2, 3, def)
            set(3, 2, avg3(e, f, g))
            set(3, 3, avg3(f, g, h))
        case 8: // HD
            let i = p(-1), j = p(-1 + s), k = p(-1 + 2 * s), l = p(-1 + 3 * s), x = p(-1 - s)
            let a = p(-s), b = p(1 - s), c = p(2 - s)
            let ix = avg2(i, x); set(0, 0, ix); set(2, 1, ix)
            let ji = avg2(j, i); set(0, 1, ji); set(2, 2, ji)
            let kj = avg2(k, j); set(0, 2, kj); set(2, 3, kj)
            set(0, 3, avg2(l, k))
            set(3, 0, avg3(a, b, c))
            set(2, 0, avg3(x, a, b))
            let ixa = avg3(i, x, a); set(1, 0, ixa); set(3, 1, ixa)
            let jix = avg3(j, i, x); set(1, 1, jix); set(3, 2, jix)
            let kji = avg3(k, j, i); set(1, 2, kji); set(3, 3, kji)
            set(1, 3, avg3(l, k, j))
        default: // HU
            let i = p(-1), j = p(-1 + s), k = p(-1 + 2 * s), l = p(-1 + 3 * s)
            set(0, 0, avg2(i, j))
            let jk = avg2(j, k); set(2, 0, jk); set(0, 1, jk)
            let kl = avg2(k, l); set(2, 1, kl); set(0, 2, kl)
            set(1, 0, avg3(i, j, k))
            let jkl = avg3(j, k, l); set(3, 0, jkl); set(1, 1, jkl)
            let kll = avg3(k, l, l); set(3, 1, kll); set(1, 2, kll)
            let ll = UInt8(truncatingIfNeeded: l)
            set(3, 2, ll); set(2, 2, ll); set(0, 3, ll); set(1, 3, ll); set(2, 3, ll); set(3, 3, ll)
        }
    }
}
