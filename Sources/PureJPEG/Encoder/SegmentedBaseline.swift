import Dispatch
import ImageCore

/// A baseline encode without restart intervals on several threads: the MCU rows are split into
/// consecutive bands, one per thread, and each band is converted, transformed, quantized and
/// Huffman-coded on its thread into a buffer of its own; the buffers are then joined in order.
///
/// Two things tie a band to the one before it, and both are recovered without waiting for it:
/// - the DC predictions its first MCU row starts from are the last DC terms of the band before,
///   so the band transforms and codes the row before its first one too (into a scratch buffer)
///   to learn them: one MCU row of extra work per band;
/// - its bits start wherever the band before ended, which is not a byte boundary in general:
///   each band is coded from bit 0 with its own byte stuffing, and the join takes its bytes
///   back apart (dropping the stuffed zeros) and puts them after the bits before, stuffing
///   again (``BitWriter/appendCoded(_:pendingBits:count:)``): one pass over the output.
///
/// The file is the one-thread file byte for byte. A restart interval ties bands together
/// through its markers' byte alignment, so such files keep ``TransformPipeline``.
enum SegmentedBaseline {
    /// One band's coded bytes (stuffed) and the bits left over after them.
    final class Band: @unchecked Sendable {
        // `@unchecked`: each band is written by the one thread that codes it, and read by the
        // caller after `concurrentPerform` has returned.
        var bytes: [UInt8] = []
        var acc: UInt64 = 0
        var bits = 0
    }

    /// The pixels of the source, for the threads (read only while they run).
    private struct Source: @unchecked Sendable {
        let base: UnsafePointer<UInt8>
    }

    /// The bands for `setup`'s image and thread request, or 1 where one thread does the work
    /// (one processor, `threads` 1, below ``TransformPipeline/minimumPixels`` by default, a
    /// restart interval): one band a thread, at most one an MCU row.
    static func bands(setup: EncoderSetup, options: JPEGEncodingOptions) -> Int {
        guard options.restartInterval == 0, Processors.online > 1 else { return 1 }
        let pixels = setup.layout.width * setup.layout.height
        let wanted = options.threads ?? (pixels >= TransformPipeline.minimumPixels ? Processors.online : 1)
        return max(1, min(wanted, setup.layout.mcusDown))
    }

    /// Codes the image's scan data after `w`'s headers: `bands` bands on as many threads.
    static func encode(pixels: UnsafePointer<UInt8>, rowBytes: Int, setup: EncoderSetup, tables: EntropyTables,
                       bands count: Int, writer w: inout BitWriter) {
        let layout = setup.layout
        let rows = layout.mcusDown
        let source = Source(base: pixels)
        let bands = (0 ..< count).map { _ in Band() }
        DispatchQueue.concurrentPerform(iterations: count) { i in
            let first = rows * i / count, end = rows * (i + 1) / count
            let processor = setup.makeProcessor()
            let store = CoefficientStore(layout: EncoderLayout.oneMCURow(of: layout))
            var state = BaselineScanState(components: layout.components.count, restartInterval: 0)
            func transform(_ mcuRow: Int) {
                let y0 = mcuRow * layout.mcuHeight
                processor.process(rows: source.base + y0 * rowBytes, rowBytes: rowBytes,
                                  count: min(layout.mcuHeight, layout.height - y0), mcuRow: mcuRow,
                                  out: store.rowPointers(0), masks: store.rowMaskPointers(0))
            }
            func code(into writer: inout BitWriter) {
                state.encodeRow(store.rowPointers(0).map { UnsafePointer($0) }, masks: store.rowMaskPointers(0).map { UnsafePointer($0) },
                                layout: layout, tables: tables, writer: &writer)
            }
            if first > 0 {
                // The DC predictions of the row before this band.
                var scratch = BitWriter(capacity: 4096)
                transform(first - 1)
                code(into: &scratch)
            }
            var writer = BitWriter(capacity: max(layout.width * layout.mcuHeight * (end - first) / 4, 4096))
            for mcuRow in first ..< end {
                transform(mcuRow)
                code(into: &writer)
            }
            let band = bands[i]
            band.acc = writer.acc
            band.bits = writer.bits
            band.bytes = writer.take()
        }
        for band in bands {
            band.bytes.withUnsafeBufferPointer { w.appendCoded($0, pendingBits: band.acc, count: band.bits) }
        }
    }
}
