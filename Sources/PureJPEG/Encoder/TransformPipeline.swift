import Dispatch
import ImageCore

/// The encoder's two halves on two threads: MCU row n+1 is colour-converted on the caller's
/// thread, then downsampled, transformed and quantized (``MCURowProcessor``) on a serial queue
/// of its own while the caller Huffman-codes row n, in order, so the output is the one-thread
/// output byte for byte.
///
/// Two slots, each an MCU row of colour planes and of quantized blocks:
/// ``start(slot:rows:rowBytes:count:mcuRow:)`` converts a row and hands it to the queue,
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

    /// True with a second thread: rows are then colour-converted on the caller's thread
    /// (``convert(slot:rows:rowBytes:count:first:)``) and the rest runs on the queue. The
    /// colour conversion is about 45% of the transform (12 MP PPM to JPEG: 138 M of 300 M
    /// instructions), so the caller's share (conversion and Huffman coding) and the queue's
    /// come closer than with the whole transform on the queue.
    var convertsOnCaller: Bool { queue != nil }

    /// Transforms `count` rows at `rows`, `rowBytes` apart, as MCU row `mcuRow` into `slot`
    /// (0 or 1, taken since it was last started). With a queue, the colour conversion is done
    /// here and `rows` may change as soon as this returns.
    func start(slot: Int, rows: UnsafePointer<UInt8>, rowBytes: Int, count: Int, mcuRow: Int) {
        guard queue != nil else {
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

    /// Hands the queue the MCU row `mcuRow` whose `count` rows were converted into `slot`.
    func startConverted(slot: Int, count: Int, mcuRow: Int) {
        precondition(!started[slot], "TransformPipeline: slot \(slot) started twice")
        guard let queue else { preconditionFailure("TransformPipeline: converted rows need a queue") }
        started[slot] = true
        let work = RowWork(processor: processor, store: stores[slot]), signal = done[slot]
        queue.async {
            work.processor.transformConverted(count: count, mcuRow: mcuRow, slot: slot,
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

/// One MCU row for the transform queue. `@unchecked`: the caller leaves `store` and the slot's
/// planes alone until it takes the slot; the processor's other state (the downsampled rows)
/// is used by the queue alone.
private struct RowWork: @unchecked Sendable {
    let processor: MCURowProcessor
    let store: CoefficientStore
}
