import ImageCore

/// A baseline JPEG encoder fed rows as they come, holding only one MCU row (8 or 16 image
/// rows) of pixels and blocks at a time, so memory does not grow with the image height.
/// Output bytes come back from each call as soon as they are final.
///
/// Progressive output needs every coefficient before the first scan, and optimized Huffman
/// tables need a counting pass over every block before the first bit, so both are refused
/// here (`invalidParameter`); use ``JPEGEncoder/encode(_:options:)`` for them. The output
/// equals ``JPEGEncoder/encode(_:options:)``'s for the same rows, whatever the chunking.
///
/// ```swift
/// var encoder = try JPEGStreamEncoder(width: 4000, height: 3000, format: .rgb8)
/// var file: [UInt8] = []
/// for band in bands { file += try band.withUnsafeBytes { try encoder.append(rows: $0) } }
/// file += try encoder.finish()
/// ```
///
/// The working buffers are shared between copies of one encoder value: use one copy.
public struct JPEGStreamEncoder {
    private let setup: EncoderSetup
    private let format: PixelFormat
    private let processor: MCURowProcessor
    private let tables: EntropyTables
    private let rowStore: CoefficientStore
    private var state: BaselineScanState
    private var pendingHeader: [UInt8]
    private var rowBuffer: [UInt8]
    private var narrowBuffer: [UInt8]
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
        guard options.optimizeHuffman != true else {
            throw .invalidParameter("the stream encoder uses the standard Huffman tables; optimizeHuffman needs JPEGEncoder.encode")
        }
        guard width > 0, height > 0 else { throw .emptyImage }
        guard width <= 65535, height <= 65535 else { throw .imageTooLarge(width: width, height: height) }
        setup = try EncoderSetup(width: width, height: height, format: format.eightBit, options: options)
        self.format = format
        processor = setup.makeProcessor()
        tables = EntropyTables(dc: setup.standardDC, ac: setup.standardAC)
        rowStore = CoefficientStore(layout: EncoderLayout.oneMCURow(of: setup.layout))
        state = BaselineScanState(components: setup.layout.components.count, restartInterval: options.restartInterval)
        pendingHeader = try JPEGWriter.header(options: options, metadata: metadata)
            + setup.frameHeader(progressive: false)
            + setup.baselineTablesAndScanHeader(dc: setup.standardDC, ac: setup.standardAC)
        rowBuffer = [UInt8](repeating: 0, count: setup.layout.mcuHeight * width * format.bytesPerPixel)
        narrowBuffer = format.is16Bit ? [UInt8](repeating: 0, count: setup.layout.mcuHeight * width * format.channels) : []
    }

    private var rowBytes: Int { setup.layout.width * format.bytesPerPixel }
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
        var offset = 0
        let capacity = rowBuffer.count
        while offset < rows.count {
            let n = min(capacity - filled, rows.count - offset)
            rowBuffer.withUnsafeMutableBytes { dst in
                if let d = dst.baseAddress, let s = rows.baseAddress {
                    (d + filled).copyMemory(from: s + offset, byteCount: n)
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
        w.flushBits()
        w.append(JPEGWriter.marker(0xD9))
        return w.bytes()
    }

    private mutating func fail(_ e: JPEGEncoderError) -> JPEGEncoderError {
        failure = e
        return e
    }

    /// Runs the buffered rows (a full MCU row, or the image's last rows) through the pipeline.
    private mutating func encodeBufferedRows(_ w: inout BitWriter) {
        let layout = setup.layout
        let count = filled / rowBytes
        let width = layout.width
        let pointers = rowStore.rowPointers(0), masks = rowStore.rowMaskPointers(0)
        if format.is16Bit {
            let samples = count * width * format.channels
            rowBuffer.withUnsafeBytes { raw in
                narrowBuffer.withUnsafeMutableBufferPointer { dst in
                    for i in 0 ..< samples {
                        let v = UInt32(raw.loadUnaligned(fromByteOffset: 2 * i, as: UInt16.self))
                        dst[i] = UInt8(truncatingIfNeeded: (v &* 255 &+ 32895) >> 16)
                    }
                }
            }
            narrowBuffer.withUnsafeBufferPointer { px in
                if let base = px.baseAddress {
                    processor.process(rows: base, rowBytes: width * format.channels, count: count,
                                      mcuRow: mcuRow, out: pointers, masks: masks)
                }
            }
        } else {
            rowBuffer.withUnsafeBufferPointer { px in
                if let base = px.baseAddress {
                    processor.process(rows: base, rowBytes: rowBytes, count: count, mcuRow: mcuRow, out: pointers, masks: masks)
                }
            }
        }
        state.encodeRow(pointers.map { UnsafePointer($0) }, masks: masks.map { UnsafePointer($0) }, layout: layout,
                        tables: tables, writer: &w)
        filled = 0
        mcuRow += 1
    }
}
