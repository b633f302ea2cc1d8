/// A container format, extensible by apps that register their own decoders.
public struct ImageFileFormat: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The format's name, such as "PNG"; also its ``description``.
    public var rawValue: String
    /// A format named `rawValue`, e.g. `ImageFileFormat(rawValue: "QOI")` for an app's own decoder.
    public init(rawValue: String) { self.rawValue = rawValue }
    /// PNG (and APNG).
    public static let png = ImageFileFormat(rawValue: "PNG")
    /// JPEG (JFIF, EXIF, baseline, extended or progressive).
    public static let jpeg = ImageFileFormat(rawValue: "JPEG")
    /// GIF 87a and 89a, still or animated.
    public static let gif = ImageFileFormat(rawValue: "GIF")
    /// WebP: lossy (VP8), lossless (VP8L), with alpha, still or animated.
    public static let webp = ImageFileFormat(rawValue: "WebP")
    /// JPNG: a JPEG with a PNG alpha mask and a footer.
    public static let jpng = ImageFileFormat(rawValue: "JPNG")
    /// The format's name.
    public var description: String { rawValue }
}

/// What a decoder knows once the header is read.
public struct ImageHeader: Sendable, Equatable {
    /// The container format.
    public var fileFormat: ImageFileFormat
    /// Width in pixels (for an animation, the canvas).
    public var width: Int
    /// Height in pixels (for an animation, the canvas).
    public var height: Int
    /// The format the decoder produces by default (the source's channels and depth).
    public var pixelFormat: PixelFormat
    /// Adam7 (PNG) or interlaced (GIF) rows.
    public var isInterlaced: Bool
    /// A progressive JPEG.
    public var isProgressive: Bool
    /// Frames seen so far (1 for still images).
    public var frameCount: Int

    /// A header; decoders make these, and an app's own decoder reports one in its `.header` event.
    public init(fileFormat: ImageFileFormat, width: Int, height: Int, pixelFormat: PixelFormat,
                isInterlaced: Bool = false, isProgressive: Bool = false, frameCount: Int = 1) {
        self.fileFormat = fileFormat
        self.width = width
        self.height = height
        self.pixelFormat = pixelFormat
        self.isInterlaced = isInterlaced
        self.isProgressive = isProgressive
        self.frameCount = frameCount
    }
}

/// Something an incremental decoder reports as bytes arrive.
public enum DecodingEvent: Sendable, Equatable {
    /// The header has been read: size and format are known.
    case header(ImageHeader)
    /// Rows `range` of the current frame are final (sequential images).
    case rows(Range<Int>)
    /// Interlace pass `index` (0-based) is complete; ``IncrementalImageDecoder/preview()`` fills the rest.
    case passComplete(Int)
    /// Progressive scan `index` (0-based) is complete; the preview refines.
    case scanComplete(Int)
    /// Frame `index` of an animation started.
    case frameStarted(Int)
    /// Frame `index` of an animation is complete.
    case frameComplete(Int)
    /// A recoverable problem (e.g. corrupt data skipped at a restart marker).
    case warning(String)
    /// The end of the image (or of the last frame): `finish()` will succeed.
    case end
}

/// A resumable decoder fed bytes as they arrive.
///
/// ```swift
/// var decoder = PNGDecoder()
/// for chunk in download {
///     for event in try decoder.append(chunk) {
///         if case .rows = event, let partial = decoder.preview() { show(partial) }
///     }
/// }
/// let image = try decoder.finish()   // throws .truncated with the partial image if cut short
/// ```
///
/// After an error every later call throws the same error.
public protocol IncrementalImageDecoder: Sendable {
    /// The decoder's error type (`PNGError`, `JPEGError`, `GIFError`, ...): every method throws
    /// only this type.
    associatedtype Failure: Error
    /// Known once the `.header` event has been reported.
    var header: ImageHeader? { get }
    /// The metadata read so far (complete after `.end`).
    var metadata: ImageMetadata { get }
    /// Feeds the next bytes; returns what became available.
    mutating func append(_ bytes: UnsafeRawBufferPointer) throws(Failure) -> [DecodingEvent]
    /// Ends the input: the complete image, or an error (a truncation error carries the partial image).
    mutating func finish() throws(Failure) -> Image
    /// The best displayable image so far (not-yet-decoded parts filled), or nil before the header.
    func preview() -> Image?
}

extension IncrementalImageDecoder {
    /// Feeds the next bytes from any byte collection.
    public mutating func append<C: Collection>(_ bytes: C) throws(Failure) -> [DecodingEvent] where C.Element == UInt8 {
        // `withContiguousStorageIfAvailable` rethrows untyped, so the typed error travels in a Result.
        let direct: Result<[DecodingEvent], Failure>? = bytes.withContiguousStorageIfAvailable { buffer in
            Result { () throws(Failure) -> [DecodingEvent] in try self.append(UnsafeRawBufferPointer(buffer)) }
        }
        if let direct { return try direct.get() }
        let copy = Array(bytes)
        let result = copy.withUnsafeBytes { raw in
            Result { () throws(Failure) -> [DecodingEvent] in try self.append(raw) }
        }
        return try result.get()
    }
}
