import ImageCore

/// The fixed-size structures of a GIF stream (GIF89a sections 17-26), parsed from bytes the
/// decoder has already collected. Variable-length parts (colour tables, sub-blocks) are read
/// by the decoder's state machine, which hands complete sub-blocks to these parsers.
enum BlockLabel {
    static let extensionIntroducer: UInt8 = 0x21
    static let imageSeparator: UInt8 = 0x2C
    static let trailer: UInt8 = 0x3B
    static let graphicControl: UInt8 = 0xF9
    static let comment: UInt8 = 0xFE
    static let plainText: UInt8 = 0x01
    static let application: UInt8 = 0xFF
}

/// Header and logical screen descriptor (sections 17, 18): 13 bytes.
struct ScreenDescriptor: Sendable, Equatable {
    static let byteCount = 13
    var width: Int
    var height: Int
    /// Entries of the global colour table, 0 when there is none.
    var globalTableEntries: Int
    var backgroundIndex: UInt8

    /// Parses `bytes` (13 of them); nil when the signature is not GIF87a or GIF89a.
    init?(_ bytes: [UInt8]) {
        guard bytes.count >= ScreenDescriptor.byteCount,
              bytes[0] == 0x47, bytes[1] == 0x49, bytes[2] == 0x46, bytes[3] == 0x38,
              bytes[4] == 0x37 || bytes[4] == 0x39, bytes[5] == 0x61 else { return nil }
        width = Int(bytes[6]) | Int(bytes[7]) << 8
        height = Int(bytes[8]) | Int(bytes[9]) << 8
        let packed = bytes[10]
        globalTableEntries = packed & 0x80 != 0 ? 2 << Int(packed & 7) : 0
        backgroundIndex = bytes[11]
    }
}

/// Image descriptor (section 20): the 9 bytes after the separator.
struct ImageDescriptor: Sendable, Equatable {
    static let byteCount = 9
    var x: Int, y: Int, width: Int, height: Int
    /// Entries of the local colour table, 0 when there is none.
    var localTableEntries: Int
    var interlaced: Bool

    init(_ b: [UInt8]) {
        x = Int(b[0]) | Int(b[1]) << 8
        y = Int(b[2]) | Int(b[3]) << 8
        width = Int(b[4]) | Int(b[5]) << 8
        height = Int(b[6]) | Int(b[7]) << 8
        let packed = b[8]
        localTableEntries = packed & 0x80 != 0 ? 2 << Int(packed & 7) : 0
        interlaced = packed & 0x40 != 0
    }
}

/// Graphic control extension (section 23): applies to the next image.
struct GraphicControl: Sendable, Equatable {
    var disposal: GIFDisposal = .unspecified
    var userInput = false
    var transparentIndex: UInt8?
    var delayCentiseconds = 0

    init() {}

    /// Parses the first sub-block; nil when it is shorter than the 4 bytes the spec fixes
    /// (browsers ignore such an extension).
    init?(subBlock b: ArraySlice<UInt8>) {
        guard b.count >= 4 else { return nil }
        let s = b.startIndex
        let packed = b[s]
        disposal = GIFDisposal(rawValue: (packed >> 2) & 7)
        userInput = packed & 2 != 0
        transparentIndex = packed & 1 != 0 ? b[s + 3] : nil
        delayCentiseconds = Int(b[s + 1]) | Int(b[s + 2]) << 8
    }
}

/// Application extension (section 26) identifiers the decoder reads.
enum ApplicationIdentifier {
    /// NETSCAPE2.0 and ANIMEXTS1.0 carry the loop count in a data sub-block `01 lo hi`.
    static func isLoopExtension(_ id: ArraySlice<UInt8>) -> Bool {
        let bytes = Array(id)
        return bytes == Array("NETSCAPE2.0".utf8) || bytes == Array("ANIMEXTS1.0".utf8)
    }

    /// The loop count in a loop extension's data sub-block, or nil for other sub-blocks.
    static func loopCount(_ b: ArraySlice<UInt8>) -> Int? {
        guard b.count >= 3, b[b.startIndex] & 7 == 1 else { return nil }
        return Int(b[b.startIndex + 1]) | Int(b[b.startIndex + 2]) << 8
    }
}

extension String {
    /// Latin-1 text (GIF comments are 7-bit ASCII by the spec, Latin-1 in practice).
    init(latin1 bytes: [UInt8]) {
        var s = ""
        s.unicodeScalars.append(contentsOf: bytes.map { Unicode.Scalar($0) })
        self = s
    }
}
