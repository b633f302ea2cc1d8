/// Decodes any supported format into rows handed out as soon as they are final, for consumers
/// that must not hold the whole image (the tile pyramid of ``TilePyramidWriter``).
///
/// The format is sniffed from the first bytes as ``ImageSource`` does. Sequential JPEGs whose
/// first scan holds every component, non-interlaced PNGs and Netpbm files stream: rows are
/// handed out by `append` as the bytes arrive, and memory does not grow with the image height
/// (a few MCU rows, one inflate block of rows or about 256 KB of raster, see `JPEGRowDecoder`,
/// `PNGRowDecoder` and ``NetpbmDecoder``); a still WebP streams too (`WebPRowDecoder`: a lossy
/// one holds a few macroblock rows, a lossless one its coded pixels, no RGBA image), an
/// animated one hands out its first frame at the end. Formats whose
/// rows only become final at the end are decoded whole and their rows handed out at their end:
/// a progressive or multi-scan JPEG keeps its coefficients (in a temporary file above
/// ``spillAbove``) and renders its rows a band at a time, an interlaced PNG keeps its image
/// (in a temporary file above ``spillAbove``); GIF (its first frame)
/// and formats an app registers go through ``ImageSource`` and are handed out by `finish`.
///
/// A JPNG yields its colour image: the JPEG part streams as RGB and the mask and footer after
/// its EOI are ignored (the alpha mask comes last, so it cannot accompany rows already handed
/// out). Use ``ImageSource`` for the RGBA image. Of the options only `limits` applies: rows are
/// as stored (no orientation, scaling or premultiplication). Pixels are the same bytes the
/// codec's `decode` gives. Errors are the codec's own (`JPEGError`, `PNGError`; through
/// `ImageSource` for the rest), or whatever `rows` throws; a file cut short hands out the rows
/// decoded so far, then throws the codec's truncation error.
///
/// ```swift
/// var decoder = RowStreamDecoder()
/// for chunk in chunks {
///     try decoder.append(chunk) { band in consume(band) }
/// }
/// try decoder.finish { band in consume(band) }
/// ```
public struct RowStreamDecoder: RowStreamingDecoder, Sendable {
    /// The options: only `limits` and `strict` apply (rows come as stored).
    public let options: ImageSourceOptions
    /// Bytes held until the format is known.
    private var prefix: [UInt8] = []
    private var jpeg: JPEGRowDecoder?
    private var png: PNGRowDecoder?
    private var netpbm: NetpbmDecoder?
    private var webp: WebPRowDecoder?
    private var whole: ImageSource?
    /// A progressive or multi-scan JPEG whose coefficients, or an interlaced PNG whose image,
    /// exceed this many bytes keeps them in a temporary file in ``spillDirectory``
    /// (`JPEGDecodingOptions.spillAbove`, `PNGDecodingOptions.spillAbove`), 16 MB of it in
    /// memory at a time, so their rows too come out in bounded memory. nil: always in memory.
    public var spillAbove: Int? = 128 << 20
    /// Where a spilled coefficient store's (unlinked) temporary file goes.
    public var spillDirectory: String = SpillBuffer.defaultDirectory

    /// Shrink-on-load for thumbnails: a JPEG decodes at the smallest DCT scale whose longer side
    /// is at least this (`JPEGDecodingOptions.scaleToFit`).
    var jpegScaleToFit: Int?
    /// A JPEG decodes at 1/8 (its blocks' averages) whenever that is at least this on its
    /// longer side (`JPEGDecodingOptions.dcScaleToFit`).
    var jpegDCScaleToFit: Int?
    /// A CMYK JPEG hands out its C, M, Y, K samples as `.rgba8` (Adobe-inverted, as
    /// `JPEGDecodingOptions.outputCMYK` gives them) instead of the formula's RGB, so a thumbnail
    /// can convert them through the file's CMYK profile after reducing them.
    var jpegOutputCMYK = false
    /// The DCT scale a JPEG decodes at, in eighths, once its header is read (nil before, and
    /// for other formats).
    var jpegScale: Int? { jpeg?.header != nil ? jpeg?.options.scale : nil }

    /// Bytes of the input the JPEG decoder has read, up to its EOI (nil for other formats).
    var jpegBytesConsumed: Int? { jpeg?.bytesConsumed }

    /// A decoder that waits for its first bytes to choose the format.
    public init(options: ImageSourceOptions = .init()) {
        self.options = options
    }

    /// The format, once the first bytes have told it (a JPNG reads as `.jpeg`: its JPEG part).
    public var format: ImageFileFormat? {
        if jpeg != nil { return .jpeg }
        if png != nil { return .png }
        if netpbm != nil { return .netpbm }
        if webp != nil { return .webp }
        return whole?.format
    }

    /// Size and pixel format of the rows to come, after the first `.header` event.
    public var header: ImageHeader? { jpeg?.header ?? png?.header ?? netpbm?.header ?? webp?.header ?? whole?.header }

    /// The metadata read so far.
    public var metadata: ImageMetadata { jpeg?.metadata ?? png?.metadata ?? webp?.metadata ?? whole?.metadata ?? ImageMetadata() }

    /// Damage decoded past so far (a file cut short warns in ``finish(rows:)``). Bytes after a
    /// JPEG's EOI are not damage here: they may be a JPNG's mask, as ``ImageSource`` reads them.
    public var warnings: [String] {
        if let jpeg { return jpeg.warnings.filter { !$0.hasPrefix("data after EOI") } }
        return png?.warnings ?? webpWarnings ?? whole?.warnings ?? []
    }

    /// True when rows come out as the bytes arrive (a streamable JPEG or PNG), false when they
    /// come at the end. Known at the first scan of a JPEG, at the `.header` event of a PNG.
    public var isStreaming: Bool { jpeg?.isStreaming ?? png?.isStreaming ?? webp?.isStreaming ?? (netpbm?.header != nil) }

    /// The `.warning` events of a WebP (its decoder keeps none).
    private var webpWarnings: [String]?

    /// Feeds the next bytes; `rows` receives every band that became final.
    @discardableResult
    public mutating func append(_ bytes: UnsafeRawBufferPointer, rows: (RowBand) throws -> Void) throws -> [DecodingEvent] {
        if jpeg != nil { return try jpeg?.append(bytes, rows: rows) ?? [] }
        if png != nil { return try png?.append(bytes, rows: rows) ?? [] }
        if netpbm != nil { return try netpbm?.append(bytes, rows: rows) ?? [] }
        if webp != nil { return noteWarnings(try webp?.append(bytes, rows: rows) ?? []) }
        if whole != nil { return try whole?.append(bytes) ?? [] }
        prefix.append(contentsOf: bytes)
        return try start(final: false, rows: rows)
    }

    /// Ends the input: `rows` receives the rows not handed out yet. Throws the codec's error
    /// (a truncation error after the rows decoded so far).
    public mutating func finish(rows: (RowBand) throws -> Void) throws {
        if jpeg == nil && png == nil && netpbm == nil && webp == nil && whole == nil { _ = try start(final: true, rows: rows) }
        if jpeg != nil {
            try jpeg?.finish(rows: rows)
            return
        }
        if png != nil {
            try png?.finish(rows: rows)
            return
        }
        if netpbm != nil {
            try netpbm?.finish(rows: rows)
            return
        }
        if webp != nil {
            try webp?.finish(rows: rows)
            return
        }
        var source = whole ?? ImageSource(options: ImageSourceOptions(limits: options.limits, strict: options.strict))
        let image = try source.finish()
        whole = source
        try image.withRowBand(0 ..< image.height, rows)
    }

    /// Picks the decoder once the first bytes decide (PNG needs its 8-byte signature, JPEG 3
    /// bytes) and feeds it what was held.
    private mutating func start(final: Bool, rows: (RowBand) throws -> Void) throws -> [DecodingEvent] {
        let isJPEG = prefix.starts(with: [0xFF, 0xD8])
        let isPNG = prefix.starts(with: pngSignature)
        let mayBeWebP = prefix.count < 12 && Array("RIFF".utf8).starts(with: prefix.prefix(4))
        guard isJPEG || isPNG || final || prefix.count >= pngSignature.count && !mayBeWebP else { return [] }
        let bytes = prefix
        prefix = []
        if isJPEG {
            var jpegOptions = JPEGDecodingOptions(strict: options.strict)
            jpegOptions.scaleToFit = jpegScaleToFit
            jpegOptions.dcScaleToFit = jpegDCScaleToFit
            jpegOptions.outputCMYK = jpegOutputCMYK
            jpegOptions.spillAbove = spillAbove
            jpegOptions.spillDirectory = spillDirectory
            jpegOptions.threads = options.threads
            jpeg = JPEGRowDecoder(limits: options.limits, options: jpegOptions)
            return try jpeg?.append(bytes, rows: rows) ?? []
        }
        if isPNG {
            var pngOptions = PNGDecodingOptions(strict: options.strict)
            pngOptions.spillAbove = spillAbove
            pngOptions.spillDirectory = spillDirectory
            png = PNGRowDecoder(limits: options.limits, options: pngOptions)
            return try png?.append(bytes, rows: rows) ?? []
        }
        if isWebP(bytes) {
            webp = WebPRowDecoder(limits: options.limits, options: options.webpOptions)
            webpWarnings = []
            return noteWarnings(try bytes.withUnsafeBytes { try webp?.append($0, rows: rows) } ?? [])
        }
        // Netpbm (`P1` ... `P7`, as cjpeg recognises it): rows as the raster arrives.
        if bytes.count >= 2 && bytes[0] == UInt8(ascii: "P") && (0x31 ... 0x37).contains(bytes[1]) {
            netpbm = NetpbmDecoder(streamingRowsWithin: options.limits)
            return try bytes.withUnsafeBytes { try netpbm?.append($0, rows: rows) } ?? []
        }
        var source = ImageSource(options: ImageSourceOptions(limits: options.limits, strict: options.strict))
        defer { whole = source }
        return bytes.isEmpty ? [] : try source.append(bytes)
    }

    private mutating func noteWarnings(_ events: [DecodingEvent]) -> [DecodingEvent] {
        for case let .warning(text) in events where (webpWarnings?.count ?? 0) < 100 { webpWarnings?.append(text) }
        return events
    }
}
