/// A decoder `ImageSource` can drive: any incremental decoder, its typed error seen as `any Error`.
/// The package's decoders conform; an app's own decoder conforms by implementing these.
public protocol ImageSourceDecoder: Sendable {
    /// Size, pixel format and frame count, once the header has been read.
    var header: ImageHeader? { get }
    /// The metadata read so far.
    var metadata: ImageMetadata { get }
    /// The container format, once known (JPEG and JPNG look alike until the end).
    var detectedFormat: ImageFileFormat { get }
    /// Feeds the next bytes; returns what became available. After an error every call throws it.
    mutating func append(_ bytes: UnsafeRawBufferPointer) throws -> [DecodingEvent]
    /// Ends the input: the complete image, or the codec's error (truncation carries the partial image).
    mutating func finish() throws -> Image
    /// The best displayable image so far, cheap enough to call once per event.
    func preview() -> Image?
    /// Facts particular to the format, for ``ImageDescription`` (as far as the input has told).
    var details: [ImageDetail] { get }
    /// The frames of an animation declared so far (empty for still images).
    var animationFrames: [AnimationFrameInfo] { get }
    /// The animation's loop count, when the file gives one.
    var animationLoopCount: Int? { get }
    /// Whether the format is an animation format (a GIF, even of one frame).
    var isAnimation: Bool { get }
    /// The image's size as stored, before any scaling the decoder does itself (JPEG's DCT
    /// scaling), once known.
    var storedSize: (width: Int, height: Int)? { get }
    /// Every warning so far, when the decoder keeps them (it may warn in `finish()`, which
    /// returns no events); nil: the `.warning` events are all there is.
    var reportedWarnings: [String]? { get }
}

extension ImageSourceDecoder {
    /// No facts beyond the header, unless the decoder says more.
    public var details: [ImageDetail] { [] }
    /// A still image: no frames.
    public var animationFrames: [AnimationFrameInfo] { [] }
    /// No loop count.
    public var animationLoopCount: Int? { nil }
    /// A still-image format.
    public var isAnimation: Bool { false }
    /// The header's size (a decoder that scales by itself says otherwise).
    public var storedSize: (width: Int, height: Int)? { header.map { ($0.width, $0.height) } }
    /// The `.warning` events are all there is.
    public var reportedWarnings: [String]? { nil }
}

extension PNGDecoder: ImageSourceDecoder {
    /// Always PNG.
    public var detectedFormat: ImageFileFormat { .png }

    /// Colour type, bit depth and palette size.
    public var details: [ImageDetail] {
        guard let info else { return [] }
        var details = [ImageDetail("colour type", "\(info.colorType) (\(info.colorType.rawValue))"),
                       ImageDetail("bit depth", "\(info.bitDepth)")]
        if let palette = info.palette { details.append(ImageDetail("palette", "\(palette.count) entries")) }
        if let control = animationControl {
            let plays = control.plays == 0 ? "forever" : control.plays == 1 ? "once" : "\(control.plays) times"
            details.append(ImageDetail("animation", "APNG, \(control.frameCount) frames, plays \(plays)"))
        }
        return details
    }

    /// The APNG frames, when the file is a valid animation.
    public var animationFrames: [AnimationFrameInfo] { frameControls.enumerated().map { $1.animationFrameInfo(index: $0) } }
    /// acTL's `num_plays` as a loop count (see `APNGAnimationControl.loopCount`).
    public var animationLoopCount: Int? { animationControl?.loopCount }
    /// A PNG is an animation when it has a valid acTL (APNG).
    public var isAnimation: Bool { isAnimated }
    /// `PNGDecoder.warnings`, which include those of `finish()` (a file that ends before IEND).
    public var reportedWarnings: [String]? { warnings }
}

extension NetpbmDecoder: ImageSourceDecoder {
    /// Always Netpbm.
    public var detectedFormat: ImageFileFormat { .netpbm }
    /// Netpbm files carry no metadata.
    public var metadata: ImageMetadata { ImageMetadata() }

    /// The format and maxval (PAM: the tuple type).
    public var details: [ImageDetail] {
        guard header != nil else { return [] }
        let names = [1: "PBM, plain", 2: "PGM, plain", 3: "PPM, plain", 4: "PBM, raw", 5: "PGM, raw", 6: "PPM, raw", 7: "PAM"]
        var details = [ImageDetail("type", "P\(magic) (\(names[magic] ?? "?"))"), ImageDetail("maxval", "\(maxval)")]
        if !tupleType.isEmpty { details.append(ImageDetail("tuple type", tupleType)) }
        return details
    }
}

extension GIFDecoder: ImageSourceDecoder {
    /// Always GIF.
    public var detectedFormat: ImageFileFormat { .gif }

    /// The loop count in words, and where a truncated file ends.
    public var details: [ImageDetail] {
        guard header != nil else { return [] }
        var details = [ImageDetail("loop count", GIFLoop.describe(loopCount: loopCount))]
        if !isComplete { details.append(ImageDetail("truncated at byte", "\(offset)")) }
        return details
    }

    /// The frames read so far, in the shared terms.
    public var animationFrames: [AnimationFrameInfo] { frames.map(\.animationFrameInfo) }
    /// The NETSCAPE2.0 loop count, when the file has one.
    public var animationLoopCount: Int? { loopCount }
    /// GIF is an animation format, even with one frame.
    public var isAnimation: Bool { true }
}

extension JPEGDecoder: ImageSourceDecoder {
    /// Always JPEG.
    public var detectedFormat: ImageFileFormat { .jpeg }

    /// Process, components, sampling, scans, quality estimate, restart interval, Adobe and JFIF.
    public var details: [ImageDetail] { info?.details ?? [] }
    /// The frame header's size, before DCT scaling.
    public var storedSize: (width: Int, height: Int)? { info.map { ($0.width, $0.height) } }
    /// `JPEGDecoder.warnings`, which include those of `finish()` (a file cut short).
    public var reportedWarnings: [String]? { warnings }
}

extension JPNGStreamDecoder: ImageSourceDecoder {
    /// JPEG until the mask and footer are recognised, JPNG after.
    public var detectedFormat: ImageFileFormat { fileFormat }

    /// The container's version and parts, then the colour part's JPEG facts.
    public var details: [ImageDetail] {
        var details: [ImageDetail] = []
        if let footer {
            let legacy = footer.identifierValue == JPNGFooter.legacyIdentifier
            details += [
                ImageDetail("JPNG version", "\(footer.majorVersion).\(footer.minorVersion)" + (legacy ? " (pre-1.1 identifier)" : "")),
                ImageDetail("colour part", "\(footer.imageSize) bytes JPEG"),
                ImageDetail("mask part", "\(footer.maskSize) bytes PNG" + (maskFormat.map { " (\($0))" } ?? "")),
            ]
        }
        return details + (jpegInfo?.details ?? [])
    }

    /// The colour part's frame size, before DCT scaling.
    public var storedSize: (width: Int, height: Int)? { jpegInfo.map { ($0.width, $0.height) } }
    /// The colour part's warnings (`JPEGDecoder.warnings`).
    public var reportedWarnings: [String]? { jpegWarnings }
}

/// What the standard registry makes for files that start as a JPEG: a JPNG is a JPEG until its
/// mask arrives, so one decoder reads both; errors of the colour part are the JPEG decoder's own
/// (`JPEGError`, a truncated JPEG `JPEGError.truncated` with its partial image), as they would
/// be from `JPEGDecoder`, and `JPNGError` is left for what is JPNG's (the mask and footer).
struct JPEGFamilyDecoder: ImageSourceDecoder {
    var decoder: JPNGStreamDecoder
    /// True when the decoder was asked for CMYK samples (an sRGB decode): a CMYK file's image
    /// is then turned into sRGB here, through its CMYK profile when it has one.
    var cmykToSRGB = false
    var cmykThreads: Int?
    var cmykWarnings: [String] = []

    var header: ImageHeader? { decoder.header }
    var metadata: ImageMetadata { decoder.metadata }
    var detectedFormat: ImageFileFormat { decoder.detectedFormat }
    var details: [ImageDetail] { decoder.details }
    var storedSize: (width: Int, height: Int)? { decoder.storedSize }
    var reportedWarnings: [String]? {
        cmykWarnings.isEmpty ? decoder.reportedWarnings : (decoder.reportedWarnings ?? []) + cmykWarnings
    }

    mutating func append(_ bytes: UnsafeRawBufferPointer) throws -> [DecodingEvent] {
        do { return try decoder.append(bytes) } catch { throw unwrapped(error) }
    }

    mutating func finish() throws -> Image {
        let image: Image
        do { image = try decoder.finish() } catch { throw unwrapped(error) }
        guard isCMYK(image) else { return image }
        let (rgb, warning) = image.cmykInSRGB(threads: cmykThreads)
        if let warning { cmykWarnings.append(warning) }
        return rgb
    }

    func preview() -> Image? {
        guard let image = decoder.preview() else { return nil }
        return isCMYK(image) ? image.cmykInSRGB(threads: cmykThreads).image : image
    }

    private func isCMYK(_ image: Image) -> Bool {
        cmykToSRGB && image.format == .rgba8 && decoder.jpegInfo?.components == 4
    }

    private func unwrapped(_ error: JPNGError) -> any Error {
        switch error {
        case let .colorPart(jpegError): jpegError
        case let .truncated(offset, partial) where !decoder.colorPartComplete:
            JPEGError.truncated(offset: offset, partial: partial)
        default: error
        }
    }
}

extension JPEGInfo {
    /// The facts `jpng info` lists for a JPEG.
    var details: [ImageDetail] {
        let sampling = samplingFactors.map { "\($0.horizontal)x\($0.vertical)" }.joined(separator: ",")
        var details = [ImageDetail("process", "\(process)"), ImageDetail("precision", "\(precision) bits"),
                       ImageDetail("components", "\(components)"),
                       ImageDetail("sampling", sampling), ImageDetail("scans", "\(scanCount)")]
        if let q = estimatedQuality { details.append(ImageDetail("quality estimate", "\(q)")) }
        if restartInterval > 0 { details.append(ImageDetail("restart interval", "\(restartInterval) MCUs")) }
        if let t = adobeTransform { details.append(ImageDetail("Adobe transform", "\(t)")) }
        if isJFIF { details.append(ImageDetail("JFIF", "yes")) }
        return details
    }
}

extension GIFLoop {
    /// The loop count as people read it.
    static func describe(loopCount: Int?) -> String {
        switch loopCount {
        case nil: "none (plays once)"
        case 0?: "0 (forever)"
        case let n?: "\(n) (plays \(n + 1) times)"
        }
    }
}

/// What ``ImageSource`` asks of the decoders it makes.
public struct ImageSourceOptions: Sendable, Equatable {
    /// The limits every decoder checks before it allocates (see `DecodingLimits`).
    public var limits: DecodingLimits
    /// Decode no larger than this many pixels on the longer side (nil: full size). JPEG uses
    /// DCT scaling (1/2, 1/4, 1/8) as far as it stays at or above the target; an area average
    /// does the rest.
    public var maxPixelSize: Int?
    /// Turn the result upright per its EXIF orientation.
    public var applyOrientation: Bool
    /// Premultiply colour by alpha in the result.
    public var premultiplyAlpha: Bool
    /// Decode at 1/N of the stored size, `ceil(width / N)` x `ceil(height / N)` (1: full size).
    /// JPEG (and JPNG's colour part) scales in the DCT domain for 2, 4 and 8, the cheapest way
    /// to a thumbnail; other formats and factors are reduced by area average after decoding.
    public var subsampleFactor: Int
    /// Threads a decoder may use (a PNG's rows unfiltered on a second thread while the first
    /// inflates, APNG frames decoded ahead, a JPEG's rows reconstructed and a lossy WebP's
    /// macroblock rows parsed on a second thread): nil, the processors online; 1, the calling
    /// thread only. Pixels are the same for any count.
    public var threads: Int?
    /// Damaged files throw instead of being decoded the way libjpeg-turbo, libpng and browsers
    /// decode them (`JPEGDecodingOptions.strict`, `PNGDecodingOptions.strict`,
    /// `GIFDecodingOptions.strict`, `WebPDecodingOptions.strict`). Off by default.
    public var strict: Bool
    /// The colour space of the result (``OutputColorSpace``): nil, the operation's default,
    /// which is the pixels as stored for ``ImageSource`` decodes (bit-exact with djpeg and
    /// libpng) and sRGB for thumbnails (``ThumbnailDecoder``).
    public var colorSpace: OutputColorSpace?
    /// Which metadata the result keeps (`MetadataPolicy`): nil, the operation's default,
    /// everything for decodes and colour only for thumbnails (no EXIF: no GPS position).
    public var metadata: MetadataPolicy?

    /// Options with the default limits, full size, stored orientation, straight alpha and
    /// lenient decoding of damaged files unless given.
    public init(limits: DecodingLimits = .default, maxPixelSize: Int? = nil, applyOrientation: Bool = false,
                premultiplyAlpha: Bool = false, subsampleFactor: Int = 1, threads: Int? = nil, strict: Bool = false,
                colorSpace: OutputColorSpace? = nil, metadata: MetadataPolicy? = nil) {
        self.strict = strict
        self.colorSpace = colorSpace
        self.metadata = metadata
        self.limits = limits
        self.maxPixelSize = maxPixelSize
        self.applyOrientation = applyOrientation
        self.premultiplyAlpha = premultiplyAlpha
        self.subsampleFactor = subsampleFactor
        self.threads = threads
    }

    /// WebP options with `useThreads` (a lossy frame's macroblock rows parsed on a second
    /// thread while this one reconstructs, filters and hands them out) as `threads` allows, as
    /// for JPEG: nil, with a second processor from half a megapixel; above 1, for any size.
    var webpOptions: WebPDecodingOptions {
        var options = WebPDecodingOptions(strict: strict, useThreads: (threads ?? Processors.online) > 1)
        if threads == nil { options.minimumThreadedPixels = 1 << 19 }
        return options
    }

    /// The JPEG DCT scale (eighths) that gives `subsampleFactor` exactly, or 8 (full size) when
    /// no scale does.
    var dctScale: Int {
        switch subsampleFactor {
        case 2: 4
        case 4: 2
        case 8: 1
        default: 8
        }
    }
}

/// Formats recognised from their first bytes, each with a factory for its decoder. Apps add
/// their own (checked before the built-in ones), as Nuke's registry does.
///
/// ```swift
/// var registry = ImageDecoderRegistry.standard
/// registry.register(ImageDecoderRegistry.Entry(format: ImageFileFormat(rawValue: "QOI"), minimumBytes: 4,
///     matches: { $0.starts(with: Array("qoif".utf8)) },
///     make: { _ in QOIDecoder() }))
/// var source = ImageSource(registry: registry)
/// ```
public struct ImageDecoderRegistry: Sendable {
    /// One format: how to recognise it and how to make its decoder.
    public struct Entry: Sendable {
        /// The format the entry decodes.
        public var format: ImageFileFormat
        /// Bytes needed before `matches` can answer.
        public var minimumBytes: Int
        /// Whether the first bytes (at least `minimumBytes` of them, fewer only at the end of a short file) are this format.
        public var matches: @Sendable ([UInt8]) -> Bool
        /// Makes a decoder for one file.
        public var make: @Sendable (ImageSourceOptions) -> any ImageSourceDecoder
        /// For animated formats: the animation of a whole file, frames composited on request (nil
        /// for a file of the format that is a still image).
        public var makeAnimation: (@Sendable ([UInt8], ImageSourceOptions) throws -> (any ImageAnimation)?)?

        /// An entry; `makeAnimation` only for animated formats.
        public init(format: ImageFileFormat, minimumBytes: Int, matches: @escaping @Sendable ([UInt8]) -> Bool,
                    make: @escaping @Sendable (ImageSourceOptions) -> any ImageSourceDecoder,
                    makeAnimation: (@Sendable ([UInt8], ImageSourceOptions) throws -> (any ImageAnimation)?)? = nil) {
            self.format = format
            self.minimumBytes = minimumBytes
            self.matches = matches
            self.make = make
            self.makeAnimation = makeAnimation
        }
    }

    /// The entries in the order they are tried.
    public private(set) var entries: [Entry]

    /// A registry of these entries, tried in order (an empty one recognises nothing).
    public init(entries: [Entry] = []) { self.entries = entries }

    /// Adds a format, checked before those already registered.
    public mutating func register(_ entry: Entry) { entries.insert(entry, at: 0) }

    /// PNG, JPEG (and JPNG, which starts as a JPEG), GIF, WebP, Netpbm (PBM, PGM, PPM, PAM).
    public static let standard = ImageDecoderRegistry(entries: [
        Entry(format: .png, minimumBytes: 8, matches: { $0.starts(with: pngSignature) },
              make: { PNGDecoder(limits: $0.limits, options: PNGDecodingOptions(strict: $0.strict, threads: $0.threads)) },
              makeAnimation: { bytes, options in
                  let animation = try APNGAnimation(bytes: bytes, limits: options.limits,
                                                    options: PNGDecodingOptions(strict: options.strict, threads: options.threads))
                  return animation.isAnimated ? animation : nil
              }),
        // SOI is all libjpeg asks of a JPEG (garbage may follow it before the first marker).
        Entry(format: .jpeg, minimumBytes: 2, matches: { $0.starts(with: [0xFF, 0xD8]) },
              make: { options in
                  // An sRGB decode asks for CMYK samples, so a CMYK file's profile can be applied.
                  let cmyk = options.colorSpace == .sRGB
                  return JPEGFamilyDecoder(decoder: JPNGStreamDecoder(limits: options.limits,
                                                                      options: JPEGDecodingOptions(scale: options.dctScale,
                                                                                                   outputCMYK: cmyk,
                                                                                                   strict: options.strict,
                                                                                                   threads: options.threads),
                                                                      maxPixelSize: options.maxPixelSize),
                                           cmykToSRGB: cmyk, cmykThreads: options.threads)
              }),
        Entry(format: .gif, minimumBytes: 6,
              matches: { $0.starts(with: Array("GIF87a".utf8)) || $0.starts(with: Array("GIF89a".utf8)) },
              make: { options in
                  // One image is asked for: later frames are parsed, not decoded (strict: decoded,
                  // so their damage is an error).
                  var decoder = GIFDecoder(limits: options.limits, options: options.strict ? .strict : .init())
                  decoder.decodesFirstFrameOnly = !options.strict
                  return decoder
              },
              makeAnimation: { bytes, options in
                  try GIFAnimation(bytes: bytes, limits: options.limits, options: options.strict ? .strict : .init())
              }),
        // `RIFF` size `WEBP`, as libwebp's `WebPGetInfo` checks it.
        Entry(format: .webp, minimumBytes: 12, matches: isWebP,
              make: { WebPDecoder(limits: $0.limits, options: $0.webpOptions) },
              makeAnimation: { bytes, options in
                  let animation = try WebPAnimation(bytes: bytes, limits: options.limits, options: options.webpOptions)
                  return animation.animLoopCount != nil ? animation : nil
              }),
        // `P1` ... `P7`, as cjpeg recognises its input.
        Entry(format: .netpbm, minimumBytes: 2,
              matches: { $0.count >= 2 && $0[0] == UInt8(ascii: "P") && (0x31 ... 0x37).contains($0[1]) },
              make: { NetpbmDecoder(limits: $0.limits) }),
    ])

    /// The entry for these first bytes: `.some(entry)`, `.none` when nothing can match, or
    /// nil while more bytes could still decide.
    func lookup(_ prefix: [UInt8], final: Bool) -> Entry?? {
        var undecided = false
        for entry in entries {
            if prefix.count >= entry.minimumBytes {
                if entry.matches(prefix) { return .some(entry) }
            } else if !final {
                undecided = true
            } else if entry.matches(prefix) {
                return .some(entry)
            }
        }
        return undecided ? nil : .some(nil)
    }
}
