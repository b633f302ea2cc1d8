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
    /// ``Quantize/quantizeRows(_:_:_:_:)`` reads. Every scale is at most 2^14 (the divisor is
    /// at least 8, so the shift is at least 2), so all three fit in 16 bits.
    var uint16Table: [UInt16] { reciprocal + correction + scale }
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

    /// The whole per-block stage in plain code, the reference for ``FDCTSIMD`` plus
    /// ``quantizeRows(_:_:_:_:)`` (and the path on big-endian machines, where their lane views
    /// do not hold): FDCT, quantization into `out`, and the zigzag nonzero map.
    static func blockScalar(_ src: UnsafePointer<UInt8>, stride: Int, _ d: QuantDivisors,
                            _ out: UnsafeMutablePointer<Int16>) -> UInt64 {
        withUnsafeTemporaryAllocation(of: Int16.self, capacity: 64) { buffer in
            guard let coefficients = buffer.baseAddress else { return 0 }
            FDCT.forwardScalar(src, stride: stride, coefficients)
            quantizeScalar(coefficients, d, out)
            var mask: UInt64 = 0
            for k in 0 ..< 64 where out[EncoderTables.zigzag[k]] != 0 { mask |= 1 << UInt64(k) }
            return mask
        }
    }

    /// One block of the pipeline: ``FDCTSIMD/forward(_:stride:)`` then
    /// ``quantizeRows(_:_:_:_:)``, quantized coefficients into `out`, the zigzag nonzero map
    /// returned. Kept out of line: inlined into the pipeline's block loop, the kernel made
    /// that function so large that LLVM stopped inlining the standard library's lane
    /// conversions, and every `init(truncatingIfNeeded:)` became a call.
    @inline(never)
    static func block(_ src: UnsafePointer<UInt8>, stride: Int, _ table: UnsafeRawPointer,
                      _ out: UnsafeMutablePointer<Int16>, _ columnMaps: UnsafePointer<UInt64>) -> UInt64 {
        quantizeRows(FDCTSIMD.forward(src, stride: stride), table, out, columnMaps)
    }

    /// Quantizes the FDCT's rows (``FDCTSIMD/forward(_:stride:)``) into `out` (natural order)
    /// and returns the block's nonzero map in zigzag order: bit k set when zigzag coefficient
    /// k is not zero, which lets the Huffman coder jump from one nonzero coefficient to the
    /// next.
    ///
    /// `table` (16-byte aligned) holds 64 reciprocals, 64 corrections and 64 scales (natural
    /// order, see ``QuantDivisors/uint16Table``), read as aligned vectors so that x86 takes
    /// them as memory operands. Per row, as turbo's jquanti-sse2: the magnitude plus the
    /// correction (under 2^15 + 2^10, no wrap), times the reciprocal, high half (`pmulhuw`),
    /// times the scale `2^(16 - shift)`, high half (the shift: x86 has no per-lane variable
    /// shift before AVX2), sign restored.
    ///
    /// The map: each quotient's `(q + 0x7FFF) >> 15` is 1 exactly when q (< 2^14) is not zero;
    /// those 0/1 lanes are packed to bytes, rows 2m and 2m + 1 in one vector, and the four
    /// vectors shifted by 0...3 bits and ORed, so that byte c of the low half holds column c
    /// of rows 0 2 4 6 and byte c of the high half rows 1 3 5 7; the high half shifted by 4
    /// joins the low one, and `columnMaps` (``ZigzagMaps/columns``) turns each column byte
    /// into zigzag bits.
    @inline(__always)
    static func quantizeRows(_ rows: FDCT.Rows, _ table: UnsafeRawPointer, _ out: UnsafeMutablePointer<Int16>,
                             _ columnMaps: UnsafePointer<UInt64>) -> UInt64 {
        typealias U = SIMD8<UInt16>
        let dst = UnsafeMutableRawPointer(out)
        // Lane by lane (see ``FDCTSIMD/widen(_:)``): LLVM still finds `pmulhuw`.
        @inline(__always) func wide(_ a: U) -> SIMD8<UInt32> {
            SIMD8<UInt32>(UInt32(a[0]), UInt32(a[1]), UInt32(a[2]), UInt32(a[3]), UInt32(a[4]), UInt32(a[5]), UInt32(a[6]), UInt32(a[7]))
        }
        @inline(__always) func mulHigh(_ a: U, _ b: U) -> U {
            let y = (wide(a) &* wide(b)) &>> 16
            return U(UInt16(truncatingIfNeeded: y[0]), UInt16(truncatingIfNeeded: y[1]), UInt16(truncatingIfNeeded: y[2]),
                     UInt16(truncatingIfNeeded: y[3]), UInt16(truncatingIfNeeded: y[4]), UInt16(truncatingIfNeeded: y[5]),
                     UInt16(truncatingIfNeeded: y[6]), UInt16(truncatingIfNeeded: y[7]))
        }
        @inline(__always) func row(_ x: SIMD8<Int16>, _ r: Int) -> U {
            let sign = x &>> 15
            let magnitude = unsafeBitCast((x ^ sign) &- sign, to: U.self) &+ table.load(fromByteOffset: 128 &+ r &* 16, as: U.self)
            let q = mulHigh(mulHigh(magnitude, table.load(fromByteOffset: r &* 16, as: U.self)),
                            table.load(fromByteOffset: 256 &+ r &* 16, as: U.self))
            dst.storeBytes(of: (unsafeBitCast(q, to: SIMD8<Int16>.self) ^ sign) &- sign, toByteOffset: r &* 16, as: SIMD8<Int16>.self)
            return (q &+ 0x7FFF) &>> 15
        }
        let f0 = row(rows.0, 0), f1 = row(rows.1, 1), f2 = row(rows.2, 2), f3 = row(rows.3, 3)
        let f4 = row(rows.4, 4), f5 = row(rows.5, 5), f6 = row(rows.6, 6), f7 = row(rows.7, 7)
        @inline(__always) func bytes(_ x: U, _ y: U) -> U {
            // Lanes built one by one from constant indices: one `packuswb` (the lanes are 0/1).
            let b = SIMD16<UInt8>(UInt8(truncatingIfNeeded: x[0]), UInt8(truncatingIfNeeded: x[1]), UInt8(truncatingIfNeeded: x[2]),
                                  UInt8(truncatingIfNeeded: x[3]), UInt8(truncatingIfNeeded: x[4]), UInt8(truncatingIfNeeded: x[5]),
                                  UInt8(truncatingIfNeeded: x[6]), UInt8(truncatingIfNeeded: x[7]), UInt8(truncatingIfNeeded: y[0]),
                                  UInt8(truncatingIfNeeded: y[1]), UInt8(truncatingIfNeeded: y[2]), UInt8(truncatingIfNeeded: y[3]),
                                  UInt8(truncatingIfNeeded: y[4]), UInt8(truncatingIfNeeded: y[5]), UInt8(truncatingIfNeeded: y[6]),
                                  UInt8(truncatingIfNeeded: y[7]))
            return unsafeBitCast(b, to: U.self)
        }
        // 16-bit shifts of 0/1 bytes by at most 3 never cross into the next byte.
        let f = bytes(f0, f1) | (bytes(f2, f3) &<< 1) | (bytes(f4, f5) &<< 2) | (bytes(f6, f7) &<< 3)
        let halves = unsafeBitCast(f, to: SIMD2<UInt64>.self)
        var columns = halves[0] | (halves[1] &<< 4)
        var mask: UInt64 = 0
        for c in 0 ..< 8 {
            mask |= columnMaps[c &* 256 &+ Int(truncatingIfNeeded: columns & 0xFF)]
            columns &>>= 8
        }
        return mask
    }
}

/// For each column c of a block and each 8-bit pattern of nonzero rows in it (bits 0...3:
/// rows 0 2 4 6, bits 4...7: rows 1 3 5 7, as ``Quantize/quantizeRows(_:_:_:_:)`` packs
/// them), the same coefficients' bits in zigzag order: eight lookups turn the packed flags
/// into the zigzag map the Huffman coder walks.
enum ZigzagMaps {
    static let rowOfBit = [0, 2, 4, 6, 1, 3, 5, 7]

    static let columns: [UInt64] = {
        var inverse = [Int](repeating: 0, count: 64)
        for k in 0 ..< 64 { inverse[EncoderTables.zigzag[k]] = k }
        var table = [UInt64](repeating: 0, count: 8 * 256)
        for c in 0 ..< 8 {
            for pattern in 0 ..< 256 {
                var bits: UInt64 = 0
                for b in 0 ..< 8 where pattern & (1 << b) != 0 { bits |= 1 << UInt64(inverse[rowOfBit[b] * 8 + c]) }
                table[c * 256 + pattern] = bits
            }
        }
        return table
    }()
}
