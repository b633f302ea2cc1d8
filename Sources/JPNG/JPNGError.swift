import ImageCore
import PureJPEG
import PurePNG

/// Everything that can go wrong reading or writing a JPNG file. Each container check of
/// JPNG-FORMAT.md is its own case; failures inside the parts carry the part's own error.
public enum JPNGError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The file is not longer than the 16-byte footer.
    case tooShort(length: Int)
    /// The last four bytes are neither "GNPJ" (0x4A504E47) nor the pre-1.1 "GEPJ" (0x4A504547).
    case badIdentifier(found: UInt32, offset: Int)
    /// The major version is not 1 (a different major version is incompatible).
    case unsupportedVersion(major: UInt8, minor: UInt8, offset: Int)
    /// footerSize is below 16, or larger than the file.
    case invalidFooterSize(UInt16, offset: Int)
    /// imageSize + maskSize + footerSize runs past the end of the file.
    case partsExceedFile(imageSize: UInt32, maskSize: UInt32, footerSize: UInt16, fileLength: Int)
    /// The colour part does not start with a JPEG SOI (FF D8).
    case colorPartNotJPEG(offset: Int)
    /// The mask part does not start with the PNG signature.
    case maskPartNotPNG(offset: Int)
    /// The JPEG and the PNG mask have different sizes.
    case sizeMismatch(colorWidth: Int, colorHeight: Int, maskWidth: Int, maskHeight: Int)
    /// Decoding the colour part failed (offsets relative to the file, which starts with it).
    case colorPart(JPEGError)
    /// Decoding the mask failed (offsets relative to the start of the mask part at `maskOffset`).
    case maskPart(PNGError, maskOffset: Int)
    /// The input ended early; `partial` is what could be shown (colour so far, opaque).
    case truncated(offset: Int, partial: Image?)
    /// Encoding: the colour (JPEG) or mask (PNG) encoder failed, or a part exceeds 4 GiB; the
    /// text says which and why.
    case encodingFailed(String)
    /// Encoding: an option out of range or an empty image; the text says which.
    case invalidParameter(String)

    /// A stable name for the case.
    public var code: String {
        switch self {
        case .tooShort: "tooShort"
        case .badIdentifier: "badIdentifier"
        case .unsupportedVersion: "unsupportedVersion"
        case .invalidFooterSize: "invalidFooterSize"
        case .partsExceedFile: "partsExceedFile"
        case .colorPartNotJPEG: "colorPartNotJPEG"
        case .maskPartNotPNG: "maskPartNotPNG"
        case .sizeMismatch: "sizeMismatch"
        case .colorPart: "colorPart"
        case .maskPart: "maskPart"
        case .truncated: "truncated"
        case .encodingFailed: "encodingFailed"
        case .invalidParameter: "invalidParameter"
        }
    }

    /// A one-line English message with the byte offset where there is one, e.g.
    /// "JPNG: unsupported version 2.0 at byte 13037".
    public var description: String {
        switch self {
        case let .tooShort(length): "JPNG: file of \(length) bytes is too short for the 16-byte footer"
        case let .badIdentifier(found, offset):
            "JPNG: no JPNG footer identifier at byte \(offset) (found 0x\(String(found, radix: 16)))"
        case let .unsupportedVersion(major, minor, offset): "JPNG: unsupported version \(major).\(minor) at byte \(offset)"
        case let .invalidFooterSize(size, offset): "JPNG: invalid footer size \(size) at byte \(offset)"
        case let .partsExceedFile(i, m, f, length):
            "JPNG: parts of \(i) + \(m) + \(f) bytes exceed the file length \(length)"
        case let .colorPartNotJPEG(offset): "JPNG: the colour part at byte \(offset) is not a JPEG"
        case let .maskPartNotPNG(offset): "JPNG: the mask part at byte \(offset) is not a PNG"
        case let .sizeMismatch(cw, ch, mw, mh): "JPNG: colour is \(cw)x\(ch) but the mask is \(mw)x\(mh)"
        case let .colorPart(error): "JPNG colour part: \(error)"
        case let .maskPart(error, maskOffset): "JPNG mask part (starting at byte \(maskOffset)): \(error)"
        case let .truncated(offset, _): "JPNG: file is truncated at byte \(offset)"
        case let .encodingFailed(message): "JPNG: encoding failed: \(message)"
        case let .invalidParameter(message): "JPNG: invalid parameter: \(message)"
        }
    }
}
