/// The accurate integer inverse DCT with Swift SIMD types, bit-exact for every input with what
/// `djpeg -dct int` runs on x86-64: libjpeg-turbo's SIMD kernel jsimd_idct_islow_avx2 (or
/// _sse2, the same arithmetic), whose scalar twin is ``IDCT/idct8x8Saturating(_:_:_:_:)``.
/// On real 8-bit data that is also jidctint.c (``IDCT/idct8x8(_:_:_:_:)``); on damaged data or
/// 16-bit quantizers the two differ, and djpeg's default output is the SIMD kernel's.
///
/// ``idct8x8`` is the fast path: 16-bit lanes, `pmaddwd` products, 16-bit transposes, guarded
/// by one test of the dequantized input (see there); ``idct8x8Saturating`` (the SIMD kernel's
/// arithmetic instruction for instruction: wrapping 16-bit products and pre-sums, saturating
/// packs) takes every block that fails the test. What the code generation needed (checked
/// with `swiftc -emit-assembly` and in the release binary): pair products with two uses each
/// (else LLVM regroups the four products of an odd term and multiplies half of them alone),
/// the "any lane" test on 64-bit halves (halving 16-bit lanes let LLVM push shuffles into the
/// tested values), the narrowing after pass 1 fused with the first transpose stage as shifts
/// and masks, and the quantizer range folded into the product test. Callgrind, 1 MP 4:2:0
/// (23,328 blocks, 92% with AC terms below the first row): 25.1 M instructions before, 13.3 M
/// after.
@usableFromInline
enum IDCTSIMD {
    @usableFromInline typealias V = SIMD8<Int32>

    @usableFromInline typealias H = SIMD8<Int16>

    /// The full-size 8x8 inverse DCT. See ``JPEGKernels/idct``.
    ///
    /// libjpeg-turbo's jidctint-sse2 layout: samples travel in 16-bit lanes and every product is
    /// a 16 x 16 -> 32-bit multiply-add of two inputs (`pmaddwd`; LLVM emits it for
    /// `Int32(a) * c1 + Int32(b) * c2`). jidctint.c's shared factors are multiplied out (matrix
    /// in ``butterfly16``), which gives the same integer mod 2^32.
    ///
    /// Exactness rests on one cheap test of the input instead of tests of every pass: when each
    /// dequantized coefficient lies in -1024...1023 (all real 8-bit images: the DC term is at
    /// most 8 x 128 and AC terms are smaller), the SIMD kernel's 16-bit products and pass-1
    /// pre-sums cannot wrap, and a row of the multiplied-out matrix has absolute sum 61214, so
    /// pass-1 sums stay under 2^26 and their descaled values under 30608 (16 bits: no
    /// saturation). Pass 1 can therefore take inputs pre-scaled by 32 (still 16 bits) and the
    /// multiplied-out matrix, which turns its descale (>> 11) into a >> 16 whose result LLVM
    /// narrows with one `packssdw`. Pass 2's sums stay under 2^31 - 2^27 and its outputs clamp
    /// (no 10-bit wrap: `packsswb`); but the SIMD kernel's 16-bit pre-sums of pass-1 values up
    /// to 30608 can wrap, so a block with a pass-1 value outside -16384...16383 starts over
    /// (see ``twoPasses``), as does a block failing the input test: both go to
    /// ``idct8x8Saturating``.
    @inlinable
    static func idct8x8(_ coefficients: UnsafePointer<Int16>, _ quant: UnsafePointer<UInt16>,
                        _ output: UnsafeMutablePointer<UInt8>, _ stride: Int) {
        let c = UnsafeRawPointer(coefficients), q = UnsafeRawPointer(quant + 64)
        @inline(__always) func load(_ p: UnsafeRawPointer, _ r: Int) -> H {
            p.loadUnaligned(fromByteOffset: 16 * r, as: H.self)
        }
        let c0 = load(c, 0), row1 = load(c, 1), row2 = load(c, 2), row3 = load(c, 3)
        var lowerRows = load(c, 4) | load(c, 5)
        lowerRows |= load(c, 6) | load(c, 7)
        let upper = (row1 | row2) | (row3 | lowerRows)
        // Dequantize in 16 bits, times 32 (the prepared table holds the quantizers times 32):
        // the product fits Int16 exactly when the coefficient times the quantizer is in
        // -1024...1023, i.e. when the high half of the 32-bit product (`pmulhw`) is the sign of
        // the low half (`pmullw`). A table with a quantizer of 1024 or more has its flag words
        // (entries 128...135) all ones, which fails every block.
        var bad = load(q, 8)
        @inline(__always) func dequantize(_ a: H, _ b: H) -> H {
            let low = a &* b
            let high = H(truncatingIfNeeded: (V(truncatingIfNeeded: a) &* V(truncatingIfNeeded: b)) &>> 16)
            bad |= high ^ (low &>> 15)
            return low
        }
        @inline(__always) func outOfRange() -> Bool { anyNonzero(bad) }
        if !anyNonzero(upper) {
            // Only the first coefficient row: the SIMD kernel's pass-1 shortcut (no wrap in range).
            if IDCT.acAllZero(coefficients) {
                IDCT.idctDCOnlySaturating(coefficients, quant, output, stride)
                return
            }
            let x0 = dequantize(c0, load(q, 0))
            if outOfRange() {
                idct8x8Saturating(coefficients, quant, output, stride)
                return
            }
            firstRowOnly(x0 &>> 3, output, stride)
            return
        }
        let x0 = dequantize(c0, load(q, 0)), x1 = dequantize(row1, load(q, 1))
        let x2 = dequantize(row2, load(q, 2)), x3 = dequantize(row3, load(q, 3))
        let x4 = dequantize(load(c, 4), load(q, 4)), x5 = dequantize(load(c, 5), load(q, 5))
        let x6 = dequantize(load(c, 6), load(q, 6)), x7 = dequantize(load(c, 7), load(q, 7))
        if outOfRange() {
            idct8x8Saturating(coefficients, quant, output, stride)
            return
        }

        // Coefficients only in the top-left 4x4 (most blocks of smooth areas, and of early
        // progressive scans): rows 4...7 are zero, and so are columns 4...7, whose pass-1
        // outputs (pass 2's inputs 4...7) are then zero too. Zero vectors passed as constants
        // let LLVM drop their products.
        let z = H()
        let rightHalf = H(0, 0, 0, 0, -1, -1, -1, -1)
        let lowOnly = !anyNonzero(lowerRows | ((c0 | row1 | row2 | row3) & rightHalf))
        if lowOnly {
            twoPasses(x0, x1, x2, x3, z, z, z, z, lowOnly: true, coefficients, quant, output, stride)
        } else {
            twoPasses(x0, x1, x2, x3, x4, x5, x6, x7, lowOnly: false, coefficients, quant, output, stride)
        }
    }

    /// Both passes of ``idct8x8`` on dequantized rows times 32; `lowOnly` (a constant at each
    /// call) says pass 2's inputs 4...7 are zero. The block's coefficients and table are for
    /// the fallback when pass 2 would wrap.
    @inlinable @inline(__always)
    static func twoPasses(_ x0: H, _ x1: H, _ x2: H, _ x3: H, _ x4: H, _ x5: H, _ x6: H, _ x7: H, lowOnly: Bool,
                          _ coefficients: UnsafePointer<Int16>, _ quant: UnsafePointer<UInt16>,
                          _ output: UnsafeMutablePointer<UInt8>, _ stride: Int) {
        // Pass 1 on inputs times 32: lanes are columns, vector r is dequantized row r.
        let p = butterfly16(x0, x1, x2, x3, x4, x5, x6, x7, rounding: 1 &<< 15)
        // The high halves of pass 1's 32-bit results are its 16-bit outputs; they are taken
        // and transposed in one go. Pass 2: lanes are rows, vector k is workspace column k.
        // The rounding term also adds the level shift (128), before ``clampSamples``.
        let (r0, r1, r2, r3, r4, r5, r6, r7) = transposeHighHalves(p.0, p.1, p.2, p.3, p.4, p.5, p.6, p.7)
        // The SIMD kernel forms r0 +- r4, r3 + r7 and r1 + r5 in 16 bits first (see
        // ``butterflyX86``); ``butterfly16`` gives the same sums while none wraps, which is
        // certain when every input is in -16384...16383 (bit 15 of r + 16384 clear), and when
        // inputs 4...7 are zero. Callgrind, 12 MP: this test costs 9 M instructions, pass 2 as
        // ``butterflyX86`` 21 M.
        // Blocks failing the test (extreme outputs only) start over in the SIMD kernel's lanes.
        if !lowOnly {
            let b = H(repeating: 16384)
            var high = (r0 &+ b) | (r1 &+ b) | (r2 &+ b) | (r3 &+ b)
            high |= (r4 &+ b) | (r5 &+ b) | (r6 &+ b) | (r7 &+ b)
            if anyNonzero(high & H(repeating: -32768)) {
                idct8x8Saturating(coefficients, quant, output, stride)
                return
            }
        }
        let z = H()
        let o = lowOnly
            ? butterfly16(r0, r1, r2, r3, z, z, z, z, rounding: (1 &<< 17) &+ (128 &<< 18))
            : butterfly16(r0, r1, r2, r3, r4, r5, r6, r7, rounding: (1 &<< 17) &+ (128 &<< 18))
        @inline(__always) func narrow2(_ x: V) -> H { clampSamples(H(truncatingIfNeeded: x &>> 18)) }
        storeTransposed(narrow2(o.0), narrow2(o.1), narrow2(o.2), narrow2(o.3),
                        narrow2(o.4), narrow2(o.5), narrow2(o.6), narrow2(o.7), output, stride)
    }

    /// The high 16 bits of the lanes of eight vectors, transposed: lane j of result i is the
    /// high half of lane i of `x_j`. The first transpose stage (interleaving the 16-bit lanes of
    /// two rows) is a shift, a mask and an OR on 32-bit lanes here; a separate narrowing let
    /// LLVM merge it into that stage as four shuffles per vector.
    @inlinable @inline(__always)
    static func transposeHighHalves(_ x0: V, _ x1: V, _ x2: V, _ x3: V, _ x4: V, _ x5: V, _ x6: V, _ x7: V)
        -> (H, H, H, H, H, H, H, H) {
        typealias U = SIMD8<UInt32>
        typealias W = SIMD4<Int32>
        typealias Q = SIMD2<Int64>
        @inline(__always) func pair(_ a: V, _ b: V) -> (W, W) {
            let u = (unsafeBitCast(a, to: U.self) &>> 16) | (unsafeBitCast(b, to: U.self) & 0xFFFF_0000)
            let w = unsafeBitCast(u, to: V.self)
            return (w.lowHalf, w.highHalf)
        }
        @inline(__always) func lo32(_ a: W, _ b: W) -> Q { unsafeBitCast(W(a[0], b[0], a[1], b[1]), to: Q.self) }
        @inline(__always) func hi32(_ a: W, _ b: W) -> Q { unsafeBitCast(W(a[2], b[2], a[3], b[3]), to: Q.self) }
        @inline(__always) func lo64(_ a: Q, _ b: Q) -> H { unsafeBitCast(Q(a[0], b[0]), to: H.self) }
        @inline(__always) func hi64(_ a: Q, _ b: Q) -> H { unsafeBitCast(Q(a[1], b[1]), to: H.self) }
        let (a0, a1) = pair(x0, x1), (a2, a3) = pair(x2, x3), (a4, a5) = pair(x4, x5), (a6, a7) = pair(x6, x7)
        let b0 = lo32(a0, a2), b1 = hi32(a0, a2), b2 = lo32(a1, a3), b3 = hi32(a1, a3)
        let b4 = lo32(a4, a6), b5 = hi32(a4, a6), b6 = lo32(a5, a7), b7 = hi32(a5, a7)
        return (lo64(b0, b4), hi64(b0, b4), lo64(b1, b5), hi64(b1, b5),
                lo64(b2, b6), hi64(b2, b6), lo64(b3, b7), hi64(b3, b7))
    }

    /// Stores two rows of samples (each lane 0...255) as bytes, `stride` apart.
    @inlinable @inline(__always)
    static func storeRows(_ a: H, _ b: H, _ out: UnsafeMutableRawPointer, _ stride: Int) {
        let bytes = SIMD16<UInt8>(truncatingIfNeeded: SIMD16<Int16>(lowHalf: a, highHalf: b))
        let words = unsafeBitCast(bytes, to: SIMD2<UInt64>.self)
        out.storeBytes(of: words[0], as: UInt64.self)
        out.storeBytes(of: words[1], toByteOffset: stride, as: UInt64.self)
    }

    /// The block whose coefficients are all in the first row (every column is DC-only, so
    /// pass 1 is `x << PASS1_BITS` down each column and all eight output rows are equal): one
    /// row transform, `w` times each column of the multiplied-out matrix, stored eight times.
    /// `w` is in -4096...4092 (inputs passed the range test), so the sums fit 32 bits and the
    /// SIMD kernel's pass-2 pre-sums (at most 8192) do not wrap.
    @inlinable @inline(__always)
    static func firstRowOnly(_ w: H, _ output: UnsafeMutablePointer<UInt8>, _ stride: Int) {
        @inline(__always) func lane(_ k: Int) -> H { H(repeating: w[k]) }
        var sum = V(repeating: (1 &<< 17) &+ (128 &<< 18))
        sum &+= V(truncatingIfNeeded: lane(0)) &* V(8192, 8192, 8192, 8192, 8192, 8192, 8192, 8192)
            &+ V(truncatingIfNeeded: lane(1)) &* V(11363, 9633, 6437, 2260, -2260, -6437, -9633, -11363)
        sum &+= V(truncatingIfNeeded: lane(2)) &* V(10703, 4433, -4433, -10703, -10703, -4433, 4433, 10703)
            &+ V(truncatingIfNeeded: lane(3)) &* V(9633, -2259, -11362, -6436, 6436, 11362, 2259, -9633)
        sum &+= V(truncatingIfNeeded: lane(4)) &* V(8192, -8192, -8192, 8192, 8192, -8192, -8192, 8192)
            &+ V(truncatingIfNeeded: lane(5)) &* V(6437, -11362, 2261, 9633, -9633, -2261, 11362, -6437)
        sum &+= V(truncatingIfNeeded: lane(6)) &* V(4433, -10704, 10704, -4433, -4433, 10704, -10704, 4433)
            &+ V(truncatingIfNeeded: lane(7)) &* V(2260, -6436, 9633, -11363, 11363, -9633, 6436, -2260)
        let row = clampSamples(H(truncatingIfNeeded: sum &>> 18))
        let bytes = unsafeBitCast(SIMD16<UInt8>(truncatingIfNeeded: SIMD16<Int16>(lowHalf: row, highHalf: row)),
                                  to: SIMD2<UInt64>.self)[0]
        var out = UnsafeMutableRawPointer(output)
        for _ in 0 ..< 8 {
            out.storeBytes(of: bytes, as: UInt64.self)
            out += stride
        }
    }

    /// Whether any lane is nonzero (`!=` on SIMD values compiles to a lane-by-lane loop). The
    /// OR of two 64-bit halves: halving 16-bit lanes twice let LLVM move the shuffles into the
    /// computation being tested (dozens of extra shuffles).
    @inlinable @inline(__always)
    static func anyNonzero(_ x: H) -> Bool {
        let q = unsafeBitCast(x, to: SIMD2<UInt64>.self)
        return q[0] | q[1] != 0
    }

    /// ``IDCT/clampSample(_:)`` on level-shifted 16-bit lanes: 0...255 kept, the rest clamped
    /// (the SIMD kernel's `packsswb` then `+128`). `SIMD16<UInt8>(clamping:)` compiled lane by
    /// lane (40% more instructions for the whole decode).
    @inlinable @inline(__always)
    static func clampSamples(_ y: H) -> H {
        pointwiseMin(y & ~(y &>> 15), H(repeating: 255))
    }

    /// `Int32(a) * ca + Int32(b) * cb` lane-wise: one `pmaddwd` per four lanes on x86.
    @inlinable @inline(__always)
    static func madd(_ a: H, _ ca: Int32, _ b: H, _ cb: Int32) -> V {
        V(truncatingIfNeeded: a) &* ca &+ V(truncatingIfNeeded: b) &* cb
    }

    /// jidctint.c's 1-D IDCT multiplied out into pairwise products of 16-bit inputs (pairs
    /// (x0, x4), (x2, x6), (x1, x7), (x3, x5), as jidctint-sse2 feeds `pmaddwd`), plus
    /// `rounding` in every output; equal mod 2^32 to ``butterfly(_:_:_:_:_:_:_:_:)`` on the
    /// widened inputs. Row n of the matrix (output n = sum of M[n][k] * x_k):
    /// t10/t11/t12/t13 = 8192 (x0 +- x4) +- (10703 x2 + 4433 x6 | 4433 x2 - 10704 x6), and the
    /// odd terms o0...o3 are jidctint.c's tmp0...tmp3 with z1...z5 distributed.
    @inlinable @inline(__always)
    static func butterfly16(_ x0: H, _ x1: H, _ x2: H, _ x3: H, _ x4: H, _ x5: H, _ x6: H, _ x7: H,
                            rounding: Int32)
        -> (V, V, V, V, V, V, V, V) {
        let t0 = madd(x0, 8192, x4, 8192) &+ rounding, t1 = madd(x0, 8192, x4, -8192) &+ rounding
        let t2 = madd(x2, 4433, x6, -10704), t3 = madd(x2, 10703, x6, 4433)
        let t10 = t0 &+ t3, t13 = t0 &- t3, t11 = t1 &+ t2, t12 = t1 &- t2
        // Each odd term is one pair product of (x1, x7) and one of (x3, x5). They are added to
        // the even term one at a time, so every pair product has two uses: LLVM's reassociation
        // then keeps each pair intact and forms one `pmaddwd` from it (summed first, the four
        // products were regrouped and half of them multiplied alone).
        let a0 = madd(x1, 2260, x7, -11363), b0 = madd(x3, -6436, x5, 9633)
        let a1 = madd(x1, 6437, x7, 9633), b1 = madd(x3, -11362, x5, 2261)
        let a2 = madd(x1, 9633, x7, -6436), b2 = madd(x3, -2259, x5, -11362)
        let a3 = madd(x1, 11363, x7, 2260), b3 = madd(x3, 9633, x5, 6437)
        return ((t10 &+ a3) &+ b3, (t11 &+ a2) &+ b2, (t12 &+ a1) &+ b1, (t13 &+ a0) &+ b0,
                (t13 &- a0) &- b0, (t12 &- a1) &- b1, (t11 &- a2) &- b2, (t10 &- a3) &- b3)
    }

    /// 8x8 transpose of 16-bit lanes by interleaving 16-, 32- and 64-bit units
    /// (`punpck{l,h}{wd,dq,qdq}` on x86). Each stage works on the lane type of its unit, which
    /// keeps LLVM from fusing the three stages into a long shuffle sequence (measured: 158
    /// instructions fused, 24 staged).
    @inlinable @inline(__always)
    static func transpose16(_ r0: inout H, _ r1: inout H, _ r2: inout H, _ r3: inout H,
                            _ r4: inout H, _ r5: inout H, _ r6: inout H, _ r7: inout H) {
        typealias W = SIMD4<Int32>
        typealias Q = SIMD2<Int64>
        @inline(__always) func lo16(_ a: H, _ b: H) -> W {
            unsafeBitCast(H(a[0], b[0], a[1], b[1], a[2], b[2], a[3], b[3]), to: W.self)
        }
        @inline(__always) func hi16(_ a: H, _ b: H) -> W {
            unsafeBitCast(H(a[4], b[4], a[5], b[5], a[6], b[6], a[7], b[7]), to: W.self)
        }
        @inline(__always) func lo32(_ a: W, _ b: W) -> Q { unsafeBitCast(W(a[0], b[0], a[1], b[1]), to: Q.self) }
        @inline(__always) func hi32(_ a: W, _ b: W) -> Q { unsafeBitCast(W(a[2], b[2], a[3], b[3]), to: Q.self) }
        @inline(__always) func lo64(_ a: Q, _ b: Q) -> H { unsafeBitCast(Q(a[0], b[0]), to: H.self) }
        @inline(__always) func hi64(_ a: Q, _ b: Q) -> H { unsafeBitCast(Q(a[1], b[1]), to: H.self) }
        let a0 = lo16(r0, r1), a1 = hi16(r0, r1), a2 = lo16(r2, r3), a3 = hi16(r2, r3)
        let a4 = lo16(r4, r5), a5 = hi16(r4, r5), a6 = lo16(r6, r7), a7 = hi16(r6, r7)
        let b0 = lo32(a0, a2), b1 = hi32(a0, a2), b2 = lo32(a1, a3), b3 = hi32(a1, a3)
        let b4 = lo32(a4, a6), b5 = hi32(a4, a6), b6 = lo32(a5, a7), b7 = hi32(a5, a7)
        r0 = lo64(b0, b4); r1 = hi64(b0, b4); r2 = lo64(b1, b5); r3 = hi64(b1, b5)
        r4 = lo64(b2, b6); r5 = hi64(b2, b6); r6 = lo64(b3, b7); r7 = hi64(b3, b7)
    }

    /// jsimd_idct_islow's 1-D transform (``IDCT/butterflySIMD``) on eight lanes, plus
    /// `rounding` in every output: the 16-bit pre-sums `x0 ± x4`, `x3 + x7`, `x1 + x5` wrap as
    /// `paddw` does, then six `pmaddwd` pairs. Each pair product has two uses (see
    /// ``butterfly16``). Sums reach at most 2,115,829,760 in magnitude for any 16-bit input.
    @inlinable @inline(__always)
    static func butterflyX86(_ x0: H, _ x1: H, _ x2: H, _ x3: H, _ x4: H, _ x5: H, _ x6: H, _ x7: H,
                             rounding: Int32)
        -> (V, V, V, V, V, V, V, V) {
        let e0 = (V(truncatingIfNeeded: x0 &+ x4) &<< 13) &+ rounding
        let e1 = (V(truncatingIfNeeded: x0 &- x4) &<< 13) &+ rounding
        let t2 = madd(x2, 4433, x6, -10704), t3 = madd(x2, 10703, x6, 4433)
        let t10 = e0 &+ t3, t13 = e0 &- t3, t11 = e1 &+ t2, t12 = e1 &- t2
        let z3 = x7 &+ x3, z4 = x5 &+ x1
        let zz3 = madd(z3, -6436, z4, 9633), zz4 = madd(z3, 9633, z4, 6437)
        let o0 = madd(x7, -4927, x1, -7373) &+ zz3, o3 = madd(x7, -7373, x1, 4926) &+ zz4
        let o1 = madd(x5, -4176, x3, -20995) &+ zz4, o2 = madd(x5, -20995, x3, 4177) &+ zz3
        return (t10 &+ o3, t11 &+ o2, t12 &+ o1, t13 &+ o0, t13 &- o0, t12 &- o1, t11 &- o2, t10 &- o3)
    }

    /// jsimd_idct_islow_avx2 (and _sse2) for any input, in the same lanes: 16-bit wrapping
    /// products (`pmullw`), the whole-block shortcut when rows 1...7 are zero (each column
    /// its product shifted left 2, wrapping), pass-1 values descaled and saturated to 16 bits
    /// (`packssdw`), outputs clamped (`packsswb`). The fallback of ``idct8x8`` for blocks out
    /// of its range; scalar twin ``IDCT/idct8x8Saturating(_:_:_:_:)``. Never inlined: it is
    /// rare, and inlined at the fast path's four exits it cost the fast path instructions.
    @inlinable @inline(never)
    static func idct8x8Saturating(_ coefficients: UnsafePointer<Int16>, _ quant: UnsafePointer<UInt16>,
                                  _ output: UnsafeMutablePointer<UInt8>, _ stride: Int) {
        let c = UnsafeRawPointer(coefficients), q = UnsafeRawPointer(quant)
        @inline(__always) func load(_ p: UnsafeRawPointer, _ r: Int) -> H {
            p.loadUnaligned(fromByteOffset: 16 * r, as: H.self)
        }
        @inline(__always) func dq(_ r: Int) -> H { load(c, r) &* load(q, r) }
        var rows = load(c, 1) | load(c, 2) | load(c, 3)
        rows |= load(c, 4) | load(c, 5)
        rows |= load(c, 6) | load(c, 7)
        var r0: H, r1: H, r2: H, r3: H, r4: H, r5: H, r6: H, r7: H
        if !anyNonzero(rows) {
            // Pass 2's vector k (lanes are rows) is workspace column k: all lanes the same.
            let w = dq(0) &<< 2
            r0 = H(repeating: w[0]); r1 = H(repeating: w[1]); r2 = H(repeating: w[2]); r3 = H(repeating: w[3])
            r4 = H(repeating: w[4]); r5 = H(repeating: w[5]); r6 = H(repeating: w[6]); r7 = H(repeating: w[7])
        } else {
            let p = butterflyX86(dq(0), dq(1), dq(2), dq(3), dq(4), dq(5), dq(6), dq(7), rounding: 1 &<< 10)
            @inline(__always) func narrow1(_ x: V) -> H {
                H(truncatingIfNeeded: pointwiseMax(pointwiseMin(x &>> 11, V(repeating: 32767)), V(repeating: -32768)))
            }
            r0 = narrow1(p.0); r1 = narrow1(p.1); r2 = narrow1(p.2); r3 = narrow1(p.3)
            r4 = narrow1(p.4); r5 = narrow1(p.5); r6 = narrow1(p.6); r7 = narrow1(p.7)
            transpose16(&r0, &r1, &r2, &r3, &r4, &r5, &r6, &r7)
        }
        let o = butterflyX86(r0, r1, r2, r3, r4, r5, r6, r7, rounding: 1 &<< 17)
        @inline(__always) func narrow2(_ x: V) -> H {
            H(truncatingIfNeeded: pointwiseMax(pointwiseMin(x &>> 18, V(repeating: 127)), V(repeating: -128)) &+ 128)
        }
        storeTransposed(narrow2(o.0), narrow2(o.1), narrow2(o.2), narrow2(o.3),
                        narrow2(o.4), narrow2(o.5), narrow2(o.6), narrow2(o.7), output, stride)
    }

    /// Pass 2's eight output columns (samples in 16-bit lanes), transposed into rows and stored.
    @inlinable @inline(__always)
    static func storeTransposed(_ c0: H, _ c1: H, _ c2: H, _ c3: H, _ c4: H, _ c5: H, _ c6: H, _ c7: H,
                                _ output: UnsafeMutablePointer<UInt8>, _ stride: Int) {
        var o0 = c0, o1 = c1, o2 = c2, o3 = c3, o4 = c4, o5 = c5, o6 = c6, o7 = c7
        transpose16(&o0, &o1, &o2, &o3, &o4, &o5, &o6, &o7)
        let out = UnsafeMutableRawPointer(output)
        storeRows(o0, o1, out, stride)
        storeRows(o2, o3, out + 2 &* stride, stride)
        storeRows(o4, o5, out + 4 &* stride, stride)
        storeRows(o6, o7, out + 6 &* stride, stride)
    }
}
