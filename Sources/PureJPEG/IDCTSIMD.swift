/// The accurate integer inverse DCT in SIMD8<Int32> lanes: the same jidctint.c arithmetic as
/// ``IDCT`` (32-bit wrapping, the same shortcuts), eight columns at a time in pass 1 and eight
/// rows at a time in pass 2, with an 8x8 transpose before each pass 2 and after it.
///
/// Design, measured (release build, see the report in IDCTTests' benchmark): libjpeg-turbo's
/// SSE2 kernel works in 16-bit lanes with `pmaddwd` pairs; Swift's SIMD types have no
/// multiply-add of 16-bit pairs into 32 bits, and 16-bit dequantization wraps differently from
/// the scalar reference on hostile input, so 32-bit lanes keep the kernel bit-exact with
/// ``IDCT`` for every input while still doing eight 1-D transforms per instruction stream.
///
/// The per-column (pass 1) and per-row (pass 2) zero-AC shortcuts of jidctint.c are kept as
/// lane selects, so wrapping on extreme input matches the scalar kernel too.
@usableFromInline
enum IDCTSIMD {
    @usableFromInline typealias V = SIMD8<Int32>

    /// The full-size 8x8 inverse DCT. See ``JPEGKernels/idct``.
    @inlinable
    static func idct8x8(_ coefficients: UnsafePointer<Int16>, _ quant: UnsafePointer<UInt16>,
                        _ output: UnsafeMutablePointer<UInt8>, _ stride: Int) {
        if IDCT.acAllZero(coefficients) {
            IDCT.idctDCOnly(coefficients, quant, output, stride)
            return
        }
        let c = UnsafeRawPointer(coefficients), q = UnsafeRawPointer(quant)
        @inline(__always) func raw(_ r: Int) -> SIMD8<Int16> {
            c.loadUnaligned(fromByteOffset: 16 * r, as: SIMD8<Int16>.self)
        }
        @inline(__always) func dq(_ r: Int) -> V {
            V(truncatingIfNeeded: raw(r))
                &* V(truncatingIfNeeded: q.loadUnaligned(fromByteOffset: 16 * r, as: SIMD8<UInt16>.self))
        }

        // Pass 1: lanes are columns, vector r is input row r.
        let x0 = dq(0)
        var acRows = raw(1) | raw(2) | raw(3)
        acRows |= raw(4) | raw(5)
        acRows |= raw(6) | raw(7)
        let mask = V(truncatingIfNeeded: acRows) .== V(repeating: 0)
        let p = butterfly(x0, dq(1), dq(2), dq(3), dq(4), dq(5), dq(6), dq(7))
        let s1 = IDCT.constBits &- IDCT.pass1Bits
        let flat = x0 &<< V(repeating: IDCT.pass1Bits)
        var w0 = descale(p.0, s1).replacing(with: flat, where: mask)
        var w1 = descale(p.1, s1).replacing(with: flat, where: mask)
        var w2 = descale(p.2, s1).replacing(with: flat, where: mask)
        var w3 = descale(p.3, s1).replacing(with: flat, where: mask)
        var w4 = descale(p.4, s1).replacing(with: flat, where: mask)
        var w5 = descale(p.5, s1).replacing(with: flat, where: mask)
        var w6 = descale(p.6, s1).replacing(with: flat, where: mask)
        var w7 = descale(p.7, s1).replacing(with: flat, where: mask)

        // Pass 2: lanes are rows, vector k is workspace column k.
        transpose(&w0, &w1, &w2, &w3, &w4, &w5, &w6, &w7)
        var acColumns = w1 | w2 | w3
        acColumns |= w4 | w5
        acColumns |= w6 | w7
        let rowFlat = acColumns .== V(repeating: 0)
        let flatOut = rangeLimit(descale(w0, IDCT.pass1Bits &+ 3))
        let s2 = IDCT.constBits &+ IDCT.pass1Bits &+ 3
        let o = butterfly(w0, w1, w2, w3, w4, w5, w6, w7)
        var o0 = rangeLimit(descale(o.0, s2)).replacing(with: flatOut, where: rowFlat)
        var o1 = rangeLimit(descale(o.1, s2)).replacing(with: flatOut, where: rowFlat)
        var o2 = rangeLimit(descale(o.2, s2)).replacing(with: flatOut, where: rowFlat)
        var o3 = rangeLimit(descale(o.3, s2)).replacing(with: flatOut, where: rowFlat)
        var o4 = rangeLimit(descale(o.4, s2)).replacing(with: flatOut, where: rowFlat)
        var o5 = rangeLimit(descale(o.5, s2)).replacing(with: flatOut, where: rowFlat)
        var o6 = rangeLimit(descale(o.6, s2)).replacing(with: flatOut, where: rowFlat)
        var o7 = rangeLimit(descale(o.7, s2)).replacing(with: flatOut, where: rowFlat)

        // Back to rows for the byte stores.
        transpose(&o0, &o1, &o2, &o3, &o4, &o5, &o6, &o7)
        let out = UnsafeMutableRawPointer(output)
        out.storeBytes(of: SIMD8<UInt8>(truncatingIfNeeded: o0), as: SIMD8<UInt8>.self)
        out.storeBytes(of: SIMD8<UInt8>(truncatingIfNeeded: o1), toByteOffset: stride, as: SIMD8<UInt8>.self)
        out.storeBytes(of: SIMD8<UInt8>(truncatingIfNeeded: o2), toByteOffset: 2 * stride, as: SIMD8<UInt8>.self)
        out.storeBytes(of: SIMD8<UInt8>(truncatingIfNeeded: o3), toByteOffset: 3 * stride, as: SIMD8<UInt8>.self)
        out.storeBytes(of: SIMD8<UInt8>(truncatingIfNeeded: o4), toByteOffset: 4 * stride, as: SIMD8<UInt8>.self)
        out.storeBytes(of: SIMD8<UInt8>(truncatingIfNeeded: o5), toByteOffset: 5 * stride, as: SIMD8<UInt8>.self)
        out.storeBytes(of: SIMD8<UInt8>(truncatingIfNeeded: o6), toByteOffset: 6 * stride, as: SIMD8<UInt8>.self)
        out.storeBytes(of: SIMD8<UInt8>(truncatingIfNeeded: o7), toByteOffset: 7 * stride, as: SIMD8<UInt8>.self)
    }

    @inlinable @inline(__always)
    static func descale(_ x: V, _ n: Int32) -> V {
        (x &+ V(repeating: 1 &<< (n &- 1))) &>> V(repeating: n)
    }

    /// ``IDCT/rangeLimit(_:)`` lane-wise: `v + 128` wrapped to 10 bits, then 0...255 kept,
    /// 256...639 saturated to 255, 640...1023 (negative overflow) to 0.
    @inlinable @inline(__always)
    static func rangeLimit(_ v: V) -> V {
        let u = (v &+ 128) & 1023
        return u.replacing(with: 255, where: u .>= 256).replacing(with: 0, where: u .>= 640)
    }

    /// ``IDCT/butterfly`` on eight independent lanes.
    @inlinable @inline(__always)
    static func butterfly(_ x0: V, _ x1: V, _ x2: V, _ x3: V, _ x4: V, _ x5: V, _ x6: V, _ x7: V)
        -> (V, V, V, V, V, V, V, V) {
        let z1 = (x2 &+ x6) &* IDCT.fix_0_541196100
        let t2 = z1 &+ x6 &* (0 &- IDCT.fix_1_847759065)
        let t3 = z1 &+ x2 &* IDCT.fix_0_765366865
        let t0 = (x0 &+ x4) &<< IDCT.constBits
        let t1 = (x0 &- x4) &<< IDCT.constBits
        let t10 = t0 &+ t3, t13 = t0 &- t3
        let t11 = t1 &+ t2, t12 = t1 &- t2

        let y1 = x7 &+ x1, y2 = x5 &+ x3, y3 = x7 &+ x3, y4 = x5 &+ x1
        let z5 = (y3 &+ y4) &* IDCT.fix_1_175875602
        let a0 = x7 &* IDCT.fix_0_298631336
        let a1 = x5 &* IDCT.fix_2_053119869
        let a2 = x3 &* IDCT.fix_3_072711026
        let a3 = x1 &* IDCT.fix_1_501321110
        let m1 = y1 &* (0 &- IDCT.fix_0_899976223)
        let m2 = y2 &* (0 &- IDCT.fix_2_562915447)
        let m3 = y3 &* (0 &- IDCT.fix_1_961570560) &+ z5
        let m4 = y4 &* (0 &- IDCT.fix_0_390180644) &+ z5
        let o0 = a0 &+ m1 &+ m3
        let o1 = a1 &+ m2 &+ m4
        let o2 = a2 &+ m2 &+ m3
        let o3 = a3 &+ m1 &+ m4
        return (t10 &+ o3, t11 &+ o2, t12 &+ o1, t13 &+ o0,
                t13 &- o0, t12 &- o1, t11 &- o2, t10 &- o3)
    }

    /// One unzip step of the transpose: (X, Y) -> (evens of X then Y, odds of X then Y).
    @inlinable @inline(__always)
    static func unzip(_ x: inout V, _ y: inout V) {
        let even = V(lowHalf: x.evenHalf, highHalf: y.evenHalf)
        let odd = V(lowHalf: x.oddHalf, highHalf: y.oddHalf)
        x = even
        y = odd
    }

    /// 8x8 transpose in three unzip rounds: each round moves one bit of the lane index into the
    /// vector index (pairs one, two, then four vectors apart).
    @inlinable @inline(__always)
    static func transpose(_ r0: inout V, _ r1: inout V, _ r2: inout V, _ r3: inout V,
                          _ r4: inout V, _ r5: inout V, _ r6: inout V, _ r7: inout V) {
        unzip(&r0, &r1); unzip(&r2, &r3); unzip(&r4, &r5); unzip(&r6, &r7)
        unzip(&r0, &r2); unzip(&r1, &r3); unzip(&r4, &r6); unzip(&r5, &r7)
        unzip(&r0, &r4); unzip(&r1, &r5); unzip(&r2, &r6); unzip(&r3, &r7)
    }
}
