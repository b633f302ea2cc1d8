import PureImage
import ArgumentParser

/// The program's entry: a `jpng decode` command line that streams (the form the benchmarks,
/// scripts and djpeg/cjpeg replacements use) is read by ``QuickDecode`` and run at once; any
/// other goes to ArgumentParser (``JPNGTool``), `--version` alone aside.
///
/// ArgumentParser builds every option of a subcommand through runtime reflection before it
/// reads one argument: about 16 M instructions for `decode` (75% of decoding an 8x8 JPEG to
/// PPM, 21 M in all, against djpeg's 0.3 M), a few milliseconds a run that a C tool does not pay.
@main
enum Entry {
    static func main() {
        let arguments = CommandLine.arguments.dropFirst()
        if arguments.count == 1 && arguments.first == "--version" {
            Console.output(PureImagePackage.version + "\n")
            return
        }
        if let quick = QuickDecode(arguments: Array(CommandLine.arguments.dropFirst())), quick.run() { return }
        JPNGTool.main()
    }
}

/// `jpng decode INPUT -o OUTPUT [--format F] [--quality Q] [--level L] [--threads N] [--force]
/// [--strict]`, read by hand. It takes only what ``Decode`` would run on a streaming path with
/// these options and everything else at its default, and gives way (nil, or `run()` false
/// before it has done anything) for every other command line, a malformed or out-of-range
/// value included, so that ArgumentParser reports it as before.
struct QuickDecode: Equatable {
    var input: String
    var output: String
    var format: String?
    var quality = 85
    var level = 6
    var threads: Int?
    var force = false
    var strict = false

    init(input: String, output: String, format: String? = nil, quality: Int = 85, level: Int = 6,
         threads: Int? = nil, force: Bool = false, strict: Bool = false) {
        self.input = input
        self.output = output
        self.format = format
        self.quality = quality
        self.level = level
        self.threads = threads
        self.force = force
        self.strict = strict
    }

    /// The arguments after the program name; nil unless they are such a `decode`.
    init?(arguments: [String]) {
        guard arguments.first == "decode" else { return nil }
        var input: String?, output: String?, format: String?
        var quality: Int?, level: Int?, threads: Int?
        var force = false, strict = false
        var i = 1
        while i < arguments.count {
            var token = arguments[i]
            i += 1
            if token == "--force" || token == "--strict" {
                if token == "--force" { if force { return nil }; force = true } else { if strict { return nil }; strict = true }
                continue
            }
            if token == "-" || !token.hasPrefix("-") {
                guard input == nil else { return nil }
                input = token
                continue
            }
            // An option with a value: `--name value` or `--name=value` (`-o value` for the output).
            var value: String?
            if token.hasPrefix("--"), let equals = token.firstIndex(of: "=") {
                value = String(token[token.index(after: equals)...])
                token = String(token[..<equals])
            }
            if value == nil {
                guard i < arguments.count else { return nil }
                value = arguments[i]
                i += 1
            }
            guard let value else { return nil }
            switch token {
            case "-o", "--output":
                guard output == nil, !value.isEmpty else { return nil }
                output = value
            case "--format":
                guard format == nil else { return nil }
                format = value
            case "--quality":
                guard quality == nil, let q = Int(value), (1 ... 100).contains(q) else { return nil }
                quality = q
            case "--level":
                guard level == nil, let l = Int(value), (0 ... 9).contains(l) else { return nil }
                level = l
            case "--threads":
                guard threads == nil, let t = Int(value), t >= 1 else { return nil }
                threads = t
            default:
                return nil
            }
        }
        guard let input, let output, output != "-" || format != nil else { return nil }
        self.init(input: input, output: output, format: format, quality: quality ?? 85, level: level ?? 6,
                  threads: threads, force: force, strict: strict)
    }

    /// The settings ``EncoderOptionGroup`` gives for these options.
    var settings: EncodeSettings {
        var settings = EncodeSettings()
        settings.pngLevel = level
        settings.jpegQuality = quality
        settings.threads = threads
        return settings
    }

    /// Where ``Decode`` sends this command line: rows to a Netpbm writer, or to a stream encoder;
    /// nil when it takes another path.
    enum Route: Equatable { case netpbm(OutputFormat), encoder(OutputFormat) }

    var route: Route? {
        let ext = output == "-" ? (format ?? "") : (format ?? fileExtension(output))
        guard let outputFormat = OutputFormat(fileExtension: ext) else { return nil }
        if outputFormat == .ppm || outputFormat == .pgm || outputFormat == .pam && input != "-" && !isJPNGFile(input) {
            return .netpbm(outputFormat)
        }
        if !isCMYKJPEGFile(input) && canStreamEncode(outputFormat, settings: settings, input: input) {
            return .encoder(outputFormat)
        }
        return nil
    }

    /// Runs the conversion as ``Decode`` does (errors as one line on stderr, exit status 1);
    /// false, having done nothing, when it takes another path.
    func run() -> Bool {
        guard let route else { return false }
        do {
            try reportingErrors {
                if output != "-" && !force && outputExists(output) {
                    throw CLIError("\(output): already exists (use --force to overwrite)")
                }
                switch route {
                case let .netpbm(format):
                    try streamDecodeToNetpbm(input: input, output: output, format: format, strict: strict)
                case let .encoder(format):
                    try streamDecodeToEncoded(input: input, output: output, format: format, settings: settings, strict: strict)
                }
            }
        } catch let code as ExitCode {
            JPNGTool.exit(withError: code)
        } catch {
            JPNGTool.exit(withError: error)
        }
        return true
    }
}
