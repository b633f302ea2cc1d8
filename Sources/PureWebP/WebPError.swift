import ImageCore

/// An error from the WebP decoder, with the byte offset in the file where it applies.
public enum WebPError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The input ended before the named structure was complete.
    case truncated(what: String, offset: Int)
    /// The bytes break a rule of the RIFF container or a bitstream.
    case invalid(what: String, offset: Int)
    /// The file asks for something libwebp also refuses or does not support.
    case unsupported(what: String, offset: Int)
    /// A `DecodingLimits` bound refused the header.
    case limit(LimitViolation, offset: Int)

    /// The offset in the file of the byte the error is about.
    public var offset: Int {
        switch self {
        case .truncated(_, let offset), .invalid(_, let offset), .unsupported(_, let offset),
             .limit(_, let offset):
            return offset
        }
    }

    public var description: String {
        switch self {
        case .truncated(let what, let offset): return "WebP: truncated \(what) at byte \(offset)"
        case .invalid(let what, let offset): return "WebP: invalid \(what) at byte \(offset)"
        case .unsupported(let what, let offset): return "WebP: unsupported \(what) at byte \(offset)"
        case .limit(let violation, let offset): return "WebP: \(violation) at byte \(offset)"
        }
    }
}
