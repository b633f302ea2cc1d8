import ImageCore

/// The 16 bytes at the very end of a JPNG file saying where its parts are (JPNG-FORMAT.md).
///
/// All fields little-endian: imageSize u32, maskSize u32, footerSize u16, majorVersion u8,
/// minorVersion u8, identifier u32.
public struct JPNGFooter: Sendable, Equatable {
    /// 0x4A504E47: bytes `47 4E 50 4A` ("GNPJ") in the file.
    public static let identifier: UInt32 = 0x4A50_4E47
    /// Files written before version 1.1: bytes `47 45 50 4A` ("GEPJ").
    public static let legacyIdentifier: UInt32 = 0x4A50_4547
    /// The footer's length in bytes as written (a newer minor version may declare a larger ``footerSize``).
    public static let size = 16

    /// Length of the JPEG colour part, which starts at byte 0.
    public var imageSize: UInt32
    /// Length of the PNG mask part, which starts right after the JPEG.
    public var maskSize: UInt32
    /// The footer's declared length: 16, or more for a later minor version with extra fields.
    public var footerSize: UInt16
    /// The major version: 1 (another major version is incompatible).
    public var majorVersion: UInt8
    /// The minor version: 0 as written (higher minor versions stay compatible).
    public var minorVersion: UInt8
    /// The identifier as read: ``identifier``, or ``legacyIdentifier`` for files before version 1.1.
    public var identifierValue: UInt32

    /// A footer for parts of the given lengths, version 1.0, current identifier; ``bytes`` gives its
    /// 16 bytes.
    ///
    /// ```swift
    /// let file = jpeg + png + JPNGFooter(imageSize: UInt32(jpeg.count), maskSize: UInt32(png.count)).bytes
    /// ```
    public init(imageSize: UInt32, maskSize: UInt32, footerSize: UInt16 = 16, majorVersion: UInt8 = 1,
                minorVersion: UInt8 = 0, identifierValue: UInt32 = JPNGFooter.identifier) {
        self.imageSize = imageSize
        self.maskSize = maskSize
        self.footerSize = footerSize
        self.majorVersion = majorVersion
        self.minorVersion = minorVersion
        self.identifierValue = identifierValue
    }

    /// The footer as written at the end of a file.
    public var bytes: [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(16)
        out.appendUInt32LE(imageSize)
        out.appendUInt32LE(maskSize)
        out.appendUInt16LE(footerSize)
        out.append(majorVersion)
        out.append(minorVersion)
        out.appendUInt32LE(identifierValue)
        return out
    }

    /// Reads and checks the footer of a whole file; the parts' ranges follow from it.
    public init(file bytes: [UInt8]) throws(JPNGError) {
        try self.init(end: bytes[...], fileLength: bytes.count)
    }

    /// Reads and checks the footer from the last bytes of a file `fileLength` bytes long (`end`
    /// holds at least its last 16 bytes), for readers that keep only the end of a stream.
    public init(end bytes: ArraySlice<UInt8>, fileLength length: Int) throws(JPNGError) {
        guard length > JPNGFooter.size, bytes.count >= JPNGFooter.size else { throw .tooShort(length: length) }
        let last = Array(bytes.suffix(JPNGFooter.size))
        var reader = ByteReader(last, position: 0)
        let start = length - JPNGFooter.size
        // The reads cannot fail: 16 bytes are there.
        let imageSize = reader.readUInt32LE() ?? 0
        let maskSize = reader.readUInt32LE() ?? 0
        let footerSize = reader.readUInt16LE() ?? 0
        let major = reader.readUInt8() ?? 0
        let minor = reader.readUInt8() ?? 0
        let identifier = reader.readUInt32LE() ?? 0
        guard identifier == JPNGFooter.identifier || identifier == JPNGFooter.legacyIdentifier else {
            throw .badIdentifier(found: identifier, offset: start + 12)
        }
        guard major == 1 else { throw .unsupportedVersion(major: major, minor: minor, offset: start + 10) }
        guard footerSize >= 16, Int(footerSize) <= length else { throw .invalidFooterSize(footerSize, offset: start + 8) }
        guard Int(imageSize) + Int(maskSize) + Int(footerSize) <= length else {
            throw .partsExceedFile(imageSize: imageSize, maskSize: maskSize, footerSize: footerSize, fileLength: length)
        }
        self.init(imageSize: imageSize, maskSize: maskSize, footerSize: footerSize, majorVersion: major,
                  minorVersion: minor, identifierValue: identifier)
    }

    /// Byte range of the JPEG part.
    public var colorRange: Range<Int> { 0 ..< Int(imageSize) }
    /// Byte range of the PNG mask part.
    public var maskRange: Range<Int> { Int(imageSize) ..< Int(imageSize) + Int(maskSize) }
}

extension JPNGFooter {
    /// True when `bytes` end in a JPNG footer identifier (either one) and start like a JPEG:
    /// the cheap test `ImageSource` uses to tell a JPNG from a plain JPEG.
    public static func looksLikeJPNG(_ bytes: [UInt8]) -> Bool {
        guard bytes.count > size + 2, bytes[0] == 0xFF, bytes[1] == 0xD8 else { return false }
        let id = bytes.readUInt32LE(at: bytes.count - 4)
        return id == identifier || id == legacyIdentifier
    }
}
