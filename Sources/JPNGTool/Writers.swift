import ImageCore
import PurePNG

/// Output formats chosen by extension (or `--format` for stdout).
enum OutputFormat: String, CaseIterable {
    case png, pam, ppm, pgm

    init?(fileExtension ext: String) {
        switch ext {
        case "png": self = .png
        case "pam": self = .pam
        case "ppm", "pnm": self = .ppm
        case "pgm": self = .pgm
        default: return nil
        }
    }
}

struct EncodeSettings {
    var pngLevel = 6
}

/// Encodes `image` as `format`, noting on stderr anything the format cannot keep.
func encodeImage(_ image: Image, as format: OutputFormat, settings: EncodeSettings) throws -> [UInt8] {
    switch format {
    case .png:
        var options = PNGEncodingOptions()
        options.compressionLevel = settings.pngLevel
        do { return try PNGEncoder.encode(image, options: options) } catch { throw CLIError("\(error)") }
    case .pam:
        return Netpbm.pam(image)
    case .ppm, .pgm:
        if image.format.hasAlpha { printNotice("the alpha channel is dropped in .\(format.rawValue) output") }
        let target: PixelFormat = format == .pgm
            ? PixelFormat(color: false, alpha: false, sixteenBit: image.format.is16Bit)
            : PixelFormat(color: true, alpha: false, sixteenBit: image.format.is16Bit)
        return Netpbm.pnm(image.converted(to: target))
    }
}
