import ArgumentParser
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import PureImage

struct Tile: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tile",
        abstract: "Cut a huge image into a Deep Zoom tile pyramid, in bounded memory.",
        discussion: """
        Writes OUT/NAME.dzi and OUT/NAME_files/LEVEL/COLUMN_ROW.jpg (or .png), the layout \
        OpenSeadragon and other Deep Zoom viewers open. Level 0 is 1x1, the highest level the full \
        image. The input is read in 64 KiB pieces and tiles are written while it arrives ('-' reads \
        stdin). Baseline JPEG, non-interlaced PNG and still WebP stream with memory independent of \
        the image height (a lossless WebP keeps its coded pixels); progressive JPEG, interlaced PNG, \
        GIF and animated WebP are decoded whole first, so a huge one \
        fails with the decoding-limit error. The pyramid appears only when complete; a failure \
        leaves none behind. A progress bar shows on a terminal.

        Examples:
          jpng tile huge.jpg --out tiles/
          curl -s https://example.com/huge.jpg | jpng tile - --out tiles/ --name huge --stats
          jpng tile scan.png --out tiles/ --format png --tile-size 512 --overlap 0
        """
    )

    @Argument(help: "The image ('-' for stdin).")
    var input: String

    @Option(help: "Folder for NAME.dzi and NAME_files/ (created if missing).")
    var out: String

    @Option(help: "Tile edge in pixels, before the overlap.")
    var tileSize: Int = 256

    @Option(help: "Pixels each tile repeats from its neighbours (Deep Zoom overlap).")
    var overlap: Int = 1

    @Option(help: "Tile format: jpeg or png.")
    var format: String = "jpeg"

    @Option(help: "JPEG tile quality, 0.0-1.0.")
    var quality: Double = 0.8

    @Option(help: "Base name of the pyramid's files (default: the input's name without extension, 'image' for stdin).")
    var name: String?

    @Flag(help: "Refuse damaged files that libjpeg-turbo, libpng and browsers decode with a warning.")
    var strict = false

    @Flag(help: "Print timings on stderr, among them the time from the last input byte to done.")
    var stats = false

    func validate() throws {
        guard tileFormat != nil else { throw ValidationError("--format must be jpeg or png") }
        guard (1 ... 8192).contains(tileSize) else { throw ValidationError("--tile-size must be 1...8192") }
        guard (0 ... tileSize).contains(overlap) else { throw ValidationError("--overlap must be 0...tile size") }
        guard quality.isFinite, (0 ... 1).contains(quality) else { throw ValidationError("--quality must be 0.0...1.0") }
        if let name, name.isEmpty || name.contains("/") { throw ValidationError("--name must be a plain file name") }
    }

    private var tileFormat: TileFormat? {
        format.lowercased() == "jpg" ? .jpeg : TileFormat(rawValue: format.lowercased())
    }

    func run() throws {
        try reportingErrors { try tile() }
    }

    private func tile() throws {
        let baseName = name ?? (input == "-" ? "image" : URL(fileURLWithPath: input).deletingPathExtension().lastPathComponent)
        let fd: Int32 = input == "-" ? STDIN_FILENO : open(input, O_RDONLY)
        guard fd >= 0 else { throw CLIError("\(input): cannot open (\(String(cString: strerror(errno))))") }
        defer { if fd != STDIN_FILENO { close(fd) } }
        do {
            try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        } catch {
            throw CLIError("\(out): cannot create the folder (\(error))")
        }
        // The default tiles in flight (160, ~32 MB of 256-pixel tiles) hold more than a tile row
        // of a 16000-pixel-wide level, so decoding does not wait for the encoders at each row.
        let options = TilePyramidOptions(tileSize: tileSize, overlap: overlap, format: tileFormat ?? .jpeg, quality: quality)
        // A regular file's size lets the decoder refuse a header its bytes cannot hold.
        var info = stat()
        let size = fstat(fd, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG ? Int(info.st_size) : nil
        let limits = size.map { streamingLimits.knowingInputSize($0) } ?? streamingLimits
        var builder = TilePyramidBuilder(directory: out, name: baseName, options: options,
                                         sourceOptions: ImageSourceOptions(limits: limits, strict: strict))
        let bar = TileProgress(showBar: isatty(STDERR_FILENO) != 0)
        let clock = ContinuousClock()
        let start = clock.now
        var bytesRead = 0
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        let pyramid: TilePyramid
        let lastByte: ContinuousClock.Instant
        do {
            while true {
                let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
                if n < 0 {
                    if errno == EINTR { continue }
                    throw CLIError("\(input): read failed (\(String(cString: strerror(errno))))")
                }
                if n == 0 { break }
                bytesRead += n
                try chunk.withUnsafeBytes { try builder.append(UnsafeRawBufferPointer(rebasing: $0[0 ..< n])) }
                bar.draw(builder)
            }
            lastByte = clock.now
            pyramid = try builder.finish()
            bar.draw(builder, force: true)
        } catch {
            builder.abandon()
            bar.clear()
            if error is CLIError { throw error }
            throw CLIError("\(input): \(error)")
        }
        let end = clock.now
        bar.clear()
        for warning in builder.warnings { printNotice("\(input): warning: \(warning)") }
        let tiles = (0 ..< pyramid.levels).reduce(0) { total, level in
            let (columns, rows) = pyramid.tileCount(ofLevel: level)
            return total + columns * rows
        }
        print("\(input) -> \(pyramid.descriptorPath) (\(pyramid.width)x\(pyramid.height), \(pyramid.levels) levels, \(tiles) tiles)")
        if stats {
            let total = seconds(end - start), tail = seconds(end - lastByte)
            let share = total > 0 ? tail / total * 100 : 0
            printNotice("tile stats: \(fixed(total, 3)) s in all, \(fixed(tail, 3)) s from the last input byte to done "
                        + "(\(fixed(share, 1))%), \(bytesRead) bytes read")
        }
    }

    private func seconds(_ d: Duration) -> Double {
        Double(d.components.seconds) + Double(d.components.attoseconds) * 1e-18
    }
}
