import ImageCore

/// Marker segments (T.81 B.1-B.2, JFIF 1.02, EXIF 2.3 section 4.5.4, ICC.1 Annex B.4), each
/// returned as bytes, laid out as libjpeg's jcmarker.c writes them so that files match cjpeg's.
enum JPEGWriter {
    static func marker(_ code: UInt8) -> [UInt8] { [0xFF, code] }

    /// A marker followed by its two-byte length (which counts itself) and payload.
    static func segment(_ code: UInt8, _ payload: [UInt8]) -> [UInt8] {
        let length = payload.count + 2
        return [0xFF, code, UInt8(length >> 8), UInt8(length & 0xFF)] + payload
    }

    static func be16(_ v: Int) -> [UInt8] { [UInt8((v >> 8) & 0xFF), UInt8(v & 0xFF)] }

    /// APP0 JFIF 1.01 (libjpeg's default version) with the density, or 1:1 aspect ratio.
    static func jfif(density: Density?) -> [UInt8] {
        var unit: UInt8 = 0, x = 1, y = 1
        if let d = density, d.x > 0, d.y > 0 {
            switch d.unit {
            case .aspectRatio: (unit, x, y) = (0, d.x, d.y)
            case .perInch: (unit, x, y) = (1, d.x, d.y)
            case .perCentimetre: (unit, x, y) = (2, d.x, d.y)
            case .perMetre: (unit, x, y) = (2, (d.x + 50) / 100, (d.y + 50) / 100)
            }
            x = min(max(x, 1), 65535)
            y = min(max(y, 1), 65535)
        }
        return segment(0xE0, Array("JFIF".utf8) + [0, 1, 1, unit] + be16(x) + be16(y) + [0, 0])
    }

    /// APP1 "Exif\0\0" + the TIFF structure. Returns nil when it does not fit one segment.
    static func exif(_ tiff: [UInt8]) -> [UInt8]? {
        let payload = Array("Exif".utf8) + [0, 0] + tiff
        return payload.count + 2 <= 65535 ? segment(0xE1, payload) : nil
    }

    /// A minimal big-endian TIFF holding only the orientation tag (0x0112), for images whose
    /// metadata carries an orientation but no EXIF block.
    static func orientationOnlyEXIF(_ orientation: Orientation) -> [UInt8] {
        Array("MM".utf8) + [0, 42, 0, 0, 0, 8]          // header, IFD0 at offset 8
            + [0, 1]                                    // one entry
            + [0x01, 0x12, 0, 3, 0, 0, 0, 1] + be16(orientation.rawValue) + [0, 0]
            + [0, 0, 0, 0]                              // no next IFD
    }

    /// Largest ICC chunk per APP2: 65535 - 2 (length) - 14 ("ICC_PROFILE\0", seq, count).
    static let iccChunkSize = 65519

    /// APP2 segments carrying `profile` in numbered chunks (ICC.1 B.4). Nil when it needs more
    /// than 255 segments.
    static func icc(_ profile: [UInt8]) -> [[UInt8]]? {
        let chunks = max(1, (profile.count + iccChunkSize - 1) / iccChunkSize)
        guard chunks <= 255 else { return nil }
        return (0 ..< chunks).map { i in
            let part = profile[min(i * iccChunkSize, profile.count) ..< min((i + 1) * iccChunkSize, profile.count)]
            return segment(0xE2, Array("ICC_PROFILE".utf8) + [0, UInt8(i + 1), UInt8(chunks)] + part)
        }
    }

    /// One DQT segment per table (as libjpeg), 8-bit precision, entries in zigzag order.
    static func dqt(index: Int, table: [UInt16]) -> [UInt8] {
        segment(0xDB, [UInt8(index)] + EncoderTables.zigzag.map { UInt8(truncatingIfNeeded: table[$0]) })
    }

    /// SOF0 (baseline) or SOF2 (progressive), SOF1 for 12-bit sequential, or with arithmetic
    /// coding SOF9 or SOF10.
    static func sof(progressive: Bool, arithmetic: Bool = false, precision: Int = 8, layout: EncoderLayout) -> [UInt8] {
        var p: [UInt8] = [UInt8(precision)] + be16(layout.height) + be16(layout.width) + [UInt8(layout.components.count)]
        for c in layout.components { p += [c.id, UInt8(c.h << 4 | c.v), UInt8(c.table)] }
        // 12-bit sequential files are extended (SOF1): baseline is 8-bit only.
        let marker: UInt8 = arithmetic ? (progressive ? 0xCA : 0xC9) : (progressive ? 0xC2 : precision == 8 ? 0xC0 : 0xC1)
        return segment(marker, p)
    }

    /// One DHT segment per table (as libjpeg): class 0 DC, 1 AC.
    static func dht(isAC: Bool, index: Int, spec: HuffmanSpec) -> [UInt8] {
        segment(0xC4, [UInt8((isAC ? 0x10 : 0) | index)] + spec.counts + spec.symbols)
    }

    static func dri(_ interval: Int) -> [UInt8] { segment(0xDD, be16(interval)) }

    static func sos(components: [EncoderComponent], tableBytes: [UInt8], ss: Int, se: Int, ah: Int, al: Int) -> [UInt8] {
        var p: [UInt8] = [UInt8(components.count)]
        for (c, t) in zip(components, tableBytes) { p += [c.id, t] }
        p += [UInt8(ss), UInt8(se), UInt8(ah << 4 | al)]
        return segment(0xDA, p)
    }

    /// SOI, APP0, APP1, APP2...: everything before the frame header, in libjpeg's order. The ICC
    /// profile is written when its colour space suits the file's `components` (1 gray, 3 colour).
    static func header(options: JPEGEncodingOptions, metadata: ImageMetadata, components: Int) throws(JPEGEncoderError) -> [UInt8] {
        var out = marker(0xD8)
        if options.writeJFIF { out += jfif(density: metadata.density) }
        guard options.writeMetadata else { return out }
        if let tiff = metadata.exif, !tiff.isEmpty {
            guard let seg = exif(tiff) else { throw .metadataTooLarge("EXIF block of \(tiff.count) bytes exceeds one APP1 segment") }
            out += seg
        } else if metadata.orientation != .up, let seg = exif(orientationOnlyEXIF(metadata.orientation)) {
            out += seg
        }
        if let profile = metadata.iccProfileMatching(colorChannels: components) {
            guard let segs = icc(profile) else { throw .metadataTooLarge("ICC profile of \(profile.count) bytes needs over 255 APP2 segments") }
            for s in segs { out += s }
        }
        return out
    }
}

extension JPEGEncoder {
    /// The APP1 segment (marker and length included) the encoder writes for an image whose
    /// metadata has an orientation but no EXIF block: an EXIF holding only the Orientation tag.
    /// For tools that rewrite a JPEG's marker segments without re-encoding it.
    public static func orientationEXIFSegment(_ orientation: Orientation) -> [UInt8] {
        JPEGWriter.exif(JPEGWriter.orientationOnlyEXIF(orientation)) ?? []
    }
}
