import ImageCore

/// One entry of a profile's tag table.
public struct ICCTagEntry: Sendable, Hashable {
    /// The tag signature, such as `rXYZ`.
    public var signature: FourCC
    /// Where the tag's data starts, from the start of the profile.
    public var offset: Int
    /// The tag's size in bytes.
    public var size: Int
    /// Where this entry sits in the tag table.
    public var entryOffset: Int
}

/// The 128-byte header of an ICC profile.
public struct ICCHeader: Sendable, Hashable {
    /// The profile size the header declares (bytes 0-3).
    public var size: Int
    /// The preferred CMM (bytes 4-7), often zero.
    public var preferredCMM: FourCC
    /// Major version (byte 8): 2 or 4.
    public var versionMajor: Int
    /// Minor version (high nibble of byte 9).
    public var versionMinor: Int
    /// Bug-fix version (low nibble of byte 9).
    public var versionBugFix: Int
    /// The profile/device class (bytes 12-15).
    public var profileClass: ICCProfileClass
    /// The data colour space (bytes 16-19).
    public var colorSpace: ICCColorSpace
    /// The profile connection space (bytes 20-23): XYZ or Lab.
    public var pcs: ICCColorSpace
    /// The rendering intent the profile was made for (bytes 64-67).
    public var renderingIntent: RenderingIntent?
    /// The PCS illuminant (bytes 68-79), D50 in a conforming profile.
    public var illuminant: XYZ
    /// The profile creator (bytes 80-83).
    public var creator: FourCC

    /// The version as "major.minor", such as "4.3" or "2.1".
    public var versionString: String { "\(versionMajor).\(versionMinor)" }
}

/// A parsed ICC profile (ICC.1:2010 version 4, and version 2): the header, the tag table, and
/// the tags a matrix/TRC or gray transform uses, decoded.
///
/// The profile's bytes are kept (``data``), so tags not decoded here (LUTs, `meta`, ...) can be
/// read later from their ``ICCTagEntry``.
///
/// ```swift
/// let profile = try ICCProfile(bytes)
/// profile.summary.description   // "Adobe RGB (1998): mntr RGB -> XYZ, v4.4"
/// ```
public struct ICCProfile: Sendable, Hashable {
    /// The largest profile accepted: 16 MiB.
    public static let maximumSize = 16 << 20
    /// The most tags accepted in the tag table.
    public static let maximumTagCount = 100
    /// The most entries accepted in a `curv` table.
    public static let maximumCurveEntries = 65536

    /// The profile's bytes (the declared size; anything after it is dropped).
    public let data: [UInt8]
    /// The header.
    public let header: ICCHeader
    /// The tag table, in file order.
    public let tags: [ICCTagEntry]

    /// `desc`: the profile's name (`desc` text of v2, the first `mluc` record of v4); nil when
    /// absent or unreadable (text is for display only, so a damaged one is not an error).
    public let profileDescription: String?
    /// `cprt`: the copyright text (`text`, `desc` or `mluc`), nil when absent or unreadable.
    public let copyright: String?
    /// `wtpt`: the media white point.
    public let mediaWhitePoint: XYZ?
    /// `chad`: the chromatic adaptation matrix from the device white to D50.
    public let chromaticAdaptation: Matrix3?
    /// `rXYZ`, `gXYZ`, `bXYZ` as the columns of a device-RGB to PCS-XYZ (D50) matrix, when all three exist.
    public let colorants: Matrix3?
    /// `rTRC`, `gTRC`, `bTRC`, when all three exist.
    public let rgbCurves: [ToneCurve]?
    /// `kTRC`: the gray curve.
    public let grayCurve: ToneCurve?
    /// `cicp`: coding-independent code points (ITU-T H.273), when present.
    public let cicp: CICP?

    /// Parses a profile. Throws ``ICCError`` for anything malformed; never traps.
    public init(_ bytes: [UInt8]) throws(ICCError) {
        guard bytes.count >= 132 else { throw .truncated(offset: bytes.count, needed: 132, available: bytes.count) }
        let declared = Int(ICCReader.u32(bytes, 0))
        guard declared >= 132, declared <= Self.maximumSize else {
            throw .invalidProfileSize(offset: 0, size: declared)
        }
        guard declared <= bytes.count else {
            throw .truncated(offset: bytes.count, needed: declared, available: bytes.count)
        }
        let data = bytes.count == declared ? bytes : Array(bytes[0 ..< declared])
        guard ICCReader.u32(data, 36) == FourCC("acsp").rawValue else { throw .missingSignature(offset: 36) }
        let intent = Int(ICCReader.u32(data, 64) & 0xFFFF)
        header = ICCHeader(
            size: declared, preferredCMM: FourCC(rawValue: ICCReader.u32(data, 4)),
            versionMajor: Int(data[8]), versionMinor: Int(data[9] >> 4), versionBugFix: Int(data[9] & 15),
            profileClass: ICCProfileClass(FourCC(rawValue: ICCReader.u32(data, 12))),
            colorSpace: ICCColorSpace(FourCC(rawValue: ICCReader.u32(data, 16))),
            pcs: ICCColorSpace(FourCC(rawValue: ICCReader.u32(data, 20))),
            renderingIntent: RenderingIntent(rawValue: intent),
            illuminant: ICCReader.xyz(data, 68), creator: FourCC(rawValue: ICCReader.u32(data, 80)))

        let count = Int(ICCReader.u32(data, 128))
        guard count <= Self.maximumTagCount else { throw .tooManyTags(offset: 128, count: count) }
        guard 132 + 12 * count <= declared else {
            throw .truncated(offset: 132, needed: 132 + 12 * count, available: declared)
        }
        var tags: [ICCTagEntry] = []
        tags.reserveCapacity(count)
        for i in 0 ..< count {
            let at = 132 + 12 * i
            let entry = ICCTagEntry(signature: FourCC(rawValue: ICCReader.u32(data, at)),
                                    offset: Int(ICCReader.u32(data, at + 4)), size: Int(ICCReader.u32(data, at + 8)),
                                    entryOffset: at)
            guard entry.offset <= declared, entry.size <= declared - entry.offset, entry.size >= 0 else {
                throw .tagOutOfBounds(offset: at, signature: entry.signature.description,
                                      tagOffset: entry.offset, tagSize: entry.size)
            }
            tags.append(entry)
        }
        self.data = data
        self.tags = tags

        let reader = ICCReader(data: data, tags: tags)
        profileDescription = try? reader.text("desc")
        copyright = try? reader.text("cprt")
        mediaWhitePoint = try reader.xyzTag("wtpt")
        chromaticAdaptation = try reader.matrixTag("chad")
        if let r = try reader.xyzTag("rXYZ"), let g = try reader.xyzTag("gXYZ"), let b = try reader.xyzTag("bXYZ") {
            colorants = Matrix3(columns: r.vector, g.vector, b.vector)
        } else {
            colorants = nil
        }
        if let r = try reader.curveTag("rTRC"), let g = try reader.curveTag("gTRC"), let b = try reader.curveTag("bTRC") {
            rgbCurves = [r, g, b]
        } else {
            rgbCurves = nil
        }
        grayCurve = try reader.curveTag("kTRC")
        cicp = try reader.cicpTag()
    }

    /// The entry for a tag signature (the first, if the table repeats it).
    public func tag(_ signature: String) -> ICCTagEntry? {
        let code = FourCC(signature)
        return tags.first { $0.signature == code }
    }

    /// The bytes of a tag (type signature first), or nil when the profile has no such tag.
    public func tagData(_ signature: String) -> ArraySlice<UInt8>? {
        tag(signature).map { data[$0.offset ..< $0.offset + $0.size] }
    }

    /// True when the profile has a LUT-based device-to-PCS tag (`A2B0`, `A2B1` or `A2B2`), which
    /// colour management uses in preference to colorants and curves.
    public var hasDeviceToPCSLUT: Bool { ["A2B0", "A2B1", "A2B2"].contains { tag($0) != nil } }

    /// How a transform can use this profile as its source.
    public var model: ICCProfileModel { hasDeviceToPCSLUT ? .lutBased : shaperModel }

    /// The model the matrix/TRC or gray tags give, ignoring LUTs (lcms2 falls back to them
    /// when the intent's A2B tag and A2B0 are both missing).
    var shaperModel: ICCProfileModel {
        switch header.colorSpace {
        case .rgb where colorants != nil && rgbCurves != nil: return .matrixShaper
        case .gray where grayCurve != nil: return .grayTRC
        default: return .other
        }
    }

    /// A summary for display.
    public var summary: ICCProfileSummary {
        ICCProfileSummary(name: profileDescription, profileClass: header.profileClass.description,
                          colorSpace: header.colorSpace.description, pcs: header.pcs.description,
                          version: header.versionString, model: model)
    }
}

/// What a profile offers a transform as its source.
public enum ICCProfileModel: String, Sendable, Hashable {
    /// RGB with `rXYZ`/`gXYZ`/`bXYZ` colorants and `rTRC`/`gTRC`/`bTRC` curves (and no A2B LUT).
    case matrixShaper
    /// Gray with a `kTRC` curve (and no A2B LUT).
    case grayTRC
    /// Device-to-PCS LUTs (`A2B0`...): RGB or CMYK through `mft1`, `mft2` or `mAB `.
    case lutBased
    /// Anything else (named colour, abstract, device link, CMYK without LUTs...).
    case other
}

/// The facts about a profile worth showing a person (as `jpng info` will).
public struct ICCProfileSummary: Sendable, Hashable, CustomStringConvertible {
    /// The profile's name (its `desc` tag), if it has a readable one.
    public var name: String?
    /// The class code, such as `mntr`.
    public var profileClass: String
    /// The data colour space, such as `RGB` or `GRAY`.
    public var colorSpace: String
    /// The PCS: `XYZ` or `Lab`.
    public var pcs: String
    /// The version, such as "4.3".
    public var version: String
    /// How a transform can use the profile.
    public var model: ICCProfileModel

    /// One line: `name: class space -> pcs, vX.Y`.
    public var description: String {
        "\(name ?? "(unnamed)"): \(profileClass) \(colorSpace) -> \(pcs), v\(version)"
    }
}
