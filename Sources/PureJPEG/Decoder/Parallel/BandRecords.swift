/// Where a block's coefficients go as the Huffman decoder finds them, in zig-zag order: the DC
/// term first, then each non-zero AC term with its zig-zag position (1...63, increasing).
/// `n` counts the AC terms written before (the decoder keeps it in a register).
protocol BlockWriter {
    func putDC(_ value: Int16)
    func put(_ n: Int, _ k: Int, _ value: Int16)
    /// ``put(_:_:_:)`` of a value known to be in -511...511 (a fast table entry's).
    func putShort(_ n: Int, _ k: Int, _ value: Int16)
}

/// A block in natural order (zeroed by the caller), as the IDCTs read it.
struct NaturalBlock: BlockWriter {
    let block: UnsafeMutablePointer<Int16>
    let zigzag: UnsafePointer<UInt8>
    @inline(__always) func putDC(_ value: Int16) { block[0] = value }
    @inline(__always) func put(_ n: Int, _ k: Int, _ value: Int16) { block[Int(zigzag[k])] = value }
    @inline(__always) func putShort(_ n: Int, _ k: Int, _ value: Int16) { block[Int(zigzag[k])] = value }
}

/// The coefficients handed from the decoding thread to ``BandWorker``, block after block, in a
/// compact record of UInt16 words (stored as Int16):
///
/// - a header: the number n of non-zero AC terms, and in the high byte the number e of them
///   whose value is outside -512...511 (rare: 8-bit photos seldom pass ±200);
/// - the DC term;
/// - n words, one an AC term in the order found: its position in natural order (1...63) in the
///   low six bits and its value in the high ten (two's complement); or, for a value that does
///   not fit, 0 in the low bits and the position in the high ones, the value following among
///   the escapes;
/// - the e escaped values, in order.
///
/// 2 + n + e words, at most 128. A dense block is 128 bytes whatever it holds, and both threads
/// touched every byte of it: the decoding thread zeroed and wrote the block, the worker read it,
/// so each of its cache lines crossed between the two cores' caches twice a row. A 4:2:0 photo
/// has a few non-zero terms a block, so a record is a fraction of the bytes, written and read
/// in order: the 12 MP photo of the benchmarks has 8.4 a block, 5.9 MB of records a decode
/// against 36 MB of blocks (and 10.6 MB with a position word and a value word a term). Where
/// the virtual machine makes cross-core traffic dear (BENCHMARKS.md, "JPEG"), each line of a
/// record the worker has read costs the decoding thread a wait when it writes there again.
enum BandRecords {
    /// The most Int16 values one record takes (reserved for each block in a band).
    static let maximumRecord = 128

    /// An all-zero block's record (mid-gray: blocks of a stretch decoded with no data).
    @inline(__always)
    static func writeEmpty(_ out: UnsafeMutablePointer<Int16>) -> UnsafeMutablePointer<Int16> {
        out[0] = 0
        out[1] = 0
        return out + 2
    }

    /// The record of `block` (natural order), which is left zeroed; returns the end of the record.
    static func pack(_ block: UnsafeMutablePointer<Int16>, zigzag: UnsafePointer<UInt8>,
                     into out: UnsafeMutablePointer<Int16>) -> UnsafeMutablePointer<Int16> {
        let writer = BandRecordWriter(out, zigzag: zigzag)
        writer.putDC(block[0])
        var n = 0
        for k in 1 ..< 64 {
            let v = block[Int(zigzag[k])]
            if v != 0 {
                writer.put(n, k, v)
                n &+= 1
            }
        }
        block.update(repeating: 0, count: 64)
        return writer.finish(n)
    }

    /// Writes the record at `record` into `block` (natural order, all zero before); returns the
    /// next record.
    @inline(__always)
    static func expand(_ record: UnsafePointer<Int16>, into block: UnsafeMutablePointer<Int16>) -> UnsafePointer<Int16> {
        let header = Int(UInt16(bitPattern: record[0]))
        let count = header & 0xFF
        block[0] = record[1]
        let terms = record + 2
        var escaped = terms + count
        for i in 0 ..< count {
            let word = terms[i]
            var position = Int(word & 63), value = word &>> 6
            if position == 0 {
                position = Int(value)
                value = escaped[0]
                escaped += 1
            }
            block[position] = value
        }
        return terms + (count &+ (header &>> 8))
    }

    /// The record after the one at `record`.
    @inline(__always)
    static func skip(_ record: UnsafePointer<Int16>) -> UnsafePointer<Int16> {
        let header = Int(UInt16(bitPattern: record[0]))
        return record + (2 &+ (header & 0xFF) &+ (header &>> 8))
    }
}

/// Writes one compact record (``BandRecords``) as the decoder finds the coefficients. Escaped
/// values wait at the end of the record's reservation (the header counts them meanwhile) and
/// ``finish(_:)`` moves them after the terms.
struct BandRecordWriter: BlockWriter {
    let start: UnsafeMutablePointer<Int16>
    let zigzag: UnsafePointer<UInt8>
    @inline(__always) init(_ start: UnsafeMutablePointer<Int16>, zigzag: UnsafePointer<UInt8>) {
        self.start = start
        self.zigzag = zigzag
        start[0] = 0
    }
    @inline(__always) func putDC(_ value: Int16) { start[1] = value }
    @inline(__always) func put(_ n: Int, _ k: Int, _ value: Int16) {
        let position = Int16(zigzag[k])
        let word = value &<< 6
        if word &>> 6 == value {
            start[2 &+ n] = word | position
        } else {
            escape(n, position, value)
        }
    }
    @inline(__always) func putShort(_ n: Int, _ k: Int, _ value: Int16) {
        start[2 &+ n] = value &<< 6 | Int16(zigzag[k])
    }
    @inline(__always) func escape(_ n: Int, _ position: Int16, _ value: Int16) {
        let e = Int(start[0])
        start[BandRecords.maximumRecord &- 1 &- e] = value
        start[0] = Int16(truncatingIfNeeded: e &+ 1)
        start[2 &+ n] = position &<< 6
    }
    /// Stores the header for `n` AC terms, moving any escaped values after them; returns the end
    /// of the record.
    @inline(__always) func finish(_ n: Int) -> UnsafeMutablePointer<Int16> {
        let e = Int(start[0])
        if e != 0 { moveEscapes(n, e) }
        start[0] = Int16(truncatingIfNeeded: n | e &<< 8)
        return start + (2 &+ n &+ e)
    }
    /// The `e` escaped values, waiting last first at the reservation's end, into their places
    /// after the `n` terms (through a copy: with many escapes the two ranges overlap).
    @inline(never) func moveEscapes(_ n: Int, _ e: Int) {
        withUnsafeTemporaryAllocation(of: Int16.self, capacity: 64) { values in
            for j in 0 ..< e { values[j] = start[BandRecords.maximumRecord &- 1 &- j] }
            for j in 0 ..< e { start[2 &+ n &+ j] = values[j] }
        }
    }
}

/// One MCU row of compact records for ``BandWorker``: the records, and where each MCU's begin
/// (`offsets[mx]`, in Int16 values from `records`; `offsets[0]` is 0). The decoding thread
/// writes MCU mx from `offsets[mx]` and sets `offsets[mx + 1]`, so an MCU decoded again after a
/// rollback starts where it started before.
struct BandRecordRow {
    let records: UnsafeMutablePointer<Int16>
    let offsets: UnsafeMutablePointer<Int32>
}
