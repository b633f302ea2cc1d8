/// Why a block could not be decoded.
enum EntropyFault: Error, Sendable, Equatable {
    case badCode
    case runPastBlock
    case badDCCategory
}

/// Sequential (baseline and extended) Huffman decoding of one block (T.81 F.2.2).
extension BitReader {
    /// Adds the next DC difference to `predictor` (T.81 F.2.2.1): a category 0-11 for 8-bit
    /// samples (libjpeg accepts up to 15), then that many extra bits. Shared by sequential
    /// blocks and progressive DC-first scans.
    @inline(__always)
    mutating func decodeDCDifference(dc: HuffmanLookup, predictor: inout Int,
                                     data: UnsafePointer<UInt8>, end: Int, isFinal: Bool) throws(EntropyFault) {
        if count < 32 { refill(data, end, isFinal) }
        let t = decode(dc)
        if t < 0 { throw .badCode }
        if t > 15 { throw .badDCCategory }
        if t > 0 {
            if count < 32 { refill(data, end, isFinal) }
            predictor &+= receiveExtend(t)
        }
    }

    /// Decodes one 8x8 block into `block` (natural order, not dequantized; the caller zeroed it)
    /// and updates the component's DC predictor.
    ///
    /// The bit buffer lives in locals for the block. As methods on `self`, `bits` and `count`
    /// stayed in memory (a store into `block` could alias `self` as far as the compiler knows),
    /// which put a store-to-load forwarding delay on the dependency chain of every symbol. Rare
    /// paths (a refill that meets 0xFF, a marker or the end of the bytes; codes longer than
    /// 9 bits) write the locals back, run the method on `self` and reload them.
    @inline(__always)
    mutating func decodeSequentialBlock(
        _ block: UnsafeMutablePointer<Int16>, dc: HuffmanLookup, ac: HuffmanLookup, predictor: inout Int,
        zigzag: UnsafePointer<UInt8>, data: UnsafePointer<UInt8>, end: Int, isFinal: Bool
    ) throws(EntropyFault) {
        var bits = self.bits, count = self.count
        defer { self.bits = bits; self.count = count }
        @inline(__always) func onSelf<T>(_ body: (inout BitReader) -> T) -> T {
            self.bits = bits; self.count = count
            let value = body(&self)
            bits = self.bits; count = self.count
            return value
        }
        @inline(__always) func refill() {
            let p = self.position
            if p &+ 8 <= end && count >= 0 && !self.hitMarker {
                let x = UInt64(bigEndian: UnsafeRawPointer(data + p).loadUnaligned(as: UInt64.self))
                let inverted = ~x
                if (inverted &- 0x0101_0101_0101_0101) & ~inverted & 0x8080_8080_8080_8080 == 0 {
                    let n = (64 &- count) &>> 3
                    bits |= x &>> UInt64(count)
                    self.position = p &+ n
                    count &+= n &<< 3
                    return
                }
            }
            onSelf { $0.refillSlow(data, end, isFinal) }
        }
        @inline(__always) func decode(_ table: HuffmanLookup) -> Int {
            let entry = table.fast[Int(truncatingIfNeeded: bits &>> 55)]
            if entry != 0 {
                let length = Int(entry &>> 8)
                bits &<<= UInt64(length)
                count &-= length
                return Int(entry & 0xFF)
            }
            return onSelf { $0.decodeSlow(table) }
        }
        @inline(__always) func receiveExtend(_ n: Int) -> Int {
            if n == 0 { return 0 }
            let v = Int(truncatingIfNeeded: bits &>> UInt64(64 &- n))
            bits &<<= UInt64(n)
            count &-= n
            return v < (1 &<< (n &- 1)) ? v &- (1 &<< n) &+ 1 : v
        }

        // DC difference (T.81 F.2.2.1), as ``decodeDCDifference(dc:predictor:data:end:isFinal:)``.
        if count < 32 { refill() }
        let t = decode(dc)
        if t < 0 { throw .badCode }
        if t > 15 { throw .badDCCategory }
        if t > 0 {
            if count < 32 { refill() }
            predictor &+= receiveExtend(t)
        }
        block[0] = Int16(truncatingIfNeeded: predictor)

        // AC coefficients (T.81 F.2.2.2, figure F.13).
        var k = 1
        while k < 64 {
            if count < 32 { refill() }
            let fast = ac.fastAC[Int(truncatingIfNeeded: bits &>> 55)]
            if fast != 0 {
                k &+= Int((fast &>> 8) & 0xFF)
                let length = Int(fast & 0xFF)
                bits &<<= UInt64(length)
                count &-= length
                if k > 63 { throw .runPastBlock }
                block[Int(zigzag[k])] = Int16(truncatingIfNeeded: fast &>> 16)
                k &+= 1
                continue
            }
            let rs = decode(ac)
            if rs < 0 { throw .badCode }
            let r = rs &>> 4, s = rs & 15
            if s == 0 {
                if r != 15 { break }     // EOB
                k &+= 16                // ZRL
                if k > 64 { throw .runPastBlock }
                continue
            }
            k &+= r
            if k > 63 { throw .runPastBlock }
            block[Int(zigzag[k])] = Int16(truncatingIfNeeded: receiveExtend(s))
            k &+= 1
        }
    }
}
