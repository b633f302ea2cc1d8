import ImageCore

/// A baseline JPEG encoder fed rows as they come, holding only one MCU row (8 or 16 image
/// rows) of pixels and blocks at a time (two bands of a few MCU rows with a second thread), so
/// memory does not grow with the image height.
/// Output bytes come back from each call as soon as they are final.
///
/// Progressive output needs every coefficient before the first scan, and optimized Huffman
/// tables need a counting pass over every block before the first bit, so both are refused
/// here (`invalidParameter`), as is arithmetic coding; use ``JPEGEncoder/encode(_:options:)``
/// for them. The output
/// equals ``JPEGEncoder/encode(_:options:)``'s for the same rows, whatever the chunking.
///
/// ```swift
/// var encoder = try JPEGStreamEncoder(width: 4000, height: 3000, format: .rgb8)
/// var file: [UInt8] = []
/// for band in bands { file += try band.withUnsafeBytes { try encoder.append(rows: $0) } }
/// file += try encoder.finish()
/// ```
///
/// With a second processor (and ``JPEGEncodingOptions/threads`` not 1) rows are gathered into
/// bands of about 1 MB, each coded whole on whichever of two threads is free and joined in
/// order (with a restart interval, or 16-bit rows, each MCU row is transformed on a second
/// thread while the row before is coded): the bytes are the same.
///
/// The working buffers are shared between copies of one encoder value: use one copy.
public struct JPEGStreamEncoder {
    private let setup: EncoderSetup
    private let format: PixelFormat
    private let tables: EntropyTables
    /// MCU rows transformed on a second thread while the caller codes the one before.
    private let pipeline: TransformPipeline
    /// Bands of MCU rows coded whole on either thread (8-bit rows, no restart interval, two
    /// threads): the pipeline then runs on one thread and is used for nothing else.
    private let banded: BandedStream?
    private var state: BaselineScanState
    private var pendingHeader: [UInt8]
    /// Two MCU rows of pixels as they came (the one being filled, and the one the pipeline may
    /// be reading), and for 16-bit input the same rows narrowed to 8 bits. With a second
    /// thread, 8-bit rows pass through only when a row is split between two calls.
    private let rowBuffers: RowBuffers
    private var fillSlot = 0
    /// The slot handed to the pipeline and not yet coded.
    private var pendingSlot: Int?
    private var filled = 0
    private var mcuRow = 0
    private var acc: UInt64 = 0
    private var bits = 0
    private var done = false
    private var failure: JPEGEncoderError?

    /// An encoder for an image of the given size, fed rows in `format`.
    /// - Parameters:
    ///   - width: Pixels per row, 1...65535.
    ///   - height: Rows, 1...65535; ``finish()`` checks that exactly this many arrived.
    ///   - format: The layout of the rows to come; alpha is dropped, 16-bit samples rounded.
    ///   - metadata: EXIF and ICC to write (with ``JPEGEncodingOptions/writeMetadata``).
    ///   - options: Baseline options; `progressive` or `optimizeHuffman: true` throw
    ///     ``JPEGEncoderError/invalidParameter(_:)``.
    /// - Throws: ``JPEGEncoderError`` for a bad size or options.
    public init(width: Int, height: Int, format: PixelFormat, metadata: ImageMetadata = .init(),
                options: JPEGEncodingOptions = .init()) throws(JPEGEncoderError) {
        try options.validate()
        guard !options.progressive else {
            throw .invalidParameter("the stream encoder writes baseline only; progressive needs JPEGEncoder.encode")
        }
        guard options.precision == 8 else {
            throw .invalidParameter("the stream encoder writes 8-bit baseline only; 12-bit JPEG needs JPEGEncoder.encode")
        }
        guard options.lossless == nil else {
            throw .invalidParameter("the stream encoder writes DCT baseline only; lossless JPEG needs JPEGEncoder.encode")
        }
        guard !options.arithmetic else {
            throw .invalidParameter("the stream encoder writes Huffman-coded baseline only; arithmetic coding needs JPEGEncoder.encode")
        }
        guard options.optimizeHuffman != true else {
            throw .invalidParameter("the stream encoder uses the standard Huffman tables; optimizeHuffman needs JPEGEncoder.encode")
        }
        guard width > 0, height > 0 else { throw .emptyImage }
        guard width <= 65535, height <= 65535 else { throw .imageTooLarge(width: width, height: height) }
        setup = try EncoderSetup(width: width, height: height, format: format.eightBit, options: options)
        self.format = format
        tables = EntropyTables(dc: setup.standardDC, ac: setup.standardAC)
        banded = format.is16Bit ? nil : BandedStream(setup: setup, rowBytes: width * format.bytesPerPixel, threads: options.threads)
        pipeline = TransformPipeline(setup: setup, threads: banded == nil ? options.threads : 1)
        state = BaselineScanState(components: setup.layout.components.count, restartInterval: options.restartInterval)
        pendingHeader = try JPEGWriter.header(options: options, metadata: metadata, components: setup.layout.components.count)
            + setup.frameHeader(progressive: false)
            + setup.baselineTablesAndScanHeader(dc: setup.standardDC, ac: setup.standardAC)
        rowBuffers = RowBuffers(bytes: banded == nil ? setup.layout.mcuHeight * width * format.bytesPerPixel : 0,
                                narrow: format.is16Bit ? setup.layout.mcuHeight * width * format.channels : 0,
                                pipeline: pipeline)
    }

    /// The banded two-thread coder, when this encoder uses one (tests).
    var bandedCoder: BandedStream? { banded }

    private var rowBytes: Int { setup.layout.width * format.bytesPerPixel }
    /// 8-bit rows are colour-converted in ``append(rows:)`` as they come (with a second thread),
    /// except those of every third MCU row, which are gathered and left to the pipeline's thread:
    /// the caller also Huffman-codes, and with all the conversion it had the larger share (12 MP
    /// PPM to JPEG: 271 M instructions against 161 M; a third of the conversion is 46 M).
    private var convertsAsRowsCome: Bool { pipeline.convertsOnCaller && !format.is16Bit }
    private func convertsHere(_ mcuRow: Int) -> Bool { convertsAsRowsCome && mcuRow % 3 != 2 }
    private var rowsDone: Int { mcuRow * setup.layout.mcuHeight }

    /// Takes the next bytes of pixel rows in `format` (rows top to bottom, packed as in
    /// `Image`; a call may end mid-row) and returns the JPEG bytes now final.
    public mutating func append(rows: UnsafeRawBufferPointer) throws(JPEGEncoderError) -> [UInt8] {
        if let failure { throw failure }
        guard !done else { throw fail(.alreadyFinished) }
        let layout = setup.layout
        let total = layout.height * rowBytes
        let received = min(rowsDone, layout.height) * rowBytes + filled
        guard rows.count <= total - received else {
            throw fail(.rowCountMismatch(expected: layout.height, received: (received + rows.count) / rowBytes))
        }
        var w = BitWriter(capacity: pendingHeader.count + rows.count / 4 + 1024, acc: acc, bits: bits)
        w.append(pendingHeader)
        pendingHeader = []
        if let banded {
            appendBanded(rows, banded, &w)
            acc = w.acc
            bits = w.bits
            return w.bytes()
        }
        var offset = 0
        let capacity = rowBuffers.bytes
        let rowBytes = self.rowBytes
        // With a second thread, 8-bit rows are colour-converted here as they come, straight
        // from the caller's bytes (a row split between calls is gathered first), and the
        // pipeline's thread does the rest (TransformPipeline).
        while offset < rows.count {
            guard let s = rows.baseAddress else { break }
            let convertHere = convertsHere(mcuRow)
            let n: Int
            if convertHere && filled % rowBytes == 0 && rows.count - offset >= rowBytes {
                let whole = min((rows.count - offset) / rowBytes, (capacity - filled) / rowBytes)
                pipeline.convert(slot: fillSlot, rows: (s + offset).assumingMemoryBound(to: UInt8.self), rowBytes: rowBytes,
                                 count: whole, first: filled / rowBytes)
                n = whole * rowBytes
            } else {
                n = min(capacity - filled, rows.count - offset, convertHere ? rowBytes - filled % rowBytes : Int.max)
                UnsafeMutableRawPointer(rowBuffers.pixels[fillSlot] + filled).copyMemory(from: s + offset, byteCount: n)
                if convertHere && (filled + n) % rowBytes == 0 {
                    let row = (filled + n) / rowBytes - 1
                    pipeline.convert(slot: fillSlot, rows: UnsafePointer(rowBuffers.pixels[fillSlot] + row * rowBytes),
                                     rowBytes: rowBytes, count: 1, first: row)
                }
            }
            filled += n
            offset += n
            let rowsLeft = layout.height - rowsDone
            if filled == capacity || filled == rowsLeft * rowBytes {
                encodeBufferedRows(&w)
            }
        }
        acc = w.acc
        bits = w.bits
        return w.bytes()
    }

    /// Ends the image: returns the last bytes (padding of the final byte, EOI). Throws
    /// ``JPEGEncoderError/rowCountMismatch(expected:received:)`` if rows are missing.
    public mutating func finish() throws(JPEGEncoderError) -> [UInt8] {
        if let failure { throw failure }
        guard !done else { throw fail(.alreadyFinished) }
        guard rowsDone >= setup.layout.height, filled == 0 else {
            throw fail(.rowCountMismatch(expected: setup.layout.height, received: (min(rowsDone, setup.layout.height) * rowBytes + filled) / rowBytes))
        }
        done = true
        var w = BitWriter(capacity: 64, acc: acc, bits: bits)
        w.append(pendingHeader)
        codePendingRow(&w)
        banded?.collect(state: &state, into: &w)
        w.flushBits()
        w.append(JPEGWriter.marker(0xD9))
        return w.bytes()
    }

    private mutating func fail(_ e: JPEGEncoderError) -> JPEGEncoderError {
        failure = e
        return e
    }

    /// Hands the buffered rows (a full MCU row, or the image's last rows) to the pipeline, and
    /// codes the row handed over before them.
    private mutating func encodeBufferedRows(_ w: inout BitWriter) {
        let layout = setup.layout
        let count = filled / rowBytes
        let width = layout.width
        var source = UnsafePointer(rowBuffers.pixels[fillSlot]), sourceRowBytes = rowBytes
        if format.is16Bit {
            let samples = count * width * format.channels
            let raw = UnsafeRawPointer(rowBuffers.pixels[fillSlot]), dst = rowBuffers.narrow[fillSlot]
            for i in 0 ..< samples {
                let v = UInt32(raw.loadUnaligned(fromByteOffset: 2 * i, as: UInt16.self))
                dst[i] = UInt8(truncatingIfNeeded: (v &* 255 &+ 32895) >> 16)
            }
            source = UnsafePointer(dst)
            sourceRowBytes = width * format.channels
        }
        if convertsHere(mcuRow) {
            pipeline.startConverted(slot: fillSlot, count: count, mcuRow: mcuRow)   // converted in `append`
        } else if convertsAsRowsCome {
            pipeline.startWhole(slot: fillSlot, rows: source, rowBytes: sourceRowBytes, count: count, mcuRow: mcuRow)
        } else {
            pipeline.start(slot: fillSlot, rows: source, rowBytes: sourceRowBytes, count: count, mcuRow: mcuRow)
        }
        codePendingRow(&w)
        pendingSlot = fillSlot
        fillSlot ^= 1
        filled = 0
        mcuRow += 1
    }

    /// ``append(rows:)`` with bands: the bytes are gathered into the band being filled, and
    /// each band, once complete, is coded (or handed to the second thread) by ``BandedStream``.
    private mutating func appendBanded(_ rows: UnsafeRawBufferPointer, _ banded: BandedStream, _ w: inout BitWriter) {
        let layout = setup.layout
        var offset = 0
        while offset < rows.count, let s = rows.baseAddress {
            let capacity = min(banded.bandBytes, (layout.height - rowsDone) * rowBytes)
            let n = min(capacity - filled, rows.count - offset)
            UnsafeMutableRawPointer(banded.fillBuffer + filled).copyMemory(from: s + offset, byteCount: n)
            filled += n
            offset += n
            if filled == capacity {
                let count = filled / rowBytes
                banded.bandComplete(rows: count, state: &state, into: &w)
                mcuRow += (count + layout.mcuHeight - 1) / layout.mcuHeight
                filled = 0
            }
        }
    }

    /// Huffman-codes the row the pipeline has (waiting for it), if one is pending.
    private mutating func codePendingRow(_ w: inout BitWriter) {
        guard let slot = pendingSlot else { return }
        let row = pipeline.take(slot: slot)
        state.encodeRow(row.blocks, masks: row.masks, layout: setup.layout, tables: tables, writer: &w)
        pendingSlot = nil
    }
}

/// The stream encoder's two MCU rows of input (and of 16-bit input narrowed), freed once the
/// pipeline is done with them (an encoder dropped mid-image may leave a row on its queue).
private final class RowBuffers {
    let bytes: Int
    let pixels: [UnsafeMutablePointer<UInt8>]
    let narrow: [UnsafeMutablePointer<UInt8>]
    private let pipeline: TransformPipeline

    init(bytes: Int, narrow narrowBytes: Int, pipeline: TransformPipeline) {
        self.bytes = bytes
        self.pipeline = pipeline
        pixels = (0 ..< 2).map { _ in
            let p = UnsafeMutablePointer<UInt8>.allocate(capacity: max(bytes, 1))
            p.initialize(repeating: 0, count: max(bytes, 1))
            return p
        }
        narrow = (0 ..< 2).map { _ in
            let p = UnsafeMutablePointer<UInt8>.allocate(capacity: max(narrowBytes, 1))
            p.initialize(repeating: 0, count: max(narrowBytes, 1))
            return p
        }
    }

    deinit {
        pipeline.drain()
        for p in pixels + narrow { p.deallocate() }
    }
}
