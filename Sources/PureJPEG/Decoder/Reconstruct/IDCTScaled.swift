/// Reduced-size inverse DCTs for decoding at 1/2, 1/4 and 1/8 scale, bit-exact with the
/// 4x4, 2x2 and 1x1 routines of libjpeg-turbo's jidctred.c. Each replaces the 8-point 1-D IDCT
/// with an 8-to-4 (or 8-to-2) step producing averages of adjacent outputs; the high-frequency
/// inputs the smaller output cannot show are skipped (column 4 for 4x4; columns 2, 4, 6 for
/// 2x2), exactly as libjpeg skips them.
///
/// Like ``IDCT``, arithmetic is 32-bit wrapping: equal to libjpeg's C code for every valid
/// 8-bit JPEG, never trapping on hostile coefficients. What `djpeg -scale 1/2` and `1/4` run on
/// x86-64 is the SIMD kernels of jidctred-sse2.asm, which agree with these on in-range blocks
/// and differ on overflow; the decoder uses ``IDCT/idct4x4Saturating`` and
/// ``IDCT/idct2x2Saturating`` (their twins) for that reason, and these as the C reference. The
/// 1x1 routine is C in libjpeg-turbo too.
@usableFromInline
enum IDCTScaled {
    // FIX(x) = round(x * 2^13), jidctred.c's constants.
    @inlinable static var fix_0_211164243: Int32 { 1730 }
    @inlinable static var fix_0_509795579: Int32 { 4176 }
    @inlinable static var fix_0_601344887: Int32 { 4926 }
    @inlinable static var fix_0_720959822: Int32 { 5906 }
    @inlinable static var fix_0_765366865: Int32 { 6270 }
    @inlinable static var fix_0_850430095: Int32 { 6967 }
    @inlinable static var fix_0_899976223: Int32 { 7373 }
    @inlinable static var fix_1_061594337: Int32 { 8697 }
    @inlinable static var fix_1_272758580: Int32 { 10426 }
    @inlinable static var fix_1_451774981: Int32 { 11893 }
    @inlinable static var fix_1_847759065: Int32 { 15137 }
    @inlinable static var fix_2_172734803: Int32 { 17799 }
    @inlinable static var fix_2_562915447: Int32 { 20995 }
    @inlinable static var fix_3_624509785: Int32 { 29692 }

    @inlinable static var constBits: Int32 { 13 }
    @inlinable static var pass1Bits: Int32 { 2 }

    /// The 8-to-4 step: even and odd halves (before descaling) from the six inputs it uses
    /// (32-bit for 8-bit samples; the 12-bit kernels run it in 64 bits, as libjpeg's JLONG).
    @inlinable @inline(__always)
    static func step4<T: FixedWidthInteger & SignedInteger>(_ x0: T, _ x1: T, _ x2: T, _ x3: T, _ x5: T, _ x6: T,
                                                            _ x7: T) -> (T, T, T, T) {
        @inline(__always) func k(_ c: Int32) -> T { T(truncatingIfNeeded: c) }
        let t0 = x0 &<< (constBits &+ 1)
        let t2 = x2 &* k(fix_1_847759065) &+ x6 &* k(0 &- fix_0_765366865)
        let t10 = t0 &+ t2, t12 = t0 &- t2
        let o0 = x7 &* k(0 &- fix_0_211164243) &+ x5 &* k(fix_1_451774981)
            &+ x3 &* k(0 &- fix_2_172734803) &+ x1 &* k(fix_1_061594337)
        let o2 = x7 &* k(0 &- fix_0_509795579) &+ x5 &* k(0 &- fix_0_601344887)
            &+ x3 &* k(fix_0_899976223) &+ x1 &* k(fix_2_562915447)
        return (t10 &+ o2, t12 &+ o0, t12 &- o0, t10 &- o2)
    }

    /// The 8-to-2 step: both outputs (before descaling) from the five inputs it uses.
    @inlinable @inline(__always)
    static func step2<T: FixedWidthInteger & SignedInteger>(_ x0: T, _ x1: T, _ x3: T, _ x5: T, _ x7: T) -> (T, T) {
        @inline(__always) func k(_ c: Int32) -> T { T(truncatingIfNeeded: c) }
        let t10 = x0 &<< (constBits &+ 2)
        let t0 = x7 &* k(0 &- fix_0_720959822) &+ x5 &* k(fix_0_850430095)
            &+ x3 &* k(0 &- fix_1_272758580) &+ x1 &* k(fix_3_624509785)
        return (t10 &+ t0, t10 &- t0)
    }

    /// 1/2 scale: 4x4 output samples from one 8x8 block (jidctred.c jpeg_idct_4x4).
    @inlinable
    static func idct4x4(_ input: UnsafePointer<Int16>, _ quant: UnsafePointer<UInt16>,
                        _ output: UnsafeMutablePointer<UInt8>, _ stride: Int) {
        @inline(__always) func dq(_ i: Int) -> Int32 { Int32(input[i]) &* Int32(quant[i]) }
        withUnsafeTemporaryAllocation(of: Int32.self, capacity: 32) { buffer in
            guard let ws = buffer.baseAddress else { return }
            ws.initialize(repeating: 0, count: 32)
            for c in 0..<8 where c != 4 {
                if input[c + 8] == 0 && input[c + 16] == 0 && input[c + 24] == 0
                    && input[c + 40] == 0 && input[c + 48] == 0 && input[c + 56] == 0 {
                    let dc = dq(c) &<< pass1Bits
                    for r in 0..<4 { ws[c + 8 * r] = dc }
                    continue
                }
                let v = step4(dq(c), dq(c + 8), dq(c + 16), dq(c + 24), dq(c + 40), dq(c + 48), dq(c + 56))
                let shift = constBits &- pass1Bits &+ 1
                ws[c] = IDCT.descale(v.0, shift)
                ws[c + 8] = IDCT.descale(v.1, shift)
                ws[c + 16] = IDCT.descale(v.2, shift)
                ws[c + 24] = IDCT.descale(v.3, shift)
            }
            let shift = constBits &+ pass1Bits &+ 3 &+ 1
            for r in 0..<4 {
                let w = ws + 8 * r
                let out = output + r * stride
                if w[1] == 0 && w[2] == 0 && w[3] == 0 && w[5] == 0 && w[6] == 0 && w[7] == 0 {
                    out.update(repeating: IDCT.rangeLimit(IDCT.descale(w[0], pass1Bits &+ 3)), count: 4)
                    continue
                }
                let v = step4(w[0], w[1], w[2], w[3], w[5], w[6], w[7])
                out[0] = IDCT.rangeLimit(IDCT.descale(v.0, shift))
                out[1] = IDCT.rangeLimit(IDCT.descale(v.1, shift))
                out[2] = IDCT.rangeLimit(IDCT.descale(v.2, shift))
                out[3] = IDCT.rangeLimit(IDCT.descale(v.3, shift))
            }
        }
    }

    /// 1/4 scale: 2x2 output samples from one 8x8 block (jidctred.c jpeg_idct_2x2).
    @inlinable
    static func idct2x2(_ input: UnsafePointer<Int16>, _ quant: UnsafePointer<UInt16>,
                        _ output: UnsafeMutablePointer<UInt8>, _ stride: Int) {
        @inline(__always) func dq(_ i: Int) -> Int32 { Int32(input[i]) &* Int32(quant[i]) }
        withUnsafeTemporaryAllocation(of: Int32.self, capacity: 16) { buffer in
            guard let ws = buffer.baseAddress else { return }
            ws.initialize(repeating: 0, count: 16)
            for c in 0..<8 where c == 0 || c & 1 == 1 {
                if input[c + 8] == 0 && input[c + 24] == 0 && input[c + 40] == 0 && input[c + 56] == 0 {
                    let dc = dq(c) &<< pass1Bits
                    ws[c] = dc
                    ws[c + 8] = dc
                    continue
                }
                let v = step2(dq(c), dq(c + 8), dq(c + 24), dq(c + 40), dq(c + 56))
                let shift = constBits &- pass1Bits &+ 2
                ws[c] = IDCT.descale(v.0, shift)
                ws[c + 8] = IDCT.descale(v.1, shift)
            }
            let shift = constBits &+ pass1Bits &+ 3 &+ 2
            for r in 0..<2 {
                let w = ws + 8 * r
                let out = output + r * stride
                if w[1] == 0 && w[3] == 0 && w[5] == 0 && w[7] == 0 {
                    out.update(repeating: IDCT.rangeLimit(IDCT.descale(w[0], pass1Bits &+ 3)), count: 2)
                    continue
                }
                let v = step2(w[0], w[1], w[3], w[5], w[7])
                out[0] = IDCT.rangeLimit(IDCT.descale(v.0, shift))
                out[1] = IDCT.rangeLimit(IDCT.descale(v.1, shift))
            }
        }
    }

    /// 1/8 scale: the DC term alone gives the block's single sample (jidctred.c jpeg_idct_1x1).
    @inlinable
    static func idct1x1(_ input: UnsafePointer<Int16>, _ quant: UnsafePointer<UInt16>,
                        _ output: UnsafeMutablePointer<UInt8>, _ stride: Int) {
        let dc = Int32(input[0]) &* Int32(quant[0])
        output[0] = IDCT.rangeLimit(IDCT.descale(dc, 3))
    }
}
