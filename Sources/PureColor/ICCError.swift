/// Why an ICC profile was rejected: every case names the byte offset (from the start of the
/// profile) where the problem was found, so a report can point into the file.
///
/// Parsing never traps on hostile input: sizes and counts are checked against the limits below
/// before anything is allocated, and every read is bounds-checked first.
public enum ICCError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Fewer bytes than a header and a tag count (132), or fewer than the header's declared size.
    case truncated(offset: Int, needed: Int, available: Int)
    /// The declared profile size is above ``ICCProfile/maximumSize`` or below 132.
    case invalidProfileSize(offset: Int, size: Int)
    /// The `acsp` signature at byte 36 is missing.
    case missingSignature(offset: Int)
    /// More tags than ``ICCProfile/maximumTagCount``.
    case tooManyTags(offset: Int, count: Int)
    /// A tag's data lies (partly) outside the profile.
    case tagOutOfBounds(offset: Int, signature: String, tagOffset: Int, tagSize: Int)
    /// A tag is shorter than its type needs.
    case tagTooShort(offset: Int, signature: String, size: Int, needed: Int)
    /// A tag has a type this tag cannot have (or one not supported for it).
    case unexpectedTagType(offset: Int, signature: String, type: String)
    /// A `curv` table claims more than ``ICCProfile/maximumCurveEntries`` entries.
    case tooManyCurveEntries(offset: Int, count: Int)
    /// A `para` curve with a function type other than 0...4, or parameters that are not finite.
    case invalidParametricCurve(offset: Int, functionType: Int)
    /// A value that cannot be used (a singular matrix, a non-finite number).
    case invalidValue(offset: Int, reason: String)
    /// A tag a transform needs is absent (offset: the tag table, 128).
    case missingTag(offset: Int, signature: String)
    /// A profile that parses but cannot be used for the requested transform yet.
    case unsupported(offset: Int, reason: String)

    /// The byte offset the error points at.
    public var offset: Int {
        switch self {
        case .truncated(let o, _, _), .invalidProfileSize(let o, _), .missingSignature(let o),
             .tooManyTags(let o, _), .tagOutOfBounds(let o, _, _, _), .tagTooShort(let o, _, _, _),
             .unexpectedTagType(let o, _, _), .tooManyCurveEntries(let o, _), .invalidParametricCurve(let o, _),
             .invalidValue(let o, _), .missingTag(let o, _), .unsupported(let o, _):
            o
        }
    }

    /// A one-line explanation.
    public var description: String {
        switch self {
        case .truncated(let o, let needed, let available):
            "ICC profile truncated at byte \(o): needs \(needed) bytes, has \(available)"
        case .invalidProfileSize(let o, let size): "ICC profile size \(size) (at byte \(o)) out of range"
        case .missingSignature(let o): "no 'acsp' signature at byte \(o)"
        case .tooManyTags(let o, let count): "\(count) tags (at byte \(o)): too many"
        case .tagOutOfBounds(let o, let sig, let tagOffset, let tagSize):
            "tag '\(sig)' (entry at byte \(o)) at \(tagOffset), \(tagSize) bytes, outside the profile"
        case .tagTooShort(let o, let sig, let size, let needed):
            "tag '\(sig)' at byte \(o) has \(size) bytes, needs \(needed)"
        case .unexpectedTagType(let o, let sig, let type): "tag '\(sig)' at byte \(o) has unexpected type '\(type)'"
        case .tooManyCurveEntries(let o, let count): "curve at byte \(o) claims \(count) entries"
        case .invalidParametricCurve(let o, let type): "parametric curve at byte \(o): invalid function type \(type)"
        case .invalidValue(let o, let reason): "invalid value at byte \(o): \(reason)"
        case .missingTag(let o, let sig): "tag '\(sig)' missing (tag table at byte \(o))"
        case .unsupported(let o, let reason): "unsupported profile (byte \(o)): \(reason)"
        }
    }
}
