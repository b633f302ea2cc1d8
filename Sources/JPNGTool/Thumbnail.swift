import ArgumentParser
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import PureImage

struct Thumbnail: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "thumbnail",
        abstract: "Make a thumbnail: the image reduced so its longer side is --size pixels.",
        discussion: """
        The input is read in pieces and reduced as it decodes: a JPEG at 1/8 when that covers \
        the size (block averages, filtered as such; a progressive file's luma AC scans are not \
        even read), else at the smallest DCT scale that covers twice the size (vipsthumbnail's \
        shrink-on-load), then a box average and a Lanczos-3 filter (libvips' resize); a baseline \
        JPEG or non-interlaced PNG is never held whole. The thumbnail is turned upright per the EXIF orientation (--no-rotate keeps it as \
        stored) and never enlarged. Output format by extension (.jpg, .png, .jpng, .pam, .ppm, \
        .pgm), or --format for stdout; '-' reads stdin.

        Examples:
          jpng thumbnail huge.jpg -o thumb.jpg --size 1024
          curl -s https://example.com/photo.jpg | jpng thumbnail - -o - --format png --size 256 > t.png
        """
    )

    @Argument(help: "The image ('-' for stdin).")
    var input: String

    @Option(name: .shortAndLong, help: "The output file ('-' for stdout, with --format).")
    var output: String

    @Option(help: "The longer side of the thumbnail in pixels.")
    var size: Int

    @Option(help: "Output format for stdout: png, jpeg, jpng, pam, ppm or pgm.")
    var format: String?

    @Flag(help: "Keep the stored orientation instead of turning the thumbnail upright.")
    var noRotate = false

    @Flag(help: "Keep the source's ICC profile and its pixels as stored, instead of converting to sRGB and dropping the profile.")
    var keepProfile = false

    @Option(help: "Metadata the thumbnail keeps: color (ICC profile and colour chunks; no EXIF, so no GPS position), all, or none.")
    var metadata: MetadataPolicy = .colorOnly

    @OptionGroup var encoder: EncoderOptionGroup

    @Flag(help: "Refuse damaged files that libjpeg-turbo, libpng and browsers decode with a warning.")
    var strict = false

    @Flag(help: "Overwrite an existing output file.")
    var force = false

    func validate() throws {
        guard size >= 1 else { throw ValidationError("--size must be at least 1") }
        if output == "-" && format == nil { throw ValidationError("writing to stdout needs --format") }
    }

    func run() throws {
        try reportingErrors {
            let ext = output == "-" ? (format ?? "") : (format ?? fileExtension(output))
            guard let outputFormat = OutputFormat(fileExtension: ext), outputFormat != .apng else {
                throw CLIError("\(output): unknown output format '\(ext)' (\(OutputFormat.names))")
            }
            if output != "-" && !force && outputExists(output) {
                throw CLIError("\(output): already exists (use --force to overwrite)")
            }
            let reader = try InputPieces(path: input)
            defer { reader.close() }
            let limits = reader.size.map { streamingLimits.knowingInputSize($0) } ?? streamingLimits
            var thumbnailer = ThumbnailDecoder(maxPixelSize: size,
                                               options: ImageSourceOptions(limits: limits, applyOrientation: !noRotate,
                                                                           threads: encoder.threads, strict: strict,
                                                                           colorSpace: keepProfile ? .asStored : .sRGB,
                                                                           metadata: metadata))
            let image: Image
            do {
                while let piece = try reader.next(1 << 18) { try thumbnailer.append(piece) }
                image = try thumbnailer.finish()
            } catch let error as CLIError {
                throw error
            } catch {
                throw CLIError("\(input): \(error)")
            }
            for warning in thumbnailer.warnings { printNotice("\(input): warning: \(warning)") }
            try writeOutput(try encodeImage(image, as: outputFormat, settings: encoder.settings), to: output)
        }
    }
}
