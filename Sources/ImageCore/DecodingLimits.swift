/// Bounds a decoder enforces on hostile or merely enormous input, checked from the header
/// before any large allocation.
///
/// ```swift
/// var limits = DecodingLimits()
/// limits.maxPixels = 50_000_000          // refuse anything above 50 MP
/// limits.inputSize = contentLength        // a download of known length: ratio check too
/// var decoder = PNGDecoder(limits: limits)
/// ```
///
/// A violation throws the codec's `limitExceeded` error (for example
/// `PNGError.limitExceeded(.pixels(requested:limit:), offset:)`) carrying a ``LimitViolation``.
public struct DecodingLimits: Sendable, Equatable {
    /// Largest `width * height` accepted (per frame and canvas). Default 256 MP.
    public var maxPixels: Int
    /// Largest working memory a decoder may allocate for one image (output plus buffers). Default 1 GiB.
    public var maxBytes: Int
    /// Most animation frames accepted. Default 10,000.
    public var maxFrames: Int
    /// Most progressive JPEG scans accepted. Default 1,000.
    public var maxScans: Int
    /// Largest total of decompressed metadata (ICC, compressed text, EXIF) kept. Default 16 MiB.
    public var maxMetadataBytes: Int
    /// Largest ratio of a decode's memory (output plus working buffers, as declared by the
    /// header) to the size of the input, enforced at the header when ``inputSize`` is known;
    /// requests under 1 MiB always pass. Default 65,536: above what any valid file reaches
    /// (deflate tops out near 1,032:1 before pixel expansion, a 1-bit palette PNG expands
    /// 32-fold more; LZW and a flat JPEG's end-of-band runs stay below), so only a small file
    /// declaring a huge image (a truncated header, a GIF canvas bomb) is refused before the
    /// allocation.
    public var maxDecompressionRatio: Int
    /// Total input size in bytes when known before decoding. The one-shot decoders
    /// (`PNGDecoder.decode`, `JPEGDecoder.decode`, `GIFAnimation(bytes:)`, `ImageSource.decode`)
    /// set it from their buffer; set it for a stream of known length (a Content-Length, a
    /// file's size) to get the same ``maxDecompressionRatio`` and ``requiresPlausibleInput``
    /// checks while appending.
    public var inputSize: Int?
    /// Whether, with ``inputSize`` known, a header must declare an image its input can hold:
    /// the pixels it declares need at least so many bytes of coded data at the format's best
    /// compression (a Huffman-coded JPEG a bit or two for each 8x8 block of each component, a
    /// PNG's deflate stream 1 byte for each 1,032 of filtered rows), and a smaller input is
    /// refused at the header with ``LimitViolation/implausibleSize(needed:inputBytes:)``. This
    /// holds however little memory the decode needs, so it stops a streamed decode (rows to a
    /// file, a thumbnail) of a few hundred bytes claiming a gigapixel canvas, which the memory
    /// ratio lets through. Default true; ``unlimited`` turns it off.
    public var requiresPlausibleInput: Bool

    /// Limits with the given bounds; every default is the one ``default`` uses.
    ///
    /// ```swift
    /// let strict = DecodingLimits(maxPixels: 4_000_000, maxBytes: 64 << 20, maxFrames: 500)
    /// ```
    public init(maxPixels: Int = 256_000_000, maxBytes: Int = 1 << 30, maxFrames: Int = 10_000,
                maxScans: Int = 1_000, maxMetadataBytes: Int = 16 << 20, maxDecompressionRatio: Int = 65_536,
                inputSize: Int? = nil, requiresPlausibleInput: Bool = true) {
        self.maxPixels = maxPixels
        self.maxBytes = maxBytes
        self.maxFrames = maxFrames
        self.maxScans = maxScans
        self.maxMetadataBytes = maxMetadataBytes
        self.maxDecompressionRatio = maxDecompressionRatio
        self.inputSize = inputSize
        self.requiresPlausibleInput = requiresPlausibleInput
    }

    /// These limits with ``inputSize`` set to `size` unless it was already set.
    public func knowingInputSize(_ size: Int) -> DecodingLimits {
        var limits = self
        if limits.inputSize == nil { limits.inputSize = size }
        return limits
    }

    /// The defaults: 256 MP, 1 GiB of working memory, 10,000 frames, 1,000 scans, 16 MiB of
    /// metadata, a decompression ratio of 65,536:1, plausible input required, input size
    /// unknown. Safe for untrusted input.
    public static let `default` = DecodingLimits()

    /// No limits at all: only for trusted input.
    public static let unlimited = DecodingLimits(maxPixels: .max, maxBytes: .max, maxFrames: .max,
                                                 maxScans: .max, maxMetadataBytes: .max, maxDecompressionRatio: .max,
                                                 requiresPlausibleInput: false)

    /// The violation an image of this size and pixel size would cause, if any. `extraBytes`
    /// is working memory beyond the output buffer (row buffers, coefficient planes).
    public func check(width: Int, height: Int, bytesPerPixel: Int, extraBytes: Int = 0) -> LimitViolation? {
        let (pixels, o1) = width.multipliedReportingOverflow(by: height)
        if o1 || pixels > maxPixels { return .pixels(requested: o1 ? .max : pixels, limit: maxPixels) }
        let (bytes, o2) = pixels.multipliedReportingOverflow(by: bytesPerPixel)
        let (total, o3) = bytes.addingReportingOverflow(extraBytes)
        if o2 || o3 || total > maxBytes { return .memory(requested: (o2 || o3) ? .max : total, limit: maxBytes) }
        if let inputSize, total > 1 << 20 {
            let (allowed, o4) = max(inputSize, 1).multipliedReportingOverflow(by: maxDecompressionRatio)
            if !o4, total > allowed {
                return .decompressionRatio(requested: total, inputBytes: inputSize, limit: maxDecompressionRatio)
            }
        }
        return nil
    }

    /// The violation a header causes whose coded data needs at least `neededBytes` (the codec's
    /// bound for the image it declares) when the input has fewer, if ``inputSize`` is known and
    /// ``requiresPlausibleInput`` is on.
    ///
    /// ```swift
    /// // A PNG's filtered rows, deflated at best 1,032:1:
    /// if let violation = limits.checkPlausible(neededBytes: filteredBytes / 1032) { throw ... }
    /// ```
    public func checkPlausible(neededBytes: Int) -> LimitViolation? {
        guard requiresPlausibleInput, let inputSize, neededBytes > inputSize else { return nil }
        return .implausibleSize(needed: neededBytes, inputBytes: inputSize)
    }
}

/// Which of the ``DecodingLimits`` an input exceeded, with the amounts.
public enum LimitViolation: Sendable, Equatable, CustomStringConvertible {
    /// The image (or an animation's canvas or frame) has more pixels than ``DecodingLimits/maxPixels``.
    case pixels(requested: Int, limit: Int)
    /// Decoding would need more bytes than ``DecodingLimits/maxBytes``.
    case memory(requested: Int, limit: Int)
    /// The animation has more frames than ``DecodingLimits/maxFrames``.
    case frames(limit: Int)
    /// The progressive JPEG has more scans than ``DecodingLimits/maxScans``.
    case scans(limit: Int)
    /// The decompressed metadata is larger than ``DecodingLimits/maxMetadataBytes``.
    case metadata(limit: Int)
    /// The header declares more memory per input byte than ``DecodingLimits/maxDecompressionRatio``
    /// allows: `requested` bytes from `inputBytes` bytes of input.
    case decompressionRatio(requested: Int, inputBytes: Int, limit: Int)
    /// The header declares an image whose coded data needs at least `needed` bytes, and the
    /// whole input has `inputBytes` (``DecodingLimits/requiresPlausibleInput``).
    case implausibleSize(needed: Int, inputBytes: Int)

    /// A one-line English description with the amounts, e.g. "image of 300000000 pixels exceeds
    /// the limit of 256000000".
    public var description: String {
        switch self {
        case let .pixels(r, l): "image of \(r) pixels exceeds the limit of \(l)"
        case let .memory(r, l): "decoding needs \(r) bytes, over the limit of \(l)"
        case let .frames(l): "more than \(l) frames"
        case let .scans(l): "more than \(l) progressive scans"
        case let .metadata(l): "metadata larger than \(l) bytes"
        case let .decompressionRatio(r, n, l): "decoding needs \(r) bytes from \(n) bytes of input, over the ratio limit of \(l):1"
        case let .implausibleSize(needed, n): "the image the header declares needs at least \(needed) bytes of data, but the input has \(n)"
        }
    }
}
