import ArgumentParser
import PureImage

struct Bench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench",
        abstract: "Time decoding (or encoding) of one file in process; prints the median as MP/s.",
        discussion: """
        The file is read once; each iteration decodes into a fresh buffer, as a caller would get \
        (8-bit RGB or RGBA for PNG, RGB for JPEG; every GIF frame composited to RGBA, MP counting \
        all frames). With --encode, the file is decoded once and the image encoded each iteration. \
        Output (one line): `decode|encode FORMAT WxH[xFRAMES] X.X MP/s [BYTES bytes]`.

        Examples:
          jpng bench photo.png -n 10
          jpng bench photo.png --encode --to png --level 6
          jpng bench photo.png --encode --to jpeg --quality 85
          jpng bench anim.gif
          jpng bench progressive.jpg --previews
        """
    )

    @Argument(help: "The image file.")
    var input: String

    @Option(name: .short, help: "Iterations (the median is reported).")
    var n: Int = 5

    @Flag(help: "Time encoding instead of decoding.")
    var encode = false

    @Option(help: "Encoder for --encode: png or jpeg.")
    var to: String = "png"

    @OptionGroup var encoder: EncoderOptionGroup

    @Flag(help: """
        Also time an incremental decode (ImageSource fed --chunk bytes at a time) that renders \
        preview() after every completed scan, interlace pass or frame, and print its time over \
        the one-shot decode's (the two alternate, n times each; medians).
        """)
    var previews = false

    @Option(help: "Bytes per append for --previews.")
    var chunk: Int = 4096

    func validate() throws {
        guard n >= 1 else { throw ValidationError("-n must be at least 1") }
        guard chunk >= 1 else { throw ValidationError("--chunk must be at least 1") }
    }

    func run() throws {
        try reportingErrors {
            let bytes = try readInput(input)
            var probe = ImageSource()
            _ = try probe.append(bytes)
            _ = try probe.finish()
            guard let format = probe.format else { throw CLIError("\(input): not a recognised image") }
            let animated = probe.describe()?.isAnimation ?? false
            if encode {
                guard let target = OutputFormat(fileExtension: to), target == .png || target == .jpeg else {
                    throw CLIError("--to \(to): encoding benchmarks support png and jpeg")
                }
                var image = try decodeImage(bytes, name: input, request: DecodeRequest(threads: encoder.threads))
                if image.format.is16Bit { image = image.converted(to: image.format.eightBit) }
                var size = 0
                let seconds = try medianSeconds(n) {
                    size = try encodeImage(image, as: target, settings: encoder.settings).count
                }
                let name = target == .jpeg ? "JPEG" : "PNG"
                print(line("encode", name, "\(image.width)x\(image.height)", image.width * image.height, seconds) + " \(size) bytes")
            } else if animated {
                var pixels = 0, frames = 0, size = (0, 0)
                let seconds = try medianSeconds(n) {
                    pixels = 0; frames = 0
                    try forEachFrame(bytes, name: input, threads: encoder.threads) { _, frame in
                        pixels += frame.width * frame.height
                        frames += 1
                        size = (frame.width, frame.height)
                    }
                }
                print(line("decode", format.rawValue, "\(size.0)x\(size.1)x\(frames)", pixels, seconds))
            } else {
                var image = try decodeImage(bytes, name: input, request: DecodeRequest(threads: encoder.threads))
                guard previews else {
                    let seconds = try medianSeconds(n) { image = try decodeImage(bytes, name: input, request: DecodeRequest(threads: encoder.threads)) }
                    print(line("decode", format.rawValue, "\(image.width)x\(image.height)", image.width * image.height, seconds))
                    return
                }
                // One-shot and preview decodes alternate, so that drift in the machine's speed
                // touches both medians alike.
                var shown = 0
                var oneShot: [Double] = [], withPreviews: [Double] = []
                for _ in 0 ..< n {
                    oneShot.append(try medianSeconds(1) { image = try decodeImage(bytes, name: input, request: DecodeRequest(threads: encoder.threads)) })
                    withPreviews.append(try medianSeconds(1) { shown = try decodeWithPreviews(bytes) })
                }
                let seconds = median(oneShot)
                print(line("decode", format.rawValue, "\(image.width)x\(image.height)", image.width * image.height, seconds))
                print("previews \(format.rawValue) \(shown) previews, \(chunk)-byte chunks: "
                      + fixed(median(withPreviews) / seconds, 2) + "x the one-shot decode")
            }
        }
    }

    /// Feeds `bytes` in `chunk`-byte pieces, rendering a preview at every completed scan, pass
    /// or frame; returns how many previews were rendered.
    @inline(never) // a symbol of its own, for callgrind --toggle-collect
    private func decodeWithPreviews(_ bytes: [UInt8]) throws -> Int {
        var source = ImageSource()
        var shown = 0
        var offset = 0
        while offset < bytes.count {
            let end = min(bytes.count, offset + chunk)
            for event in try source.append(bytes[offset ..< end]) {
                switch event {
                case .scanComplete, .passComplete, .frameComplete:
                    if source.preview() != nil { shown += 1 }
                default: break
                }
            }
            offset = end
        }
        _ = try source.finish()
        return shown
    }

    private func line(_ op: String, _ format: String, _ size: String, _ pixels: Int, _ seconds: Double) -> String {
        "\(op) \(format) \(size) \(fixed(Double(pixels) / 1e6 / seconds, 1)) MP/s"
    }
}

/// Runs `body` `count` times and returns the median wall time in seconds.
func medianSeconds(_ count: Int, _ body: () throws -> Void) throws -> Double {
    var times: [Double] = []
    let clock = ContinuousClock()
    for _ in 0 ..< count {
        let start = clock.now
        try body()
        let elapsed = clock.now - start
        times.append(Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
    }
    return median(times)
}

/// The median of `values` (0 for none).
func median(_ values: [Double]) -> Double {
    guard !values.isEmpty else { return 0 }
    let sorted = values.sorted()
    return sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
}
