/// The forward DCT of T.81 A.3.3 in the integer arithmetic of libjpeg's `jpeg_fdct_islow`
/// (jfdctint.c: the Loeffler-Ligtenberg-Moschytz factorisation, 13-bit constants, two extra
/// bits of precision between the passes), so that our coefficients equal cjpeg's `-dct int`.
/// Output is in natural order and scaled up by 8, as libjpeg leaves it for the quantizer.
///
/// The SIMD version holds a block as eight `SIMD8<Int16>` rows and runs each 1-D pass across
/// lanes, transposing between passes. Every multiplicand is a sign-extended 16-bit value, so
/// the products need only 16-bit multiplies; where a sum could pass 16 bits in the second pass
/// (`tmp12 + tmp13`, `z3 + z4`) the product is distributed over the terms instead, which gives
/// the same integers. It is tested equal to the scalar reference on random and extreme blocks.
enum FDCT {
    static let constBits: Int32 = 13
    static let pass1Bits: Int32 = 2
    static let f0298: Int32 = 2446, f0390: Int32 = 3196, f0541: Int32 = 4433, f0765: Int32 = 6270
    static let f0899: Int32 = 7373, f1175: Int32 = 9633, f1501: Int32 = 12299, f1847: Int32 = 15137
    static let f1961: Int32 = 16069, f2053: Int32 = 16819, f2562: Int32 = 20995, f3072: Int32 = 25172

    // MARK: Scalar reference

    /// `src` points at the block's top-left sample; rows are `stride` bytes apart.
    static func forwardScalar(_ src: UnsafePointer<UInt8>, stride: Int, _ out: UnsafeMutablePointer<Int16>) {
        withUnsafeTemporaryAllocation(of: Int32.self, capacity: 64) { ws in
            @inline(__always) func descale(_ x: Int32, _ n: Int32) -> Int32 { (x &+ (1 &<< (n &- 1))) &>> n }
            for r in 0 ..< 8 {
                let p = src + r &* stride
                var d = [Int32](repeating: 0, count: 8)
                for j in 0 ..< 8 { d[j] = Int32(p[j]) &- 128 }
                let row = r &* 8
                let tmp0 = d[0] + d[7], tmp7 = d[0] - d[7], tmp1 = d[1] + d[6], tmp6 = d[1] - d[6]
                let tmp2 = d[2] + d[5], tmp5 = d[2] - d[5], tmp3 = d[3] + d[4], tmp4 = d[3] - d[4]
                let tmp10 = tmp0 + tmp3, tmp13 = tmp0 - tmp3, tmp11 = tmp1 + tmp2, tmp12 = tmp1 - tmp2
                ws[row] = (tmp10 + tmp11) << pass1Bits
                ws[row + 4] = (tmp10 - tmp11) << pass1Bits
                let z1 = (tmp12 + tmp13) * f0541
                ws[row + 2] = descale(z1 + tmp13 * f0765, constBits - pass1Bits)
                ws[row + 6] = descale(z1 - tmp12 * f1847, constBits - pass1Bits)
                odd(tmp4, tmp5, tmp6, tmp7, shift: constBits - pass1Bits) { ws[row + $0] = $1 }
            }
            for c in 0 ..< 8 {
                var d = [Int32](repeating: 0, count: 8)
                for j in 0 ..< 8 { d[j] = ws[j &* 8 &+ c] }
                let tmp0 = d[0] + d[7], tmp7 = d[0] - d[7], tmp1 = d[1] + d[6], tmp6 = d[1] - d[6]
                let tmp2 = d[2] + d[5], tmp5 = d[2] - d[5], tmp3 = d[3] + d[4], tmp4 = d[3] - d[4]
                let tmp10 = tmp0 + tmp3, tmp13 = tmp0 - tmp3, tmp11 = tmp1 + tmp2, tmp12 = tmp1 - tmp2
                out[c] = Int16(truncatingIfNeeded: descale(tmp10 + tmp11, pass1Bits))
                out[32 + c] = Int16(truncatingIfNeeded: descale(tmp10 - tmp11, pass1Bits))
                let z1 = (tmp12 + tmp13) * f0541
                out[16 + c] = Int16(truncatingIfNeeded: descale(z1 + tmp13 * f0765, constBits + pass1Bits))
                out[48 + c] = Int16(truncatingIfNeeded: descale(z1 - tmp12 * f1847, constBits + pass1Bits))
                odd(tmp4, tmp5, tmp6, tmp7, shift: constBits + pass1Bits) { out[$0 &* 8 &+ c] = Int16(truncatingIfNeeded: $1) }
            }
        }
    }

    /// The same transform written for speed: coefficients land in `out` (64 `Int16`s, natural
    /// order); `ws` is a 64-entry `Int16` workspace for the row-pass results (they all fit in
    /// 16 bits). Both passes are loops whose iterations touch disjoint, unit-stride addresses,
    /// which the compiler's loop vectorizer turns into SSE2 code: the block is first copied
    /// transposed (lane r of the row pass is row r), and the row pass's output transposed back
    /// while narrowing to 16 bits. Scalar copies cost 64 loads and stores each, still less
    /// than the scalar row pass they replace (~75 instructions a row). Sums stay in 16 bits;
    /// in the column pass the two products whose multiplicand could pass 16 bits
    /// (`tmp12 + tmp13`, `z3 + z4`) are distributed, as in the `SIMD8` version and turbo's
    /// jfdctint-sse2, so every product is a 16-bit value times a 16-bit constant and LLVM
    /// multiplies with `pmullw`/`pmulhw` instead of emulating 32-bit multiplies with `pmuludq`.
    @inline(__always)
    static func forward(_ src: UnsafePointer<UInt8>, stride: Int, into ws: UnsafeMutablePointer<Int16>,
                        out: UnsafeMutablePointer<Int16>) {
        withUnsafeTemporaryAllocation(of: Int16.self, capacity: 64) { tb in
            withUnsafeTemporaryAllocation(of: Int32.self, capacity: 64) { ub in
                guard let t = tb.baseAddress, let u = ub.baseAddress else { return }
                transposeIn(src, stride, t)
                let sh = constBits &- pass1Bits
                let rd: Int32 = 1 &<< (sh &- 1)
                @inline(__always) func w(_ x: Int16) -> Int32 { Int32(x) }
                for r in 0 ..< 8 {
                    // The level shift (T.81 A.3.1) here, in vector code, not in the scalar copy.
                    let d0 = t[r] &- 128, d1 = t[8 &+ r] &- 128, d2 = t[16 &+ r] &- 128, d3 = t[24 &+ r] &- 128
                    let d4 = t[32 &+ r] &- 128, d5 = t[40 &+ r] &- 128, d6 = t[48 &+ r] &- 128, d7 = t[56 &+ r] &- 128
                    let tmp0 = d0 &+ d7, tmp7 = d0 &- d7, tmp1 = d1 &+ d6, tmp6 = d1 &- d6
                    let tmp2 = d2 &+ d5, tmp5 = d2 &- d5, tmp3 = d3 &+ d4, tmp4 = d3 &- d4
                    let tmp10 = tmp0 &+ tmp3, tmp13 = tmp0 &- tmp3, tmp11 = tmp1 &+ tmp2, tmp12 = tmp1 &- tmp2
                    u[r] = w(tmp10 &+ tmp11) &<< pass1Bits
                    u[32 &+ r] = w(tmp10 &- tmp11) &<< pass1Bits
                    // Products paired as jfdctint-sse2 pairs them for `pmaddwd` (see `oddPaired`).
                    u[16 &+ r] = (w(tmp12) &* f0541 &+ w(tmp13) &* (f0541 &+ f0765) &+ rd) &>> sh
                    u[48 &+ r] = (w(tmp12) &* (f0541 &- f1847) &+ w(tmp13) &* f0541 &+ rd) &>> sh
                    let (o1, o3, o5, o7) = oddPaired(tmp4, tmp5, tmp6, tmp7)
                    u[56 &+ r] = (o7 &+ rd) &>> sh
                    u[40 &+ r] = (o5 &+ rd) &>> sh
                    u[24 &+ r] = (o3 &+ rd) &>> sh
                    u[8 &+ r] = (o1 &+ rd) &>> sh
                }
                transposeMid(u, ws)
            }
        }
        let shift = constBits &+ pass1Bits
        let round: Int32 = 1 &<< (shift &- 1)
        @inline(__always) func w(_ x: Int16) -> Int32 { Int32(x) }
        @inline(__always) func n(_ x: Int32) -> Int32 { (x &+ round) &>> shift }
        withUnsafeTemporaryAllocation(of: Int32.self, capacity: 64) { buffer in
            guard let o = buffer.baseAddress else { return }
            for c in 0 ..< 8 {
                let d0 = ws[c], d1 = ws[8 &+ c], d2 = ws[16 &+ c], d3 = ws[24 &+ c]
                let d4 = ws[32 &+ c], d5 = ws[40 &+ c], d6 = ws[48 &+ c], d7 = ws[56 &+ c]
                let tmp0 = d0 &+ d7, tmp7 = d0 &- d7, tmp1 = d1 &+ d6, tmp6 = d1 &- d6
                let tmp2 = d2 &+ d5, tmp5 = d2 &- d5, tmp3 = d3 &+ d4, tmp4 = d3 &- d4
                let tmp10 = tmp0 &+ tmp3, tmp13 = tmp0 &- tmp3, tmp11 = tmp1 &+ tmp2, tmp12 = tmp1 &- tmp2
                o[c] = (w(tmp10) &+ w(tmp11) &+ 2) &>> pass1Bits
                o[32 &+ c] = (w(tmp10) &- w(tmp11) &+ 2) &>> pass1Bits
                // z1 and z5 folded into the other constants (as jfdctint-sse2 pairs them): the
                // same integers, but no two products share a constant, so LLVM cannot factor
                // them back into one product of a 17-bit sum, which it multiplied with
                // `pmuludq` pairs and shuffles instead of `pmaddwd`.
                o[16 &+ c] = n(w(tmp12) &* f0541 &+ w(tmp13) &* (f0541 &+ f0765))
                o[48 &+ c] = n(w(tmp12) &* (f0541 &- f1847) &+ w(tmp13) &* f0541)
                let (o1, o3, o5, o7) = oddPaired(tmp4, tmp5, tmp6, tmp7)
                o[56 &+ c] = n(o7)
                o[40 &+ c] = n(o5)
                o[24 &+ c] = n(o3)
                o[8 &+ c] = n(o1)
            }
            // Narrowed apart from the loop above: with `Int16` stores in it, the vectorizer gave
            // it up (SSE2 has no cheap 32-to-16-bit truncation). Lanes 0...3 of a row are the
            // even columns and 4...7 the odd ones (``transposeMid(_:_:)``), so one mask, shift
            // and or per four lanes puts each row back in natural order.
            #if _endian(little)
            let mask16 = SIMD4<UInt32>(repeating: 0xFFFF)
            let from = UnsafeRawPointer(o), to = UnsafeMutableRawPointer(out)
            for r in 0 ..< 8 {
                let even = from.loadUnaligned(fromByteOffset: r &* 32, as: SIMD4<UInt32>.self)
                let odd = from.loadUnaligned(fromByteOffset: r &* 32 &+ 16, as: SIMD4<UInt32>.self)
                to.storeBytes(of: (even & mask16) | (odd &<< 16), toByteOffset: r &* 16, as: SIMD4<UInt32>.self)
            }
            #else
            for r in 0 ..< 8 {
                for c in 0 ..< 8 { out[r &* 8 &+ c] = Int16(truncatingIfNeeded: o[r &* 8 &+ (c & 1) &* 4 &+ c &>> 1]) }
            }
            #endif
        }
    }

    /// Copies the 8 x 8 samples at `src` into `t` transposed and widened (`t[8 j + r]` is row
    /// r, column j) with masks and shifts on 16-, 32- and 64-bit views (no generic shuffles,
    /// which this module does not inline): rows r and r + 4 share a vector, the even and odd
    /// bytes give columns 2m and 2m + 1, and two interleaving steps gather each column.
    @inline(__always)
    static func transposeIn(_ src: UnsafePointer<UInt8>, _ stride: Int, _ t: UnsafeMutablePointer<Int16>) {
        #if !_endian(little)
        // The lane views below assume little-endian lane order; plain copies elsewhere.
        for r in 0 ..< 8 {
            for j in 0 ..< 8 { t[j &* 8 &+ r] = Int16(src[r &* stride &+ j]) }
        }
        return
        #endif
        let raw = UnsafeRawPointer(src)
        @inline(__always) func rows(_ r: Int) -> SIMD8<UInt16> {
            let a = raw.loadUnaligned(fromByteOffset: r &* stride, as: UInt64.self)
            let b = raw.loadUnaligned(fromByteOffset: (r &+ 4) &* stride, as: UInt64.self)
            return unsafeBitCast(SIMD2<UInt64>(a, b), to: SIMD8<UInt16>.self)
        }
        let low = SIMD8<UInt16>(repeating: 0xFF)
        let v0 = rows(0), v1 = rows(1), v2 = rows(2), v3 = rows(3)
        // 16-bit lane 4h + m of e(r) / o(r): row r + 4h, column 2m / 2m + 1.
        let (c04, c26) = zip16(v0 & low, v1 & low), (d04, d26) = zip16(v2 & low, v3 & low)
        let (c15, c37) = zip16(v0 &>> 8, v1 &>> 8), (d15, d37) = zip16(v2 &>> 8, v3 &>> 8)
        let out = UnsafeMutableRawPointer(t)
        @inline(__always) func put(_ a: SIMD2<UInt64>, _ b: SIMD2<UInt64>, _ j: Int, _ k: Int) {
            let (x, y) = zip32(a, b)
            out.storeBytes(of: x, toByteOffset: j &* 16, as: SIMD2<UInt64>.self)
            out.storeBytes(of: y, toByteOffset: k &* 16, as: SIMD2<UInt64>.self)
        }
        put(c04, d04, 0, 4); put(c26, d26, 2, 6); put(c15, d15, 1, 5); put(c37, d37, 3, 7)
    }

    /// 32-bit lane q of the results: 16-bit lane 2q (first) or 2q + 1 (second) of `a` and `b`
    /// side by side.
    @inline(__always)
    static func zip16(_ a: SIMD8<UInt16>, _ b: SIMD8<UInt16>) -> (SIMD2<UInt64>, SIMD2<UInt64>) {
        let mask16 = SIMD4<UInt32>(repeating: 0xFFFF)
        let a32 = unsafeBitCast(a, to: SIMD4<UInt32>.self), b32 = unsafeBitCast(b, to: SIMD4<UInt32>.self)
        return (unsafeBitCast((a32 & mask16) | (b32 &<< 16), to: SIMD2<UInt64>.self),
                unsafeBitCast((a32 &>> 16) | (b32 & ~mask16), to: SIMD2<UInt64>.self))
    }

    /// 64-bit lane h of the results: 32-bit lane 2h (first) or 2h + 1 (second) of `a` and `b`
    /// side by side.
    @inline(__always)
    static func zip32(_ a: SIMD2<UInt64>, _ b: SIMD2<UInt64>) -> (SIMD2<UInt64>, SIMD2<UInt64>) {
        let mask32 = SIMD2<UInt64>(repeating: 0xFFFF_FFFF)
        return ((a & mask32) | (b &<< 32), (a &>> 32) | (b & ~mask32))
    }

    /// The row pass's output (`u[8 k + r]`: coefficient k of row r, each fitting 16 bits) into
    /// `ws` transposed and narrowed, row r's coefficients in the order 0 2 4 6 1 3 5 7: the
    /// column pass does not care about lane order, and this one lets the final narrowing
    /// interleave even and odd columns back into natural order with masks and shifts.
    @inline(__always)
    static func transposeMid(_ u: UnsafePointer<Int32>, _ ws: UnsafeMutablePointer<Int16>) {
        #if !_endian(little)
        for k in 0 ..< 8 {
            for r in 0 ..< 8 { ws[r &* 8 &+ (k & 1) &* 4 &+ k &>> 1] = Int16(truncatingIfNeeded: u[k &* 8 &+ r]) }
        }
        return
        #endif
        let raw = UnsafeRawPointer(u)
        @inline(__always) func quarter(_ k: Int, _ h: Int) -> SIMD8<UInt16> {
            // 16-bit lane 2q: u(k, 4h + q), truncated; lane 2q + 1 is its upper half.
            raw.loadUnaligned(fromByteOffset: k &* 32 &+ h &* 16, as: SIMD8<UInt16>.self)
        }
        let out = UnsafeMutableRawPointer(ws)
        for h in 0 ..< 2 {
            // 32-bit lane q: u(k, 4h + q), u(k', 4h + q).
            let (p02, _) = zip16(quarter(0, h), quarter(2, h)), (p46, _) = zip16(quarter(4, h), quarter(6, h))
            let (p13, _) = zip16(quarter(1, h), quarter(3, h)), (p57, _) = zip16(quarter(5, h), quarter(7, h))
            // 64-bit lane 0: row 4h (first) or 4h + 1 (second); lane 1: rows 4h + 2, 4h + 3.
            let (evenA, evenB) = zip32(p02, p46), (oddA, oddB) = zip32(p13, p57)
            let base = h &* 64
            out.storeBytes(of: SIMD2<UInt64>(evenA[0], oddA[0]), toByteOffset: base, as: SIMD2<UInt64>.self)
            out.storeBytes(of: SIMD2<UInt64>(evenB[0], oddB[0]), toByteOffset: base &+ 16, as: SIMD2<UInt64>.self)
            out.storeBytes(of: SIMD2<UInt64>(evenA[1], oddA[1]), toByteOffset: base &+ 32, as: SIMD2<UInt64>.self)
            out.storeBytes(of: SIMD2<UInt64>(evenB[1], oddB[1]), toByteOffset: base &+ 48, as: SIMD2<UInt64>.self)
        }
    }

    /// The odd half of one 1-D pass (outputs 1, 3, 5, 7, before descaling) for the loops of
    /// ``forward(_:stride:into:out:)``, with z1 ... z5 of jfdctint.c folded into the constants
    /// (output 7 = tmp4 * (c0298 - c0899) + tmp7 * -c0899 + b3, and so on), the same integers.
    /// Every sum is then two products of 16-bit values with distinct constants, which LLVM
    /// maps onto one interleave and one `pmaddwd` (as jfdctint-sse2 does by hand); with a
    /// product shared between sums, it factored sums back into products of 17-bit values and
    /// multiplied those with `pmuludq` pairs and shuffles. `tmp4 + tmp6` and `tmp5 + tmp7` fit
    /// 16 bits in both passes.
    @inline(__always)
    static func oddPaired(_ t4: Int16, _ t5: Int16, _ t6: Int16, _ t7: Int16) -> (Int32, Int32, Int32, Int32) {
        let a4 = Int32(t4), a5 = Int32(t5), a6 = Int32(t6), a7 = Int32(t7)
        let z3 = Int32(t4 &+ t6), z4 = Int32(t5 &+ t7)
        let b3 = z3 &* (f1175 &- f1961) &+ z4 &* f1175, b4 = z3 &* f1175 &+ z4 &* (f1175 &- f0390)
        return (a4 &* (0 &- f0899) &+ a7 &* (f1501 &- f0899) &+ b4,
                a5 &* (0 &- f2562) &+ a6 &* (f3072 &- f2562) &+ b3,
                a5 &* (f2053 &- f2562) &+ a6 &* (0 &- f2562) &+ b4,
                a4 &* (f0298 &- f0899) &+ a7 &* (0 &- f0899) &+ b3)
    }

    /// The odd half of one 1-D pass (outputs 1, 3, 5, 7).
    @inline(__always)
    private static func odd(_ t4: Int32, _ t5: Int32, _ t6: Int32, _ t7: Int32, shift: Int32,
                            _ put: (Int, Int32) -> Void) {
        let z1 = t4 + t7, z2 = t5 + t6, z3 = t4 + t6, z4 = t5 + t7
        let z5 = (z3 + z4) * f1175
        let a4 = t4 * f0298, a5 = t5 * f2053, a6 = t6 * f3072, a7 = t7 * f1501
        let b1 = -z1 * f0899, b2 = -z2 * f2562
        let b3 = -z3 * f1961 + z5, b4 = -z4 * f0390 + z5
        let round: Int32 = 1 << (shift - 1)
        put(7, (a4 + b1 + b3 + round) >> shift)
        put(5, (a5 + b2 + b4 + round) >> shift)
        put(3, (a6 + b2 + b3 + round) >> shift)
        put(1, (a7 + b1 + b4 + round) >> shift)
    }

    // MARK: SIMD

    typealias Rows = (SIMD8<Int16>, SIMD8<Int16>, SIMD8<Int16>, SIMD8<Int16>,
                      SIMD8<Int16>, SIMD8<Int16>, SIMD8<Int16>, SIMD8<Int16>)

    /// One perfect unshuffle of the 64 lanes (index bits rotated right by one); three of them
    /// swap the row and column bits, i.e. transpose.
    @inline(__always)
    static func unshuffle(_ v: Rows) -> Rows {
        let a = SIMD16(lowHalf: v.0, highHalf: v.1), b = SIMD16(lowHalf: v.2, highHalf: v.3)
        let c = SIMD16(lowHalf: v.4, highHalf: v.5), d = SIMD16(lowHalf: v.6, highHalf: v.7)
        return (a.evenHalf, b.evenHalf, c.evenHalf, d.evenHalf, a.oddHalf, b.oddHalf, c.oddHalf, d.oddHalf)
    }

    @inline(__always)
    static func transpose(_ v: Rows) -> Rows { unshuffle(unshuffle(unshuffle(v))) }

    @inline(__always)
    static func wide(_ x: SIMD8<Int16>) -> SIMD8<Int32> { SIMD8<Int32>(truncatingIfNeeded: x) }

    @inline(__always)
    static func narrow(_ x: SIMD8<Int32>, _ shift: Int32) -> SIMD8<Int16> {
        SIMD8<Int16>(truncatingIfNeeded: (x &+ SIMD8(repeating: 1 &<< (shift &- 1))) &>> SIMD8(repeating: shift))
    }

    @inline(__always)
    static func load(_ p: UnsafePointer<UInt8>) -> SIMD8<Int16> {
        SIMD8<Int16>(truncatingIfNeeded: UnsafeRawPointer(p).loadUnaligned(as: SIMD8<UInt8>.self)) &- 128
    }

    /// The block as rows of coefficients (natural order, scaled by 8).
    @inline(__always)
    static func forward(_ src: UnsafePointer<UInt8>, stride: Int) -> Rows {
        let s = stride
        let rows: Rows = (load(src), load(src + s), load(src + 2 &* s), load(src + 3 &* s),
                          load(src + 4 &* s), load(src + 5 &* s), load(src + 6 &* s), load(src + 7 &* s))
        // Pass 1 works on rows: after the transpose, lane r of vector j is sample (r, j).
        let c = transpose(rows)
        var p = pass1(c)
        p = transpose(p)
        return pass2(p)
    }

    @inline(__always)
    static func pass1(_ d: Rows) -> Rows {
        let tmp0 = d.0 &+ d.7, tmp7 = d.0 &- d.7, tmp1 = d.1 &+ d.6, tmp6 = d.1 &- d.6
        let tmp2 = d.2 &+ d.5, tmp5 = d.2 &- d.5, tmp3 = d.3 &+ d.4, tmp4 = d.3 &- d.4
        let tmp10 = tmp0 &+ tmp3, tmp13 = tmp0 &- tmp3, tmp11 = tmp1 &+ tmp2, tmp12 = tmp1 &- tmp2
        let o0 = (tmp10 &+ tmp11) &<< 2, o4 = (tmp10 &- tmp11) &<< 2
        let z1 = wide(tmp12 &+ tmp13) &* f0541
        let sh = constBits &- pass1Bits
        let o2 = narrow(z1 &+ wide(tmp13) &* f0765, sh)
        let o6 = narrow(z1 &- wide(tmp12) &* f1847, sh)
        let z5 = wide(tmp4 &+ tmp6 &+ tmp5 &+ tmp7) &* f1175
        let (o1, o3, o5, o7) = oddSIMD(tmp4, tmp5, tmp6, tmp7, z5: z5, shift: sh)
        return (o0, o1, o2, o3, o4, o5, o6, o7)
    }

    @inline(__always)
    static func pass2(_ d: Rows) -> Rows {
        let tmp0 = d.0 &+ d.7, tmp7 = d.0 &- d.7, tmp1 = d.1 &+ d.6, tmp6 = d.1 &- d.6
        let tmp2 = d.2 &+ d.5, tmp5 = d.2 &- d.5, tmp3 = d.3 &+ d.4, tmp4 = d.3 &- d.4
        let tmp10 = tmp0 &+ tmp3, tmp13 = tmp0 &- tmp3, tmp11 = tmp1 &+ tmp2, tmp12 = tmp1 &- tmp2
        let o0 = narrow(wide(tmp10) &+ wide(tmp11), pass1Bits)
        let o4 = narrow(wide(tmp10) &- wide(tmp11), pass1Bits)
        let z1 = wide(tmp12) &* f0541 &+ wide(tmp13) &* f0541
        let sh = constBits &+ pass1Bits
        let o2 = narrow(z1 &+ wide(tmp13) &* f0765, sh)
        let o6 = narrow(z1 &- wide(tmp12) &* f1847, sh)
        let z5 = wide(tmp4 &+ tmp6) &* f1175 &+ wide(tmp5 &+ tmp7) &* f1175
        let (o1, o3, o5, o7) = oddSIMD(tmp4, tmp5, tmp6, tmp7, z5: z5, shift: sh)
        return (o0, o1, o2, o3, o4, o5, o6, o7)
    }

    @inline(__always)
    static func oddSIMD(_ t4: SIMD8<Int16>, _ t5: SIMD8<Int16>, _ t6: SIMD8<Int16>, _ t7: SIMD8<Int16>,
                        z5: SIMD8<Int32>, shift: Int32)
        -> (SIMD8<Int16>, SIMD8<Int16>, SIMD8<Int16>, SIMD8<Int16>) {
        let z1 = wide(t4 &+ t7), z2 = wide(t5 &+ t6), z3 = wide(t4 &+ t6), z4 = wide(t5 &+ t7)
        let a4 = wide(t4) &* f0298, a5 = wide(t5) &* f2053, a6 = wide(t6) &* f3072, a7 = wide(t7) &* f1501
        let b1 = z1 &* (-f0899), b2 = z2 &* (-f2562)
        let b3 = z3 &* (-f1961) &+ z5, b4 = z4 &* (-f0390) &+ z5
        return (narrow(a7 &+ b1 &+ b4, shift), narrow(a6 &+ b2 &+ b3, shift),
                narrow(a5 &+ b2 &+ b4, shift), narrow(a4 &+ b1 &+ b3, shift))
    }
}
