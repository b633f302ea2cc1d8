import ImageCore

/// Everything that can go wrong decoding a GIF. Each case carries the absolute byte offset in
/// the file where the problem was found, and its evidence where useful.
///
/// ```swift
/// do { _ = try GIFAnimation(bytes: data) }
/// catch { print(error.code, error) }   // "invalidSignature", "not a GIF file (offset 0)"
/// ```
public enum GIFError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The file does not start with `GIF87a` or `GIF89a` (GIF89a section 17).
    case invalidSignature(offset: Int)
    /// The LZW minimum code size byte is outside 1...8 (GIF89a section 22, appendix F).
    case invalidLZWCodeSize(UInt8, offset: Int)
    /// A code that is neither in the string table nor the next code to be added.
    case invalidCode(code: Int, offset: Int)
    /// A frame has no local colour table and the file no global one, and no default was supplied.
    case missingColorTable(frame: Int, offset: Int)
    /// The LZW stream holds more pixels than the frame (only with `allowExcessPixelData == false`).
    case tooMuchPixelData(frame: Int, offset: Int)
    /// The LZW stream ended before the frame's last pixel (only with `allowIncompletePixelData == false`).
    case notEnoughPixelData(frame: Int, offset: Int)
    /// The image data ended without an end-of-information code (only with `allowMissingEndCode == false`).
    case missingEndCode(frame: Int, offset: Int)
    /// Sub-blocks follow the end-of-information code (only with `allowDataAfterEndCode == false`).
    case dataAfterEndCode(frame: Int, offset: Int)
    /// The stream ended (trailer) before any image descriptor.
    case noFrames(offset: Int)
    /// ``GIFAnimation/frame(at:)`` was asked for a frame the file does not have.
    case frameIndexOutOfRange(index: Int, count: Int)
    /// The input breaks one of the `DecodingLimits`.
    case limitExceeded(LimitViolation, offset: Int)
    /// The input ended early; `partial` holds what was decoded (undecoded pixels transparent).
    case truncated(offset: Int, partial: Image?)

    /// A stable name for the case (vector tables and the CLI record it).
    public var code: String {
        switch self {
        case .invalidSignature: "invalidSignature"
        case .invalidLZWCodeSize: "invalidLZWCodeSize"
        case .invalidCode: "invalidCode"
        case .missingColorTable: "missingColorTable"
        case .tooMuchPixelData: "tooMuchPixelData"
        case .notEnoughPixelData: "notEnoughPixelData"
        case .missingEndCode: "missingEndCode"
        case .dataAfterEndCode: "dataAfterEndCode"
        case .noFrames: "noFrames"
        case .frameIndexOutOfRange: "frameIndexOutOfRange"
        case .limitExceeded: "limitExceeded"
        case .truncated: "truncated"
        }
    }

    /// The byte offset the error refers to, where there is one.
    public var offset: Int? {
        switch self {
        case let .invalidSignature(o), let .invalidLZWCodeSize(_, o), let .invalidCode(_, o),
             let .missingColorTable(_, o), let .tooMuchPixelData(_, o), let .notEnoughPixelData(_, o),
             let .missingEndCode(_, o), let .dataAfterEndCode(_, o), let .noFrames(o),
             let .limitExceeded(_, o), let .truncated(o, _):
            o
        case .frameIndexOutOfRange: nil
        }
    }

    /// A one-line English message ending in the byte offset, e.g. "not a GIF file (offset 0)".
    public var description: String {
        switch self {
        case let .invalidSignature(o): "not a GIF file (offset \(o))"
        case let .invalidLZWCodeSize(s, o): "invalid LZW minimum code size \(s) (offset \(o))"
        case let .invalidCode(c, o): "invalid LZW code \(c) (offset \(o))"
        case let .missingColorTable(f, o): "frame \(f) has no colour table (offset \(o))"
        case let .tooMuchPixelData(f, o): "frame \(f) holds more pixels than its size (offset \(o))"
        case let .notEnoughPixelData(f, o): "frame \(f) ends before its last pixel (offset \(o))"
        case let .missingEndCode(f, o): "frame \(f) has no end-of-information code (offset \(o))"
        case let .dataAfterEndCode(f, o): "frame \(f) has data after its end-of-information code (offset \(o))"
        case let .noFrames(o): "the file has no image (offset \(o))"
        case let .frameIndexOutOfRange(i, n): "frame \(i) requested, the file has \(n)"
        case let .limitExceeded(v, o): "\(v) (offset \(o))"
        case let .truncated(o, p): "the file ends early at offset \(o)" + (p == nil ? "" : " (partial image kept)")
        }
    }
}
