import PureImage
import ArgumentParser

extension ChromaSubsampling: ExpressibleByArgument {}

/// Encoder options shared by the commands that write images.
struct EncoderOptionGroup: ParsableArguments {
    @Option(help: "PNG output: zlib compression level 0-9.")
    var level: Int = 6

    @Option(help: "JPEG output: quality 1-100. PNG with --colors and GIF: min-max as pngquant takes it (a palette rating below min keeps the PNG lossless; colours stop at max; dithering only when the palette alone rates below max).")
    var quality: QualityArgument = QualityArgument(low: 85, high: 85, isRange: false)

    @Option(help: "PNG output: quantize to a palette of at most N colours (2-256, PNG8 with tRNS); GIF output: colours a frame (default 256).")
    var colors: Int?

    @Option(help: "PNG with --colors and GIF output: Floyd-Steinberg dithering strength 0-1 (0: none; default 1).")
    var dither: Float = 1

    @Flag(help: "JPEG output: progressive.")
    var progressive = false

    @Option(help: "JPEG output: chroma subsampling 444, 422 or 420.")
    var subsampling: ChromaSubsampling = .s420

    @Flag(help: "JPEG output: optimized Huffman tables (always on for progressive).")
    var optimize = false

    @Flag(help: "JPEG output: arithmetic coding (SOF9, SOF10 with --progressive), as cjpeg -arithmetic: smaller files that browsers do not decode.")
    var arithmetic = false

    @Option(help: "JPEG output: lossless JPEG (SOF3) with this predictor, 1-7 (1: left neighbour), as libjpeg-turbo 3 writes it; 16-bit images keep 16 bits (12-bit ones 12).")
    var lossless: Int?

    @Option(help: "JPEG output: a restart marker every N MCUs (0: none), as cjpeg -restart NB.")
    var restart: Int = 0

    @Option(help: "JPEG output: bits a sample, 8 or 12 (12-bit DCT, as libjpeg-turbo 3 writes it).")
    var precision: Int = 8

    @Option(help: "JPEG output with --lossless: low bits dropped from each sample (point transform), 0 by default.")
    var pointTransform: Int = 0

    @Option(help: "Threads: APNG frames decoded ahead and compressed at once; a PNG's rows unfiltered, and a baseline JPEG's rows reconstructed, on a second thread when decoding to memory; a progressive JPEG's scans decoded side by side, its final pass rendered behind them; a PNG's 256 KiB bands deflated at once; a baseline JPEG encoded in bands of MCU rows, one a thread (streamed output: rows transformed on a second thread while the first codes them) (default: the processors online, for JPEG from a megapixel up; 1: one thread). The output is the same for any count.")
    var threads: Int?

    func validate() throws {
        guard (0 ... 9).contains(level) else { throw ValidationError("--level must be 0 to 9") }
        if let threads, threads < 1 { throw ValidationError("--threads must be at least 1") }
        guard (1 ... 100).contains(quality.low) || quality.isRange && quality.low == 0 else { throw ValidationError("--quality must be 1 to 100 (or min-max, 0-100)") }
        if let colors, !(2 ... 256).contains(colors) { throw ValidationError("--colors must be 2 to 256") }
        guard (0 ... 1).contains(dither) else { throw ValidationError("--dither must be 0 to 1") }
        if arithmetic && optimize { throw ValidationError("--optimize is for Huffman tables; arithmetic coding has none") }
        if let lossless, !(1 ... 7).contains(lossless) { throw ValidationError("--lossless takes a predictor 1 to 7") }
        if lossless != nil && (progressive || arithmetic) { throw ValidationError("--lossless is sequential and Huffman-coded here") }
        if pointTransform != 0 && lossless == nil { throw ValidationError("--point-transform needs --lossless") }
        guard precision == 8 || precision == 12 else { throw ValidationError("--precision must be 8 or 12") }
        guard (0 ... 65535).contains(restart) else { throw ValidationError("--restart must be 0 to 65535") }
    }

    var settings: EncodeSettings {
        EncodeSettings(pngLevel: level, jpegQuality: quality.high, progressive: progressive,
                       subsampling: subsampling, optimize: optimize, threads: threads, arithmetic: arithmetic,
                       lossless: lossless.map { JPEGLossless(predictor: $0, pointTransform: pointTransform) },
                       precision: precision, restartInterval: restart, colors: colors, dither: dither,
                       paletteQuality: quality.isRange ? (quality.low, quality.high) : nil)
    }
}

/// `--quality`: one number (JPEG) or pngquant's `min-max` (palettes).
struct QualityArgument: ExpressibleByArgument {
    var low: Int, high: Int
    var isRange: Bool

    init(low: Int, high: Int, isRange: Bool) {
        self.low = low; self.high = high; self.isRange = isRange
    }

    init?(argument: String) {
        let parts = argument.split(separator: "-", omittingEmptySubsequences: false)
        if parts.count == 1, let q = Int(parts[0]) {
            self.init(low: q, high: q, isRange: false)
        } else if parts.count == 2, let a = Int(parts[0]), let b = Int(parts[1]), (0 ... 100).contains(a), (1 ... 100).contains(b), a <= b {
            self.init(low: a, high: b, isRange: true)
        } else {
            return nil
        }
    }

    var defaultValueDescription: String { isRange ? "\(low)-\(high)" : "\(high)" }
}
