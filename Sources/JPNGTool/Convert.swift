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
import Dispatch
import PureImage

struct Convert: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "convert",
        abstract: "Convert many images (files and folders) in parallel.",
        discussion: """
        --to auto picks per image: PNG for images with few colours or large flat areas (where JPEG \
        would be both larger and worse), JPNG for photographs with real transparency, JPEG for \
        opaque photographs, APNG for animations (every frame kept); it says what it chose. A failure \
        in one file does not stop the others; the exit status is non-zero if any failed. A progress \
        bar shows on a terminal. Folders are read for .png, .jpg/.jpeg/.jpe, .gif, .webp and .jpng files.

        Examples:
          jpng convert photos/ --to jpeg --out-dir small/ --quality 80 --recursive
          jpng convert *.png --to auto --jobs 4
        """
    )

    @Argument(help: "Files and folders to convert.")
    var inputs: [String]

    @Option(help: "Output format: png, apng, gif, jpeg, jpng, pam or auto (an animation stays animated, as APNG; auto never picks GIF). With --to png, --colors N writes a palette PNG (PNG8).")
    var to: String

    @Option(help: "Folder for the outputs (default: beside each input).")
    var outDir: String?

    @Flag(help: "Descend into sub-folders (their structure is kept under --out-dir).")
    var recursive = false

    @Option(help: "Files converted at once (default: the number of cores).")
    var jobs: Int = ProcessInfo.processInfo.activeProcessorCount

    @OptionGroup var encoder: EncoderOptionGroup

    @Flag(help: "Refuse damaged files that libjpeg-turbo, libpng and browsers decode with a warning.")
    var strict = false

    @Flag(help: "Overwrite existing outputs.")
    var force = false

    @Flag(help: "Skip inputs whose output already exists (with --to auto: a .png, .jpg or .jpng of that name), so that an interrupted batch can be run again as it is.")
    var skipExisting = false

    @Flag(help: "Print a line per converted file.")
    var verbose = false

    @Option(help: "srgb: convert the pixels to sRGB through the ICC profile and write none. By default an RGB or gray profile stays with its pixels (a CMYK image written as RGB is always converted through its profile).")
    var profile: String?

    func validate() throws {
        guard to == "auto" || OutputFormat(fileExtension: to) != nil else {
            throw ValidationError("--to must be auto or one of \(OutputFormat.names)")
        }
        guard jobs >= 1 else { throw ValidationError("--jobs must be at least 1") }
        guard profile == nil || profile == "srgb" else { throw ValidationError("--profile must be srgb") }
        if force && skipExisting { throw ValidationError("--force and --skip-existing exclude each other") }
    }

    func run() throws {
        let tasks = try collectTasks()
        let progress = ConversionProgress(total: tasks.count, showBar: isatty(STDERR_FILENO) != 0)
        let fixed = to == "auto" ? nil : OutputFormat(fileExtension: to)
        let settings = encoder.settings
        let queue = WorkQueue(count: tasks.count)
        let (force, verbose, auto, skipExisting) = (self.force, self.verbose, to == "auto", self.skipExisting)
        let request = DecodeRequest(strict: strict, colorSpace: profile == "srgb" ? .sRGB : nil)
        // The outputs an input may have: the one format asked for, or any that auto picks.
        let candidates = fixed.map { [$0] } ?? [.png, .jpeg, .jpng, .apng]
        DispatchQueue.concurrentPerform(iterations: min(jobs, max(tasks.count, 1))) { _ in
            while let index = queue.next() {
                let task = tasks[index]
                if skipExisting, candidates.contains(where: { fileExists(task.outputBase + "." + $0.fileExtension) }) {
                    progress.skipped()
                    continue
                }
                do {
                    if let fixed, request.colorSpace == nil, canStreamEncode(fixed, settings: settings, input: task.input),
                       !isCMYKJPEGFile(task.input) {
                        // PNG and baseline JPEG: rows stream from the decoder to the encoder.
                        let output = task.outputBase + "." + fixed.fileExtension
                        if output == task.input { throw CLIError("\(task.input): the output would overwrite the input (use --out-dir)") }
                        if !force && fileExists(output) { throw CLIError("\(output): already exists (use --force to overwrite)") }
                        try streamDecodeToEncoded(input: task.input, output: output, format: fixed, settings: settings,
                                                  strict: request.strict)
                        progress.finished(bytesIn: fileSize(task.input), bytesOut: fileSize(output),
                                          line: verbose ? "\(task.input) -> \(output)" : nil)
                        continue
                    }
                    let bytes = try readInput(task.input)
                    // An animation stays one with --to auto; --to apng takes every frame.
                    let animated = fixed == .apng || (fixed == nil || fixed == .gif) && isAnimation(bytes)
                    let image = animated ? nil : try decodeImage(bytes, name: task.input, request: request)
                    let (format, reason) = fixed.map { ($0, "") }
                        ?? image.map(chooseFormat(for:)) ?? (.apng, "animation: APNG keeps every frame")
                    let output = task.outputBase + "." + format.fileExtension
                    if output == task.input { throw CLIError("\(task.input): the output would overwrite the input (use --out-dir)") }
                    if !force && fileExists(output) { throw CLIError("\(output): already exists (use --force to overwrite)") }
                    let encoded = try image.map { image in
                        try encodeImage(image, as: format, settings: settings) { progress.note("jpng: \(task.input): \($0)") }
                    } ?? (format == .gif ? encodeGIFAnimation(bytes, name: task.input, settings: settings)
                                         : encodeAnimation(bytes, name: task.input, settings: settings))
                    try writeOutput(encoded, to: output)
                    let line = auto || verbose ? "\(task.input) -> \(output)" + (auto ? " (\(format.rawValue.uppercased()): \(reason))" : "") : nil
                    progress.finished(bytesIn: bytes.count, bytesOut: encoded.count, line: line)
                } catch {
                    progress.failed("jpng: \(oneLine(String(describing: error)))")
                }
            }
        }
        progress.finish()
        if progress.failures > 0 { throw ExitCode.failure }
    }

    struct Task: Sendable {
        var input: String
        /// Output path without extension.
        var outputBase: String
    }

    static let readableExtensions: Set<String> = ["png", "jpg", "jpeg", "jpe", "gif", "webp", "jpng"]

    private func collectTasks() throws -> [Task] {
        var tasks: [Task] = []
        let fm = FileManager.default
        for input in inputs {
            guard let isDir = isDirectory(input) else {
                Console.error("jpng: \(input): no such file or folder\n")
                throw ExitCode.failure
            }
            if isDir {
                let root = URL(fileURLWithPath: input)
                var files: [String] = []
                if recursive {
                    files = allPaths(under: root.path)
                } else {
                    files = try fm.contentsOfDirectory(atPath: root.path)
                }
                for relative in files.sorted() where Self.readableExtensions.contains(fileExtension(relative)) {
                    let path = root.appendingPathComponent(relative).path
                    guard isDirectory(path) == false else { continue }
                    tasks.append(Task(input: path, outputBase: outputBase(for: path, relative: relative)))
                }
            } else {
                tasks.append(Task(input: input, outputBase: outputBase(for: input, relative: URL(fileURLWithPath: input).lastPathComponent)))
            }
        }
        return tasks
    }

    private func outputBase(for path: String, relative: String) -> String {
        let stem = URL(fileURLWithPath: relative).deletingPathExtension().relativePath
        if let outDir { return URL(fileURLWithPath: outDir).appendingPathComponent(stem).path }
        return URL(fileURLWithPath: path).deletingPathExtension().path
    }
}

/// The `--to auto` choice, with the reason shown to the user.
/// Whether the file is an animation of more than one frame (a GIF or APNG); a file that cannot be
/// read says no here and fails when it is decoded.
func isAnimation(_ bytes: [UInt8]) -> Bool {
    guard let animation = try? ImageSource.animation(bytes) else { return false }
    return animation.frameInfo.count > 1
}

func chooseFormat(for image: Image) -> (OutputFormat, String) {
    let rgba = image.converted(to: .rgba8)
    var colours = Set<UInt32>()
    var flatPairs = 0
    rgba.pixels.withUnsafeBytes { raw in
        let p = raw.bindMemory(to: UInt32.self)
        for i in 0 ..< p.count {
            if colours.count <= 256 { colours.insert(p[i]) }
            if i % rgba.width != 0 && p[i] == p[i - 1] { flatPairs += 1 }
        }
    }
    let pairs = max(1, rgba.height * (rgba.width - 1))
    if colours.count <= 256 { return (.png, "\(colours.count) colours: PNG is exact and smaller") }
    if flatPairs * 2 > pairs { return (.png, "large flat areas: PNG keeps sharp edges") }
    if JPNGEncoder.hasTransparency(image) { return (.jpng, "photograph with transparency") }
    return (.jpeg, "opaque photograph")
}

/// Hands out task indices to the workers.
final class WorkQueue: @unchecked Sendable {
    private let lock = Lock()
    private var nextIndex = 0
    private let count: Int
    init(count: Int) { self.count = count }
    func next() -> Int? {
        lock.lock(); defer { lock.unlock() }
        guard nextIndex < count else { return nil }
        nextIndex += 1
        return nextIndex - 1
    }
}

/// Counts, the progress bar (stderr, on a terminal) and the summary line.
final class ConversionProgress: @unchecked Sendable {
    private let lock = Lock()
    private let total: Int
    private let showBar: Bool
    private var done = 0
    private(set) var failures = 0
    private var skips = 0
    private var bytesIn = 0, bytesOut = 0
    private var lastDraw = ContinuousClock.now
    private let clock = ContinuousClock()

    init(total: Int, showBar: Bool) {
        self.total = total
        self.showBar = showBar
    }

    func finished(bytesIn: Int, bytesOut: Int, line: String?) {
        lock.lock(); defer { lock.unlock() }
        done += 1
        self.bytesIn += bytesIn
        self.bytesOut += bytesOut
        if let line { emit(line, toStderr: false) }
        draw(force: false)
    }

    /// A notice about one file, printed above the bar.
    func note(_ message: String) {
        lock.lock(); defer { lock.unlock() }
        emit(message, toStderr: true)
    }

    /// An input whose output was already there (`--skip-existing`).
    func skipped() {
        lock.lock(); defer { lock.unlock() }
        done += 1
        skips += 1
        draw(force: false)
    }

    func failed(_ message: String) {
        lock.lock(); defer { lock.unlock() }
        done += 1
        failures += 1
        emit(message, toStderr: true)
        draw(force: false)
    }

    func finish() {
        lock.lock(); defer { lock.unlock() }
        draw(force: true)
        if showBar { Console.error("\n") }
        let failed = failures > 0 ? ", \(failures) failed" : ""
        let skippedText = skips > 0 ? ", \(skips) skipped (output already there)" : ""
        print("converted \(done - failures - skips) of \(total) files\(failed)\(skippedText); \(format(bytesIn)) in, \(format(bytesOut)) out")
    }

    private func emit(_ line: String, toStderr: Bool) {
        if showBar { Console.error("\r\u{1B}[K") }
        if toStderr { Console.error(line + "\n") } else { Console.output(line + "\n") }
        draw(force: true)
    }

    private func draw(force: Bool) {
        guard showBar else { return }
        let now = clock.now
        guard force || now - lastDraw > .milliseconds(50) || done == total else { return }
        lastDraw = now
        let bar = progressBar(done: done, total: total)
        let failed = failures > 0 ? ", \(failures) failed" : ""
        let text = "\r\u{1B}[K\(bar) \(done)/\(total) files, \(format(bytesIn)) -> \(format(bytesOut))\(failed)"
        Console.error(text)
    }

    private func format(_ bytes: Int) -> String {
        if bytes >= 1 << 20 { return fixed(Double(bytes) / 1_048_576, 1) + " MB" }
        if bytes >= 1 << 10 { return fixed(Double(bytes) / 1024, 1) + " KB" }
        return "\(bytes) B"
    }
}

/// The size of the file at `path` (0 when it cannot be read).
private func fileSize(_ path: String) -> Int {
    fileSize(atPath: path)
}
