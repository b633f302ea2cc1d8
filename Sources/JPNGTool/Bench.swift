import ArgumentParser
import Foundation
import ImageCore

struct Bench: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Time decoding (or encoding) of one file in process; prints the median as MP/s.",
        discussion: """
        The file is read once; each iteration decodes into a fresh buffer, as a caller would get.
        With --encode, the file is decoded once and the image encoded each iteration.
        Output (one line): `decode|encode FORMAT WxH X.X MP/s [BYTES bytes]`.

        Examples:
          jpng bench photo.png -n 10
          jpng bench photo.png --encode --to png --level 6
        """
    )

    @Argument(help: "The image file.")
    var input: String

    @Option(name: .short, help: "Iterations (the median is reported).")
    var n: Int = 5

    @Flag(help: "Time encoding instead of decoding.")
    var encode = false

    @Option(help: "Encoder for --encode: png.")
    var to: String = "png"

    @Option(help: "PNG zlib level for --encode.")
    var level: Int = 6

    func validate() throws {
        guard n >= 1 else { throw ValidationError("-n must be at least 1") }
        guard (0 ... 9).contains(level) else { throw ValidationError("--level must be 0 to 9") }
    }

    func run() throws {
        try reportingErrors {
            let bytes = try readInput(input)
            guard let format = sniffFormat(bytes) else { throw CLIError("\(input): not a recognised image") }
            if encode {
                guard let target = OutputFormat(fileExtension: to), target == .png else {
                    throw CLIError("--to \(to): encoding benchmarks support png")
                }
                let image = try decodeImage(bytes, name: input)
                var size = 0
                let seconds = try medianSeconds(n) {
                    size = try encodeImage(image, as: target, settings: EncodeSettings(pngLevel: level)).count
                }
                print(line("encode", target.rawValue.uppercased(), image, seconds) + " \(size) bytes")
            } else {
                var image = try decodeImage(bytes, name: input)
                let seconds = try medianSeconds(n) { image = try decodeImage(bytes, name: input) }
                print(line("decode", format.rawValue, image, seconds))
            }
        }
    }

    private func line(_ op: String, _ format: String, _ image: Image, _ seconds: Double) -> String {
        let mp = Double(image.width * image.height) / 1e6
        return "\(op) \(format) \(image.width)x\(image.height) \(String(format: "%.1f", mp / seconds)) MP/s"
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
    times.sort()
    return times.count % 2 == 1 ? times[times.count / 2] : (times[times.count / 2 - 1] + times[times.count / 2]) / 2
}
