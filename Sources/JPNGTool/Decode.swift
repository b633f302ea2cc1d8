import ArgumentParser
import ImageCore

struct Decode: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Decode an image and write it in the format its output name asks for.",
        discussion: """
        Output formats by extension: .png, .pam (keeps channels and 16-bit depth), .ppm/.pgm
        (alpha dropped). '-o -' writes to stdout with --format.

        Examples:
          jpng decode photo.png -o photo.pam
          jpng decode photo.png -o - --format ppm > photo.ppm
        """
    )

    @Argument(help: "The image to decode ('-' for stdin).")
    var input: String

    @Option(name: .shortAndLong, help: "The output file ('-' for stdout, with --format).")
    var output: String

    @Option(help: "Output format when writing to stdout: png, pam, ppm or pgm.")
    var format: String?

    @Option(help: "PNG output: zlib compression level 0-9.")
    var level: Int = 6

    @Flag(help: "Overwrite an existing output file.")
    var force = false

    func validate() throws {
        guard (0 ... 9).contains(level) else { throw ValidationError("--level must be 0 to 9") }
        if output == "-" && format == nil { throw ValidationError("writing to stdout needs --format") }
    }

    func run() throws {
        try reportingErrors {
            let name = output == "-" ? (format ?? "") : fileExtension(output)
            guard let outputFormat = OutputFormat(fileExtension: format ?? name) else {
                throw CLIError("\(output): unknown output format '\(format ?? name)' (png, pam, ppm, pgm)")
            }
            if output != "-" && !force && fileExists(output) {
                throw CLIError("\(output): already exists (use --force to overwrite)")
            }
            let bytes = try readInput(input)
            let image = try decodeImage(bytes, name: input)
            let encoded = try encodeImage(image, as: outputFormat, settings: EncodeSettings(pngLevel: level))
            try writeOutput(encoded, to: output)
        }
    }
}
