import ImageCore

/// Decodes any supported format into rows handed out as soon as they are final, for consumers
/// that must not hold the whole image (the tile pyramid of ``TilePyramidWriter``).
///
/// Formats whose rows only become final at the end (progressive JPEG, interlaced PNG, GIF) are
/// decoded whole, within `limits`, and their rows are handed out by `finish`.
///
/// ```swift
/// var decoder = RowStreamDecoder()
/// for chunk in chunks {
///     try decoder.append(chunk) { band in consume(band) }
/// }
/// try decoder.finish { band in consume(band) }
/// ```
public struct RowStreamDecoder {
    public let options: ImageSourceOptions
    private var source: ImageSource

    public init(options: ImageSourceOptions = .init()) {
        self.options = options
        source = ImageSource(options: ImageSourceOptions(limits: options.limits))
    }

    /// Size and pixel format of the rows to come, after the first `.header` event.
    public var header: ImageHeader? { source.header }

    public var metadata: ImageMetadata { source.metadata }

    /// Feeds the next bytes; `rows` receives every band that became final.
    @discardableResult
    public mutating func append(_ bytes: UnsafeRawBufferPointer, rows: (RowBand) throws -> Void) throws -> [DecodingEvent] {
        try source.append(bytes)
    }

    @discardableResult
    public mutating func append<C: Collection>(_ bytes: C, rows: (RowBand) throws -> Void) throws -> [DecodingEvent]
    where C.Element == UInt8 {
        if let events = try bytes.withContiguousStorageIfAvailable({ try append(UnsafeRawBufferPointer($0), rows: rows) }) {
            return events
        }
        return try Array(bytes).withUnsafeBytes { try append($0, rows: rows) }
    }

    /// Ends the input: `rows` receives the rows not handed out yet. Throws the codec's error
    /// (a truncation error carries the partial image).
    public mutating func finish(rows: (RowBand) throws -> Void) throws {
        let image = try source.finish()
        try image.withRowBand(0 ..< image.height, rows)
    }
}
