import ImageCore

/// ICCP, EXIF and XMP chunks into ``ImageMetadata`` (as the PNG and JPEG decoders fill it).
enum WebPMetadata {
    /// The keyword XMP is kept under, as PNG's iTXt carries it.
    static let xmpKeyword = "XML:com.adobe.xmp"

    /// Stores one chunk; returns a warning when its content is skipped.
    static func store(_ tag: FourCC, _ payload: [UInt8], into metadata: inout ImageMetadata) -> String? {
        switch tag {
        case .iccp:
            metadata.iccProfile = payload
        case .exif:
            var exif = payload
            // Some writers keep the JPEG APP1 prefix; the TIFF structure starts after it.
            if exif.starts(with: [0x45, 0x78, 0x69, 0x66, 0, 0]) { exif.removeFirst(6) }
            guard let orientation = EXIF.orientation(exif) else { return "EXIF chunk is not a TIFF structure: skipped" }
            metadata.exif = exif
            metadata.orientation = orientation
        case .xmp:
            metadata.texts.append(TextEntry(keyword: xmpKeyword, text: String(decoding: payload, as: UTF8.self), kind: .international))
        default:
            break
        }
        return nil
    }
}
