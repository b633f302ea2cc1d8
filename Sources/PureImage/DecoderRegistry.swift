/// A decoder `ImageSource` can drive: any incremental decoder, its typed error seen as `any Error`.
/// The package's decoders conform; an app's own decoder conforms by implementing these.
public protocol ImageSourceDecoder: Sendable {
    var header: ImageHeader? { get }
    var metadata: ImageMetadata { get }
    /// The container format, once known (JPEG and JPNG look alike until the end).
    var detectedFormat: ImageFileFormat { get }
    mutating func append(_ bytes: UnsafeRawBufferPointer) throws -> [DecodingEvent]
    mutating func finish() throws -> Image
    func preview() -> Image?
}

extension PNGDecoder: ImageSourceDecoder {
    public var detectedFormat: ImageFileFormat { .png }
}
extension GIFDecoder: ImageSourceDecoder {
    public var detectedFormat: ImageFileFormat { .gif }
}
extension JPEGDecoder: ImageSourceDecoder {
    public var detectedFormat: ImageFileFormat { .jpeg }
}
extension JPNGStreamDecoder: ImageSourceDecoder {
    public var detectedFormat: ImageFileFormat { fileFormat }
}

/// What ``ImageSource`` asks of the decoders it makes.
public struct ImageSourceOptions: Sendable, Equatable {
    public var limits: DecodingLimits
    /// Decode no larger than this many pixels on the longer side (nil: full size). JPEG uses
    /// DCT scaling (1/2, 1/4, 1/8) as far as it stays at or above the target; an area average
    /// does the rest.
    public var maxPixelSize: Int?
    /// Turn the result upright per its EXIF orientation.
    public var applyOrientation: Bool
    /// Premultiply colour by alpha in the result.
    public var premultiplyAlpha: Bool

    public init(limits: DecodingLimits = .default, maxPixelSize: Int? = nil, applyOrientation: Bool = false,
                premultiplyAlpha: Bool = false) {
        self.limits = limits
        self.maxPixelSize = maxPixelSize
        self.applyOrientation = applyOrientation
        self.premultiplyAlpha = premultiplyAlpha
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
    public struct Entry: Sendable {
        public var format: ImageFileFormat
        /// Bytes needed before `matches` can answer.
        public var minimumBytes: Int
        public var matches: @Sendable ([UInt8]) -> Bool
        public var make: @Sendable (ImageSourceOptions) -> any ImageSourceDecoder

        public init(format: ImageFileFormat, minimumBytes: Int, matches: @escaping @Sendable ([UInt8]) -> Bool,
                    make: @escaping @Sendable (ImageSourceOptions) -> any ImageSourceDecoder) {
            self.format = format
            self.minimumBytes = minimumBytes
            self.matches = matches
            self.make = make
        }
    }

    public private(set) var entries: [Entry]

    public init(entries: [Entry] = []) { self.entries = entries }

    /// Adds a format, checked before those already registered.
    public mutating func register(_ entry: Entry) { entries.insert(entry, at: 0) }

    /// PNG, JPEG (and JPNG, which starts as a JPEG), GIF.
    public static let standard = ImageDecoderRegistry(entries: [
        Entry(format: .png, minimumBytes: 8, matches: { $0.starts(with: pngSignature) },
              make: { PNGDecoder(limits: $0.limits) }),
        Entry(format: .jpeg, minimumBytes: 3, matches: { $0.starts(with: [0xFF, 0xD8, 0xFF]) },
              make: { options in
                  JPNGStreamDecoder(limits: options.limits, maxPixelSize: options.maxPixelSize)
              }),
        Entry(format: .gif, minimumBytes: 6,
              matches: { $0.starts(with: Array("GIF87a".utf8)) || $0.starts(with: Array("GIF89a".utf8)) },
              make: { GIFDecoder(limits: $0.limits) }),
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
