import Testing
@testable import PureJPEG

/// The compact records the decoding thread hands to ``BandWorker`` (``BandRecords``): a block
/// packed and expanded again is the block, whatever its number of non-zero terms and however
/// large they are (values past ten bits go in escapes); a record's
/// length is what `skip` passes over; an empty record is a zero block. The decoder's writer is
/// checked end to end by `JPEGDecoderThreadsTests` (every vector, damaged file and cut).
@Suite struct BandRecordTests {
    /// A block with `count` non-zero AC terms at random natural positions and a random DC term.
    static func block(count: Int, seed: inout UInt64) -> [Int16] {
        func next() -> UInt64 {
            seed = seed &* 6364136223846793005 &+ 1442695040888963407
            return seed >> 33
        }
        var block = [Int16](repeating: 0, count: 64)
        block[0] = Int16(truncatingIfNeeded: Int(next() % 4096) - 2048)
        var positions = Array(1 ..< 64)
        for i in 0 ..< count {
            let j = i + Int(next() % UInt64(63 - i))
            positions.swapAt(i, j)
            var v = Int16(truncatingIfNeeded: Int(next() % 2047) - 1023)
            if v == 0 { v = -32768 }
            block[positions[i]] = v
        }
        return block
    }

    /// Values at the edges of the ten-bit field and past it (escapes), down to every term
    /// escaped, and one escape among small terms at each end of a block.
    static let edgeBlocks: [[Int16]] = {
        let edges: [Int16] = [1, -1, 511, -511, 512, -512, 513, -513, 1023, -1024, 32767, -32768]
        var blocks: [[Int16]] = []
        var all = [Int16](repeating: 0, count: 64)
        for i in 0 ..< 64 { all[i] = edges[i % edges.count] }
        blocks.append(all)
        var escapes = [Int16](repeating: 0, count: 64)
        for i in 0 ..< 64 { escapes[i] = i % 2 == 0 ? 4000 + Int16(i) : -4000 - Int16(i) }
        blocks.append(escapes)
        for position in [1, 63] {
            var b = [Int16](repeating: 3, count: 64)
            b[position] = -600
            blocks.append(b)
        }
        return blocks
    }()

    @Test func packExpandRoundTrip() {
        var seed: UInt64 = 7
        let zigzag = zigzagToNatural.withUnsafeBufferPointer { $0.baseAddress! }
        let records = UnsafeMutablePointer<Int16>.allocate(capacity: 64 * BandRecords.maximumRecord)
        defer { records.deallocate() }
        let scratch = UnsafeMutablePointer<Int16>.allocate(capacity: 64)
        defer { scratch.deallocate() }
        // Several blocks in one band, as a row of MCUs is written, then read back in order.
        var blocks: [[Int16]] = []
        for count in [0, 1, 2, 5, 17, 40, 62, 63] {
            for _ in 0 ..< 4 { blocks.append(Self.block(count: count, seed: &seed)) }
        }
        blocks += Self.edgeBlocks
        var end = records
        for b in blocks {
            scratch.initialize(from: b, count: 64)
            let next = BandRecords.pack(scratch, zigzag: zigzag, into: end)
            let nonzero = b[1...].filter { $0 != 0 }.count
            let escaped = b[1...].filter { $0 != 0 && !(-512 ... 511).contains($0) }.count
            #expect(next - end == 2 + nonzero + escaped)
            #expect(next - end <= BandRecords.maximumRecord)
            #expect((0 ..< 64).allSatisfy { scratch[$0] == 0 }, "pack leaves its block zeroed")
            end = next
        }
        end = BandRecords.writeEmpty(end)
        var record = UnsafePointer(records)
        for b in blocks {
            scratch.initialize(repeating: 0, count: 64)
            let next = BandRecords.expand(record, into: scratch)
            #expect(Array(UnsafeBufferPointer(start: scratch, count: 64)) == b)
            #expect(BandRecords.skip(record) == next)
            record = next
        }
        scratch.initialize(repeating: 0, count: 64)
        let afterEmpty = BandRecords.expand(record, into: scratch)
        #expect((0 ..< 64).allSatisfy { scratch[$0] == 0 }, "an empty record is a zero block")
        #expect(afterEmpty == UnsafePointer(end))
    }

    /// The writer the Huffman decoder fills (zig-zag positions as they come) gives the same
    /// record as packing the natural-order block.
    @Test func writerMatchesPack() {
        var seed: UInt64 = 11
        let zigzag = zigzagToNatural.withUnsafeBufferPointer { $0.baseAddress! }
        let a = UnsafeMutablePointer<Int16>.allocate(capacity: BandRecords.maximumRecord)
        let b = UnsafeMutablePointer<Int16>.allocate(capacity: BandRecords.maximumRecord)
        let scratch = UnsafeMutablePointer<Int16>.allocate(capacity: 64)
        defer { a.deallocate(); b.deallocate(); scratch.deallocate() }
        for block in [0, 3, 63].map({ Self.block(count: $0, seed: &seed) }) + Self.edgeBlocks {
            scratch.initialize(from: block, count: 64)
            let packedEnd = BandRecords.pack(scratch, zigzag: zigzag, into: a)
            let writer = BandRecordWriter(b, zigzag: zigzag)
            writer.putDC(block[0])
            var n = 0
            for k in 1 ..< 64 where block[Int(zigzag[k])] != 0 {
                writer.put(n, k, block[Int(zigzag[k])])
                n += 1
            }
            let writtenEnd = writer.finish(n)
            #expect(packedEnd - a == writtenEnd - b)
            #expect(Array(UnsafeBufferPointer(start: a, count: packedEnd - a)) == Array(UnsafeBufferPointer(start: b, count: writtenEnd - b)))
        }
    }

    /// Values of ten bits and more reach the record through the Huffman decoder as escapes:
    /// the fast table leaves codes with ten extra bits to the slow path (its values always fit
    /// a term word), and the writer escapes what does not fit, in either path.
    @Test func decoderEscapesLargeValues() throws {
        let dc = try #require(HuffmanTable(counts: [0, 1, 5, 1, 1, 1, 1, 1, 1] + [UInt8](repeating: 0, count: 7),
                                           values: Array(0 ... 11), isDC: true))
        // AC codes: 0 = run 0 size 10, 10 = run 0 size 9, 110 = EOB; 1 + 10 bits fit the fast
        // table's 11, so only the size limit keeps the first code off the fast path.
        let ac = try #require(HuffmanTable(counts: [1, 1, 1] + [UInt8](repeating: 0, count: 13), values: [0x0A, 0x09, 0x00], isDC: false))
        let fastEntry = ac.lookup.fastAC[0]
        #expect(fastEntry == 0, "a size-10 code takes the slow path")
        for i in 0 ..< 1 << HuffmanTable.fastBits where ac.lookup.fastAC[i] != 0 {
            #expect((-511 ... 511).contains(ac.lookup.fastAC[i] >> 16))
        }
        // DC category 0 (00); +1000 (0 1111101000), -300 (10 011010011), +511 (10 111111111),
        // -1023 (0 0000000000), EOB (110).
        let data = packBits("00 0 1111101000 10 011010011 10 111111111 0 0000000000 110")
        let records = UnsafeMutablePointer<Int16>.allocate(capacity: BandRecords.maximumRecord)
        let block = UnsafeMutablePointer<Int16>.allocate(capacity: 64)
        defer { records.deallocate(); block.deallocate() }
        var predictor = 0
        let end = data.withUnsafeBufferPointer { b in
            zigzagToNatural.withUnsafeBufferPointer { z in
                var r = BitReader()
                let writer = BandRecordWriter(records, zigzag: z.baseAddress!)
                let n = r.decodeSequentialBlock(into: writer, dc: dc.lookup, ac: ac.lookup, predictor: &predictor,
                                                data: b.baseAddress!, end: b.count, isFinal: true)
                return writer.finish(n)
            }
        }
        #expect(end - records == 2 + 4 + 2, "four terms, two escaped")
        block.initialize(repeating: 0, count: 64)
        #expect(BandRecords.expand(records, into: block) == UnsafePointer(end))
        var expected = [Int16](repeating: 0, count: 64)
        for (k, v) in [(1, 1000), (2, -300), (3, 511), (4, -1023)] { expected[Int(zigzagToNatural[k])] = Int16(v) }
        #expect(Array(UnsafeBufferPointer(start: block, count: 64)) == expected)
    }
}
