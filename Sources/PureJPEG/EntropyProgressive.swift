/// Progressive Huffman decoding of one block per call (T.81 G.1.2), after libjpeg's jdphuff:
/// DC first and refinement scans, AC spectral-selection first scans with end-of-band runs,
/// and AC successive-approximation refinement.
extension BitReader {
    /// DC first scan (T.81 G.1.2.1): the predicted DC value shifted up by Al.
    @inline(__always)
    mutating func decodeDCFirst(
        _ block: UnsafeMutablePointer<Int16>, dc: HuffmanLookup, predictor: inout Int, al: Int,
        data: UnsafePointer<UInt8>, end: Int, isFinal: Bool
    ) throws(EntropyFault) {
        try decodeDCDifference(dc: dc, predictor: &predictor, data: data, end: end, isFinal: isFinal)
        block[0] = Int16(truncatingIfNeeded: predictor &<< al)
    }

    /// DC refinement (T.81 G.1.2.1): one more bit of the DC value.
    @inline(__always)
    mutating func decodeDCRefine(_ block: UnsafeMutablePointer<Int16>, al: Int,
                                 data: UnsafePointer<UInt8>, end: Int, isFinal: Bool) {
        if count < 1 { refill(data, end, isFinal) }
        if bit() != 0 { block[0] |= Int16(truncatingIfNeeded: 1 &<< al) }
    }

    /// AC first scan over Ss...Se (T.81 G.1.2.2) with end-of-band runs (EOBRUN, figure G.4).
    /// A rolled-back attempt is undone by the caller, which restores a copy of the MCU's blocks.
    @inline(__always)
    mutating func decodeACFirst(
        _ block: UnsafeMutablePointer<Int16>, ac: HuffmanLookup, ss: Int, se: Int, al: Int, eobrun: inout Int,
        zigzag: UnsafePointer<UInt8>, data: UnsafePointer<UInt8>, end: Int, isFinal: Bool
    ) throws(EntropyFault) {
        if eobrun > 0 {
            eobrun &-= 1
            return
        }
        var k = ss
        while k <= se {
            if count < 32 { refill(data, end, isFinal) }
            let rs = decode(ac)
            if rs < 0 { throw .badCode }
            let r = rs &>> 4, s = rs & 15
            if s != 0 {
                k &+= r
                if k > se { throw .runPastBlock }
                let position = zigzag[k]
                block[Int(position)] = Int16(truncatingIfNeeded: receiveExtend(s) &<< al)
                k &+= 1
            } else if r == 15 {
                k &+= 16
            } else {
                // EOBr: this block and 2^r + (r extra bits) - 1 more end here.
                eobrun = 1 &<< r
                if r > 0 { eobrun &+= bits(r) }
                eobrun &-= 1
                return
            }
        }
    }

    /// AC refinement (T.81 G.1.2.3): correction bits for coefficients already non-zero, and new
    /// coefficients of magnitude 1 << Al. A rolled-back attempt is undone by the caller, which
    /// restores a copy of the MCU's blocks.
    @inline(__always)
    mutating func decodeACRefine(
        _ block: UnsafeMutablePointer<Int16>, ac: HuffmanLookup, ss: Int, se: Int, al: Int, eobrun: inout Int,
        zigzag: UnsafePointer<UInt8>, data: UnsafePointer<UInt8>, end: Int, isFinal: Bool
    ) throws(EntropyFault) {
        let p1 = Int16(truncatingIfNeeded: 1 &<< al), m1 = Int16(truncatingIfNeeded: -1 &<< al)
        var k = ss
        @inline(__always) func correct(_ reader: inout BitReader, _ coef: UnsafeMutablePointer<Int16>) {
            if reader.count < 1 { reader.refill(data, end, isFinal) }
            if reader.bit() != 0, coef.pointee & p1 == 0 {
                coef.pointee &+= coef.pointee >= 0 ? p1 : m1
            }
        }
        if eobrun == 0 {
            while k <= se {
                if count < 32 { refill(data, end, isFinal) }
                let rs = decode(ac)
                if rs < 0 { throw .badCode }
                var r = rs &>> 4
                let s = rs & 15
                var value: Int16 = 0
                if s != 0 {
                    // Only magnitude 1 can be new in a refinement scan; libjpeg reads the sign bit regardless.
                    value = bit() != 0 ? p1 : m1
                } else if r != 15 {
                    eobrun = 1 &<< r
                    if r > 0 {
                        if count < 32 { refill(data, end, isFinal) }
                        eobrun &+= bits(r)
                    }
                    break
                }
                // Skip r zero coefficients (correcting the non-zero ones passed), then place the new one.
                while k <= se {
                    let coef = block + Int(zigzag[k])
                    if coef.pointee != 0 {
                        correct(&self, coef)
                    } else {
                        if r == 0 { break }
                        r &-= 1
                    }
                    k &+= 1
                }
                if s != 0 {
                    if k > se { throw .runPastBlock }
                    let position = zigzag[k]
                    block[Int(position)] = value
                }
                k &+= 1
            }
        }
        if eobrun > 0 {
            // Inside an end-of-band run only the existing coefficients get correction bits.
            while k <= se {
                let coef = block + Int(zigzag[k])
                if coef.pointee != 0 { correct(&self, coef) }
                k &+= 1
            }
            eobrun &-= 1
        }
    }
}
