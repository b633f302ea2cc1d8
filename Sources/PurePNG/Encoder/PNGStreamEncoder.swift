import ImageCore

/// Encodes a PNG row band by row band, for images too large to hold in memory at once.
/// Writes non-interlaced images only (Adam7 needs every row before the first pass is done),
/// and no palette output (the palette must be known before the first row).
///
/// Its output is byte-for-byte the output of ``PNGEncoder/encode(_:options:)`` for the same
/// image, options and metadata, whatever the banding.
///
/// ```swift
/// var encoder = try PNGStreamEncoder(width: 4000, height: 3000, format: .rgb8)
/// var file: [UInt8] = []
/// for band in bands {                      // each band whole rows, 4000 * 3 bytes per row
///     file += try band.withUnsafeBytes { try encoder.append(rows: $0) }
/// }
/// file += try encoder.finish()
/// ```
///
/// A value type: copying an encoder mid-stream gives two independent encoders (the zlib state
/// is cloned on the first write to a shared copy). After an error, every later call throws
/// the same error.
public struct PNGStreamEncoder: Sendable {
    private let plan: EncodingPlan
    private var engine: ImageDataEncoder
    private var output = ChunkWriter()
    private var rowsWritten = 0
    private var isFinished = false
    private var failure: PNGError?

    /// Validates the parameters and prepares the header; nothing is returned until
    /// ``append(rows:)`` or ``finish()``.
    public init(width: Int, height: Int, format: PixelFormat, metadata: ImageMetadata = .init(),
                options: PNGEncodingOptions = .init()) throws(PNGError) {
        plan = try EncodingPlan(width: width, height: height, format: format, options: options, image: nil)
        try plan.writeHeader(metadata: options.writeMetadata ? metadata : ImageMetadata(), into: &output)
        engine = try plan.makeEngine(bands: ImageDataBands(rows: ImageDataRows(plan: plan)))
        engine.beginPass(rowBytes: plan.layout.bytesPerRow(width: width))
    }

    /// The rows still expected.
    public var remainingRows: Int { plan.height - rowsWritten }

    /// Encodes whole rows (tightly packed, `format` layout, host-order 16-bit); returns the PNG bytes produced so far (signature and header on the first call).
    public mutating func append(rows: UnsafeRawBufferPointer) throws(PNGError) -> [UInt8] {
        if let failure { throw failure }
        do {
            try encode(rows)
        } catch {
            failure = error
            throw error
        }
        return output.take()
    }

    /// Remaining bytes through IEND; throws if fewer rows than height were given.
    public mutating func finish() throws(PNGError) -> [UInt8] {
        if let failure { throw failure }
        do throws(PNGError) {
            guard !isFinished else { throw PNGError.invalidParameter("finish() was already called") }
            guard rowsWritten == plan.height else {
                throw PNGError.invalidParameter("only \(rowsWritten) of \(plan.height) rows were given")
            }
            try makeEngineUnique()
            try engine.finish(into: &output)
            output.append(.IEND, UnsafeRawBufferPointer(start: nil, count: 0))
            isFinished = true
        } catch {
            failure = error
            throw error
        }
        return output.take()
    }

    private mutating func makeEngineUnique() throws(PNGError) {
        if !isKnownUniquelyReferenced(&engine) { engine = try ImageDataEncoder(copying: engine) }
    }

    private mutating func encode(_ rows: UnsafeRawBufferPointer) throws(PNGError) {
        guard !isFinished else { throw .invalidParameter("rows appended after finish()") }
        let stride = plan.width * plan.format.bytesPerPixel
        guard rows.count % stride == 0 else {
            throw .invalidParameter("\(rows.count) bytes is not a whole number of \(stride)-byte rows")
        }
        let count = rows.count / stride
        guard count <= remainingRows else {
            throw .invalidParameter("\(count) rows given, but only \(remainingRows) of \(plan.height) remain")
        }
        guard let base = rows.baseAddress, count > 0 else { return }
        try makeEngineUnique()
        let packer = plan.packer
        for k in 0 ..< count {
            try packer.pack(row: base + k * stride, first: 0, step: 1, count: plan.width, y: rowsWritten,
                            into: engine.currentRow)
            try engine.encodeRow(into: &output)
            rowsWritten += 1
        }
    }
}
