import ImageCore

/// Progressive Huffman decoding of one block per call (T.81 G.1.2), after libjpeg's jdphuff:
/// DC first and refinement scans, AC spectral-selection first scans with end-of-band runs,
/// and AC successive-approximation refinement.
extension BitReader {
    /// DC first scan (T.81 G.1.2.1): the predicted DC value shifted up by Al.
    @inline(__always)
    mutating func decodeDCFirst(
        _ block: UnsafeMutablePointer<Int16>, dc: HuffmanLookup, predictor: inout Int, al: Int,
        data: UnsafePointer<UInt8>, end: Int, isFinal: Bool
    ) {
        var w = BitWindow(self)
        defer { w.store(into: &self) }
        decodeDCDifference(&w, dc: dc, predictor: &predictor, data: data, end: end, isFinal: isFinal)
        block[0] = Int16(truncatingIfNeeded: predictor &<< al)
    }

    /// DC refinement (T.81 G.1.2.1): one more bit of the DC value. True when the bit changed it.
    @inline(__always) @discardableResult
    mutating func decodeDCRefine(_ block: UnsafeMutablePointer<Int16>, al: Int,
                                 data: UnsafePointer<UInt8>, end: Int, isFinal: Bool) -> Bool {
        if count < 1 { refill(data, end, isFinal) }
        // Without a branch on the bit (random: half of them mispredicted).
        let b = bit()
        block[0] |= Int16(truncatingIfNeeded: b &<< al)
        return b != 0
    }

    /// AC first scan over Ss...Se (T.81 G.1.2.2) with end-of-band runs (EOBRUN, figure G.4).
    /// A rolled-back attempt is undone by the caller, which restores a copy of the MCU's blocks.
    /// True when a coefficient was set (false for a block that is all end of band). A
    /// coefficient run past Se is placed as libjpeg's jdphuff places it: at zig-zag position k
    /// while k < 64 (outside the band), else at position 63.
    @inline(__always) @discardableResult
    mutating func decodeACFirst(
        _ block: UnsafeMutablePointer<Int16>, ac: HuffmanLookup, ss: Int, se: Int, al: Int, eobrun: inout Int,
        zigzag: UnsafePointer<UInt8>, data: UnsafePointer<UInt8>, end: Int, isFinal: Bool
    ) -> Bool {
        if eobrun > 0 {
            eobrun &-= 1
            return false
        }
        var w = BitWindow(self)
        defer { w.store(into: &self) }
        var k = ss
        while k <= se {
            if w.count < 32 { w.refill(&self, data, end, isFinal) }
            // A coefficient whose code and extra bits fit the combined table (its value is never
            // zero; EOB, ZRL and longer codes take the general path below).
            let fast = ac.fastAC[Int(truncatingIfNeeded: w.bits &>> UInt64(64 &- HuffmanTable.fastBits))]
            if fast &>> 16 != 0 {
                k &+= Int((fast &>> 8) & 0xFF)
                let length = Int(fast & 0xFF)
                w.bits &<<= UInt64(length)
                w.count &-= length
                if k > se { damage |= Damage.runPastBlock }
                block[Int(zigzag[min(k, 63)])] = Int16(truncatingIfNeeded: Int(fast &>> 16) &<< al)
                k &+= 1
                continue
            }
            let rs = w.decode(ac, &self)
            let r = rs &>> 4, s = rs & 15
            if s != 0 {
                k &+= r
                if k > se { damage |= Damage.runPastBlock }
                let position = zigzag[min(k, 63)]
                block[Int(position)] = Int16(truncatingIfNeeded: w.receiveExtend(s) &<< al)
                k &+= 1
            } else if r == 15 {
                k &+= 16
            } else {
                // EOBr: this block and 2^r + (r extra bits) - 1 more end here.
                eobrun = 1 &<< r
                if r > 0 { eobrun &+= w.bits(r) }
                eobrun &-= 1
                return k != ss
            }
        }
        return k != ss
    }

    /// AC refinement (T.81 G.1.2.3): correction bits for coefficients already non-zero, and new
    /// coefficients of magnitude 1 << Al. A rolled-back attempt is undone by the caller, which
    /// restores a copy of the MCU's blocks. True when a coefficient changed. Corrupt data as
    /// libjpeg's jdphuff: a new coefficient of size other than 1 counts as size 1, and one
    /// placed past Se lands at zig-zag position Se + 1 (63 past the block).
    @inline(__always) @discardableResult
    mutating func decodeACRefine(
        _ block: UnsafeMutablePointer<Int16>, ac: HuffmanLookup, ss: Int, se: Int, al: Int, eobrun: inout Int,
        zigzag: UnsafePointer<UInt8>, data: UnsafePointer<UInt8>, end: Int, isFinal: Bool
    ) -> Bool {
        let p1 = Int16(truncatingIfNeeded: 1 &<< al), m1 = Int16(truncatingIfNeeded: -1 &<< al)
        var w = BitWindow(self)
        defer { w.store(into: &self) }
        var k = ss
        var changed = false
        // A correction bit (random: without a branch on it): 1 moves a coefficient whose bit Al
        // is clear away from zero by 1 << Al.
        var corrected: Int16 = 0
        @inline(__always) func correct(_ reader: inout BitReader, _ coef: UnsafeMutablePointer<Int16>) {
            if w.count < 1 { w.refill(&reader, data, end, isFinal) }
            let c = coef.pointee
            let apply = Int16(truncatingIfNeeded: w.bit()) & (c & p1 == 0 ? 1 : 0)
            coef.pointee = c &+ (p1 &* ((c &>> 15) | 1)) & (0 &- apply)
            corrected |= apply
        }
        // Positions below `n` (n in 0...65) as a zig-zag mask.
        @inline(__always) func below(_ n: Int) -> UInt64 { n >= 64 ? ~0 : (UInt64(1) &<< UInt64(max(n, 0))) &- 1 }
        // The block's non-zero coefficients in zig-zag order, kept up to date as new ones are
        // placed (corrections keep coefficients non-zero). The run of zero coefficients before a
        // symbol's position is found in it instead of testing each position in turn (a
        // data-dependent branch per coefficient, the hottest loop of a progressive decode).
        var nonzero: UInt64?
        if eobrun == 0 {
            var nz = Self.nonzeroZigzagMask(block, zigzag)
            let band = below(se &+ 1)
            while k <= se {
                if w.count < 32 { w.refill(&self, data, end, isFinal) }
                let rs = w.decode(ac, &self)
                let r = rs &>> 4
                let s = rs & 15
                var value: Int16 = 0
                if s != 0 {
                    if s != 1 { damage |= Damage.badRefinement }
                    // Only magnitude 1 can be new in a refinement scan; libjpeg reads the sign bit regardless.
                    value = w.bit() != 0 ? p1 : m1
                } else if r != 15 {
                    eobrun = 1 &<< r
                    if r > 0 {
                        if w.count < 32 { w.refill(&self, data, end, isFinal) }
                        eobrun &+= w.bits(r)
                    }
                    break
                }
                // Skip r zero coefficients (correcting the non-zero ones passed): the new one goes
                // to the (r + 1)-th zero from k (past Se when there are fewer), and a ZRL skips 16.
                var zeros = ~nz & band & ~below(k)
                var n = r
                while n > 0 && zeros != 0 {
                    zeros &= zeros &- 1
                    n &-= 1
                }
                let t = zeros == 0 ? se &+ 1 : zeros.trailingZeroBitCount
                var passed = nz & ~below(k) & below(t)
                while passed != 0 {
                    correct(&self, block + Int(zigzag[passed.trailingZeroBitCount]))
                    passed &= passed &- 1
                }
                k = t
                if s != 0 {
                    if k > se { damage |= Damage.runPastBlock }
                    let at = min(k, 63)
                    block[Int(zigzag[at])] = value
                    nz |= UInt64(1) &<< UInt64(at)
                    changed = true
                }
                k &+= 1
            }
            nonzero = nz
        }
        if eobrun > 0 {
            // Inside an end-of-band run only the existing coefficients get correction bits, in
            // zig-zag order: the set bits of the non-zero mask.
            if k <= se {
                var mask = (nonzero ?? Self.nonzeroZigzagMask(block, zigzag)) & below(se &+ 1) & ~below(k)
                while mask != 0 {
                    correct(&self, block + Int(zigzag[mask.trailingZeroBitCount]))
                    mask &= mask &- 1
                }
            }
            eobrun &-= 1
        }
        return changed || corrected != 0
    }

    /// Bit k set when the coefficient at zig-zag position k of `block` (natural order) is
    /// non-zero. `zigzag` is ``zigzagToNatural`` (its inverse at ``naturalToZigzagOffset``).
    /// Rows are tested in 16-bit lanes and packed to bytes (0 or 0xFF); a multiply gathers each
    /// row's eight byte flags into eight bits (`(w & 0x8040201008040201) * 0x0101010101010101`
    /// leaves in the top byte the sum of distinct bits); the natural-order bits are then moved
    /// to their zig-zag positions one non-zero coefficient at a time.
    @inline(__always)
    static func nonzeroZigzagMask(_ block: UnsafePointer<Int16>, _ zigzag: UnsafePointer<UInt8>) -> UInt64 {
        typealias H = SIMD8<Int16>
        let raw = UnsafeRawPointer(block)
        @inline(__always) func rowBits(_ w: UInt64) -> UInt64 {
            ((w & 0x8040_2010_0804_0201) &* 0x0101_0101_0101_0101) &>> 56
        }
        @inline(__always) func rows(_ pair: Int) -> UInt64 {
            let a = raw.loadUnaligned(fromByteOffset: 32 &* pair, as: H.self)
            let b = raw.loadUnaligned(fromByteOffset: 32 &* pair &+ 16, as: H.self)
            let x = (a | (0 &- a)) &>> 15, y = (b | (0 &- b)) &>> 15
            let bytes = SIMD16<UInt8>(truncatingLanesOf: x, y)
            let words = unsafeBitCast(bytes, to: SIMD2<UInt64>.self)
            return (rowBits(words[0]) | (rowBits(words[1]) &<< 8)) &<< UInt64(16 &* pair)
        }
        var natural = rows(0) | rows(1) | rows(2) | rows(3)
        var mask: UInt64 = 0
        let inverse = zigzag + naturalToZigzagOffset
        while natural != 0 {
            mask |= UInt64(1) &<< UInt64(inverse[natural.trailingZeroBitCount])
            natural &= natural &- 1
        }
        return mask
    }

    /// ``nonzeroZigzagMask(_:_:)`` the plain way (the test reference).
    static func nonzeroZigzagMaskScalar(_ block: UnsafePointer<Int16>, _ zigzag: UnsafePointer<UInt8>) -> UInt64 {
        var mask: UInt64 = 0
        for k in 0 ..< 64 where block[Int(zigzag[k])] != 0 { mask |= UInt64(1) << UInt64(k) }
        return mask
    }
}
