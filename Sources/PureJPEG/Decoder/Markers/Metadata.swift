import ImageCore

/// What the header segments say about a JPEG, beyond its pixels.
///
/// ```swift
/// var decoder = JPEGDecoder()
/// _ = try decoder.append(bytes)
/// if let info = decoder.info { print(info.process, info.estimatedQuality ?? 0) }
/// ```
public struct JPEGInfo: Sendable, Equatable {
    /// Width in pixels as stored (SOF), before any scaling.
    public var width: Int
    /// Height in pixels as stored (SOF), before any scaling.
    public var height: Int
    /// Number of components: 1 (gray), 3 (YCbCr or RGB) or 4 (CMYK or YCCK).
    public var components: Int
    /// The coding process of the frame header (SOF0, SOF1 or SOF2).
    public var process: JPEGProcess
    /// Bits per sample (SOF P): 8 for most files, 12 for 12-bit DCT files, 2...16 for lossless.
    public var precision: Int = 8
    /// (horizontal, vertical) sampling factors per component, in frame order.
    public var samplingFactors: [SamplingFactor]
    /// MCUs between restart markers (0: none), from the last DRI seen.
    public var restartInterval: Int
    /// The APP14 Adobe colour transform (0 none, 1 YCbCr, 2 YCCK), when the segment is present.
    public var adobeTransform: Int?
    /// True when an APP0 JFIF segment is present.
    public var isJFIF: Bool
    /// The JFIF density, when present.
    public var density: Density?
    /// Scans started so far.
    public var scanCount: Int
    /// The IJG quality (1-100) whose scaled standard tables best match table 0, as libjpeg's
    /// tools estimate it; nil before any DQT.
    public var estimatedQuality: Int?

    /// One component's sampling factors (1 to 4 each, T.81 B.2.2); 2x2 luma with 1x1 chroma is 4:2:0.
    public struct SamplingFactor: Sendable, Equatable {
        /// Horizontal sampling factor, 1 to 4.
        public var horizontal: Int
        /// Vertical sampling factor, 1 to 4.
        public var vertical: Int
        /// Sampling factors `horizontal` x `vertical`.
        public init(horizontal: Int, vertical: Int) { self.horizontal = horizontal; self.vertical = vertical }
    }
}

/// The APPn and COM segments (JFIF 1.02, EXIF 2.3 section 4.5.4, ICC.1 B.4, Adobe TN 5116).
struct MetadataCollector: Sendable {
    var metadata = ImageMetadata()
    var isJFIF = false
    var adobeTransform: Int?
    /// ICC chunks by sequence number (1-based), with the declared chunk count.
    private var iccChunks: [Int: [UInt8]] = [:]
    private var iccCount = 0
    private var iccDropped = false
    private var bytesKept = 0
    var warnings: [String] = []

    mutating func add(marker: UInt8, body: [UInt8], limit: Int) {
        switch marker {
        case Marker.app0: parseJFIF(body)
        case Marker.app0 + 1: parseEXIF(body, limit: limit)
        case Marker.app0 + 2: parseICC(body, limit: limit)
        case Marker.app0 + 14: parseAdobe(body)
        case Marker.com:
            // Comments are Latin-1 by convention; each byte maps to the same code point.
            let text = String(decoding: body.map { UInt16($0) }, as: UTF16.self)
            if keep(body.count, limit: limit) { metadata.texts.append(TextEntry(keyword: "Comment", text: text)) }
        default: break
        }
    }

    private mutating func keep(_ n: Int, limit: Int) -> Bool {
        if bytesKept + n > limit {
            warnings.append("metadata over the \(limit)-byte limit dropped")
            return false
        }
        bytesKept += n
        return true
    }

    private mutating func parseJFIF(_ b: [UInt8]) {
        guard b.count >= 12, b[0 ..< 5].elementsEqual([0x4A, 0x46, 0x49, 0x46, 0]) else { return }
        isJFIF = true
        // libjpeg's JWRN_JFIF_MAJOR: read on, as it does.
        if b[5] != 1 { warnings.append("unknown JFIF revision \(b[5]).\(b[6] < 10 ? "0" : "")\(b[6])") }
        let x = Int(b[8]) << 8 | Int(b[9]), y = Int(b[10]) << 8 | Int(b[11])
        let unit: Density.Unit? = switch b[7] {
        case 0: .aspectRatio
        case 1: .perInch
        case 2: .perCentimetre
        default: nil
        }
        if let unit, x > 0, y > 0, metadata.density == nil { metadata.density = Density(x: x, y: y, unit: unit) }
    }

    private mutating func parseEXIF(_ b: [UInt8], limit: Int) {
        guard b.count >= 14, b[0 ..< 6].elementsEqual([0x45, 0x78, 0x69, 0x66, 0, 0]), metadata.exif == nil else { return }
        let tiff = Array(b[6...])
        guard keep(tiff.count, limit: limit) else { return }
        metadata.exif = tiff
        if let o = EXIF.orientation(tiff) { metadata.orientation = o }
    }

    private mutating func parseICC(_ b: [UInt8], limit: Int) {
        let signature: [UInt8] = Array("ICC_PROFILE".utf8) + [0]
        guard b.count >= 14, b[0 ..< 12].elementsEqual(signature), !iccDropped else { return }
        let seq = Int(b[12]), count = Int(b[13])
        guard seq >= 1, count >= 1, seq <= count else {
            warnings.append("ICC chunk \(seq) of \(count) ignored")
            return
        }
        if iccCount == 0 { iccCount = count }
        guard count == iccCount, iccChunks[seq] == nil else {
            warnings.append("inconsistent ICC chunk \(seq) of \(count) ignored")
            return
        }
        guard keep(b.count - 14, limit: limit) else {
            iccDropped = true
            iccChunks = [:]
            return
        }
        iccChunks[seq] = Array(b[14...])
        if iccChunks.count == iccCount {
            metadata.iccProfile = (1 ... iccCount).flatMap { iccChunks[$0] ?? [] }
        }
    }

    /// Called at the first scan: an ICC profile with missing chunks is reported, not guessed.
    mutating func finishHeaders() {
        if iccCount > 0, metadata.iccProfile == nil, !iccDropped {
            warnings.append("ICC profile incomplete (\(iccChunks.count) of \(iccCount) chunks); ignored")
            iccDropped = true
        }
    }

    private mutating func parseAdobe(_ b: [UInt8]) {
        guard b.count >= 12, b[0 ..< 5].elementsEqual(Array("Adobe".utf8)) else { return }
        adobeTransform = Int(b[11])
    }
}

/// The IJG standard tables (T.81 K.1, tables K.1 and K.2) in natural order.
let ijgLuminance: [Int] = [
    16, 11, 10, 16, 24, 40, 51, 61, 12, 12, 14, 19, 26, 58, 60, 55,
    14, 13, 16, 24, 40, 57, 69, 56, 14, 17, 22, 29, 51, 87, 80, 62,
    18, 22, 37, 56, 68, 109, 103, 77, 24, 35, 55, 64, 81, 104, 113, 92,
    49, 64, 78, 87, 103, 121, 120, 101, 72, 92, 95, 98, 112, 100, 103, 99,
]

/// Estimates the IJG quality setting of a luminance table: the mean ratio to the standard table
/// (as a percentage) inverted through libjpeg's jpeg_quality_scaling (scale = 5000/q below 50,
/// 200 - 2q above).
func estimateQuality(_ table: [UInt16]) -> Int? {
    guard table.count == 64 else { return nil }
    var sumQ = 0, sumStd = 0
    for i in 0 ..< 64 { sumQ += Int(table[i]); sumStd += ijgLuminance[i] }
    let scale = Double(sumQ) * 100 / Double(sumStd)
    let quality = scale <= 100 ? (200 - scale) / 2 : 5000 / scale
    return min(100, max(1, Int(quality.rounded())))
}
