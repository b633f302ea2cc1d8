import ImageCore
import PurePNG

/// The container formats the tool recognises by their first bytes.
func sniffFormat(_ bytes: [UInt8]) -> ImageFileFormat? {
    if bytes.starts(with: pngSignature) { return .png }
    if bytes.count >= 3 && bytes[0] == 0xFF && bytes[1] == 0xD8 && bytes[2] == 0xFF { return .jpeg }
    if bytes.starts(with: Array("GIF87a".utf8)) || bytes.starts(with: Array("GIF89a".utf8)) { return .gif }
    return nil
}

/// Everything `info` reports about a file.
struct FileDescription {
    var format: ImageFileFormat
    var width: Int
    var height: Int
    var pixelFormat: PixelFormat
    var frames: Int
    var interlaced: Bool
    var progressive: Bool
    var metadata: ImageMetadata
    /// Format-specific lines for the text listing: (label, value).
    var details: [(String, String)]
}

/// Decodes any readable image into its native pixel format.
func decodeImage(_ bytes: [UInt8], name: String) throws -> Image {
    switch sniffFormat(bytes) {
    case .png?:
        do { return try PNGDecoder.decode(bytes) } catch { throw CLIError("\(name): \(error)") }
    case let format?:
        throw CLIError("\(name): \(format) decoding is not supported by this version of jpng")
    case nil:
        throw CLIError("\(name): not a recognised image (PNG, JPEG, GIF or JPNG)")
    }
}

/// Reads a file's structure and metadata for `info`.
func describeImage(_ bytes: [UInt8], name: String) throws -> FileDescription {
    switch sniffFormat(bytes) {
    case .png?:
        var decoder = PNGDecoder()
        do {
            _ = try decoder.append(bytes)
            _ = try decoder.finish()
        } catch {
            throw CLIError("\(name): \(error)")
        }
        guard let header = decoder.header, let info = decoder.info else { throw CLIError("\(name): no PNG header") }
        var details: [(String, String)] = [
            ("colour type", "\(info.colorType) (\(info.colorType.rawValue))"),
            ("bit depth", "\(info.bitDepth)"),
        ]
        if let palette = info.palette { details.append(("palette", "\(palette.count) entries")) }
        return FileDescription(format: .png, width: header.width, height: header.height, pixelFormat: header.pixelFormat,
                               frames: 1, interlaced: info.interlaced, progressive: false,
                               metadata: decoder.metadata, details: details)
    case let format?:
        throw CLIError("\(name): \(format) is not supported by this version of jpng")
    case nil:
        throw CLIError("\(name): not a recognised image (PNG, JPEG, GIF or JPNG)")
    }
}
