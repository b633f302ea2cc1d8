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
        --to auto picks per image and never writes a file larger than its input: PNG for images with \
        few colours or large flat areas (where JPEG would be both larger and worse), JPNG for \
        photographs with real transparency, JPEG for opaque photographs (a JPEG source keeps its JPEG \
        data: copied as it is, or with --metadata color|none only its marker segments rewritten, never \
        encoded again), and for an animation the smaller of APNG and GIF, the GIF only when it shows \
        every frame exactly (so from a GIF source both are lossless; beside a GIF input, APNG only, as \
        a GIF would replace the input); a still image is never encoded as GIF. An output that would not be smaller than its input is not written: the input is kept as \
        it is, copied with its own name under --out-dir, or left in place without it, and its line \
        says so (unless --profile srgb or --metadata asks for a change that file needs: then the \
        output is written and its line says it is larger). Every line says what auto chose and why. Folders are read for every file but hidden \
        ones, recognised by content: a file the tool cannot read (a text file, a TIFF) is skipped with \
        its reason on stderr, counted and named in the summary, and makes the exit status non-zero, as \
        a failure does. A failure in one file does not stop the others; the exit status is non-zero if \
        any failed or was skipped as unreadable. A progress bar shows on a terminal.

        Examples:
          jpng convert photos/ --to jpeg --out-dir small/ --quality 80 --recursive
          jpng convert *.png --to auto --jobs 4
        """
    )

    @Argument(help: "Files and folders to convert.")
    var inputs: [String]

    @Option(help: "Output format: png, apng, gif, jpeg, jpng, pam or auto (per image, never larger than the input: an animation becomes the smaller of APNG and a GIF that shows every frame exactly, as one from a GIF always does; a still image is never encoded as GIF; a JPEG keeps its JPEG data). With --to png, --colors N writes a palette PNG (PNG8).")
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

    @Flag(help: "Skip inputs whose output already exists (with --to auto: a .png, .jpg, .jpng or .gif of that name, or under --out-dir the input's own name, where auto keeps a file it cannot shrink), so that an interrupted batch can be run again as it is.")
    var skipExisting = false

    @Flag(help: "Print a line per converted file (--to auto always does).")
    var verbose = false

    @Option(help: "Metadata the outputs keep: all, color (ICC profile and colour chunks; no EXIF, so no GPS position) or none. With --to auto a JPEG kept as JPEG has only its marker segments rewritten.")
    var metadata: MetadataPolicy = .all

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
        let (force, verbose, skipExisting, metadata) = (self.force, self.verbose, self.skipExisting, self.metadata)
        let request = DecodeRequest(strict: strict, colorSpace: profile == "srgb" ? .sRGB : nil)
        let auto = AutoConversion(settings: settings, request: request, metadata: metadata, force: force)
        // The outputs an input may have: the one format asked for, or any that auto picks (and,
        // under another folder, the input's own name, where auto keeps a file it cannot shrink).
        let candidates = fixed.map { [$0] } ?? [.png, .jpeg, .jpng, .apng, .gif]
        DispatchQueue.concurrentPerform(iterations: min(jobs, max(tasks.count, 1))) { _ in
            while let index = queue.next() {
                let task = tasks[index]
                var outputs = candidates.map { task.outputBase + "." + $0.fileExtension }
                if fixed == nil { outputs.append(task.outputBase + "." + URL(fileURLWithPath: task.input).pathExtension) }
                if skipExisting, outputs.contains(where: { $0 != task.input && fileExists($0) }) {
                    progress.skipped(task.input, reason: "output already there", unreadable: false)
                    continue
                }
                if task.input != "-", let reason = unreadableReason(readPrefix(task.input, count: 32)) {
                    progress.skipped(task.input, reason: reason, unreadable: true)
                    continue
                }
                do {
                    if let fixed, request.colorSpace == nil, metadata == .all, canStreamEncode(fixed, settings: settings, input: task.input),
                       !isCMYKJPEGFile(task.input) {
                        // PNG and baseline JPEG: rows stream from the decoder to the encoder.
                        let output = task.outputBase + "." + fixed.fileExtension
                        if output == task.input { throw CLIError("\(task.input): the output would overwrite the input (use --out-dir)") }
                        if !force && outputExists(output) { throw CLIError("\(output): already exists (use --force to overwrite)") }
                        try streamDecodeToEncoded(input: task.input, output: output, format: fixed, settings: settings,
                                                  strict: request.strict)
                        progress.finished(bytesIn: fileSize(task.input), bytesOut: fileSize(output),
                                          line: verbose ? "\(task.input) -> \(output)" : nil)
                        continue
                    }
                    let bytes = try readInput(task.input)
                    guard let fixed else {
                        let result = try auto.convert(task, bytes: bytes) { progress.note("jpng: \(task.input): \($0)") }
                        progress.finished(bytesIn: bytes.count, bytesOut: result.bytesOut, line: result.line, kept: result.kept)
                        continue
                    }
                    // --to apng takes every frame; --to gif keeps an animation animated.
                    let animated = fixed == .apng || fixed == .gif && isAnimation(bytes)
                    let image = try animated ? nil : decodeImage(bytes, name: task.input, request: request).keeping(metadata)
                    let output = task.outputBase + "." + fixed.fileExtension
                    if output == task.input { throw CLIError("\(task.input): the output would overwrite the input (use --out-dir)") }
                    if !force && outputExists(output) { throw CLIError("\(output): already exists (use --force to overwrite)") }
                    let encoded = try image.map { image in
                        try encodeImage(image, as: fixed, settings: settings) { progress.note("jpng: \(task.input): \($0)") }
                    } ?? (fixed == .gif ? encodeGIFAnimation(bytes, name: task.input, settings: settings)
                                        : encodeAnimation(bytes, name: task.input, settings: settings))
                    try writeOutput(encoded, to: output)
                    progress.finished(bytesIn: bytes.count, bytesOut: encoded.count, line: verbose ? "\(task.input) -> \(output)" : nil)
                } catch {
                    progress.failed("jpng: \(oneLine(String(describing: error)))")
                }
            }
        }
        progress.finish()
        if progress.failures > 0 || progress.unreadable > 0 { throw ExitCode.failure }
    }

    struct Task: Sendable {
        var input: String
        /// Output path without extension.
        var outputBase: String
    }

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
                // Every file but hidden ones: one the tool cannot read is counted as skipped.
                for relative in files.sorted() where !relative.split(separator: "/").contains(where: { $0.hasPrefix(".") }) {
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

/// The size of the file at `path` (0 when it cannot be read).
private func fileSize(_ path: String) -> Int {
    fileSize(atPath: path)
}
