import PureImage
import ArgumentParser
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

struct Decode: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "decode",
        abstract: "Decode an image and write it in the format its output name asks for.",
        discussion: """
        Output formats by extension: .png, .jpg/.jpeg, .pam (keeps channels and 16-bit depth), \
        .ppm/.pgm (alpha dropped). '-o -' writes to stdout with --format. An animation gives its \
        first frame composited on the canvas; --frame N picks another, --frames DIR writes every \
        frame. Input is any format ImageSource reads, Netpbm included ('-' reads stdin). To .ppm, \
        .pgm, .pam, .png and baseline .jpg the rows stream from the decoder to the output as djpeg and \
        cjpeg pass them: a baseline JPEG, non-interlaced PNG or Netpbm file is never held whole.

        Examples:
          jpng decode photo.png -o photo.pam
          jpng decode photo.jpg -o small.png --scale 1/4 --auto-orient
          jpng decode anim.gif -o frame3.png --frame 3
          jpng decode anim.gif --frames frames/ --format png
          jpng decode photo.png -o - --format ppm > photo.ppm
        """
    )

    @Argument(help: "The image to decode ('-' for stdin).")
    var input: String

    @Option(name: .shortAndLong, help: "The output file ('-' for stdout, with --format).")
    var output: String?

    @Option(help: "Output format for stdout or --frames: png, jpeg, pam, ppm or pgm.")
    var format: String?

    @Option(help: "Decode at 1/2, 1/4 or 1/8 size: JPEG in the DCT domain, other formats by area average.")
    var scale: String = "1"

    @Flag(help: "Turn the image upright per its EXIF orientation.")
    var autoOrient = false

    @Option(help: "Animations: the frame to write (0-based), composited on the canvas.")
    var frame: Int = 0

    @Option(help: "Animations: write every composited frame into this folder as NNNN.<format>.")
    var frames: String?

    @OptionGroup var encoder: EncoderOptionGroup

    @Flag(help: "Refuse damaged files that libjpeg-turbo, libpng and browsers decode with a warning (the default decodes them the same way and prints the warnings).")
    var strict = false

    @Flag(help: "Overwrite existing output files.")
    var force = false

    @Option(help: "srgb: convert the pixels to sRGB through the ICC profile and write none. By default an RGB or gray profile stays with its pixels (a CMYK image written as RGB is always converted through its profile).")
    var profile: String?

    func validate() throws {
        if output == nil && frames == nil { throw ValidationError("give -o OUTPUT or --frames DIR") }
        if output == "-" && format == nil { throw ValidationError("writing to stdout needs --format") }
        if frames != nil && format == nil { throw ValidationError("--frames needs --format") }
        guard subsample != nil else { throw ValidationError("--scale must be 1, 1/2, 1/4 or 1/8") }
        guard frame >= 0 else { throw ValidationError("--frame must be 0 or more") }
        guard profile == nil || profile == "srgb" else { throw ValidationError("--profile must be srgb") }
    }

    private var subsample: Int? {
        switch scale {
        case "1", "1/1": 1
        case "1/2": 2
        case "1/4": 4
        case "1/8": 8
        default: nil
        }
    }

    func run() throws {
        try reportingErrors {
            let request = DecodeRequest(subsample: subsample ?? 1, autoOrient: autoOrient, frame: frame, threads: encoder.threads,
                                        strict: strict, colorSpace: profile == "srgb" ? .sRGB : nil)
            if let frames { return try writeFrames(to: frames, request: request) }
            guard let output else { return }
            let ext = output == "-" ? (format ?? "") : (format ?? fileExtension(output))
            guard let outputFormat = OutputFormat(fileExtension: ext) else {
                throw CLIError("\(output): unknown output format '\(ext)' (\(OutputFormat.names))")
            }
            if output != "-" && !force && outputExists(output) {
                throw CLIError("\(output): already exists (use --force to overwrite)")
            }
            // A JPNG's PAM keeps its mask as alpha: a JPNG file goes whole (from stdin, PAM output
            // goes whole too, since a JPNG is known only at its end).
            let netpbm = outputFormat == .ppm || outputFormat == .pgm
                || outputFormat == .pam && input != "-" && !isJPNGFile(input)
            // Streaming hands out rows as stored: not for a conversion, nor a CMYK JPEG.
            let asStored = request.colorSpace == nil && !isCMYKJPEGFile(input)
            if netpbm && subsample == 1 && !autoOrient && frame == 0 && request.colorSpace == nil {
                // Rows stream from the decoder to the file, as djpeg writes them.
                return try streamDecodeToNetpbm(input: input, output: output, format: outputFormat, strict: strict)
            }
            if subsample == 1 && !autoOrient && frame == 0 && asStored && canStreamEncode(outputFormat, settings: encoder.settings, input: input) {
                // Rows stream from the decoder to the encoder: the image is never held.
                return try streamDecodeToEncoded(input: input, output: output, format: outputFormat,
                                                 settings: encoder.settings, strict: strict)
            }
            let bytes = try readInput(input)
            let encoded: [UInt8]
            if outputFormat == .apng && frame == 0 {
                encoded = try encodeAnimation(bytes, name: input, settings: encoder.settings)
            } else {
                let image = try decodeImage(bytes, name: input, request: request)
                encoded = try encodeImage(image, as: outputFormat, settings: encoder.settings)
            }
            try writeOutput(encoded, to: output)
        }
    }

    private func writeFrames(to folder: String, request: DecodeRequest) throws {
        guard let outputFormat = OutputFormat(fileExtension: format ?? "") else {
            throw CLIError("unknown output format '\(format ?? "")' (\(OutputFormat.names))")
        }
        let bytes = try readInput(input)
        let ext = outputFormat == .jpeg ? "jpg" : outputFormat.rawValue
        try forEachFrame(bytes, name: input, threads: encoder.threads) { index, frame in
            var image = frame
            if request.autoOrient { image = image.oriented(image.metadata.orientation) }
            let name = String(index).count >= 4 ? String(index) : String(repeating: "0", count: 4 - String(index).count) + String(index)
            let path = URL(fileURLWithPath: folder).appendingPathComponent("\(name).\(ext)").path
            if !force && outputExists(path) { throw CLIError("\(path): already exists (use --force to overwrite)") }
            try writeOutput(try encodeImage(image, as: outputFormat, settings: encoder.settings), to: path)
        }
    }
}
