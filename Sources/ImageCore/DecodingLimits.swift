/// Bounds a decoder enforces on hostile or merely enormous input, checked from the header
/// before any large allocation.
///
/// ```swift
/// var limits = DecodingLimits()
/// limits.maxPixels = 50_000_000          // refuse anything above 50 MP
/// var decoder = PNGDecoder(limits: limits)
/// ```
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

    public init(maxPixels: Int = 256_000_000, maxBytes: Int = 1 << 30, maxFrames: Int = 10_000,
                maxScans: Int = 1_000, maxMetadataBytes: Int = 16 << 20) {
        self.maxPixels = maxPixels
        self.maxBytes = maxBytes
        self.maxFrames = maxFrames
        self.maxScans = maxScans
        self.maxMetadataBytes = maxMetadataBytes
    }

    public static let `default` = DecodingLimits()

    /// No limits at all: only for trusted input.
    public static let unlimited = DecodingLimits(maxPixels: .max, maxBytes: .max, maxFrames: .max,
                                                 maxScans: .max, maxMetadataBytes: .max)

    /// The violation an image of this size and pixel size would cause, if any. `extraBytes`
    /// is working memory beyond the output buffer (row buffers, coefficient planes).
    public func check(width: Int, height: Int, bytesPerPixel: Int, extraBytes: Int = 0) -> LimitViolation? {
        let (pixels, o1) = width.multipliedReportingOverflow(by: height)
        if o1 || pixels > maxPixels { return .pixels(requested: o1 ? .max : pixels, limit: maxPixels) }
        let (bytes, o2) = pixels.multipliedReportingOverflow(by: bytesPerPixel)
        let (total, o3) = bytes.addingReportingOverflow(extraBytes)
        if o2 || o3 || total > maxBytes { return .memory(requested: (o2 || o3) ? .max : total, limit: maxBytes) }
        return nil
    }
}

/// Which of the ``DecodingLimits`` an input exceeded, with the amounts.
public enum LimitViolation: Sendable, Equatable, CustomStringConvertible {
    case pixels(requested: Int, limit: Int)
    case memory(requested: Int, limit: Int)
    case frames(limit: Int)
    case scans(limit: Int)
    case metadata(limit: Int)

    public var description: String {
        switch self {
        case let .pixels(r, l): "image of \(r) pixels exceeds the limit of \(l)"
        case let .memory(r, l): "decoding needs \(r) bytes, over the limit of \(l)"
        case let .frames(l): "more than \(l) frames"
        case let .scans(l): "more than \(l) progressive scans"
        case let .metadata(l): "metadata larger than \(l) bytes"
        }
    }
}
