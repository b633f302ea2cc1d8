/// Quantization (T.81 A.3.4: `round(coefficient / Q)`) done the way libjpeg-turbo's
/// jcdctmgr.c does it for 8-bit samples, so that our quantized blocks equal cjpeg's: the
/// divide by `8 Q` (the FDCT leaves its output scaled by 8) is a multiply by a 16-bit
/// reciprocal and a shift (`compute_reciprocal`), with the rounding term nudged by one where
/// the reciprocal was rounded down. For a few inputs this differs by one from an exact
/// rounded division (the IJG reference), which is why we follow turbo rather than jcdctmgr.c
/// of IJG libjpeg: cjpeg on every current system is libjpeg-turbo.
struct QuantDivisors: Sendable, Equatable {
    /// Per coefficient, natural order: the reciprocal, the rounding correction, and the scale
    /// `2^(16 - shift)` that finishes the shift with a second high multiply.
    var reciprocal: [UInt16]
    var correction: [UInt16]
    var scale: [UInt16]
    var shift: [UInt8]

    /// `table` is a quantization table in natural order, entries 1...255.
    init(table: [UInt16]) {
        reciprocal = []; correction = []; scale = []; shift = []
        for q in table {
            let divisor = UInt32(q) &* 8
            let b = 31 - divisor.leadingZeroBitCount          // floor(log2 divisor)
            var r = 16 + b
            var fq = (UInt32(1) << r) / divisor
            let fr = (UInt32(1) << r) % divisor
            var c = divisor / 2
            if fr == 0 {
                fq >>= 1
                r -= 1
            } else if fr <= divisor / 2 {
                c += 1
            } else {
                fq += 1
            }
            reciprocal.append(UInt16(truncatingIfNeeded: fq))
            correction.append(UInt16(truncatingIfNeeded: c))
            scale.append(UInt16(truncatingIfNeeded: UInt32(1) << (32 - r)))
            shift.append(UInt8(r - 16))
        }
    }

    /// Reciprocals, corrections and scales, 64 each in natural order: the layout
    /// ``Quantize/quantize(_:_:_:_:_:)`` reads. Every scale is at most 2^14 (the divisor is at
    /// least 8, so the shift is at least 2), so all three fit in 16 bits.
    var uint16Table: [UInt16] { reciprocal + correction + scale }

    /// The reciprocal, correction and scale tables as eight row vectors each (24 in all), the
    /// layout ``Quantize/quantize(_:_:_:)`` reads.
    var packed: [SIMD8<UInt16>] {
        func rows(_ a: [UInt16]) -> [SIMD8<UInt16>] {
            (0 ..< 8).map { r in SIMD8<UInt16>(a[(r * 8) ..< (r * 8 + 8)]) }
        }
        return rows(reciprocal) + rows(correction) + rows(scale)
    }
}

enum Quantize {
    /// Scalar reference: `coefficients` (64, natural order, from the FDCT) to `out`.
    static func quantizeScalar(_ coefficients: UnsafePointer<Int16>, _ d: QuantDivisors,
                               _ out: UnsafeMutablePointer<Int16>) {
        for i in 0 ..< 64 {
            let x = Int32(coefficients[i])
            let magnitude = UInt32(x < 0 ? -x : x)
            let product = (magnitude + UInt32(d.correction[i])) * UInt32(d.reciprocal[i])
            let q = Int32(product >> (16 + UInt32(d.shift[i])))
            out[i] = Int16(truncatingIfNeeded: x < 0 ? -q : q)
        }
    }

    /// Quantizes coefficients from ``FDCT/forward(_:stride:into:out:)`` into `out` (natural
    /// order) and returns the block's nonzero map in zigzag order: bit k set when zigzag
    /// coefficient k is not zero, which lets the Huffman coder jump from one nonzero
    /// coefficient to the next.
    ///
    /// `table` holds 64 reciprocals, 64 corrections and 64 scales (natural order, see
    /// ``QuantDivisors/uint16Table``). The loop is plain lane-independent arithmetic on 16-bit
    /// values, which the loop vectorizer turns into eight-lane SSE2 code: each
    /// `UInt16((UInt32(a) * UInt32(b)) >> 16)` becomes one `pmulhuw`, as in turbo's
    /// jquanti-sse2 (32-bit lanes needed `pmuludq` pairs and shuffles: ~4x the instructions).
    /// The magnitude plus correction stays under 2^15 + 2^10, so it cannot wrap. Turbo's shift
    /// by `16 + shift` is done as the high half, then the high half of `* scale` (scale =
    /// `2^(16 - shift)`), since x86 has no per-lane variable shift before AVX2. The loop also
    /// leaves a 0/1 byte per coefficient in `flags`; a multiply packs each row's eight bytes
    /// into a byte, and `rowMaps` (``ZigzagMaps``) turns each row byte into zigzag bits.
    @inline(__always)
    static func quantize(_ coefficients: UnsafePointer<Int16>, _ table: UnsafePointer<UInt16>,
                         _ out: UnsafeMutablePointer<Int16>, _ flags: UnsafeMutablePointer<UInt8>,
                         _ rowMaps: UnsafePointer<UInt64>) -> UInt64 {
        for i in 0 ..< 64 {
            let x = coefficients[i]
            let sign = x &>> 15
            let magnitude = UInt16(bitPattern: (x ^ sign) &- sign) &+ table[64 &+ i]
            let t = UInt16(truncatingIfNeeded: (UInt32(magnitude) &* UInt32(table[i])) &>> 16)
            let q = UInt16(truncatingIfNeeded: (UInt32(t) &* UInt32(table[128 &+ i])) &>> 16)
            let v = (Int16(bitPattern: q) ^ sign) &- sign
            out[i] = v
            // q < 2^14 (the scale is at most 2^14), so this is 1 exactly when q (and v) is not
            // zero. Written as `v == 0 ? 0 : 1`, LLVM tested the 32-bit product against 2^16
            // instead: two unpacks, two 32-bit compares and two packs per eight coefficients.
            flags[i] = UInt8(truncatingIfNeeded: (q &+ 0x7FFF) &>> 15)
        }
        var mask: UInt64 = 0
        let raw = UnsafeRawPointer(flags)
        for r in 0 ..< 8 {
            let bytes = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: r &* 8, as: UInt64.self))
            // Eight 0/1 bytes to eight bits: the multiply moves byte j's low bit to bit 56 + j.
            let rowBits = Int(truncatingIfNeeded: (bytes &* 0x0102_0408_1020_4080) &>> 56)
            mask |= rowMaps[r &* 256 &+ rowBits]
        }
        return mask
    }

    @inline(__always)
    static func mulHigh(_ a: SIMD8<UInt16>, _ b: SIMD8<UInt16>) -> SIMD8<UInt16> {
        SIMD8<UInt16>(truncatingIfNeeded: (SIMD8<UInt32>(truncatingIfNeeded: a) &* SIMD8<UInt32>(truncatingIfNeeded: b)) &>> 16)
    }

    /// One row of eight coefficients: magnitude plus correction, times the reciprocal (high
    /// half), times the scale (high half: the shift), sign restored.
    @inline(__always)
    static func row(_ x: SIMD8<Int16>, _ recip: SIMD8<UInt16>, _ corr: SIMD8<UInt16>, _ scale: SIMD8<UInt16>) -> SIMD8<Int16> {
        let sign = x &>> 15                                   // 0 or -1 per lane
        let magnitude = SIMD8<UInt16>(truncatingIfNeeded: (x ^ sign) &- sign)
        let q = mulHigh(mulHigh(magnitude &+ corr, recip), scale)
        return (SIMD8<Int16>(truncatingIfNeeded: q) ^ sign) &- sign
    }

    /// Quantizes FDCT output rows into `out` (64 values, natural order).
    @inline(__always)
    static func quantize(_ rows: FDCT.Rows, _ v: UnsafePointer<SIMD8<UInt16>>, _ out: UnsafeMutablePointer<Int16>) {
        // v holds 8 reciprocal rows, then 8 correction rows, then 8 scale rows.
        let raw = UnsafeMutableRawPointer(out)
        @inline(__always) func put(_ x: SIMD8<Int16>, _ r: Int) {
            raw.storeBytes(of: row(x, v[r], v[8 &+ r], v[16 &+ r]), toByteOffset: r &* 16, as: SIMD8<Int16>.self)
        }
        put(rows.0, 0); put(rows.1, 1); put(rows.2, 2); put(rows.3, 3)
        put(rows.4, 4); put(rows.5, 5); put(rows.6, 6); put(rows.7, 7)
    }
}

/// For each row r of a block and each 8-bit pattern of nonzero columns in it, the same
/// coefficients' bits in zigzag order: eight lookups turn a natural-order map into the zigzag
/// map the Huffman coder walks.
enum ZigzagMaps {
    static let rows: [UInt64] = {
        var inverse = [Int](repeating: 0, count: 64)
        for k in 0 ..< 64 { inverse[EncoderTables.zigzag[k]] = k }
        var table = [UInt64](repeating: 0, count: 8 * 256)
        for r in 0 ..< 8 {
            for pattern in 0 ..< 256 {
                var bits: UInt64 = 0
                for c in 0 ..< 8 where pattern & (1 << c) != 0 { bits |= 1 << UInt64(inverse[r * 8 + c]) }
                table[r * 256 + pattern] = bits
            }
        }
        return table
    }()
}
