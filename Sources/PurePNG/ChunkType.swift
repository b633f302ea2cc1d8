/// A PNG chunk type: four ASCII letters whose case bits carry meaning (PNG 5.4).
public struct ChunkType: Hashable, Sendable, CustomStringConvertible {
    /// The four bytes as one big-endian value, as they appear in the file.
    public let value: UInt32

    /// The chunk type whose four bytes, read big-endian, are `value`.
    public init(_ value: UInt32) { self.value = value }

    /// The chunk type named by four ASCII letters, e.g. `ChunkType("tEXt")`.
    public init(_ name: StaticString) {
        precondition(name.utf8CodeUnitCount == 4)
        var v: UInt32 = 0
        name.withUTF8Buffer { for b in $0 { v = v << 8 | UInt32(b) } }
        self.value = v
    }

    /// The four bytes as they appear in the file.
    public var bytes: [UInt8] { [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: value >> $0) } }

    /// All four bytes are ASCII letters (PNG 5.4); anything else is an invalid chunk.
    public var isValid: Bool { bytes.allSatisfy { (65...90).contains($0) || (97...122).contains($0) } }
    /// Lower-case first letter: the chunk may be skipped by a decoder that does not know it.
    public var isAncillary: Bool { value & 0x2000_0000 != 0 }
    /// Upper-case first letter: a decoder that does not know the chunk must refuse the file
    /// (``PNGError/unknownCriticalChunk(chunk:offset:)``).
    public var isCritical: Bool { !isAncillary }
    /// Lower-case fourth letter: safe to copy by editors that do not know it.
    public var isSafeToCopy: Bool { value & 0x20 != 0 }

    /// The four letters, such as "IDAT" (invalid bytes shown as "?").
    public var description: String { String(decoding: bytes.map { isValid ? $0 : UInt8(ascii: "?") }, as: UTF8.self) }

    /// The critical chunks: header, palette, image data, end (PNG 11.2).
    public static let IHDR = ChunkType("IHDR"), PLTE = ChunkType("PLTE"), IDAT = ChunkType("IDAT"), IEND = ChunkType("IEND")
    /// Transparency and colour-space chunks: tRNS, gAMA, cHRM, sRGB (PNG 11.3.2, 11.3.3).
    public static let tRNS = ChunkType("tRNS"), gAMA = ChunkType("gAMA"), cHRM = ChunkType("cHRM"), sRGB = ChunkType("sRGB")
    /// Coding-independent code points (PNG third edition, 11.3.2.6).
    public static let cICP = ChunkType("cICP")
    /// ICC profile and text chunks: iCCP, tEXt, zTXt, iTXt (PNG 11.3.3, 11.3.4).
    public static let iCCP = ChunkType("iCCP"), tEXt = ChunkType("tEXt"), zTXt = ChunkType("zTXt"), iTXt = ChunkType("iTXt")
    /// Miscellaneous ancillary chunks: pHYs, tIME, bKGD, sBIT (PNG 11.3.3, 11.3.5, 11.3.6).
    public static let pHYs = ChunkType("pHYs"), tIME = ChunkType("tIME"), bKGD = ChunkType("bKGD"), sBIT = ChunkType("sBIT")
    /// Palette histogram, suggested palette and EXIF chunks: hIST, sPLT, eXIf.
    public static let hIST = ChunkType("hIST"), sPLT = ChunkType("sPLT"), eXIf = ChunkType("eXIf")
    /// APNG's animation control, frame control and frame data chunks.
    public static let acTL = ChunkType("acTL"), fcTL = ChunkType("fcTL"), fdAT = ChunkType("fdAT")
}

/// The eight bytes every PNG file starts with (PNG 5.2).
public let pngSignature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
