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
