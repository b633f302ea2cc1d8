/// The accurate integer inverse DCT with Swift SIMD types, bit-exact with ``IDCT`` (and so with
/// libjpeg-turbo's jidctint.c and its SSE2 twin) for every input.
///
/// ``idct8x8`` follows jidctint-sse2: 16-bit lanes, `pmaddwd` products, 16-bit transposes,
/// guarded by one test of the dequantized input (see there); ``idct8x8Wide`` (32-bit lanes,
/// jidctint.c's factorisation as is, its shortcuts and wrapping reproduced) takes every block
/// that fails the test. What the code generation needed (checked with `swiftc -emit-assembly`
/// and in the release binary): pair products with two uses each (else LLVM regroups the four
/// products of an odd term and multiplies half of them alone), the "any lane" test on 64-bit
/// halves (halving 16-bit lanes let LLVM push shuffles into the tested values), the narrowing
/// after pass 1 fused with the first transpose stage as shifts and masks, and the quantizer
/// range folded into the product test. Callgrind, 1 MP 4:2:0 (23,328 blocks, 92% with AC terms
/// below the first row): 25.1 M instructions before, 13.3 M after.
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
    /// most 8 x 128 and AC terms are smaller), a row of the multiplied-out matrix has absolute
    /// sum 61214, so pass-1 sums stay under 2^26 and their descaled values under 30608 (16 bits),
    /// and pass-2 sums under 2^31. Inputs are therefore pre-scaled by 32 (still 16 bits), which
    /// turns pass 1's descale (>> 11) into a >> 16 whose result LLVM narrows with one `packssdw`,
    /// and pass 2's >> 18 narrows the same way. A block failing the test goes to
    /// ``idct8x8Wide``, which reproduces the scalar kernel's wrapping for any input.
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
            // Only the first coefficient row: every column takes jidctint.c's DC shortcut.
            if IDCT.acAllZero(coefficients) {
                IDCT.idctDCOnly(coefficients, quant, output, stride)
                return
            }
            let x0 = dequantize(c0, load(q, 0))
            if outOfRange() {
                idct8x8Wide(coefficients, quant, output, stride)
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
            idct8x8Wide(coefficients, quant, output, stride)
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
            twoPasses(x0, x1, x2, x3, z, z, z, z, lowOnly: true, output, stride)
        } else {
            twoPasses(x0, x1, x2, x3, x4, x5, x6, x7, lowOnly: false, output, stride)
        }
    }

    /// Both passes of ``idct8x8`` on dequantized rows times 32; `lowOnly` (a constant at each
    /// call) says pass 2's inputs 4...7 are zero.
    @inlinable @inline(__always)
    static func twoPasses(_ x0: H, _ x1: H, _ x2: H, _ x3: H, _ x4: H, _ x5: H, _ x6: H, _ x7: H, lowOnly: Bool,
                          _ output: UnsafeMutablePointer<UInt8>, _ stride: Int) {
        // Pass 1 on inputs times 32: lanes are columns, vector r is dequantized row r.
        let p = butterfly16(x0, x1, x2, x3, x4, x5, x6, x7, rounding: 1 &<< 15)
        // The high halves of pass 1's 32-bit results are its 16-bit outputs; they are taken
        // and transposed in one go. Pass 2: lanes are rows, vector k is workspace column k.
        // The rounding term also adds 512 to every output, which ``rangeLimitOffset`` expects.
        let (r0, r1, r2, r3, r4, r5, r6, r7) = transposeHighHalves(p.0, p.1, p.2, p.3, p.4, p.5, p.6, p.7)
        let z = H()
        let o = lowOnly
            ? butterfly16(r0, r1, r2, r3, z, z, z, z, rounding: (1 &<< 17) &+ (512 &<< 18))
            : butterfly16(r0, r1, r2, r3, r4, r5, r6, r7, rounding: (1 &<< 17) &+ (512 &<< 18))
        @inline(__always) func narrow2(_ x: V) -> H { rangeLimitOffset(H(truncatingIfNeeded: x &>> 18)) }
        var o0 = narrow2(o.0), o1 = narrow2(o.1), o2 = narrow2(o.2), o3 = narrow2(o.3)
        var o4 = narrow2(o.4), o5 = narrow2(o.5), o6 = narrow2(o.6), o7 = narrow2(o.7)
        transpose16(&o0, &o1, &o2, &o3, &o4, &o5, &o6, &o7)
        let out = UnsafeMutableRawPointer(output)
        storeRows(o0, o1, out, stride)
        storeRows(o2, o3, out + 2 &* stride, stride)
        storeRows(o4, o5, out + 4 &* stride, stride)
        storeRows(o6, o7, out + 6 &* stride, stride)
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
    /// `w` is in -4096...4092 (inputs passed the range test), so the sums fit 32 bits.
    @inlinable @inline(__always)
    static func firstRowOnly(_ w: H, _ output: UnsafeMutablePointer<UInt8>, _ stride: Int) {
        @inline(__always) func lane(_ k: Int) -> H { H(repeating: w[k]) }
        var sum = V(repeating: (1 &<< 17) &+ (512 &<< 18))
        sum &+= V(truncatingIfNeeded: lane(0)) &* V(8192, 8192, 8192, 8192, 8192, 8192, 8192, 8192)
            &+ V(truncatingIfNeeded: lane(1)) &* V(11363, 9633, 6437, 2260, -2260, -6437, -9633, -11363)
        sum &+= V(truncatingIfNeeded: lane(2)) &* V(10703, 4433, -4433, -10703, -10703, -4433, 4433, 10703)
            &+ V(truncatingIfNeeded: lane(3)) &* V(9633, -2259, -11362, -6436, 6436, 11362, 2259, -9633)
        sum &+= V(truncatingIfNeeded: lane(4)) &* V(8192, -8192, -8192, 8192, 8192, -8192, -8192, 8192)
            &+ V(truncatingIfNeeded: lane(5)) &* V(6437, -11362, 2261, 9633, -9633, -2261, 11362, -6437)
        sum &+= V(truncatingIfNeeded: lane(6)) &* V(4433, -10704, 10704, -4433, -4433, 10704, -10704, 4433)
            &+ V(truncatingIfNeeded: lane(7)) &* V(2260, -6436, 9633, -11363, 11363, -9633, 6436, -2260)
        let row = rangeLimitOffset(H(truncatingIfNeeded: sum &>> 18))
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

    /// ``IDCT/rangeLimit(_:)`` for `y = v + 512` in 16-bit lanes: `(y & 1023) - 384` maps
    /// libjpeg's 10-bit wrap onto -384...639 (its 640...1023 part, negative overflow, becomes
    /// negative), so clamping to 0...255 gives the table's value.
    @inlinable @inline(__always)
    static func rangeLimitOffset(_ y: H) -> H {
        let u = (y & 1023) &- 384
        return pointwiseMin(u & ~(u &>> 15), H(repeating: 255))
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

    /// The 32-bit-lane kernel: any input, the scalar kernel's wrapping and shortcuts reproduced
    /// lane by lane. The fallback of ``idct8x8`` when 16-bit lanes could lose bits.
    @inlinable
    static func idct8x8Wide(_ coefficients: UnsafePointer<Int16>, _ quant: UnsafePointer<UInt16>,
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
        let mask = zeroMask(V(truncatingIfNeeded: acRows))
        let p = butterfly(x0, dq(1), dq(2), dq(3), dq(4), dq(5), dq(6), dq(7))
        let s1 = IDCT.constBits &- IDCT.pass1Bits
        let flat = x0 &<< V(repeating: IDCT.pass1Bits)
        let w0 = descale(p.0, s1).blend(flat, mask)
        let w1 = descale(p.1, s1).blend(flat, mask)
        let w2 = descale(p.2, s1).blend(flat, mask)
        let w3 = descale(p.3, s1).blend(flat, mask)
        let w4 = descale(p.4, s1).blend(flat, mask)
        let w5 = descale(p.5, s1).blend(flat, mask)
        let w6 = descale(p.6, s1).blend(flat, mask)
        let w7 = descale(p.7, s1).blend(flat, mask)

        widePass2(w0, w1, w2, w3, w4, w5, w6, w7, output, stride)
    }

    /// Pass 2 in 32-bit lanes from the pass-1 workspace rows (lanes are columns on entry).
    @inlinable
    static func widePass2(_ w0: V, _ w1: V, _ w2: V, _ w3: V, _ w4: V, _ w5: V, _ w6: V, _ w7: V,
                          _ output: UnsafeMutablePointer<UInt8>, _ stride: Int) {
        var (w0, w1, w2, w3, w4, w5, w6, w7) = (w0, w1, w2, w3, w4, w5, w6, w7)
        // Pass 2: lanes are rows, vector k is workspace column k.
        transpose(&w0, &w1, &w2, &w3, &w4, &w5, &w6, &w7)
        var acColumns = w1 | w2 | w3
        acColumns |= w4 | w5
        acColumns |= w6 | w7
        let rowFlat = zeroMask(acColumns)
        let flatOut = rangeLimit(descale(w0, IDCT.pass1Bits &+ 3))
        let s2 = IDCT.constBits &+ IDCT.pass1Bits &+ 3
        let o = butterfly(w0, w1, w2, w3, w4, w5, w6, w7)
        var o0 = rangeLimit(descale(o.0, s2)).blend(flatOut, rowFlat)
        var o1 = rangeLimit(descale(o.1, s2)).blend(flatOut, rowFlat)
        var o2 = rangeLimit(descale(o.2, s2)).blend(flatOut, rowFlat)
        var o3 = rangeLimit(descale(o.3, s2)).blend(flatOut, rowFlat)
        var o4 = rangeLimit(descale(o.4, s2)).blend(flatOut, rowFlat)
        var o5 = rangeLimit(descale(o.5, s2)).blend(flatOut, rowFlat)
        var o6 = rangeLimit(descale(o.6, s2)).blend(flatOut, rowFlat)
        var o7 = rangeLimit(descale(o.7, s2)).blend(flatOut, rowFlat)

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

    /// All ones in lanes where `x` is zero, else zero: plain integer ops, which compile to a few
    /// SSE2 instructions where `.==` plus `replacing(with:where:)` did not (measured 10x slower).
    @inlinable @inline(__always)
    static func zeroMask(_ x: V) -> V {
        ~((x | (0 &- x)) &>> 31)
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
        let belowWrap = (u &- 640) &>> 31  // all ones where u < 640
        return pointwiseMin(u, V(repeating: 255)) & belowWrap
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

extension SIMD8 where Scalar == Int32 {
    /// Lanes of `self` where `mask` is 0, of `other` where it is all ones (a bitwise select).
    @inlinable @inline(__always)
    func blend(_ other: Self, _ mask: Self) -> Self {
        (self & ~mask) | (other & mask)
    }
}
