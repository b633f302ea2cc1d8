/// Sequential (baseline and extended) Huffman decoding of one block (T.81 F.2.2).
extension BitReader {
    /// Adds the next DC difference to `predictor` (T.81 F.2.2.1): a category 0-11 for 8-bit
    /// samples (libjpeg accepts up to 15; DC tables with larger symbols are refused when a scan
    /// uses them), then that many extra bits. Shared by sequential blocks and progressive
    /// DC-first scans.
    @inline(__always)
    mutating func decodeDCDifference(_ w: inout BitWindow, dc: HuffmanLookup, predictor: inout Int,
                                     data: UnsafePointer<UInt8>, end: Int, isFinal: Bool) {
        if w.count < 32 { w.refill(&self, data, end, isFinal) }
        let t = w.decode(dc, &self) & 15
        if t > 0 {
            if w.count < 32 { w.refill(&self, data, end, isFinal) }
            predictor &+= w.receiveExtend(t)
        }
    }

    /// Decodes one 8x8 block into `block` (natural order, not dequantized; the caller zeroed it)
    /// and updates the component's DC predictor. The bit buffer is a ``BitWindow`` for the block.
    /// Corrupt data is decoded as libjpeg's jdhuff decodes it (``BitReader/Damage``): a
    /// coefficient run past the block puts its value at position 63 (libjpeg's padded natural
    /// order) and ends the block.
    @inline(__always)
    mutating func decodeSequentialBlock(
        _ block: UnsafeMutablePointer<Int16>, dc: HuffmanLookup, ac: HuffmanLookup, predictor: inout Int,
        zigzag: UnsafePointer<UInt8>, data: UnsafePointer<UInt8>, end: Int, isFinal: Bool
    ) {
        _ = decodeSequentialBlock(into: NaturalBlock(block: block, zigzag: zigzag), dc: dc, ac: ac, predictor: &predictor,
                                  data: data, end: end, isFinal: isFinal)
    }

    /// The same into any ``BlockWriter``: the coefficients in zig-zag order as they are decoded
    /// (a block in natural order, or a compact record for the other thread). Returns the number
    /// of AC terms written.
    @inline(__always)
    mutating func decodeSequentialBlock<W: BlockWriter>(
        into block: W, dc: HuffmanLookup, ac: HuffmanLookup, predictor: inout Int,
        data: UnsafePointer<UInt8>, end: Int, isFinal: Bool
    ) -> Int {
        var n = 0
        var w = BitWindow(self)
        defer { w.store(into: &self) }
        decodeDCDifference(&w, dc: dc, predictor: &predictor, data: data, end: end, isFinal: isFinal)
        block.putDC(Int16(truncatingIfNeeded: predictor))

        // AC coefficients (T.81 F.2.2.2, figure F.13).
        var k = 1
        while k < 64 {
            if w.count < 32 { w.refill(&self, data, end, isFinal) }
            let fast = ac.fastAC[Int(truncatingIfNeeded: w.bits &>> UInt64(64 &- HuffmanTable.fastBits))]
            if fast != 0 {
                let run = Int((fast &>> 8) & 0xFF)
                k &+= run
                let length = Int(fast & 0xFF)
                w.bits &<<= UInt64(length)
                w.count &-= length
                if k > 63 {
                    if run == HuffmanTable.eobRun { break }
                    damage |= Damage.runPastBlock
                    block.putShort(n, 63, Int16(truncatingIfNeeded: fast &>> 16))
                    n &+= 1
                    break
                }
                block.putShort(n, k, Int16(truncatingIfNeeded: fast &>> 16))
                n &+= 1
                k &+= 1
                continue
            }
            let rs = w.decode(ac, &self)
            let r = rs &>> 4, s = rs & 15
            if s == 0 {
                if r != 15 { break }     // EOB
                k &+= 16                // ZRL
                if k > 64 { damage |= Damage.runPastBlock }
                continue
            }
            k &+= r
            if k > 63 {
                damage |= Damage.runPastBlock
                block.put(n, 63, Int16(truncatingIfNeeded: w.receiveExtend(s)))
                n &+= 1
                break
            }
            block.put(n, k, Int16(truncatingIfNeeded: w.receiveExtend(s)))
            n &+= 1
            k &+= 1
        }
        return n
    }
}
