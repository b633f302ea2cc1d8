/// The accurate integer inverse DCT, bit-exact with the IJG/libjpeg-turbo `jpeg_idct_islow`
/// (jidctint.c): the Loeffler-Ligtenberg-Moschytz factorisation with 12 multiplies, constants
/// scaled by 2^13 (CONST_BITS), two extra bits kept between the passes (PASS1_BITS), rounding
/// right shifts, and libjpeg's post-IDCT range-limit table (+128, a 10-bit wrap, then clamp).
///
/// Arithmetic is 32-bit and wrapping, as jidctint.c computes where its `JLONG` is 32 bits wide.
/// For every block a valid 8-bit JPEG can hold, no intermediate exceeds 32 bits, so the output
/// equals libjpeg's on every platform; hostile coefficients (e.g. 32767 with a 16-bit quantizer)
/// wrap instead of trapping. The column and row shortcuts are taken exactly where jidctint.c
/// takes them, so even wrapped results are reproducible; ``IDCTSIMD`` gives the same bytes for
/// every input (T.81 A.3.3 defines the transform; the shortcuts are libjpeg's and change no
/// result in range).
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
