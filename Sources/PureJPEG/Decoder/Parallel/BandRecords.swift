/// Where a block's coefficients go as the Huffman decoder finds them, in zig-zag order: the DC
/// term first, then each non-zero AC term with its zig-zag position (1...63, increasing).
/// `n` counts the AC terms written before (the decoder keeps it in a register).
protocol BlockWriter {
    func putDC(_ value: Int16)
    func put(_ n: Int, _ k: Int, _ value: Int16)
}

/// A block in natural order (zeroed by the caller), as the IDCTs read it.
struct NaturalBlock: BlockWriter {
    let block: UnsafeMutablePointer<Int16>
    let zigzag: UnsafePointer<UInt8>
    @inline(__always) func putDC(_ value: Int16) { block[0] = value }
    @inline(__always) func put(_ n: Int, _ k: Int, _ value: Int16) { block[Int(zigzag[k])] = value }
}

/// The coefficients handed from the decoding thread to ``BandWorker``, block after block, in a
/// compact record: the number n of non-zero AC terms, the DC term, then n pairs of an AC
/// term's position in natural order and its value (2 + 2n Int16 values, at most 128).
///
/// A dense block is 128 bytes whatever it holds, and both threads touched every byte of it:
/// the decoding thread zeroed and wrote the block, the worker read it, so each of its cache
/// lines crossed between the two cores' caches twice a row. A 4:2:0 photo at quality 85 has a
/// few non-zero terms a block, so a record is a fraction of the bytes, written and read in
/// order. Where the virtual machine makes cross-core traffic dear (BENCHMARKS.md, "JPEG"), the
/// dense hand-over left two threads little faster than one.
enum BandRecords {
    /// The most Int16 values one record takes (every AC term non-zero).
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
        let count = Int(UInt16(bitPattern: record[0]))
        block[0] = record[1]
        let pairs = UnsafeRawPointer(record + 2)
        for i in 0 ..< count {
            let pair = pairs.loadUnaligned(fromByteOffset: i &* 4, as: UInt32.self)
            block[Int(pair & 63)] = Int16(truncatingIfNeeded: pair &>> 16)
        }
        return record + 2 + 2 &* count
    }

    /// The record after the one at `record`.
    @inline(__always)
    static func skip(_ record: UnsafePointer<Int16>) -> UnsafePointer<Int16> {
        record + 2 + 2 &* Int(UInt16(bitPattern: record[0]))
    }
}

/// Writes one compact record (``BandRecords``) as the decoder finds the coefficients.
struct BandRecordWriter: BlockWriter {
    let start: UnsafeMutablePointer<Int16>
    let zigzag: UnsafePointer<UInt8>
    @inline(__always) init(_ start: UnsafeMutablePointer<Int16>, zigzag: UnsafePointer<UInt8>) {
        self.start = start
        self.zigzag = zigzag
    }
    @inline(__always) func putDC(_ value: Int16) { start[1] = value }
    @inline(__always) func put(_ n: Int, _ k: Int, _ value: Int16) {
        let pair = start + (2 &+ 2 &* n)
        pair[0] = Int16(zigzag[k])
        pair[1] = value
    }
    /// Stores the count of AC terms, `n`; returns the end of the record.
    @inline(__always) func finish(_ n: Int) -> UnsafeMutablePointer<Int16> {
        start[0] = Int16(truncatingIfNeeded: n)
        return start + (2 &+ 2 &* n)
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
