import ImageCore

/// Everything that can go wrong decoding a WebP file. Each case carries the absolute byte
/// offset in the file where the problem was found.
///
/// ```swift
/// do { _ = try WebPDecoder.decode(bytes) }
/// catch { print(error.code, error) }   // "invalid", "WebP: invalid RIFF header at byte 0"
/// ```
public enum WebPError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A structure (a chunk, a bitstream) ends before its last byte although the file says it
    /// is complete (a chunk payload shorter than its bitstream needs).
    case truncated(what: String, offset: Int)
    /// The bytes break a rule of the RIFF container or a bitstream (where libwebp rejects them).
    case invalid(what: String, offset: Int)
    /// The file asks for something libwebp also refuses or does not support.
    case unsupported(what: String, offset: Int)
    /// A `DecodingLimits` bound refused the header.
    case limit(LimitViolation, offset: Int)
    /// The input ended early (``WebPDecoder/finish()`` before the end of the file); `partial`
    /// holds what was decoded (rows not yet decoded are transparent black).
    case incomplete(offset: Int, partial: Image?)
    /// ``WebPAnimation/frame(at:)`` was asked for a frame the file does not have.
    case frameIndexOutOfRange(index: Int, count: Int)
    /// ``WebPDecoder/decode(_:into:bytesPerRow:format:limits:options:)`` cannot write the image
    /// into the memory it was given: `what` is "row stride" (fewer bytes a row than a row of
    /// pixels) or "buffer" (fewer bytes than the image's last row ends at); `needed` and
    /// `available` are the bytes wanted and given.
    case outputTooSmall(what: String, needed: Int, available: Int)

    /// A stable name for the case (vector tables record it).
    public var code: String {
        switch self {
        case .truncated: "truncated"
        case .invalid: "invalid"
        case .unsupported: "unsupported"
        case .limit: "limitExceeded"
        case .incomplete: "incomplete"
        case .frameIndexOutOfRange: "frameIndexOutOfRange"
        case .outputTooSmall: "outputTooSmall"
        }
    }

    /// The offset in the file of the byte the error is about (nil for a frame index).
    public var offset: Int? {
        switch self {
        case .truncated(_, let offset), .invalid(_, let offset), .unsupported(_, let offset),
             .limit(_, let offset), .incomplete(let offset, _):
            return offset
        case .frameIndexOutOfRange, .outputTooSmall:
            return nil
        }
    }

    /// A one-line English message ending in the byte offset.
    public var description: String {
        switch self {
        case .truncated(let what, let offset): return "WebP: truncated \(what) at byte \(offset)"
        case .invalid(let what, let offset): return "WebP: invalid \(what) at byte \(offset)"
        case .unsupported(let what, let offset): return "WebP: unsupported \(what) at byte \(offset)"
        case .limit(let violation, let offset): return "WebP: \(violation) at byte \(offset)"
        case .incomplete(let offset, let partial):
            return "WebP: the file ends early at byte \(offset)" + (partial == nil ? "" : " (partial image kept)")
        case .frameIndexOutOfRange(let index, let count): return "WebP: frame \(index) requested, the file has \(count)"
        case .outputTooSmall(let what, let needed, let available):
            return "WebP: output \(what): \(needed) bytes needed, \(available) given"
        }
    }
}
