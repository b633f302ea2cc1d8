import Dispatch
import ImageCore

/// A baseline encode without restart intervals on several threads: the MCU rows are split into
/// consecutive bands, a few per thread, taken by the threads in turn, and each band is converted, transformed, quantized and
/// Huffman-coded on its thread into a buffer of its own; the buffers are then joined in order.
///
/// Two things tie a band to the one before it, and both are recovered without waiting for it:
/// - the DC predictions its first MCU starts from are the last DC terms of the band before: the
///   band codes its first MCU aside (to learn the predictions the rest of it starts from) and
///   keeps a copy of that MCU's blocks, and the join codes that MCU again with the true predictions
///   before the band's bits (transforming and coding the row before instead cost an MCU row of
///   extra work a band);
/// - its bits start wherever the band before ended, which is not a byte boundary in general:
///   each band is coded from bit 0 with its own byte stuffing, and the join takes its bytes
///   back apart (dropping the stuffed zeros) and puts them after the bits before, stuffing
///   again (``BitWriter/appendCoded(_:pendingBits:count:)``): one pass over the output.
///
/// The join runs while later bands are still being coded: the thread that finishes the next
/// band in order joins it, and every finished band after it (``Joiner``), so what is left
/// once the last band is coded is that band's join.
///
/// The file is the one-thread file byte for byte. A restart interval ties bands together
/// through its markers' byte alignment, so such files keep ``TransformPipeline``.
enum SegmentedBaseline {
    /// One band's coded bytes (stuffed) and the bits left over after them.
    final class Band: @unchecked Sendable {
        // `@unchecked`: each band is written by the one thread that codes it, and read by the
        // caller after that thread is done with it.
        var bytes: [UInt8] = []
        var acc: UInt64 = 0
        var bits = 0
        /// The band's first MCU of blocks (all bands but the image's first), and the DC
        /// predictions the band ends with.
        var first: CoefficientStore?
        var lastDC: [Int32] = []

        /// Codes MCU rows `rows` (source rows of MCU row r at `pixels(r)`, `rowBytes` apart)
        /// with `processor` and one MCU row of blocks `store`. The DC predictions a band after
        /// the image's first starts from are the band before's last: its first MCU is coded
        /// aside (for the predictions the rest starts from) and again by ``join(into:state:tables:)``,
        /// from a copy of that MCU's blocks, kept in ``first``.
        func code(rows: Range<Int>, pixels: (Int) -> UnsafePointer<UInt8>, rowBytes: Int, layout: EncoderLayout,
                  tables: EntropyTables, processor: MCURowProcessor, store: CoefficientStore) {
            var state = BaselineScanState(components: layout.components.count, restartInterval: 0)
            var writer = BitWriter(capacity: max(layout.width * layout.mcuHeight * rows.count / 4, 4096))
            first = nil
            for mcuRow in rows {
                let y0 = mcuRow * layout.mcuHeight
                processor.process(rows: pixels(mcuRow), rowBytes: rowBytes, count: min(layout.mcuHeight, layout.height - y0),
                                  mcuRow: mcuRow, out: store.rowPointers(0), masks: store.rowMaskPointers(0))
                let blocks = store.rowPointers(0).map { UnsafePointer($0) }, masks = store.rowMaskPointers(0).map { UnsafePointer($0) }
                if mcuRow == rows.lowerBound && mcuRow > 0 {
                    var scratch = BitWriter(capacity: 4096)
                    state.encodeRow(blocks, masks: masks, layout: layout, tables: tables, writer: &scratch, mcus: 0 ..< 1)
                    state.encodeRow(blocks, masks: masks, layout: layout, tables: tables, writer: &writer, mcus: 1 ..< layout.mcusAcross)
                    first = Self.copyFirstMCU(of: store)
                } else {
                    state.encodeRow(blocks, masks: masks, layout: layout, tables: tables, writer: &writer)
                }
            }
            acc = writer.acc
            bits = writer.bits
            bytes = writer.take()
            lastDC = state.lastDC
        }

        /// A store of one MCU (``EncoderLayout/oneMCU(of:)``) holding the first MCU of `row`'s
        /// blocks and non-zero maps: all the join needs of the band's first row.
        static func copyFirstMCU(of row: CoefficientStore) -> CoefficientStore {
            let one = CoefficientStore(layout: EncoderLayout.oneMCU(of: row.layout))
            for (c, comp) in row.layout.components.enumerated() {
                for by in 0 ..< comp.v {
                    (one.planes[c] + by * comp.h * 64).update(from: row.planes[c] + by * comp.blocksPerLine * 64, count: comp.h * 64)
                    (one.masks[c] + by * comp.h).update(from: row.masks[c] + by * comp.blocksPerLine, count: comp.h)
                }
            }
            return one
        }

        /// Appends the band to `w`, after the bands before it (`state` holds their predictions).
        func join(into w: inout BitWriter, state: inout BaselineScanState, tables: EntropyTables) {
            if let first {
                state.encodeRow(first.rowPointers(0).map { UnsafePointer($0) }, masks: first.rowMaskPointers(0).map { UnsafePointer($0) },
                                layout: first.layout, tables: tables, writer: &w, mcus: 0 ..< 1)
            }
            bytes.withUnsafeBufferPointer { w.appendCoded($0, pendingBits: acc, count: bits) }
            state.lastDC = lastDC
            bytes = []
        }
    }

    /// The pixels of the source, for the threads (read only while they run).
    private struct Source: @unchecked Sendable {
        let base: UnsafePointer<UInt8>
    }

    /// The threads for `setup`'s image and thread request, or 1 where one thread does the work
    /// (one processor, `threads` 1, below ``TransformPipeline/minimumPixels`` by default, a
    /// restart interval): at most one an MCU row.
    static func bands(setup: EncoderSetup, options: JPEGEncodingOptions) -> Int {
        guard options.restartInterval == 0, Processors.online > 1 else { return 1 }
        let pixels = setup.layout.width * setup.layout.height
        let wanted = options.threads ?? (pixels >= TransformPipeline.minimumPixels ? Processors.online : 1)
        return max(1, min(wanted, setup.layout.mcusDown))
    }

    /// Bands a thread: the threads take the next band as they finish one, so a band whose rows
    /// cost more to code (detail is rarely spread evenly down a photograph) is made up for by
    /// the others, at one MCU coded twice a band. The last band to finish leaves the other
    /// threads idle for part of a band's time, so bands are small (a 12 MP photo on two
    /// threads: 32 bands of about six MCU rows).
    static let bandsPerThread = 16

    /// The next band to code, shared by the threads.
    private final class Dealer: @unchecked Sendable {
        // `@unchecked`: `next` is read and written under `gate` only.
        private let gate = ConditionLock()
        private var next = 0
        let count: Int

        init(count: Int) { self.count = count }

        /// The next band, or nil once every band is taken.
        func take() -> Int? {
            gate.withLock {
                guard next < count else { return nil }
                next += 1
                return next - 1
            }
        }
    }

    /// Joins the coded bands into the writer in order, as they finish: whichever thread
    /// finishes the next band to join joins it and the finished bands after it, while the other
    /// threads go on coding. One thread joins at a time.
    private final class Joiner: @unchecked Sendable {
        // `@unchecked`: `finished`, `joined` and `joining` are read and written under `gate`;
        // `writer` and `state` only by the one thread that set `joining`.
        private let gate = ConditionLock()
        private var finished: [Bool]
        private var joined = 0
        private var joining = false
        var writer: BitWriter
        private var state: BaselineScanState
        private let bands: [Band]

        init(bands: [Band], components: Int, writer: consuming BitWriter) {
            self.bands = bands
            finished = [Bool](repeating: false, count: bands.count)
            state = BaselineScanState(components: components, restartInterval: 0)
            self.writer = writer
        }

        /// Band `i` is coded: joins it and the finished bands after it when they are next and
        /// no other thread is joining.
        func finish(_ i: Int, tables: EntropyTables) {
            gate.lock()
            finished[i] = true
            guard !joining else {
                gate.unlock()
                return
            }
            joining = true
            while joined < bands.count && finished[joined] {
                let next = joined
                gate.unlock()
                bands[next].join(into: &writer, state: &state, tables: tables)
                gate.lock()
                joined += 1
            }
            joining = false
            gate.unlock()
        }
    }

    /// Codes the image's scan data after `w`'s headers on `threads` threads, in
    /// ``bandsPerThread`` bands a thread (at most one an MCU row).
    static func encode(pixels: UnsafePointer<UInt8>, rowBytes: Int, setup: EncoderSetup, tables: EntropyTables,
                       bands threads: Int, writer w: inout BitWriter) {
        let layout = setup.layout
        let rows = layout.mcusDown
        let source = Source(base: pixels)
        let count = max(1, min(rows, threads * bandsPerThread))
        let bands = (0 ..< count).map { _ in Band() }
        let dealer = Dealer(count: count)
        var taken = BitWriter(capacity: 0)
        swap(&taken, &w)
        let joiner = Joiner(bands: bands, components: layout.components.count, writer: taken)
        DispatchQueue.concurrentPerform(iterations: min(threads, count)) { _ in
            let processor = setup.makeProcessor()
            let store = CoefficientStore(layout: EncoderLayout.oneMCURow(of: layout))
            while let i = dealer.take() {
                bands[i].code(rows: rows * i / count ..< rows * (i + 1) / count,
                              pixels: { source.base + $0 * layout.mcuHeight * rowBytes }, rowBytes: rowBytes,
                              layout: layout, tables: tables, processor: processor, store: store)
                joiner.finish(i, tables: tables)
            }
        }
        swap(&joiner.writer, &w)
    }
}
