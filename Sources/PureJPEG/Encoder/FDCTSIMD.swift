/// The forward DCT of ``FDCT`` (libjpeg's `jpeg_fdct_islow`, bit for bit) with the whole block
/// in registers, laid out as libjpeg-turbo's jfdctint-sse2 lays it out: 16-bit lanes, a
/// transpose, the row pass across vectors, a transpose, the column pass. Every product is a
/// pair of 16-bit values times a pair of 16-bit constants summed in 32 bits, which LLVM emits
/// as one interleave and one `pmaddwd` per four lanes: jfdctint.c's z1 and z5 are folded into
/// the constants (output 7 = tmp4 * (c0298 - c0899) + tmp7 * -c0899 + b3, and so on; the same
/// integers), so no two products share a constant and LLVM cannot factor a sum back into one
/// product of a 17-bit value (which it multiplied with `pmuludq` pairs). Interleaves and transposes are vectors
/// built from constant lanes of other vectors (`punpck*` on x86), each stage on the lane type
/// of its unit so that LLVM does not fuse the stages into long shuffle sequences.
///
/// Narrowing the 32-bit products back to 16 bits is where a plain version loses: LLVM's
/// truncation of values it cannot prove small is two shifts and a pack, and it merged those
/// into the neighbouring shuffles as element-by-element code. So both passes are scaled so
/// that each descale is exactly "the high 16 bits", taken with a shift and a mask and merged
/// into the first stage of the transpose (pass 1) or into natural-order rows (pass 2):
///
/// - Pass 1 reads samples times 64 (no level shift: 0...16320). A row-pass product P then
///   comes out as 64 P, and `(64 P + 2^16) >> 17` is libjpeg's `(P + 2^10) >> 11`; keeping bit
///   16 cleared in the high half gives twice the row pass's output, which is what pass 2 wants.
///   The sums stay in 16 bits: `tmp10` and `tmp11` (at most 65280) wrap as unsigned values
///   and only feed outputs 0 and 4, computed from them shifted right by 3. The level shift
///   (T.81 A.3.1) is done on output 0 alone: every other output is a difference of samples.
/// - Pass 2 reads the row pass's output times 2 (|value| <= 2 * 4096, and every sum feeding a
///   product, such as `tmp12` or `tmp4 + tmp6`, within +-32640), so `(2 P + 2^15) >> 16` is
///   libjpeg's `(P + 2^14) >> 15`; outputs 0 and 4, `(tmp10 +- tmp11 + 2) >> 2`, are done in
///   16 bits from the halved sums. The largest 32-bit sum is under 2^30.
///
/// Pass 2's vectors hold their columns in the order 0 2 4 6 1 3 5 7 (the transpose's input
/// order; the pass is lane-wise, so order is free), which makes the high halves of an
/// output's two 32-bit halves, merged, a row in natural order. The quantizer
/// (``Quantize/quantizeRows(_:_:_:_:)``) then works on those rows in place.
/// Tested equal to ``FDCT/forwardScalar(_:stride:_:)`` on random and extreme blocks.
enum FDCTSIMD {
    typealias H = SIMD8<Int16>
    typealias V = SIMD8<Int32>
    typealias W = SIMD4<Int32>
    typealias Q = SIMD2<Int64>

    /// The block at `src` (rows `stride` bytes apart): its coefficients as eight rows, natural
    /// order, scaled by 8 like libjpeg's.
    @inline(__always)
    static func forward(_ src: UnsafePointer<UInt8>, stride: Int) -> FDCT.Rows {
        let raw = UnsafeRawPointer(src)
        @inline(__always) func row(_ r: Int) -> H {
            // Widened by one `punpcklbw` with zero: built from a zero vector's lanes (a literal
            // 0 lane made LLVM assemble the vector through general registers).
            let b = raw.loadUnaligned(fromByteOffset: r &* stride, as: SIMD8<UInt8>.self)
            let z = SIMD16<UInt8>()
            let x = unsafeBitCast(SIMD16<UInt8>(b[0], z[0], b[1], z[1], b[2], z[2], b[3], z[3],
                                                b[4], z[4], b[5], z[5], b[6], z[6], b[7], z[7]), to: H.self)
            return x &<< 6
        }
        // Pass 1: vector j is column j (times 64), lane r is row r.
        let d = transpose(row(0), row(1), row(2), row(3), row(4), row(5), row(6), row(7))
        let t: FDCT.Rows
        do {
            let tmp0 = d.0 &+ d.7, tmp7 = d.0 &- d.7, tmp1 = d.1 &+ d.6, tmp6 = d.1 &- d.6
            let tmp2 = d.2 &+ d.5, tmp5 = d.2 &- d.5, tmp3 = d.3 &+ d.4, tmp4 = d.3 &- d.4
            let tmp10 = tmp0 &+ tmp3, tmp13 = tmp0 &- tmp3, tmp11 = tmp1 &+ tmp2, tmp12 = tmp1 &- tmp2
            // 8 * tmp10 and 8 * tmp11 of the unscaled samples (logical shifts: the sums are
            // unsigned); outputs 0 and 4 times 2, output 0 less 2 * (8 * 128 << 2).
            let u = unsafeBitCast(unsafeBitCast(tmp10, to: SIMD8<UInt16>.self) &>> 3, to: H.self)
            let v = unsafeBitCast(unsafeBitCast(tmp11, to: SIMD8<UInt16>.self) &>> 3, to: H.self)
            let p = products(tmp12, tmp13, tmp4, tmp5, tmp6, tmp7, rounding: 1 &<< 16)
            // The transpose's input order 0 2 4 6 1 3 5 7 (see above).
            t = transposeMerged(withHigh(u &+ v &- 8192, p.o2), withHigh(u &- v, p.o6), highs(p.o1, p.o3), highs(p.o5, p.o7))
        }
        // Pass 2: vector r is row r of pass 1's output (times 2), lanes in order 0 2 4 6 1 3 5 7.
        let tmp0 = t.0 &+ t.7, tmp7 = t.0 &- t.7, tmp1 = t.1 &+ t.6, tmp6 = t.1 &- t.6
        let tmp2 = t.2 &+ t.5, tmp5 = t.2 &- t.5, tmp3 = t.3 &+ t.4, tmp4 = t.3 &- t.4
        let tmp10 = tmp0 &+ tmp3, tmp13 = tmp0 &- tmp3, tmp11 = tmp1 &+ tmp2, tmp12 = tmp1 &- tmp2
        let p = products(tmp12, tmp13, tmp4, tmp5, tmp6, tmp7, rounding: 1 &<< 15)
        // Outputs 0 and 4 in 16 bits: tmp10 and tmp11 are even (pass 1's outputs doubled),
        // halved they sum to within -32768...32512, and (sum + 2) >> 2 is the descale. Their
        // lanes are in pass 2's order; one interleave of the two halves makes it natural.
        let a10 = tmp10 &>> 1, a11 = tmp11 &>> 1
        let o0 = (a10 &+ a11 &+ 2) &>> 2, o4 = (a10 &- a11 &+ 2) &>> 2
        return (natural(o0), naturalRow(p.o1), naturalRow(p.o2), naturalRow(p.o3),
                natural(o4), naturalRow(p.o5), naturalRow(p.o6), naturalRow(p.o7))
    }

    /// `Int32(a) * ca + Int32(b) * cb` lane-wise: one `pmaddwd` per four lanes on x86.
    @inline(__always)
    static func madd(_ a: H, _ ca: Int32, _ b: H, _ cb: Int32) -> V {
        widen(a) &* ca &+ widen(b) &* cb
    }

    /// Lane-wise sign extension, written lane by lane. The standard library's
    /// `init(truncatingIfNeeded:)` is generic: its specialization was emitted into another
    /// file's object (the package builds one LLVM module per file), so it stayed a call.
    @inline(__always)
    static func widen(_ a: H) -> V {
        V(Int32(a[0]), Int32(a[1]), Int32(a[2]), Int32(a[3]), Int32(a[4]), Int32(a[5]), Int32(a[6]), Int32(a[7]))
    }

    /// Outputs 1, 2, 3, 5, 6, 7 of one pass before the descale, `rounding` included. Each is
    /// two pair products, so no product has a single use that LLVM could regroup.
    @inline(__always)
    static func products(_ tmp12: H, _ tmp13: H, _ tmp4: H, _ tmp5: H, _ tmp6: H, _ tmp7: H, rounding rd: Int32)
        -> (o1: V, o2: V, o3: V, o5: V, o6: V, o7: V) {
        let o2 = madd(tmp12, FDCT.f0541, tmp13, FDCT.f0541 &+ FDCT.f0765) &+ rd
        let o6 = madd(tmp12, FDCT.f0541 &- FDCT.f1847, tmp13, FDCT.f0541) &+ rd
        let z3 = tmp4 &+ tmp6, z4 = tmp5 &+ tmp7
        let b3 = madd(z3, FDCT.f1175 &- FDCT.f1961, z4, FDCT.f1175) &+ rd
        let b4 = madd(z3, FDCT.f1175, z4, FDCT.f1175 &- FDCT.f0390) &+ rd
        let o1 = madd(tmp4, 0 &- FDCT.f0899, tmp7, FDCT.f1501 &- FDCT.f0899) &+ b4
        let o3 = madd(tmp5, 0 &- FDCT.f2562, tmp6, FDCT.f3072 &- FDCT.f2562) &+ b3
        let o5 = madd(tmp5, FDCT.f2053 &- FDCT.f2562, tmp6, 0 &- FDCT.f2562) &+ b4
        let o7 = madd(tmp4, FDCT.f0298 &- FDCT.f0899, tmp7, 0 &- FDCT.f0899) &+ b3
        return (o1, o2, o3, o5, o6, o7)
    }

    /// The first transpose stage for a 16-bit output `a` and a 32-bit one `b`: 32-bit lane r
    /// holds `a[r]` in its low half and `b[r] >> 16` with bit 0 cleared (pass 1's output
    /// doubled, see above) in its high half. Adds, not ORs, merge the halves: with OR, LLVM
    /// rewrote the merge as a select (two more operations).
    @inline(__always)
    static func withHigh(_ a: H, _ b: V) -> V {
        let z = H()
        let low = unsafeBitCast(H(a[0], z[0], a[1], z[1], a[2], z[2], a[3], z[3]), to: W.self)
        let high = unsafeBitCast(H(a[4], z[4], a[5], z[5], a[6], z[6], a[7], z[7]), to: W.self)
        return V(lowHalf: low, highHalf: high) &+ (b & V(repeating: -131072))
    }

    /// The first transpose stage for two 32-bit outputs, as ``withHigh(_:_:)``.
    @inline(__always)
    static func highs(_ a: V, _ b: V) -> V {
        let u = ((unsafeBitCast(a, to: SIMD8<UInt32>.self) &>> 16) & 0xFFFE)
            &+ (unsafeBitCast(b, to: SIMD8<UInt32>.self) & 0xFFFE_0000)
        return unsafeBitCast(u, to: V.self)
    }

    /// The high halves of a pass-2 output, lanes 0 2 4 6 in `x.lowHalf` and 1 3 5 7 in
    /// `x.highHalf`, merged into one row in natural order.
    @inline(__always)
    static func naturalRow(_ x: V) -> H {
        let even = unsafeBitCast(x.lowHalf, to: SIMD4<UInt32>.self), odd = unsafeBitCast(x.highHalf, to: SIMD4<UInt32>.self)
        return unsafeBitCast((even &>> 16) &+ (odd & 0xFFFF_0000), to: H.self)
    }

    /// A 16-bit row in pass 2's lane order (0 2 4 6 1 3 5 7) put in natural order: its two
    /// halves interleaved (`punpcklwd` with the high half).
    @inline(__always)
    static func natural(_ x: H) -> H { H(x[0], x[4], x[1], x[5], x[2], x[6], x[3], x[7]) }

    @inline(__always)
    static func lo32(_ a: W, _ b: W) -> Q { unsafeBitCast(W(a[0], b[0], a[1], b[1]), to: Q.self) }
    @inline(__always)
    static func hi32(_ a: W, _ b: W) -> Q { unsafeBitCast(W(a[2], b[2], a[3], b[3]), to: Q.self) }
    @inline(__always)
    static func lo64(_ a: Q, _ b: Q) -> H { unsafeBitCast(Q(a[0], b[0]), to: H.self) }
    @inline(__always)
    static func hi64(_ a: Q, _ b: Q) -> H { unsafeBitCast(Q(a[1], b[1]), to: H.self) }

    /// Stages 2 and 3 of an 8 x 8 transpose of 16-bit lanes from stage 1's results: `p01`
    /// holds vectors 0 and 1 interleaved (lanes 0...3 in its low half, 4...7 in its high
    /// half), and so on. Result r is lane r of vectors 0...7.
    @inline(__always)
    static func transposeMerged(_ p01: V, _ p23: V, _ p45: V, _ p67: V) -> FDCT.Rows {
        let a0 = p01.lowHalf, a1 = p01.highHalf, a2 = p23.lowHalf, a3 = p23.highHalf
        let a4 = p45.lowHalf, a5 = p45.highHalf, a6 = p67.lowHalf, a7 = p67.highHalf
        let b0 = lo32(a0, a2), b1 = hi32(a0, a2), b2 = lo32(a1, a3), b3 = hi32(a1, a3)
        let b4 = lo32(a4, a6), b5 = hi32(a4, a6), b6 = lo32(a5, a7), b7 = hi32(a5, a7)
        return (lo64(b0, b4), hi64(b0, b4), lo64(b1, b5), hi64(b1, b5),
                lo64(b2, b6), hi64(b2, b6), lo64(b3, b7), hi64(b3, b7))
    }

    /// An 8 x 8 transpose of 16-bit lanes (24 `punpck*` on x86).
    @inline(__always)
    static func transpose(_ r0: H, _ r1: H, _ r2: H, _ r3: H, _ r4: H, _ r5: H, _ r6: H, _ r7: H) -> FDCT.Rows {
        @inline(__always) func pair(_ a: H, _ b: H) -> V {
            V(lowHalf: unsafeBitCast(H(a[0], b[0], a[1], b[1], a[2], b[2], a[3], b[3]), to: W.self),
              highHalf: unsafeBitCast(H(a[4], b[4], a[5], b[5], a[6], b[6], a[7], b[7]), to: W.self))
        }
        return transposeMerged(pair(r0, r1), pair(r2, r3), pair(r4, r5), pair(r6, r7))
    }
}
