import ImageCore

/// The stream encoder's two-thread mode for scans without restart intervals: the rows are
/// gathered into bands of a few MCU rows, and each band is converted, transformed, quantized
/// and Huffman-coded whole on one thread (the band goes to the helper thread when it is free,
/// and is coded on the caller's thread when not); the coded bands are joined in order, as
/// ``SegmentedBaseline`` joins the whole-image encoder's.
///
/// Handing each MCU row's planes and blocks from one thread to the other (``TransformPipeline``)
/// moves about 55 MB between the two cores' caches for a 12 MP photo, in 188 hand-overs; a
/// band's only traffic is its pixels (half the input crosses) and its coded bytes.
///
/// Bands are ``SegmentedBaseline/Band``s: a band codes its first MCU aside (it does not know
/// the DC predictions it starts from) and the join codes it again with the true ones before
/// the band's bits. The file is the one-thread file byte for byte.
final class BandedStream: @unchecked Sendable {
    // `@unchecked`: a band's pixels, its `Band` and the worker's lane are touched by the
    // worker only between `submit` and the `wait` that `collect` does; everything else is the
    // caller's.
    private let setup: EncoderSetup
    private let tables: EntropyTables
    private let worker: HandoffWorker
    /// Input bytes a row, and input bytes a band (`bandRows` MCU rows).
    let rowBytes: Int
    let bandRows: Int
    let bandBytes: Int
    /// Two bands of input: the one being filled (`fill`), and the one the worker may read.
    private let buffers: [UnsafeMutablePointer<UInt8>]
    private(set) var fill = 0
    /// Per thread: a processor and one MCU row of blocks ([0] the caller's, [1] the worker's).
    private let lanes: [Lane]
    /// Coded bands not yet joined, in image order; the worker's, while it codes one, is first.
    private var queue: [SegmentedBaseline.Band] = []
    private var workerBusy = false
    private var spare: [SegmentedBaseline.Band] = []
    /// The MCU row the next band starts at.
    private var nextMCURow = 0
    /// At most this many bands wait behind the worker's before the caller waits for it.
    private static let maxQueued = 4
    /// Who codes a complete band: the worker when it is free (the default), or, for tests that
    /// need each path whatever the timing, always the worker or always the caller.
    enum Dealing { case whenFree, worker, caller }
    var dealing = Dealing.whenFree

    private final class Lane: @unchecked Sendable {
        let processor: MCURowProcessor
        let store: CoefficientStore

        init(setup: EncoderSetup) {
            processor = setup.makeProcessor()
            store = CoefficientStore(layout: EncoderLayout.oneMCURow(of: setup.layout))
        }
    }

    /// About this many input bytes a band: a few MCU rows of a photograph, within a core's
    /// second-level cache when the other thread reads it.
    static let bandTarget = 1 << 20

    /// A banded coder for `setup` (restart interval 0, 8-bit rows of `rowBytes` bytes), or nil
    /// when one thread is asked for (or by default below ``TransformPipeline/minimumPixels``),
    /// there is no second processor or thread, or the image has fewer than 8 MCU rows.
    init?(setup: EncoderSetup, rowBytes: Int, threads: Int?) {
        let layout = setup.layout
        let wanted = threads ?? (layout.width * layout.height >= TransformPipeline.minimumPixels ? Processors.online : 1)
        guard setup.restartInterval == 0, wanted > 1, Processors.online > 1, layout.mcusDown >= 8,
              let worker = HandoffWorker() else { return nil }
        self.setup = setup
        self.worker = worker
        self.rowBytes = rowBytes
        tables = EntropyTables(dc: setup.standardDC, ac: setup.standardAC)
        let mcuRowBytes = layout.mcuHeight * rowBytes
        bandRows = max(1, min(Self.bandTarget / max(mcuRowBytes, 1), layout.mcusDown / 8))
        let bytes = bandRows * mcuRowBytes
        bandBytes = bytes
        buffers = (0 ..< 2).map { _ in UnsafeMutablePointer<UInt8>.allocate(capacity: max(bytes, 1)) }
        lanes = [Lane(setup: setup), Lane(setup: setup)]
    }

    deinit {
        worker.close()
        for p in buffers { p.deallocate() }
    }

    /// Where the band being filled goes.
    var fillBuffer: UnsafeMutablePointer<UInt8> { buffers[fill] }

    /// The band being filled is complete with `rows` input rows (a full band, or the image's
    /// last rows): it goes to the worker if the worker is free (after the bands before it are
    /// joined into `w`), and is coded here if not.
    func bandComplete(rows: Int, state: inout BaselineScanState, into w: inout BitWriter) {
        let band = spare.popLast() ?? SegmentedBaseline.Band()
        let first = nextMCURow
        nextMCURow += (rows + setup.layout.mcuHeight - 1) / setup.layout.mcuHeight
        if workerBusy && queue.count > Self.maxQueued { collect(state: &state, into: &w) }
        let toWorker: Bool
        switch dealing {
        case .whenFree: toWorker = !workerBusy || worker.isIdle
        case .worker: toWorker = true
        case .caller: toWorker = false
        }
        if toWorker {
            collect(state: &state, into: &w)
            let job = BandJob(coder: self, band: band, pixels: buffers[fill], rows: rows, firstMCURow: first)
            workerBusy = true
            queue.append(band)
            worker.submit { job.coder.code(job.band, pixels: job.pixels, rows: job.rows, firstMCURow: job.firstMCURow, lane: 1) }
            fill ^= 1
        } else {
            code(band, pixels: buffers[fill], rows: rows, firstMCURow: first, lane: 0)
            queue.append(band)
            if !workerBusy { collect(state: &state, into: &w) }
        }
    }

    /// Waits for the worker and joins every coded band into `w`, in order.
    func collect(state: inout BaselineScanState, into w: inout BitWriter) {
        if workerBusy {
            worker.wait()
            workerBusy = false
        }
        for band in queue {
            band.join(into: &w, state: &state, tables: tables)
            spare.append(band)
        }
        queue.removeAll(keepingCapacity: true)
    }

    /// Codes `rows` input rows at `pixels` (MCU rows from `firstMCURow`) into `band` on lane
    /// `lane`'s processor and blocks.
    private func code(_ band: SegmentedBaseline.Band, pixels: UnsafePointer<UInt8>, rows: Int, firstMCURow: Int, lane: Int) {
        let layout = setup.layout, mcuRowBytes = layout.mcuHeight * rowBytes
        let mcuRows = (rows + layout.mcuHeight - 1) / layout.mcuHeight
        band.code(rows: firstMCURow ..< firstMCURow + mcuRows, pixels: { pixels + ($0 - firstMCURow) * mcuRowBytes },
                  rowBytes: rowBytes, layout: layout, tables: tables, processor: lanes[lane].processor, store: lanes[lane].store)
    }

    /// A band for the worker.
    private struct BandJob: @unchecked Sendable {
        let coder: BandedStream
        let band: SegmentedBaseline.Band
        let pixels: UnsafeMutablePointer<UInt8>
        let rows: Int
        let firstMCURow: Int
    }
}
