/// A RIFF chunk tag: four ASCII bytes, compared as a little-endian `UInt32`.
struct FourCC: Hashable, Sendable, CustomStringConvertible {
    let raw: UInt32
    init(_ raw: UInt32) { self.raw = raw }
    init(_ s: StaticString) {
        let p = s.utf8Start
        raw = UInt32(p[0]) | UInt32(p[1]) << 8 | UInt32(p[2]) << 16 | UInt32(p[3]) << 24
    }
    static let riff = FourCC("RIFF"), webp = FourCC("WEBP"), vp8 = FourCC("VP8 "), vp8l = FourCC("VP8L")
    static let vp8x = FourCC("VP8X"), alph = FourCC("ALPH"), anim = FourCC("ANIM"), anmf = FourCC("ANMF")
    static let iccp = FourCC("ICCP"), exif = FourCC("EXIF"), xmp = FourCC("XMP ")

    var description: String {
        let bytes = (0 ..< 4).map { UInt8(truncatingIfNeeded: raw >> (8 * $0)) }
        return bytes.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) ? String(decoding: bytes, as: UTF8.self)
            : bytes.map { String($0, radix: 16) }.joined(separator: " ")
    }
}

/// Little-endian readers over a byte slice (the caller has checked the length).
extension ArraySlice where Element == UInt8 {
    func le16(_ at: Int) -> Int { Int(self[startIndex + at]) | Int(self[startIndex + at + 1]) << 8 }
    func le24(_ at: Int) -> Int { le16(at) | Int(self[startIndex + at + 2]) << 16 }
    func le32(_ at: Int) -> UInt32 { UInt32(le16(at)) | UInt32(le16(at + 2)) << 16 }
}

/// Sizes and limits of the container (libwebp's `format_constants.h`).
enum RIFF {
    static let headerSize = 12
    static let chunkHeaderSize = 8
    /// The largest chunk payload libwebp accepts (`MAX_CHUNK_PAYLOAD`).
    static let maxChunkPayload: UInt32 = ~0 - 8 - 1
    /// Canvas and frame areas must stay below 2^32 (`MAX_IMAGE_AREA`).
    static let maxImageArea = 1 << 32
}

/// The VP8X chunk: feature flags and the canvas size (24-bit fields, stored minus one).
struct VP8XInfo: Sendable, Equatable {
    var flags: UInt8
    var canvasWidth: Int
    var canvasHeight: Int

    static let iccFlag: UInt8 = 0x20, alphaFlag: UInt8 = 0x10, exifFlag: UInt8 = 0x08
    static let xmpFlag: UInt8 = 0x04, animationFlag: UInt8 = 0x02
    /// The flags the container spec defines; the others are reserved (libwebp's demuxer
    /// refuses a file that sets one).
    static let definedFlags: UInt8 = iccFlag | alphaFlag | exifFlag | xmpFlag | animationFlag

    init(_ b: ArraySlice<UInt8>) {
        flags = b[b.startIndex]
        canvasWidth = b.le24(4) + 1
        canvasHeight = b.le24(7) + 1
    }
    var hasAlpha: Bool { flags & Self.alphaFlag != 0 }
    var isAnimated: Bool { flags & Self.animationFlag != 0 }
    var hasICC: Bool { flags & Self.iccFlag != 0 }
    var hasEXIF: Bool { flags & Self.exifFlag != 0 }
    var hasXMP: Bool { flags & Self.xmpFlag != 0 }
}

/// The 16 bytes that open an ANMF chunk: the frame's offset (stored halved), size (minus
/// one), duration in milliseconds, and the dispose (bit 0) and no-blend (bit 1) flags.
struct ANMFHeader: Sendable, Equatable {
    var x: Int, y: Int, width: Int, height: Int, duration: Int
    var disposeToBackground: Bool
    var blend: Bool
    static let byteCount = 16

    init(_ b: ArraySlice<UInt8>) {
        x = 2 * b.le24(0)
        y = 2 * b.le24(3)
        width = b.le24(6) + 1
        height = b.le24(9) + 1
        duration = b.le24(12)
        let bits = b[b.startIndex + 15]
        disposeToBackground = bits & 1 != 0
        blend = bits & 2 == 0
    }
}

/// What `VP8GetInfo` checks in the first ten bytes of a VP8 key frame: frame tag (key frame,
/// profile 0-3, shown, first partition inside the chunk), start code 9D 01 2A and a non-zero
/// 14-bit width and height.
struct VP8FrameInfo: Sendable, Equatable {
    var width: Int
    var height: Int
    static let byteCount = 10

    init?(_ b: ArraySlice<UInt8>, chunkSize: Int) {
        guard b.count >= 10 else { return nil }
        let s = b.startIndex
        let bits = Int(b[s]) | Int(b[s + 1]) << 8 | Int(b[s + 2]) << 16
        guard bits & 1 == 0, (bits >> 1) & 7 <= 3, (bits >> 4) & 1 == 1, bits >> 5 < chunkSize,
              b[s + 3] == 0x9D, b[s + 4] == 0x01, b[s + 5] == 0x2A else { return nil }
        width = b.le16(6) & 0x3FFF
        height = b.le16(8) & 0x3FFF
        guard width > 0 && height > 0 else { return nil }
    }
}
