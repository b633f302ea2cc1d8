import ImageCore

/// The encoder's two halves on two threads: MCU row n+1 is colour-converted on the caller's
/// thread, then downsampled, transformed and quantized (``MCURowProcessor``) on a thread of
/// its own (a `HandoffWorker`: a row is about 100 µs of work, and a Dispatch wake-up on each
/// side of each hand-over cost a large share of that) while the caller Huffman-codes row n,
/// in order, so the output is the one-thread output byte for byte.
///
/// Two slots, each an MCU row of colour planes and of quantized blocks:
/// ``start(slot:rows:rowBytes:count:mcuRow:)`` converts a row and hands it to the worker,
/// ``take(slot:)`` waits for it. Without a worker (`threads` 1, or one processor) `start` does
/// the work at once. Measured (12 MP q85 4:2:0 photo): the transform is about 60% of a baseline
/// encode and Huffman coding 35%, so two threads take about 0.6x the time.
final class TransformPipeline: @unchecked Sendable {
    // `@unchecked`: a slot's store is written only by the worker between `start` and the
    // wait `take` (or the next `start`) does, and read only by the caller after that; the
    // processor is used only by the worker (or, without one, by the caller).
    private let processor: MCURowProcessor
    private let worker: HandoffWorker?
    private let stores: [CoefficientStore]
    private var started = [false, false]
    /// The slot whose row the worker may still be transforming (one at a time: a slot is
    /// handed over after the row before it is done).
    private var running: Int?

    /// Below this many pixels `threads: nil` stays on one thread: a 254-pixel tile's MCU row
    /// is about 20 µs of work, no more than handing it over costs, and tiles are encoded
    /// several at a time already (a pyramid of the 192 MP photo made 150,000 futex calls with a
    /// queue per tile).
    static let minimumPixels = 1 << 20

    /// A pipeline for `setup`'s image; `threads` as ``JPEGEncodingOptions/threads``.
    init(setup: EncoderSetup, threads: Int?) {
        processor = setup.makeProcessor()
        let one = EncoderLayout.oneMCURow(of: setup.layout)
        stores = [CoefficientStore(layout: one), CoefficientStore(layout: one)]
        let wanted = threads ?? (setup.layout.width * setup.layout.height >= Self.minimumPixels ? Processors.online : 1)
        worker = wanted > 1 && Processors.online > 1 ? HandoffWorker() : nil
    }

    deinit {
        worker?.close()
    }

    /// True with a second thread: rows are then colour-converted on the caller's thread
    /// (``convert(slot:rows:rowBytes:count:first:)``) and the rest runs on the worker. The
    /// colour conversion is about 45% of the transform (12 MP PPM to JPEG: 138 M of 300 M
    /// instructions), so the caller's share (conversion and Huffman coding) and the worker's
    /// come closer than with the whole transform on the worker.
    var convertsOnCaller: Bool { worker != nil }

    /// Transforms `count` rows at `rows`, `rowBytes` apart, as MCU row `mcuRow` into `slot`
    /// (0 or 1, taken since it was last started). With a worker, the colour conversion is done
    /// here and `rows` may change as soon as this returns.
    func start(slot: Int, rows: UnsafePointer<UInt8>, rowBytes: Int, count: Int, mcuRow: Int) {
        guard worker != nil else {
            precondition(!started[slot], "TransformPipeline: slot \(slot) started twice")
            started[slot] = true
            let store = stores[slot]
            processor.process(rows: rows, rowBytes: rowBytes, count: count, mcuRow: mcuRow,
                              out: store.rowPointers(0), masks: store.rowMaskPointers(0))
            return
        }
        convert(slot: slot, rows: rows, rowBytes: rowBytes, count: count, first: 0)
        startConverted(slot: slot, count: count, mcuRow: mcuRow)
    }

    /// Colour-converts `count` rows into rows `first...` of `slot`'s planes, on the caller's
    /// thread (``convertsOnCaller`` only; the slot taken since it was last started).
    func convert(slot: Int, rows: UnsafePointer<UInt8>, rowBytes: Int, count: Int, first: Int) {
        precondition(!started[slot], "TransformPipeline: slot \(slot) converted while started")
        processor.convert(rows: rows, rowBytes: rowBytes, count: count, first: first, slot: slot)
    }

    /// Hands the worker the MCU row `mcuRow` whose `count` rows were converted into `slot`.
    func startConverted(slot: Int, count: Int, mcuRow: Int) {
        precondition(!started[slot], "TransformPipeline: slot \(slot) started twice")
        guard let worker else { preconditionFailure("TransformPipeline: converted rows need a worker") }
        started[slot] = true
        worker.wait()
        running = slot
        let work = RowWork(processor: processor, store: stores[slot])
        worker.submit {
            work.processor.transformConverted(count: count, mcuRow: mcuRow, slot: slot,
                                              out: work.store.rowPointers(0), masks: work.store.rowMaskPointers(0))
        }
    }

    /// Hands the worker the whole of MCU row `mcuRow` (colour conversion included): `count`
    /// rows at `rows`, `rowBytes` apart, which stay as they are until `slot` is taken.
    func startWhole(slot: Int, rows: UnsafePointer<UInt8>, rowBytes: Int, count: Int, mcuRow: Int) {
        guard let worker else { return start(slot: slot, rows: rows, rowBytes: rowBytes, count: count, mcuRow: mcuRow) }
        precondition(!started[slot], "TransformPipeline: slot \(slot) started twice")
        started[slot] = true
        worker.wait()
        running = slot
        let work = RowWork(processor: processor, store: stores[slot]), source = SourceRows(pointer: rows)
        worker.submit {
            work.processor.convert(rows: source.pointer, rowBytes: rowBytes, count: count, first: 0, slot: slot)
            work.processor.transformConverted(count: count, mcuRow: mcuRow, slot: slot,
                                              out: work.store.rowPointers(0), masks: work.store.rowMaskPointers(0))
        }
    }

    /// Waits for `slot`'s row and returns its blocks and nonzero maps per component (valid
    /// until the slot is started again).
    func take(slot: Int) -> (blocks: [UnsafePointer<Int16>], masks: [UnsafePointer<UInt64>]) {
        precondition(started[slot], "TransformPipeline: slot \(slot) taken before it was started")
        started[slot] = false
        if running == slot {
            worker?.wait()
            running = nil
        }
        let store = stores[slot]
        return (store.rowPointers(0).map { UnsafePointer($0) }, store.rowMaskPointers(0).map { UnsafePointer($0) })
    }

    /// Waits for whatever the worker still runs (before the caller frees rows it handed over).
    func drain() {
        worker?.wait()
        running = nil
    }
}

/// One MCU row for the transform worker. `@unchecked`: the caller leaves `store` and the slot's
/// planes alone until it takes the slot; the processor's other state (the downsampled rows)
/// is used by the worker alone.
private struct RowWork: @unchecked Sendable {
    let processor: MCURowProcessor
    let store: CoefficientStore
}

/// Rows the caller keeps unchanged until the worker's row is taken.
private struct SourceRows: @unchecked Sendable {
    let pointer: UnsafePointer<UInt8>
}
