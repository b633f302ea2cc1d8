import PureImage

/// Output formats chosen by extension (or `--format` for stdout).
enum OutputFormat: String, CaseIterable {
    case png, jpeg, jpng, pam, ppm, pgm

    init?(fileExtension ext: String) {
        switch ext {
        case "png": self = .png
        case "jpg", "jpeg": self = .jpeg
        case "jpng": self = .jpng
        case "pam": self = .pam
        case "ppm", "pnm": self = .ppm
        case "pgm": self = .pgm
        default: return nil
        }
    }

    static let names = "png, jpg/jpeg, jpng, pam, ppm, pgm"

    /// The file extension written for this format.
    var fileExtension: String { self == .jpeg ? "jpg" : rawValue }
}

/// Encoder settings gathered from the command line.
struct EncodeSettings {
    var pngLevel = 6
    var jpegQuality = 85
    var progressive = false
    var subsampling = ChromaSubsampling.s420
    var optimize = false
    /// JPNG: quality in (0, 1]; nil takes `jpegQuality / 100`.
    var jpngQuality: Double?
    /// JPNG: zlib level of the mask.
    var maskLevel = 9
}

/// Encodes `image` as `format`; `notice` hears of anything the format cannot keep (formats
/// without alpha drop a fully opaque alpha channel silently: nothing is lost).
func encodeImage(_ original: Image, as format: OutputFormat, settings: EncodeSettings,
                 notice: (String) -> Void = printNotice) throws -> [UInt8] {
    var image = original
    let keepsAlpha = format == .png || format == .jpng || format == .pam
    if image.format.hasAlpha && !keepsAlpha && !JPNGEncoder.hasTransparency(image) {
        image = image.converted(to: image.format.withoutAlpha)
    }
    switch format {
    case .png:
        var options = PNGEncodingOptions()
        options.compressionLevel = settings.pngLevel
        do { return try PNGEncoder.encode(image, options: options) } catch { throw CLIError("\(error)") }
    case .jpeg:
        if image.format.hasAlpha { notice("the alpha channel is dropped in JPEG output (use .jpng to keep it)") }
        var options = JPEGEncodingOptions(quality: settings.jpegQuality, subsampling: settings.subsampling,
                                          progressive: settings.progressive)
        if settings.optimize { options.optimizeHuffman = true }
        do { return try JPEGEncoder.encode(image, options: options) } catch { throw CLIError("\(error)") }
    case .jpng:
        if !image.format.hasAlpha { notice("the image has no alpha channel: the JPNG mask is all opaque") }
        let options = JPNGEncodingOptions(quality: settings.jpngQuality ?? Double(settings.jpegQuality) / 100,
                                          progressive: settings.progressive, subsampling: settings.subsampling,
                                          maskCompressionLevel: settings.maskLevel)
        do { return try JPNGEncoder.encode(image, options: options) } catch { throw CLIError("\(error)") }
    case .pam:
        return Netpbm.pam(image)
    case .ppm, .pgm:
        if image.format.hasAlpha { notice("the alpha channel is dropped in .\(format.rawValue) output") }
        let target: PixelFormat = format == .pgm
            ? PixelFormat(color: false, alpha: false, sixteenBit: image.format.is16Bit)
            : PixelFormat(color: true, alpha: false, sixteenBit: image.format.is16Bit)
        return Netpbm.pnm(image.converted(to: target))
    }
}
