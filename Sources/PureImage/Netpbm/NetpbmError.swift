import ImageCore

extension ImageFileFormat {
    /// Netpbm: PBM, PGM and PPM (plain and raw) and PAM.
    public static let netpbm = ImageFileFormat(rawValue: "Netpbm")
}

/// Everything that can go wrong decoding a Netpbm file. Each case carries the absolute byte
/// offset where the problem was found.
///
/// ```swift
/// do { _ = try NetpbmDecoder.decode(bytes) }
/// catch { print(error.code, error) }   // "sampleOutOfRange", "sample 300 above maxval 255 (offset 17)"
/// ```
public enum NetpbmError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The file does not start with `P1` ... `P7`.
    case invalidSignature(offset: Int)
    /// The header breaks the format: a field that is not a number, a zero size, a maxval
    /// outside 1...65535, a PAM line this decoder does not know.
    case invalidHeader(reason: String, offset: Int)
    /// A PAM depth above 4 (no pixel format holds it).
    case unsupportedDepth(Int, offset: Int)
    /// A sample above the header's maxval (cjpeg: "Numeric value out of range in PPM file").
    case sampleOutOfRange(value: Int, maxval: Int, offset: Int)
    /// A plain (ASCII) raster holds something other than digits, whitespace and comments.
    case invalidSample(offset: Int)
    /// The input breaks one of the `DecodingLimits`.
    case limitExceeded(LimitViolation, offset: Int)
    /// The input ended before the last sample; `partial` holds the rows so far (the rest zero).
    case truncated(offset: Int, partial: Image?)

    /// A stable name for the case (tests and the CLI record it).
    public var code: String {
        switch self {
        case .invalidSignature: "invalidSignature"
        case .invalidHeader: "invalidHeader"
        case .unsupportedDepth: "unsupportedDepth"
        case .sampleOutOfRange: "sampleOutOfRange"
        case .invalidSample: "invalidSample"
        case .limitExceeded: "limitExceeded"
        case .truncated: "truncated"
        }
    }

    /// The byte offset the error refers to.
    public var offset: Int {
        switch self {
        case let .invalidSignature(o), let .invalidHeader(_, o), let .unsupportedDepth(_, o),
             let .sampleOutOfRange(_, _, o), let .invalidSample(o), let .limitExceeded(_, o), let .truncated(o, _):
            o
        }
    }

    /// A one-line English message ending in the byte offset.
    public var description: String {
        switch self {
        case let .invalidSignature(o): "not a Netpbm file (offset \(o))"
        case let .invalidHeader(r, o): "invalid Netpbm header: \(r) (offset \(o))"
        case let .unsupportedDepth(d, o): "PAM depth \(d) is not supported, 1 to 4 are (offset \(o))"
        case let .sampleOutOfRange(v, m, o): "sample \(v) above maxval \(m) (offset \(o))"
        case let .invalidSample(o): "a plain raster holds something other than a number (offset \(o))"
        case let .limitExceeded(v, o): "\(v) (offset \(o))"
        case let .truncated(o, p): "the file ends early at offset \(o)" + (p == nil ? "" : " (partial image kept)")
        }
    }
}
