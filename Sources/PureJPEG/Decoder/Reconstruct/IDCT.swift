/// The accurate integer inverse DCT, bit-exact with the IJG/libjpeg-turbo `jpeg_idct_islow`
/// (jidctint.c): the Loeffler-Ligtenberg-Moschytz factorisation with 12 multiplies, constants
/// scaled by 2^13 (CONST_BITS), two extra bits kept between the passes (PASS1_BITS), rounding
/// right shifts, and libjpeg's post-IDCT range-limit table (+128, a 10-bit wrap, then clamp).
///
/// Arithmetic is 32-bit and wrapping, as jidctint.c computes where its `JLONG` is 32 bits wide.
/// For every block a valid 8-bit JPEG can hold, no intermediate exceeds 32 bits, so the output
/// equals libjpeg's on every platform; hostile coefficients (e.g. 32767 with a 16-bit quantizer)
/// wrap instead of trapping. The column and row shortcuts are taken exactly where jidctint.c
/// takes them (T.81 A.3.3 defines the transform; the shortcuts are libjpeg's and change no
/// result in range). This is the C kernel, what djpeg runs with `JSIMD_FORCENONE=1`; the
/// decoder follows djpeg's default on x86-64, libjpeg-turbo's SIMD kernel, which gives the
/// same bytes in range and others out of it (``idct8x8Saturating(_:_:_:_:)`` below).
/// (libjpeg-turbo built with SIMD reads quantizers as `short`, so its C kernel also differs
/// from this one for quantizers of 32768 and more.)
@usableFromInline
enum IDCT {
    // FIX(x) = round(x * 2^13), jidctint.c's constants.
    @inlinable static var fix_0_298631336: Int32 { 2446 }
    @inlinable static var fix_0_390180644: Int32 { 3196 }
    @inlinable static var fix_0_541196100: Int32 { 4433 }
    @inlinable static var fix_0_765366865: Int32 { 6270 }
    @inlinable static var fix_0_899976223: Int32 { 7373 }
    @inlinable static var fix_1_175875602: Int32 { 9633 }
    @inlinable static var fix_1_501321110: Int32 { 12299 }
    @inlinable static var fix_1_847759065: Int32 { 15137 }
    @inlinable static var fix_1_961570560: Int32 { 16069 }
    @inlinable static var fix_2_053119869: Int32 { 16819 }
    @inlinable static var fix_2_562915447: Int32 { 20995 }
    @inlinable static var fix_3_072711026: Int32 { 25172 }

    @inlinable static var constBits: Int32 { 13 }
    @inlinable static var pass1Bits: Int32 { 2 }

    /// libjpeg's DESCALE: a right shift that rounds half up.
    @inlinable @inline(__always)
    static func descale(_ x: Int32, _ n: Int32) -> Int32 {
        (x &+ (1 &<< (n &- 1))) &>> n
    }

    /// libjpeg's post-IDCT range limit (jdmaster.c prepare_range_limit_table, indexed with
    /// `& RANGE_MASK`): `v + 128` clamped to 0...255 for v in -512...511, wrapping mod 1024 outside.
    @inlinable @inline(__always)
    static func rangeLimit(_ v: Int32) -> UInt8 {
        let u = (v &+ 128) & 1023
        if u < 256 { return UInt8(truncatingIfNeeded: u) }
        return u < 640 ? 255 : 0
    }

    /// True when the 63 AC coefficients are all zero (checked 4 at a time).
    @inlinable @inline(__always)
    static func acAllZero(_ coefficients: UnsafePointer<Int16>) -> Bool {
        let raw = UnsafeRawPointer(coefficients)
        var any = raw.loadUnaligned(as: UInt64.self) & ~UInt64(0xFFFF)
        var offset = 8
        while offset < 128 {
            any |= raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
            offset &+= 8
        }
        return any == 0
    }

    /// The block whose AC coefficients are all zero: one flat value, computed through the same
    /// shortcuts jidctint.c takes for it (column: `dc << PASS1_BITS`; row: DESCALE by 5).
    @inlinable
    static func idctDCOnly(_ coefficients: UnsafePointer<Int16>, _ quant: UnsafePointer<UInt16>,
                           _ output: UnsafeMutablePointer<UInt8>, _ stride: Int, size: Int = 8) {
        let dc = Int32(coefficients[0]) &* Int32(quant[0])
        let value = rangeLimit(descale(dc &<< pass1Bits, pass1Bits &+ 3))
        var row = output
        for _ in 0..<size {
            row.update(repeating: value, count: size)
            row += stride
        }
    }

    /// The full-size 8x8 inverse DCT (scalar reference). See ``JPEGKernels/idct``.
    @inlinable
    static func idct8x8(_ coefficients: UnsafePointer<Int16>, _ quant: UnsafePointer<UInt16>,
                        _ output: UnsafeMutablePointer<UInt8>, _ stride: Int) {
        if acAllZero(coefficients) {
            idctDCOnly(coefficients, quant, output, stride)
            return
        }
        withUnsafeTemporaryAllocation(of: Int32.self, capacity: 64) { buffer in
            guard let ws = buffer.baseAddress else { return }
            columnPass(coefficients, quant, ws)
            rowPass(ws, output, stride)
        }
    }

    /// Pass 1: one 1-D IDCT down each column, dequantizing on the way in, leaving results scaled
    /// up by 2^PASS1_BITS in the workspace.
    @inlinable @inline(__always)
    static func columnPass(_ input: UnsafePointer<Int16>, _ quant: UnsafePointer<UInt16>,
                           _ ws: UnsafeMutablePointer<Int32>) {
        @inline(__always) func dq(_ i: Int) -> Int32 { Int32(input[i]) &* Int32(quant[i]) }
        for c in 0..<8 {
            if input[c + 8] == 0 && input[c + 16] == 0 && input[c + 24] == 0 && input[c + 32] == 0
                && input[c + 40] == 0 && input[c + 48] == 0 && input[c + 56] == 0 {
                let dc = dq(c) &<< pass1Bits
                for r in 0..<8 { ws[c + 8 * r] = dc }
                continue
            }
            let out = butterfly(dq(c), dq(c + 8), dq(c + 16), dq(c + 24),
                                dq(c + 32), dq(c + 40), dq(c + 48), dq(c + 56))
            let shift = constBits &- pass1Bits
            ws[c] = descale(out.0, shift)
            ws[c + 8] = descale(out.1, shift)
            ws[c + 16] = descale(out.2, shift)
            ws[c + 24] = descale(out.3, shift)
            ws[c + 32] = descale(out.4, shift)
            ws[c + 40] = descale(out.5, shift)
            ws[c + 48] = descale(out.6, shift)
            ws[c + 56] = descale(out.7, shift)
        }
    }

    /// Pass 2: one 1-D IDCT along each workspace row, then descale, level shift and clamp.
    @inlinable @inline(__always)
    static func rowPass(_ ws: UnsafePointer<Int32>, _ output: UnsafeMutablePointer<UInt8>, _ stride: Int) {
        let shift = constBits &+ pass1Bits &+ 3
        for r in 0..<8 {
            let w = ws + 8 * r
            let out = output + r * stride
            if w[1] == 0 && w[2] == 0 && w[3] == 0 && w[4] == 0 && w[5] == 0 && w[6] == 0 && w[7] == 0 {
                out.update(repeating: rangeLimit(descale(w[0], pass1Bits &+ 3)), count: 8)
                continue
            }
            let v = butterfly(w[0], w[1], w[2], w[3], w[4], w[5], w[6], w[7])
            out[0] = rangeLimit(descale(v.0, shift))
            out[1] = rangeLimit(descale(v.1, shift))
            out[2] = rangeLimit(descale(v.2, shift))
            out[3] = rangeLimit(descale(v.3, shift))
            out[4] = rangeLimit(descale(v.4, shift))
            out[5] = rangeLimit(descale(v.5, shift))
            out[6] = rangeLimit(descale(v.6, shift))
            out[7] = rangeLimit(descale(v.7, shift))
        }
    }

    /// The 1-D LL&M IDCT of jidctint.c, before descaling: inputs x0...x7 in frequency order,
    /// outputs in sample order, all scaled by 2^CONST_BITS.
    @inlinable @inline(__always)
    static func butterfly(_ x0: Int32, _ x1: Int32, _ x2: Int32, _ x3: Int32,
                          _ x4: Int32, _ x5: Int32, _ x6: Int32, _ x7: Int32)
        -> (Int32, Int32, Int32, Int32, Int32, Int32, Int32, Int32) {
        // Even part: rotation of x2, x6 by the sqrt(2)*c6 and c2 factors.
        let z1 = (x2 &+ x6) &* fix_0_541196100
        let t2 = z1 &+ x6 &* (0 &- fix_1_847759065)
        let t3 = z1 &+ x2 &* fix_0_765366865
        let t0 = (x0 &+ x4) &<< constBits
        let t1 = (x0 &- x4) &<< constBits
        let t10 = t0 &+ t3, t13 = t0 &- t3
        let t11 = t1 &+ t2, t12 = t1 &- t2

        // Odd part: x7, x5, x3, x1 as tmp0...tmp3 of jidctint.c.
        let y1 = x7 &+ x1, y2 = x5 &+ x3, y3 = x7 &+ x3, y4 = x5 &+ x1
        let z5 = (y3 &+ y4) &* fix_1_175875602
        let a0 = x7 &* fix_0_298631336
        let a1 = x5 &* fix_2_053119869
        let a2 = x3 &* fix_3_072711026
        let a3 = x1 &* fix_1_501321110
        let m1 = y1 &* (0 &- fix_0_899976223)
        let m2 = y2 &* (0 &- fix_2_562915447)
        let m3 = y3 &* (0 &- fix_1_961570560) &+ z5
        let m4 = y4 &* (0 &- fix_0_390180644) &+ z5
        let o0 = a0 &+ m1 &+ m3
        let o1 = a1 &+ m2 &+ m4
        let o2 = a2 &+ m2 &+ m3
        let o3 = a3 &+ m1 &+ m4

        return (t10 &+ o3, t11 &+ o2, t12 &+ o1, t13 &+ o0,
                t13 &- o0, t12 &- o1, t11 &- o2, t10 &- o3)
    }
}

// MARK: - libjpeg-turbo's x86 SIMD kernels (what `djpeg -dct int` runs on x86-64)

/// Scalar references for the arithmetic of libjpeg-turbo 2.1.5's x86-64 SIMD IDCTs, which
/// `djpeg` picks at run time on every x86-64 CPU and which differ from jidctint.c / jidctred.c
/// once a block leaves the range of real 8-bit images (damaged data, 16-bit quantizers):
/// dequantization keeps the low 16 bits of the product (`pmullw`), the sums `in0 ± in4`,
/// `in3 + in7`, `in1 + in5` wrap at 16 bits (`paddw`), products and sums are exact 32-bit
/// (`pmaddwd`, `paddd`), pass 1's descaled values saturate to 16 bits (`packssdw`), and the
/// outputs saturate to -128...127 before the +128 (`packsswb`, `paddb`), so they clamp where
/// libjpeg's range-limit table wraps. Each is the scalar twin of a kernel that the decoder
/// runs (``IDCTSIMD/idct8x8Saturating(_:_:_:_:)``, ``IDCTSIMD/idct8x8(_:_:_:_:)``); within
/// range all give jidctint.c's bytes.
extension IDCT {
    /// `pmullw`: the low 16 bits of coefficient times quantizer (the quantizer's bits as
    /// libjpeg's `short` table holds them).
    @inlinable @inline(__always)
    static func dequantize16(_ coefficient: Int16, _ quantizer: UInt16) -> Int16 {
        coefficient &* Int16(bitPattern: quantizer)
    }

    /// `packssdw` then `packsswb` then `paddb 128`: a descaled output clamped to -128...127 and
    /// level-shifted.
    @inlinable @inline(__always)
    static func clampSample(_ v: Int32) -> UInt8 {
        UInt8(truncatingIfNeeded: min(max(v, -128), 127) &+ 128)
    }

    /// jsimd_idct_islow's 1-D transform (both passes): jidctint.c regrouped for `pmaddwd`, with
    /// its 16-bit pre-sums. Outputs in sample order, scaled by 2^CONST_BITS, before rounding.
    /// No 32-bit sum can overflow (at most 41241 x 2^15 + 15137 x 2^15 + 2^28 < 2^31).
    @inlinable @inline(__always)
    static func butterflySIMD(_ x0: Int16, _ x1: Int16, _ x2: Int16, _ x3: Int16,
                              _ x4: Int16, _ x5: Int16, _ x6: Int16, _ x7: Int16)
        -> (Int32, Int32, Int32, Int32, Int32, Int32, Int32, Int32) {
        @inline(__always) func w(_ x: Int16) -> Int32 { Int32(x) }
        let e0 = w(x0 &+ x4) &<< constBits, e1 = w(x0 &- x4) &<< constBits
        let t3 = w(x2) &* 10703 &+ w(x6) &* 4433       // (F_0_541 + F_0_765, F_0_541)
        let t2 = w(x2) &* 4433 &+ w(x6) &* -10704      // (F_0_541, F_0_541 - F_1_847)
        let t10 = e0 &+ t3, t13 = e0 &- t3, t11 = e1 &+ t2, t12 = e1 &- t2
        let z3 = x7 &+ x3, z4 = x5 &+ x1
        let zz3 = w(z3) &* -6436 &+ w(z4) &* 9633      // (F_1_175 - F_1_961, F_1_175)
        let zz4 = w(z3) &* 9633 &+ w(z4) &* 6437       // (F_1_175, F_1_175 - F_0_390)
        let o0 = w(x7) &* -4927 &+ w(x1) &* -7373 &+ zz3
        let o3 = w(x7) &* -7373 &+ w(x1) &* 4926 &+ zz4
        let o1 = w(x5) &* -4176 &+ w(x3) &* -20995 &+ zz4
        let o2 = w(x5) &* -20995 &+ w(x3) &* 4177 &+ zz3
        return (t10 &+ o3, t11 &+ o2, t12 &+ o1, t13 &+ o0, t13 &- o0, t12 &- o1, t11 &- o2, t10 &- o3)
    }

    /// True when rows 1...7 of the raw coefficients, row `skipped` aside, are all zero: the SIMD
    /// kernels' shortcut test (on the coefficients as stored, before dequantization).
    @inlinable @inline(__always)
    static func rowsZero(_ coefficients: UnsafePointer<Int16>, skipping skipped: Int = 0) -> Bool {
        for i in 8 ..< 64 where coefficients[i] != 0 && i >> 3 != skipped { return false }
        return true
    }

    /// The AC-zero block the SIMD way: pass 1's shortcut shifts the 16-bit product left 2
    /// (`psllw`, wrapping), pass 2 descales it by 5 and clamps.
    @inlinable
    static func idctDCOnlySaturating(_ coefficients: UnsafePointer<Int16>, _ quant: UnsafePointer<UInt16>,
                                     _ output: UnsafeMutablePointer<UInt8>, _ stride: Int) {
        let w = Int32(dequantize16(coefficients[0], quant[0]) &<< 2)
        let value = clampSample((w &+ 16) &>> 5)
        var row = output
        for _ in 0 ..< 8 {
            row.update(repeating: value, count: 8)
            row += stride
        }
    }

    /// The full-size IDCT of jsimd_idct_islow_avx2 (and _sse2, the same arithmetic) for any
    /// input; scalar twin of ``IDCTSIMD/idct8x8Saturating(_:_:_:_:)``. Pass 1 has one
    /// shortcut, for the whole block when rows 1...7 are zero (each column then is its 16-bit
    /// product shifted left 2, wrapping, where the full pass would saturate); pass 2 has none.
    @inlinable
    static func idct8x8Saturating(_ coefficients: UnsafePointer<Int16>, _ quant: UnsafePointer<UInt16>,
                                  _ output: UnsafeMutablePointer<UInt8>, _ stride: Int) {
        withUnsafeTemporaryAllocation(of: Int16.self, capacity: 64) { buffer in
            guard let ws = buffer.baseAddress else { return }
            @inline(__always) func dq(_ i: Int) -> Int16 { dequantize16(coefficients[i], quant[i]) }
            if rowsZero(coefficients) {
                for c in 0 ..< 8 {
                    let w = dq(c) &<< pass1Bits
                    for r in 0 ..< 8 { ws[c + 8 * r] = w }
                }
            } else {
                for c in 0 ..< 8 {
                    let v = butterflySIMD(dq(c), dq(c + 8), dq(c + 16), dq(c + 24),
                                          dq(c + 32), dq(c + 40), dq(c + 48), dq(c + 56))
                    let shift = constBits &- pass1Bits
                    @inline(__always) func narrow(_ x: Int32) -> Int16 { Int16(clamping: descale(x, shift)) }
                    ws[c] = narrow(v.0); ws[c + 8] = narrow(v.1); ws[c + 16] = narrow(v.2); ws[c + 24] = narrow(v.3)
                    ws[c + 32] = narrow(v.4); ws[c + 40] = narrow(v.5); ws[c + 48] = narrow(v.6); ws[c + 56] = narrow(v.7)
                }
            }
            let shift = constBits &+ pass1Bits &+ 3
            for r in 0 ..< 8 {
                let w = ws + 8 * r, out = output + r * stride
                let v = butterflySIMD(w[0], w[1], w[2], w[3], w[4], w[5], w[6], w[7])
                out[0] = clampSample(descale(v.0, shift)); out[1] = clampSample(descale(v.1, shift))
                out[2] = clampSample(descale(v.2, shift)); out[3] = clampSample(descale(v.3, shift))
                out[4] = clampSample(descale(v.4, shift)); out[5] = clampSample(descale(v.5, shift))
                out[6] = clampSample(descale(v.6, shift)); out[7] = clampSample(descale(v.7, shift))
            }
        }
    }

    /// 1/2 scale as jsimd_idct_4x4_sse2 computes it (what `djpeg -scale 1/2` runs): jidctred.c's
    /// 8-to-4 step (``IDCTScaled/step4``: exact products of 16-bit inputs, 32-bit sums that
    /// may wrap), on 16-bit products, pass-1 values saturated to 16 bits, outputs clamped. The
    /// one shortcut is for the whole block, when rows 1, 2, 3, 5, 6, 7 are zero.
    @inlinable
    static func idct4x4Saturating(_ coefficients: UnsafePointer<Int16>, _ quant: UnsafePointer<UInt16>,
                                  _ output: UnsafeMutablePointer<UInt8>, _ stride: Int) {
        withUnsafeTemporaryAllocation(of: Int16.self, capacity: 32) { buffer in
            guard let ws = buffer.baseAddress else { return }
            @inline(__always) func dq(_ i: Int) -> Int32 { Int32(dequantize16(coefficients[i], quant[i])) }
            if rowsZero(coefficients, skipping: 4) {
                for c in 0 ..< 8 {
                    let w = dequantize16(coefficients[c], quant[c]) &<< pass1Bits
                    for r in 0 ..< 4 { ws[c + 8 * r] = w }
                }
            } else {
                let shift = constBits &- pass1Bits &+ 1
                for c in 0 ..< 8 where c != 4 {
                    let v = IDCTScaled.step4(dq(c), dq(c + 8), dq(c + 16), dq(c + 24), dq(c + 40), dq(c + 48), dq(c + 56))
                    ws[c] = Int16(clamping: descale(v.0, shift))
                    ws[c + 8] = Int16(clamping: descale(v.1, shift))
                    ws[c + 16] = Int16(clamping: descale(v.2, shift))
                    ws[c + 24] = Int16(clamping: descale(v.3, shift))
                }
            }
            let shift = constBits &+ pass1Bits &+ 3 &+ 1
            for r in 0 ..< 4 {
                let w = ws + 8 * r, out = output + r * stride
                @inline(__always) func x(_ k: Int) -> Int32 { Int32(w[k]) }
                let v = IDCTScaled.step4(x(0), x(1), x(2), x(3), x(5), x(6), x(7))
                out[0] = clampSample(descale(v.0, shift)); out[1] = clampSample(descale(v.1, shift))
                out[2] = clampSample(descale(v.2, shift)); out[3] = clampSample(descale(v.3, shift))
            }
        }
    }

    /// 1/4 scale as jsimd_idct_2x2_sse2 computes it (`djpeg -scale 1/4`): no shortcut; 16-bit
    /// products; pass-1 values of columns 1, 3, 5, 7 saturated to 16 bits before pass 2's
    /// `pmaddwd`, while column 0's stays 32-bit and is shifted left 15 (wrapping); outputs
    /// clamped.
    @inlinable
    static func idct2x2Saturating(_ coefficients: UnsafePointer<Int16>, _ quant: UnsafePointer<UInt16>,
                                  _ output: UnsafeMutablePointer<UInt8>, _ stride: Int) {
        @inline(__always) func dq(_ i: Int) -> Int32 { Int32(dequantize16(coefficients[i], quant[i])) }
        let shift1 = constBits &- pass1Bits &+ 2
        // Pass 1, columns 0, 1, 3, 5, 7: row 0 (a) and row 1 (b) of the workspace.
        var a = (Int32(0), Int32(0), Int32(0), Int32(0), Int32(0)), b = a
        @inline(__always) func column(_ c: Int) -> (Int32, Int32) {
            let v = IDCTScaled.step2(dq(c), dq(c + 8), dq(c + 24), dq(c + 40), dq(c + 56))
            return (descale(v.0, shift1), descale(v.1, shift1))
        }
        (a.0, b.0) = column(0); (a.1, b.1) = column(1); (a.2, b.2) = column(3)
        (a.3, b.3) = column(5); (a.4, b.4) = column(7)
        @inline(__always) func s(_ x: Int32) -> Int32 { Int32(Int16(clamping: x)) }
        let shift2 = constBits &+ pass1Bits &+ 3 &+ 2
        @inline(__always) func row(_ w: (Int32, Int32, Int32, Int32, Int32), _ out: UnsafeMutablePointer<UInt8>) {
            let v = IDCTScaled.step2(w.0, s(w.1), s(w.2), s(w.3), s(w.4))
            out[0] = clampSample(descale(v.0, shift2))
            out[1] = clampSample(descale(v.1, shift2))
        }
        row(a, output)
        row(b, output + stride)
    }
}
