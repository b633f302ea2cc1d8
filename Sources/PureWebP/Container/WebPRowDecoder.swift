import ImageCore

/// A WebP decoder that hands a still image's rows out as soon as they are final and keeps no
/// image: memory is the compressed payload, the codec's state (a lossy image's few macroblock
/// rows; a lossless image's coded ARGB pixels, which LZ77 may copy from) and a band of at most
/// ``bandRows`` rows. An animation is composited as ``WebPDecoder`` does and its first frame
/// (what `finish` of ``WebPDecoder`` returns) handed out at the end.
///
/// Rows are `.rgb8` or `.rgba8` as ``WebPDecoder`` decodes them (the header's pixel format):
/// the same bytes.
///
/// ```swift
/// var decoder = WebPRowDecoder()
/// for chunk in chunks { try decoder.append(chunk) { band in consume(band) } }
/// try decoder.finish { band in consume(band) }
/// ```
public struct WebPRowDecoder: RowStreamingDecoder, Sendable {
    /// Rows collected before they are handed out together (fewer at the end of each `append`).
    public static let bandRows = 16
    private var decoder: WebPDecoder
    private var band: [UInt8] = []

    /// A decoder waiting for the first bytes.
    public init(limits: DecodingLimits = .default, options: WebPDecodingOptions = .init()) {
        decoder = WebPDecoder(limits: limits, options: options)
        decoder.streamRows = true
    }

    /// Known once the `.header` event has been reported.
    public var header: ImageHeader? { decoder.header }
    /// ICC profile, EXIF and XMP read so far.
    public var metadata: ImageMetadata { decoder.metadata }
    /// True for an animated file (its rows come at the end).
    public var isAnimated: Bool { decoder.isAnimated }
    /// True when rows come out as the bytes arrive: a still image, once its header is read.
    public var isStreaming: Bool { decoder.header != nil && !decoder.isAnimated }

    /// Feeds the next bytes; `rows` receives every band of a still image that became final.
    /// Throws ``WebPError``, or what `rows` throws.
    @discardableResult
    public mutating func append(_ bytes: UnsafeRawBufferPointer, rows: (RowBand) throws -> Void) throws -> [DecodingEvent] {
        var collector = Collector(band: band)
        defer { band = collector.band }
        let events = try decoder.append(bytes) { y, rgba, format in collector.take(y, rgba, format, rows) }
        if let failure = collector.failure { throw failure }
        try collector.flush(rows)
        return events
    }

    /// Ends the input: `rows` receives the rows not handed out yet (an animation's first frame).
    /// Throws ``WebPError/incomplete(offset:partial:)`` when the file is cut short.
    public mutating func finish(rows: (RowBand) throws -> Void) throws {
        guard decoder.isAnimated else {
            guard decoder.isAtEnd else {
                // As ``WebPDecoder/finish()``: a RIFF or image cut short; the rows so far are out.
                throw WebPError.incomplete(offset: decoder.endOffset, partial: nil)
            }
            // VP8 data that runs past its chunk ends with the input (see WebPDecoder.endInput).
            var collector = Collector(band: band)
            defer { band = collector.band }
            _ = try decoder.endInput { y, rgba, format in collector.take(y, rgba, format, rows) }
            if let failure = collector.failure { throw failure }
            try collector.flush(rows)
            return
        }
        let image = try decoder.finish()
        try image.withRowBand(0 ..< image.height, rows)
    }

    /// Rows collected during one `append` (a local, as the decoder is busy while they arrive).
    private struct Collector {
        var band: [UInt8]
        var start = 0, count = 0, width = 0
        var format: PixelFormat = .rgba8
        var failure: (any Error)?

        mutating func take(_ y: Int, _ rgba: UnsafeBufferPointer<UInt8>, _ format: PixelFormat, _ rows: (RowBand) throws -> Void) {
            guard failure == nil else { return }
            let width = rgba.count / 4
            if count > 0 && (y != start + count || count == WebPRowDecoder.bandRows) {
                do { try flush(rows) } catch { failure = error; return }
            }
            if count == 0 {
                start = y
                self.width = width
                self.format = format
            }
            let rowBytes = width * format.bytesPerPixel
            if band.count < (count + 1) * rowBytes { band.append(contentsOf: repeatElement(0, count: (count + 1) * rowBytes - band.count)) }
            band.withUnsafeMutableBufferPointer { out in
                let base = count * rowBytes
                if format.bytesPerPixel == 4 {
                    UnsafeMutableRawPointer(out.baseAddress! + base).copyMemory(from: rgba.baseAddress!, byteCount: rowBytes)
                } else {
                    for x in 0 ..< width {
                        out[base &+ 3 &* x] = rgba[4 &* x]
                        out[base &+ 3 &* x &+ 1] = rgba[4 &* x &+ 1]
                        out[base &+ 3 &* x &+ 2] = rgba[4 &* x &+ 2]
                    }
                }
            }
            count += 1
        }

        mutating func flush(_ rows: (RowBand) throws -> Void) throws {
            guard count > 0 else { return }
            let n = count
            count = 0
            let rowBytes = width * format.bytesPerPixel
            try band.withUnsafeBytes { raw in
                try rows(RowBand(y: start, count: n, width: width, format: format, bytesPerRow: rowBytes, base: raw.baseAddress!))
            }
        }
    }
}
