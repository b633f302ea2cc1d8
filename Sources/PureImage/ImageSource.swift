/// Errors of ``ImageSource`` itself; decoding errors come through as the codec's own type
/// (`PNGError`, `JPEGError`, `GIFError`, `WebPError`, `JPNGError`).
public enum ImageSourceError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The first bytes match no registered format.
    case unknownFormat(prefix: [UInt8])
    /// `finish()` with no bytes at all.
    case noData

    /// The error in one line, as the CLI prints it.
    public var description: String {
        switch self {
        case let .unknownFormat(prefix):
            "not a recognised image (first bytes \(prefix.prefix(8).map { String($0, radix: 16) }.joined(separator: " ")))"
        case .noData: "no image data"
        }
    }
}

/// One incremental decoding API over every format: sniffs the format from the first bytes,
/// then drives that format's decoder.
///
/// ```swift
/// var source = ImageSource()
/// for try await chunk in download {
///     for event in try source.append(chunk) {
///         switch event {
///         case .header(let header): print("\(header.fileFormat) \(header.width)x\(header.height)")
///         case .rows, .passComplete, .scanComplete, .frameComplete:
///             if let preview = source.preview() { show(preview) }
///         default: break
///         }
///     }
/// }
/// let image = try source.finish()
/// ```
public struct ImageSource: Sendable {
    /// The formats this source recognises.
    public let registry: ImageDecoderRegistry
    /// What the decoders are asked for (limits, size target, orientation, alpha).
    public let options: ImageSourceOptions
    private var prefix: [UInt8] = []
    private var decoder: (any ImageSourceDecoder)?
    private var failure: ImageSourceError?
    /// Bytes appended so far.
    public private(set) var bytesReceived = 0
    /// The `.warning` events returned so far.
    private var eventWarnings: [String] = []

    /// Damage decoded past so far (the `.warning` events), including what ``finish()`` met: a
    /// JPEG cut short is completed there, and `finish()` has no events to return.
    public var warnings: [String] { (decoder?.reportedWarnings ?? eventWarnings) + colorWarnings }
    /// What the colour conversion of ``finish()`` reported (``ImageSourceOptions/colorSpace``).
    private var colorWarnings: [String] = []

    /// A source that waits for its first bytes to choose a decoder from `registry`.
    public init(registry: ImageDecoderRegistry = .standard, options: ImageSourceOptions = .init()) {
        self.registry = registry
        self.options = options
    }

    /// The format, once the first bytes have told it (JPEG becomes JPNG when the mask arrives).
    public var format: ImageFileFormat? { decoder?.detectedFormat }

    /// Size, pixel format and frame count so far, after the `.header` event.
    public var header: ImageHeader? { decoder?.header }

    /// The metadata read so far (ICC profile, EXIF, text, ...).
    public var metadata: ImageMetadata { decoder?.metadata ?? ImageMetadata() }

    /// Feeds the next bytes; returns what became available.
    public mutating func append(_ bytes: UnsafeRawBufferPointer) throws -> [DecodingEvent] {
        if let failure { throw failure }
        bytesReceived += bytes.count
        let events: [DecodingEvent]
        if let decoded = try withDecoder({ try $0.append(bytes) }) {
            events = decoded
        } else {
            prefix.append(contentsOf: bytes)
            events = try start(final: false)
        }
        for case let .warning(text) in events where eventWarnings.count < 100 { eventWarnings.append(text) }
        return events
    }

    /// Feeds the next bytes from any collection (`[UInt8]`, `ArraySlice<UInt8>`, `Data`); returns what became available.
    public mutating func append<C: Collection>(_ bytes: C) throws -> [DecodingEvent] where C.Element == UInt8 {
        if let events = try bytes.withContiguousStorageIfAvailable({ try append(UnsafeRawBufferPointer($0)) }) {
            return events
        }
        return try Array(bytes).withUnsafeBytes { try append($0) }
    }

    /// Ends the input: the complete image (with the options' orientation, premultiplication
    /// and size applied), or the codec's error (a truncation error carries the partial image).
    public mutating func finish() throws -> Image {
        if let failure { throw failure }
        if decoder == nil {
            if prefix.isEmpty { throw fail(.noData) }
            for case let .warning(text) in try start(final: true) { eventWarnings.append(text) }
        }
        guard let image = try withDecoder({ try $0.finish() }) else { throw fail(.noData) }
        return finalize(image, storedSize: decoder?.storedSize)
    }

    /// The best displayable image so far, or nil before the header.
    public func preview() -> Image? {
        decoder?.preview()
    }

    /// What the input has told about the file so far (complete after ``finish()``), or nil
    /// before the header.
    public func describe() -> ImageDescription? {
        guard let decoder, var header = decoder.header else { return nil }
        let frames = decoder.animationFrames
        if decoder.isAnimation { header.frameCount = frames.count }
        return ImageDescription(format: decoder.detectedFormat, header: header, metadata: decoder.metadata,
                                details: decoder.details, frames: frames, loopCount: decoder.animationLoopCount,
                                isAnimation: decoder.isAnimation, fileSize: bytesReceived)
    }

    /// Decodes a whole file and describes it: format, size, colour, frames, metadata and the
    /// format's own facts (what `jpng info` prints). Throws what ``decode(_:registry:options:)``
    /// throws, so a damaged file is reported, not described.
    ///
    /// ```swift
    /// let description = try ImageSource.describe(bytes)
    /// print(description.jsonDocument())
    /// ```
    public static func describe(_ bytes: [UInt8], registry: ImageDecoderRegistry = .standard,
                                options: ImageSourceOptions = .init()) throws -> ImageDescription {
        let known = options.knowingInputSize(bytes.count)
        var source = ImageSource(registry: registry, options: known)
        _ = try source.append(bytes)
        _ = try source.finish()
        guard let description = source.describe() else { throw ImageSourceError.noData }
        return description
    }

    /// The animation of a whole file that is one (a GIF, an APNG, an animated WebP), frames composited on
    /// request; nil for a still image. Throws ``ImageSourceError/unknownFormat(prefix:)``
    /// for bytes no registered format matches, and the codec's error for a broken animation.
    ///
    /// ```swift
    /// if let animation = try ImageSource.animation(bytes) {
    ///     try animation.forEachFrame { index, canvas in save(canvas, index) }
    /// }
    /// ```
    public static func animation(_ bytes: [UInt8], registry: ImageDecoderRegistry = .standard,
                                 options: ImageSourceOptions = .init()) throws -> (any ImageAnimation)? {
        if bytes.isEmpty { throw ImageSourceError.noData }
        guard case let .some(found) = registry.lookup(bytes, final: true), let entry = found else {
            throw ImageSourceError.unknownFormat(prefix: Array(bytes.prefix(16)))
        }
        let known = options.knowingInputSize(bytes.count)
        return try entry.makeAnimation?(bytes, known) ?? nil
    }

    /// Decodes a whole file: the same decoder as incremental decoding, fed everything at once, so
    /// the two never disagree (a JPNG is a JPEG followed by its mask and footer).
    ///
    /// ```swift
    /// let image = try ImageSource.decode([UInt8](data), options: ImageSourceOptions(maxPixelSize: 1024))
    /// ```
    public static func decode(_ bytes: [UInt8], registry: ImageDecoderRegistry = .standard,
                              options: ImageSourceOptions = .init()) throws -> Image {
        let known = options.knowingInputSize(bytes.count)
        var source = ImageSource(registry: registry, options: known)
        _ = try source.append(bytes)
        return try source.finish()
    }

    /// Runs `body` on the decoder in place (moved out and back, so its buffers stay uniquely
    /// referenced and are not copied); nil before the format is known.
    private mutating func withDecoder<R>(_ body: (inout any ImageSourceDecoder) throws -> R) throws -> R? {
        guard var current = decoder else { return nil }
        decoder = nil
        defer { decoder = current }
        return try body(&current)
    }

    private mutating func fail(_ error: ImageSourceError) -> ImageSourceError {
        failure = error
        return error
    }

    private mutating func start(final: Bool) throws -> [DecodingEvent] {
        switch registry.lookup(prefix, final: final) {
        case nil:
            return []
        case .some(nil):
            throw fail(.unknownFormat(prefix: Array(prefix.prefix(16))))
        case let .some(entry?):
            var made = entry.make(options)
            let bytes = prefix
            prefix = []
            let events = try bytes.withUnsafeBytes { try made.append($0) }
            decoder = made
            return events
        }
    }

    private mutating func finalize(_ decoded: Image, storedSize: (width: Int, height: Int)?) -> Image {
        var image = decoded
        let factor = options.subsampleFactor
        if factor > 1, let (width, height) = storedSize {
            // A no-op where the decoder scaled already (JPEG's DCT scaling gives the same size).
            image = image.downsampled(width: (width + factor - 1) / factor, height: (height + factor - 1) / factor)
        }
        if options.applyOrientation { image = image.oriented(image.metadata.orientation) }
        if let maxSide = options.maxPixelSize, maxSide > 0, max(image.width, image.height) > maxSide {
            image = image.downsampled(maxPixelSize: maxSide)
        }
        if let space = options.colorSpace {
            let (converted, warning) = image.inColorSpace(space, threads: options.threads)
            if let warning { colorWarnings.append(warning) }
            image = converted
        }
        if let policy = options.metadata { image.metadata = image.metadata.kept(policy) }
        if options.premultiplyAlpha { image = image.premultiplied() }
        return image
    }
}

extension ImageSourceOptions {
    /// The options for a whole file of `size` bytes: the limits know the input's size, so the
    /// decompression-ratio check applies from the header on.
    func knowingInputSize(_ size: Int) -> ImageSourceOptions {
        var known = self
        known.limits = limits.knowingInputSize(size)
        return known
    }
}
