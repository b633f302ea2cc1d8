/// Consecutive final rows of an image, lent by a row-streaming decoder for the duration of one
/// call: copy what you need before returning. Rows arrive top to bottom, each exactly once.
///
/// ```swift
/// var decoder = RowStreamDecoder()
/// try decoder.append(chunk) { band in
///     for i in 0 ..< band.count { process(row: band.y + i, pixels: band.row(i)) }
/// }
/// ```
public struct RowBand {
    /// Index in the image of the first row.
    public let y: Int
    /// Number of rows.
    public let count: Int
    /// Pixels in each row (the image's width).
    public let width: Int
    /// The layout of each pixel.
    public let format: PixelFormat
    /// Distance in bytes from one row to the next (at least `width * format.bytesPerPixel`).
    public let bytesPerRow: Int
    /// The first byte of the first row; valid only during the call that lends the band.
    public let base: UnsafeRawPointer

    /// A band over memory the caller owns and keeps alive while the band is in use (for decoders
    /// that lend rows, and for tests).
    public init(y: Int, count: Int, width: Int, format: PixelFormat, bytesPerRow: Int, base: UnsafeRawPointer) {
        self.y = y
        self.count = count
        self.width = width
        self.format = format
        self.bytesPerRow = bytesPerRow
        self.base = base
    }

    /// The pixels of row `i` of the band (`0 ..< count`), `width * format.bytesPerPixel` bytes.
    @inlinable
    public func row(_ i: Int) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(start: base + i * bytesPerRow, count: width * format.bytesPerPixel)
    }
}

extension Image {
    /// Lends rows `range` of this image as one band.
    public func withRowBand<R>(_ range: Range<Int>, _ body: (RowBand) throws -> R) rethrows -> R {
        try pixels.withUnsafeBytes { raw in
            guard let start = raw.baseAddress else {
                var none: UInt8 = 0
                return try withUnsafePointer(to: &none) {
                    try body(RowBand(y: range.lowerBound, count: 0, width: width, format: format,
                                     bytesPerRow: bytesPerRow, base: UnsafeRawPointer($0)))
                }
            }
            return try body(RowBand(y: range.lowerBound, count: range.count, width: width, format: format,
                                    bytesPerRow: bytesPerRow, base: start + range.lowerBound * bytesPerRow))
        }
    }
}

/// A decoder that hands out final rows as ``RowBand``s while bytes are appended
/// (`JPEGRowDecoder`, `PNGRowDecoder`, `RowStreamDecoder`).
public protocol RowStreamingDecoder {
    /// Feeds the next bytes; `rows` receives every band that became final, before this returns.
    @discardableResult
    mutating func append(_ bytes: UnsafeRawBufferPointer, rows: (RowBand) throws -> Void) throws -> [DecodingEvent]
    /// Ends the input: `rows` receives the rows not handed out yet.
    mutating func finish(rows: (RowBand) throws -> Void) throws
}

extension RowStreamingDecoder {
    /// Feeds the next bytes from any byte collection (contiguous ones without a copy).
    @discardableResult
    public mutating func append<C: Collection>(_ bytes: C, rows: (RowBand) throws -> Void) throws -> [DecodingEvent]
    where C.Element == UInt8 {
        if let events = try bytes.withContiguousStorageIfAvailable({ try append(UnsafeRawBufferPointer($0), rows: rows) }) {
            return events
        }
        return try Array(bytes).withUnsafeBytes { try append($0, rows: rows) }
    }
}
