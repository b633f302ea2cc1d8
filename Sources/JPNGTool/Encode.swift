import ArgumentParser
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PureImage

struct Encode: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "encode",
        abstract: "Encode an image with transparency as JPNG (colour as JPEG, alpha as PNG).",
        discussion: """
        Takes the original JPNG converter's form: INPUT [OUTPUT] [QUALITY]. OUTPUT defaults to INPUT \
        with the extension .jpng; QUALITY is in (0, 1], default 0.8. Missing output folders are \
        created. An image without alpha gets an all-opaque mask (said on stderr), or a plain JPEG \
        with --plain-jpeg-if-opaque.

        Examples:
          jpng encode sprite.png
          jpng encode sprite.png out/sprite.jpng 0.9
          jpng encode photo.png --progressive --subsampling 444
        """
    )

    @Argument(help: "The image to encode (PNG, or any readable image).")
    var input: String

    @Argument(help: "The output file (default: INPUT with extension .jpng).")
    var output: String?

    @Argument(help: "JPEG quality in (0, 1] (default 0.8).")
    var quality: Double = 0.8

    @Flag(help: "Progressive JPEG colour part.")
    var progressive = false

    @Option(help: "Chroma subsampling of the colour part: 444, 422 or 420.")
    var subsampling: String = "420"

    @Option(help: "zlib level 0-9 of the PNG mask.")
    var maskLevel: Int = 9

    @Flag(help: "Write a plain JPEG (not JPNG) when the image is fully opaque.")
    var plainJpegIfOpaque = false

    @Flag(help: "Overwrite an existing output file.")
    var force = false

    func validate() throws {
        guard quality > 0 && quality <= 1 else { throw ValidationError("quality must satisfy 0 < q <= 1") }
        guard (0 ... 9).contains(maskLevel) else { throw ValidationError("--mask-level must be 0 to 9") }
        guard ["444", "422", "420"].contains(subsampling) else { throw ValidationError("--subsampling must be 444, 422 or 420") }
    }

    func run() throws {
        try reportingErrors {
            let target = output ?? URL(fileURLWithPath: input).deletingPathExtension().appendingPathExtension("jpng").path
            if !force && outputExists(target) { throw CLIError("\(target): already exists (use --force to overwrite)") }
            let image = try decodeImage(try readInput(input), name: input)
            var settings = EncodeSettings()
            settings.jpngQuality = quality
            settings.jpegQuality = max(1, min(100, Int((quality * 100).rounded())))
            settings.progressive = progressive
            settings.subsampling = .init(rawValue: subsampling) ?? .s420
            settings.maskLevel = maskLevel
            let opaque = !JPNGEncoder.hasTransparency(image)
            let format: OutputFormat = opaque && plainJpegIfOpaque ? .jpeg : .jpng
            if opaque && format == .jpng && image.format.hasAlpha {
                printNotice("\(input) is fully opaque: the JPNG mask is all opaque")
            }
            try writeOutput(try encodeImage(image, as: format, settings: settings), to: target)
        }
    }
}
