import CZlib
import ImageCore

/// The inflate blocks of ``ImageDataDecoder`` and the row their first row is unfiltered
/// against, in native memory that never moves, so that a second thread can unfilter the rows
/// of one block while zlib inflates into the other.
///
/// `@unchecked Sendable`: a block is written either by the decoder's thread (inflating) or by
/// the one ``UnfilterJob`` in flight on it, never both, since the decoder waits for that job
/// before it reuses the block; ``prevRow`` is touched only by unfiltering, one job at a time.
/// Value semantics for the decoder come from copy-on-write (``init(copying:)``) between calls,
/// when no job is in flight.
final class RowBlocks: @unchecked Sendable {
    /// Usable bytes of each block; each has ``Unfilter/slack`` readable bytes more.
    let capacity: Int
    let blocks: (UnsafeMutablePointer<UInt8>, UnsafeMutablePointer<UInt8>)
    /// The last unfiltered row of the previous block, for the next block's first row.
    let prevRow: UnsafeMutablePointer<UInt8>
    /// A pass's first row is unfiltered against zeros (PNG 9.2).
    let zeroRow: UnsafeMutablePointer<UInt8>
    let rowCapacity: Int

    init(capacity: Int, rowStride: Int) {
        self.capacity = capacity
        rowCapacity = rowStride + Unfilter.slack
        let a = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity + Unfilter.slack)
        let b = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity + Unfilter.slack)
        a.initialize(repeating: 0, count: capacity + Unfilter.slack)
        b.initialize(repeating: 0, count: capacity + Unfilter.slack)
        blocks = (a, b)
        prevRow = .allocate(capacity: rowCapacity)
        prevRow.initialize(repeating: 0, count: rowCapacity)
        zeroRow = .allocate(capacity: rowCapacity)
        zeroRow.initialize(repeating: 0, count: rowCapacity)
    }

    convenience init(copying other: RowBlocks) {
        self.init(capacity: other.capacity, rowStride: other.rowCapacity - Unfilter.slack)
        blocks.0.update(from: other.blocks.0, count: capacity + Unfilter.slack)
        blocks.1.update(from: other.blocks.1, count: capacity + Unfilter.slack)
        prevRow.update(from: other.prevRow, count: rowCapacity)
    }

    deinit {
        blocks.0.deallocate()
        blocks.1.deallocate()
        prevRow.deallocate()
        zeroRow.deallocate()
    }

    func block(_ index: Int) -> UnsafeMutablePointer<UInt8> { index == 0 ? blocks.0 : blocks.1 }

    /// Bytes held, for `retainedBytes` and the limits.
    var byteCount: Int { 2 * (capacity + Unfilter.slack) + 2 * rowCapacity }
}

/// The complete rows of one inflated block: runs of rows of one pass and one inflate call each
/// (a block crosses Adam7 passes and fills over several calls), as ``ImageDataDecoder`` found
/// them.
struct UnfilterJob: Sendable {
    struct Run: Sendable {
        let pass: Int
        /// The run's first row within its pass, and its rows.
        let firstRow: Int
        let rows: Int
        let rowBytes: Int
        let width: Int
        /// Offset of the first row's filter byte in the block.
        let start: Int
        /// File offset named by an error in these rows: where the decoder stood once they
        /// were inflated (a run never spans two inflate calls, so each keeps its own).
        let offset: Int
    }

    let block: Int
    let runs: [Run]

    /// The first row whose filter type is not 0-4: run and row within it, and the type.
    struct BadFilter: Sendable {
        let run: Int, row: Int, type: UInt8
    }

    /// What unfiltering found: the first bad filter type, and with `checksum` the Adler-32 of
    /// the job's filtered bytes (taken before they are unfiltered) and their count.
    struct Outcome: Sendable {
        var badFilter: BadFilter?
        var adler: UInt = 1
        var length = 0
    }

    /// The bytes of every row, filter types included: contiguous in the block.
    var byteRange: Range<Int> {
        guard let first = runs.first, let last = runs.last else { return 0 ..< 0 }
        return first.start ..< last.start + last.rows * (last.rowBytes + 1)
    }

    /// Unfilters every row in place (PNG 9), stopping at a filter type past 4, after taking the
    /// Adler-32 of the job's bytes when `checksum` is set. A run that starts a pass is
    /// unfiltered against zeros; one that continues a pass against the row before it
    /// (`blocks.prevRow` for the job's first), and `blocks.prevRow` afterwards holds the job's
    /// last row.
    func unfilter(_ blocks: RowBlocks, bpp: Int, checksum: Bool) -> Outcome {
        var outcome = Outcome()
        let blk = blocks.block(block)
        if checksum {
            let range = byteRange
            outcome.adler = CZlib.adler32(1, blk + range.lowerBound, UInt32(range.count))
            outcome.length = range.count
        }
        outcome.badFilter = unfilterRows(blk, blocks, bpp: bpp)
        return outcome
    }

    private func unfilterRows(_ blk: UnsafeMutablePointer<UInt8>, _ blocks: RowBlocks, bpp: Int) -> BadFilter? {
        var last: UnsafeMutablePointer<UInt8>?
        var lastBytes = 0
        defer { if let last { blocks.prevRow.update(from: last, count: lastBytes) } }
        for (index, run) in runs.enumerated() {
            let stride = run.rowBytes &+ 1
            // A run that continues its pass follows the previous run's last row, or, first in
            // the job, the previous job's.
            var prev = UnsafePointer(run.firstRow == 0 ? blocks.zeroRow : last ?? blocks.prevRow)
            var pos = run.start
            for row in 0 ..< run.rows {
                let type = blk[pos]
                if type > 4 { return BadFilter(run: index, row: row, type: type) }
                let cur = blk + pos + 1
                Unfilter.apply(type, row: cur, prev: prev, count: run.rowBytes, bpp: bpp)
                prev = UnsafePointer(cur)
                last = cur
                lastBytes = run.rowBytes
                pos &+= stride
            }
        }
        return nil
    }
}
