/// The uncompressed start of a VP8 key frame (RFC 6386 9.1, 9.2): the 3-byte frame tag and the
/// 7-byte key-frame header. Offsets in errors are `offset` (the payload's offset in the file) plus
/// the position in the payload.
struct VP8Header: Sendable, Equatable {
    /// Picture width and height in pixels (14 bits each).
    var width: Int
    var height: Int
    /// The 2-bit upscaling codes, which libwebp (and this decoder) ignore.
    var horizontalScale: Int
    var verticalScale: Int
    /// Bitstream profile 0...3 (libwebp decodes all four the same way: full-precision filters).
    var profile: Int
    /// Size in bytes of the first partition (modes and probabilities).
    var firstPartitionSize: Int
    /// Width and height in 16x16 macroblocks.
    var macroblockWidth: Int { (width + 15) >> 4 }
    var macroblockHeight: Int { (height + 15) >> 4 }

    /// Bytes of the frame tag and key-frame header before the first partition.
    static let size = 10

    /// Reads the frame tag and key-frame header from the first 10 bytes of a `VP8 ` chunk payload,
    /// with libwebp's checks (VP8GetInfo, VP8GetHeaders): a key frame, profile 0...3, shown, the
    /// start code 9d 01 2a, a non-zero size, and a first partition shorter than the chunk when
    /// `payloadSize` is known.
    static func read(_ payload: UnsafeRawBufferPointer, offset: Int, payloadSize: Int? = nil) throws(WebPError) -> VP8Header {
        guard payload.count >= size else { throw .truncated(what: "VP8 frame header", offset: offset + payload.count) }
        let b = { (i: Int) -> Int in Int(payload[i]) }
        let tag = b(0) | b(1) << 8 | b(2) << 16
        if tag & 1 != 0 { throw .unsupported(what: "VP8 interframe (not a key frame)", offset: offset) }
        let profile = (tag >> 1) & 7
        if profile > 3 { throw .invalid(what: "VP8 profile \(profile)", offset: offset) }
        if (tag >> 4) & 1 == 0 { throw .unsupported(what: "VP8 frame not shown", offset: offset) }
        let partitionSize = tag >> 5
        guard b(3) == 0x9d, b(4) == 0x01, b(5) == 0x2a else {
            throw .invalid(what: "VP8 start code", offset: offset + 3)
        }
        let width = (b(6) | b(7) << 8) & 0x3fff
        let height = (b(8) | b(9) << 8) & 0x3fff
        if width == 0 || height == 0 { throw .invalid(what: "VP8 size \(width)x\(height)", offset: offset + 6) }
        if let payloadSize, partitionSize >= payloadSize {
            throw .invalid(what: "VP8 first partition size \(partitionSize)", offset: offset)
        }
        return VP8Header(width: width, height: height, horizontalScale: b(7) >> 6, verticalScale: b(9) >> 6,
                         profile: profile, firstPartitionSize: partitionSize)
    }
}

/// Segment-based adjustments (RFC 6386 9.3).
struct VP8SegmentHeader: Sendable, Equatable {
    var enabled = false
    var updateMap = false
    var absoluteDelta = true
    var quantizer: [Int] = [0, 0, 0, 0]
    var filterStrength: [Int] = [0, 0, 0, 0]
    /// Probabilities of the segment-id tree.
    var treeProbabilities: [UInt8] = [255, 255, 255]
}

/// Loop-filter settings (RFC 6386 9.4, 9.6).
struct VP8FilterHeader: Sendable, Equatable {
    var simple = false
    var level = 0
    var sharpness = 0
    var useDeltas = false
    var referenceDeltas: [Int] = [0, 0, 0, 0]
    var modeDeltas: [Int] = [0, 0, 0, 0]
    /// 0 none, 1 simple, 2 normal (libwebp's filter_type_).
    var type: Int { level == 0 ? 0 : simple ? 1 : 2 }
}

/// Per-segment filter strength for a macroblock kind (libwebp's VP8FInfo): `limit` 0 means no
/// filtering.
struct VP8FilterStrength: Sendable, Equatable {
    var limit: Int32 = 0
    var interiorLimit: Int32 = 0
    var hevThreshold: Int32 = 0
}

/// The dequantization factors of one segment (libwebp's VP8QuantMatrix).
struct VP8Quantizer: Sendable, Equatable {
    var y1: (dc: Int32, ac: Int32) = (0, 0)
    var y2: (dc: Int32, ac: Int32) = (0, 0)
    var uv: (dc: Int32, ac: Int32) = (0, 0)

    static func == (a: VP8Quantizer, b: VP8Quantizer) -> Bool {
        a.y1 == b.y1 && a.y2 == b.y2 && a.uv == b.uv
    }
}

/// Everything the first partition says before the per-macroblock data, with the derived tables.
struct VP8FrameHeader: Sendable {
    var colorSpace = 0
    var clampingType = 0
    var segment = VP8SegmentHeader()
    var filter = VP8FilterHeader()
    /// Token partitions: count (1, 2, 4, 8) and each one's byte range in the payload (the ranges
    /// of all but the last come from the size table; the last runs to the end of the payload).
    var partitionCount = 1
    var partitionStarts: [Int] = []
    /// Declared end of each partition but the last (the last: `Int.max`, the payload's end).
    var partitionEnds: [Int] = []
    var quantizers: [VP8Quantizer] = []
    /// Token probabilities expanded by coefficient position: [type 4][position 17][context 3][node 11].
    var tokenProbabilities: [UInt8] = []
    var skipProbability: UInt8? = nil
    /// [segment 4][is 4x4: 0 or 1].
    var filterStrengths: [VP8FilterStrength] = []
}
