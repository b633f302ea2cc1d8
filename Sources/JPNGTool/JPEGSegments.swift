import PureImage

/// A JPEG's metadata under a `MetadataPolicy` without touching its image data: the marker
/// segments before the first scan are rewritten, everything from SOS on is copied as it is.
///
/// - `.all` returns the bytes unchanged.
/// - `.colorOnly` keeps APP2 ICC_PROFILE segments, APP14 Adobe (the colour transform, needed to
///   decode) and APP0 JFIF with its density made 1:1 and its thumbnail dropped; EXIF becomes
///   an orientation-only EXIF when the orientation is not the default; other APPn (XMP,
///   IPTC, MPF, JFXX thumbnails) and COM segments are dropped.
/// - `.dropAll` keeps APP14 Adobe and the JFIF segment (density made 1:1), nothing else.
///
/// Tables, frame and restart segments are copied in their order.
enum JPEGSegments {
    struct Malformed: Error, CustomStringConvertible {
        let offset: Int
        var description: String { "JPEG marker segments: malformed at byte \(offset)" }
    }

    static func rewrite(_ bytes: [UInt8], keeping policy: MetadataPolicy, orientation: Orientation) throws -> [UInt8] {
        if policy == .all { return bytes }
        guard bytes.count >= 4, bytes[0] == 0xFF, bytes[1] == 0xD8 else { throw Malformed(offset: 0) }
        var out: [UInt8] = [0xFF, 0xD8]
        var wroteOrientation = false
        var i = 2
        while true {
            // Fill bytes (0xFF runs) may precede a marker.
            guard i < bytes.count, bytes[i] == 0xFF else { throw Malformed(offset: i) }
            while i < bytes.count && bytes[i] == 0xFF { i += 1 }
            guard i < bytes.count else { throw Malformed(offset: i) }
            let code = bytes[i]
            i += 1
            if code == 0xDA || code == 0xD9 {
                // The first scan (or an empty image): the rest is entropy-coded data and what
                // follows it, copied as it is.
                if policy == .colorOnly && !wroteOrientation && orientation != .up {
                    out += JPEGEncoder.orientationEXIFSegment(orientation)
                }
                out += [0xFF, code]
                out += bytes[i...]
                return out
            }
            if (0xD0 ... 0xD7).contains(code) || code == 0x01 { out += [0xFF, code]; continue }
            guard i + 2 <= bytes.count else { throw Malformed(offset: i) }
            let length = Int(bytes[i]) << 8 | Int(bytes[i + 1])
            guard length >= 2, i + length <= bytes.count else { throw Malformed(offset: i) }
            let payload = Array(bytes[i + 2 ..< i + length])
            let segment = [0xFF, code] + bytes[i ..< i + length]
            i += length
            switch code {
            case 0xE0:
                if payload.starts(with: Array("JFIF\0".utf8)) && payload.count >= 14 {
                    // Version kept; density 1:1 aspect; no thumbnail.
                    let body = Array(payload[0 ..< 7]) + [0, 0, 1, 0, 1, 0, 0]
                    out += [0xFF, 0xE0, UInt8((body.count + 2) >> 8), UInt8((body.count + 2) & 0xFF)] + body
                }
            case 0xE1:
                if policy == .colorOnly && payload.starts(with: Array("Exif\0".utf8)) && !wroteOrientation {
                    wroteOrientation = true
                    if orientation != .up { out += JPEGEncoder.orientationEXIFSegment(orientation) }
                }
            case 0xE2:
                if policy == .colorOnly && payload.starts(with: Array("ICC_PROFILE\0".utf8)) { out += segment }
            case 0xEE:
                if payload.starts(with: Array("Adobe".utf8)) { out += segment }
            case 0xE3 ... 0xED, 0xEF, 0xFE:
                break
            default:
                out += segment
            }
        }
    }
}
