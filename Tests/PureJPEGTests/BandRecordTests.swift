import Testing
@testable import PureJPEG

/// The compact records the decoding thread hands to ``BandWorker`` (``BandRecords``): a block
/// packed and expanded again is the block, whatever its number of non-zero terms; a record's
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
        var end = records
        for b in blocks {
            scratch.initialize(from: b, count: 64)
            let next = BandRecords.pack(scratch, zigzag: zigzag, into: end)
            let nonzero = b[1...].filter { $0 != 0 }.count
            #expect(next - end == 2 + 2 * nonzero)
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
        for count in [0, 3, 63] {
            let block = Self.block(count: count, seed: &seed)
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
}
