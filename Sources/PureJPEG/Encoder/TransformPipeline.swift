import Dispatch
import ImageCore

/// The encoder's two halves on two threads: MCU row n+1 is converted, downsampled, transformed
/// and quantized (``MCURowProcessor``) on a serial queue of its own while the caller
/// Huffman-codes row n, in order, so the output is the one-thread output byte for byte.
///
/// Two slots, each an MCU row of quantized blocks: ``start(slot:rows:rowBytes:count:mcuRow:)``
/// hands a row to the queue (the caller keeps `rows` unchanged until it takes the slot),
/// ``take(slot:)`` waits for it. Without a queue (`threads` 1, or one processor) `start` does
/// the work at once. Measured (12 MP q85 4:2:0 photo): the transform is about 60% of a baseline
/// encode and Huffman coding 35%, so two threads take about 0.6x the time.
final class TransformPipeline: @unchecked Sendable {
    // `@unchecked`: a slot's store is written only by the queue between `start` and the
    // signal `take` waits for, and read only by the caller after that; the processor is used
    // only on the queue (or, without one, by the caller).
    private let processor: MCURowProcessor
    private let queue: DispatchQueue?
    private let stores: [CoefficientStore]
    private let done = [DispatchSemaphore(value: 0), DispatchSemaphore(value: 0)]
    private var started = [false, false]

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
        queue = wanted > 1 && Processors.online > 1 ? DispatchQueue(label: "PureJPEG.encoder.transform") : nil
    }

    /// Transforms `count` rows at `rows`, `rowBytes` apart, as MCU row `mcuRow` into `slot`
    /// (0 or 1, taken since it was last started).
    func start(slot: Int, rows: UnsafePointer<UInt8>, rowBytes: Int, count: Int, mcuRow: Int) {
        precondition(!started[slot], "TransformPipeline: slot \(slot) started twice")
        started[slot] = true
        let store = stores[slot]
        guard let queue else {
            processor.process(rows: rows, rowBytes: rowBytes, count: count, mcuRow: mcuRow,
                              out: store.rowPointers(0), masks: store.rowMaskPointers(0))
            return
        }
        let work = RowWork(processor: processor, store: store, rows: rows), signal = done[slot]
        queue.async {
            work.processor.process(rows: work.rows, rowBytes: rowBytes, count: count, mcuRow: mcuRow,
                                   out: work.store.rowPointers(0), masks: work.store.rowMaskPointers(0))
            signal.signal()
        }
    }

    /// Waits for `slot`'s row and returns its blocks and nonzero maps per component (valid
    /// until the slot is started again).
    func take(slot: Int) -> (blocks: [UnsafePointer<Int16>], masks: [UnsafePointer<UInt64>]) {
        precondition(started[slot], "TransformPipeline: slot \(slot) taken before it was started")
        started[slot] = false
        if queue != nil { done[slot].wait() }
        let store = stores[slot]
        return (store.rowPointers(0).map { UnsafePointer($0) }, store.rowMaskPointers(0).map { UnsafePointer($0) })
    }

    /// Waits for whatever the queue still runs (before the caller frees rows it handed over).
    func drain() {
        queue?.sync {}
    }
}

/// One MCU row for the transform queue. `@unchecked`: the caller keeps `rows` alive and
/// unchanged, and leaves `store` alone, until it takes the slot; `processor` is used by the
/// queue alone.
private struct RowWork: @unchecked Sendable {
    let processor: MCURowProcessor
    let store: CoefficientStore
    let rows: UnsafePointer<UInt8>
}
