/// A PNG chunk type: four ASCII letters whose case bits carry meaning (PNG 5.4).
public struct ChunkType: Hashable, Sendable, CustomStringConvertible {
    /// The four bytes as one big-endian value, as they appear in the file.
    public let value: UInt32

    public init(_ value: UInt32) { self.value = value }

    public init(_ name: StaticString) {
        precondition(name.utf8CodeUnitCount == 4)
        var v: UInt32 = 0
        name.withUTF8Buffer { for b in $0 { v = v << 8 | UInt32(b) } }
        self.value = v
    }

    public var bytes: [UInt8] { [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: value >> $0) } }

    /// All four bytes are ASCII letters (PNG 5.4); anything else is an invalid chunk.
    public var isValid: Bool { bytes.allSatisfy { (65...90).contains($0) || (97...122).contains($0) } }
    /// Lower-case first letter: the chunk may be skipped by a decoder that does not know it.
    public var isAncillary: Bool { value & 0x2000_0000 != 0 }
    public var isCritical: Bool { !isAncillary }
    /// Lower-case fourth letter: safe to copy by editors that do not know it.
    public var isSafeToCopy: Bool { value & 0x20 != 0 }

    public var description: String { String(decoding: bytes.map { isValid ? $0 : UInt8(ascii: "?") }, as: UTF8.self) }

    public static let IHDR = ChunkType("IHDR"), PLTE = ChunkType("PLTE"), IDAT = ChunkType("IDAT"), IEND = ChunkType("IEND")
    public static let tRNS = ChunkType("tRNS"), gAMA = ChunkType("gAMA"), cHRM = ChunkType("cHRM"), sRGB = ChunkType("sRGB")
    public static let iCCP = ChunkType("iCCP"), tEXt = ChunkType("tEXt"), zTXt = ChunkType("zTXt"), iTXt = ChunkType("iTXt")
    public static let pHYs = ChunkType("pHYs"), tIME = ChunkType("tIME"), bKGD = ChunkType("bKGD"), sBIT = ChunkType("sBIT")
    public static let hIST = ChunkType("hIST"), sPLT = ChunkType("sPLT"), eXIf = ChunkType("eXIf")
    public static let acTL = ChunkType("acTL"), fcTL = ChunkType("fcTL"), fdAT = ChunkType("fdAT")
}

/// The eight bytes every PNG file starts with (PNG 5.2).
public let pngSignature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
