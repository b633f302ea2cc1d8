import Dispatch
import PureImage
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

/// `decode` to PPM, PGM or PAM without holding the image or the output: the input is read in
/// pieces, rows go from `RowStreamDecoder` to the Netpbm writer band by band (as djpeg writes
/// them), and the output is a temporary file renamed at the end (or stdout). The bytes are
/// those of the whole-image path (`encodeImage(_:as:settings:)`): the same header, the same
/// conversion of each pixel, the same notice when a transparent alpha channel is dropped.
/// Formats whose rows are final only at the end (progressive JPEG, Adam7 PNG, GIF) are held
/// by the decoder until then, as `RowStreamDecoder` does.
func streamDecodeToNetpbm(input: String, output: String, format: OutputFormat, strict: Bool) throws {
    try streamConversion(input: input, output: output, strict: strict) { NetpbmRowWriter(format: format, sink: $0) }
}

/// Where a streamed conversion's rows go: a writer started once the image's header (and, for
/// encoders, the metadata before the first row) is known.
protocol StreamedOutput {
    /// True once rows can go straight out (until then the input is fed in small pieces).
    var isStarted: Bool { get }
    /// Set when a transparent alpha channel was dropped (the format keeps no alpha).
    var droppedTransparency: Bool { get }
    /// The notice for ``droppedTransparency``.
    var droppedTransparencyNotice: String { get }
    mutating func start(_ header: ImageHeader, metadata: ImageMetadata) throws
    mutating func write(_ band: RowBand) throws
    mutating func end() throws
}

/// A conversion that never holds the image: the input is read in pieces (4 KB until the
/// output has started, so that few rows wait for it), rows go from `RowStreamDecoder` to the
/// output band by band, and the output is a temporary file renamed at the end (or stdout); an
/// error leaves nothing behind. Warnings and the dropped-alpha notice are printed as the
/// whole-image path prints them.
func streamConversion<Output: StreamedOutput>(input: String, output: String, strict: Bool,
                                              makeOutput: (OutputSink) -> Output) throws {
    let reader = try InputPieces(path: input)
    defer { reader.close() }
    let sink = try OutputSink(path: output)
    var committed = false
    defer { if !committed { sink.abandon() } }
    let limits = reader.size.map { streamingLimits.knowingInputSize($0) } ?? streamingLimits
    var decoder = RowStreamDecoder(options: ImageSourceOptions(limits: limits, strict: strict))
    var writer = makeOutput(sink)
    do {
        while let piece = try reader.next(writer.isStarted ? 1 << 20 : 4096) {
            try piece.withUnsafeBytes { raw in _ = try decoder.append(raw) { try writer.write($0) } }
            if let header = decoder.header { try writer.start(header, metadata: decoder.metadata) }
        }
        try decoder.finish { try writer.write($0) }
        if let header = decoder.header { try writer.start(header, metadata: decoder.metadata) }
        try writer.end()
    } catch let error as CLIError {
        throw error
    } catch {
        throw CLIError("\(input): \(error)")
    }
    for warning in decoder.warnings { printNotice("\(input): warning: \(warning)") }
    if writer.droppedTransparency { printNotice(writer.droppedTransparencyNotice) }
    try sink.commit()
    committed = true
}

/// Writes bands as P6 (or P5) rows, samples converted as `Image.converted(to:)` converts them,
/// 16-bit big-endian. Rows that come before the image's height is known wait in memory.
struct NetpbmRowWriter: StreamedOutput {
    /// `.ppm`, `.pgm` (alpha dropped, samples converted) or `.pam` (the rows as decoded).
    let kind: OutputFormat
    let sink: OutputSink
    private var height: Int?
    private var format: PixelFormat?
    private var width = 0
    /// Bands that came before the header, as decoded (their samples may need narrowing).
    private var early: [Image] = []
    /// A 12-bit or lossless JPEG's rows come scaled to the format's full range (16 bits above 8,
    /// 8 bits below): written back as the file's `n`-bit values with MAXVAL 2^n - 1, as the
    /// whole-image path writes them.
    private var narrowBits: Int?
    private var scratch: [UInt8] = []
    private(set) var droppedTransparency = false

    init(format: OutputFormat, sink: OutputSink) {
        kind = format
        self.sink = sink
    }

    var isStarted: Bool { height != nil }
    var droppedTransparencyNotice: String { "the alpha channel is dropped in .\(kind.rawValue) output" }

    mutating func start(_ header: ImageHeader, metadata: ImageMetadata) throws {
        if height == nil, header.fileFormat == .jpeg, let bits = metadata.significantBits,
           let n = bits.first, n < (header.pixelFormat.is16Bit ? 16 : 8), bits.allSatisfy({ $0 == n }) {
            narrowBits = Int(n)
        }
        try start(height: header.height)
    }

    /// The image's height, from the decoder's header: the header line goes out with the first
    /// row, and the rows that waited for the height follow it.
    mutating func start(height: Int) throws {
        guard self.height == nil else { return }
        self.height = height
        guard format != nil else { return }
        try writeHeader()
        for band in early { try emitConverted(band) }
        early = []
    }

    private func writeHeader() throws {
        guard let height, let format else { return }
        try sink.write(kind == .pam ? Netpbm.pamHeader(width: width, height: height, format: format, sampleBits: narrowBits)
            : Netpbm.pnmHeader(width: width, height: height, format: format, sampleBits: narrowBits))
    }

    /// Every row written: nothing may still wait (a decoder always reports its header).
    mutating func end() throws {
        if height == nil && format != nil { throw CLIError("the decoder gave rows without an image size") }
    }

    mutating func write(_ band: RowBand) throws {
        let target = kind == .pam ? band.format : PixelFormat(color: kind == .ppm, alpha: false, sixteenBit: band.format.is16Bit)
        if format == nil {
            format = target
            width = band.width
            try writeHeader()
        }
        let rowBytes = band.width * band.format.bytesPerPixel
        if height != nil && band.format == target && !target.is16Bit && narrowBits == nil && band.bytesPerRow == rowBytes {
            try sink.write(UnsafeRawBufferPointer(start: band.base, count: rowBytes * band.count))
            return
        }
        scratch.removeAll(keepingCapacity: true)
        for i in 0 ..< band.count { scratch.append(contentsOf: band.row(i)) }
        let rows = Image(width: band.width, height: band.count, format: band.format, pixels: scratch)
        if band.format.hasAlpha && !droppedTransparency && JPNGEncoder.hasTransparency(rows) { droppedTransparency = true }
        if height == nil {
            early.append(rows)
        } else {
            try emitConverted(rows)
        }
    }

    /// Rows in the output's layout: converted, narrowed back to `narrowBits` when set.
    private func emitConverted(_ rows: Image) throws {
        guard let format else { return }
        var converted = rows.converted(to: format)
        if let bits = narrowBits {
            let maximum = UInt32(1 << bits) - 1
            if converted.format.is16Bit {
                converted.pixels.withUnsafeMutableBytes { raw in
                    let samples = raw.bindMemory(to: UInt16.self)
                    for i in samples.indices { samples[i] = UInt16((UInt32(samples[i]) * maximum + 32767) / 65535) }
                }
            } else {
                converted.pixels.withUnsafeMutableBufferPointer { samples in
                    for i in samples.indices { samples[i] = UInt8((UInt32(samples[i]) * maximum + 127) / 255) }
                }
            }
        }
        try Netpbm.bigEndianSamples(converted).withUnsafeBytes { try sink.write($0) }
    }
}

/// A file (or stdin for "-") read in pieces.
final class InputPieces {
    private let fd: Int32
    private let name: String
    /// The file's size, when it is a regular file.
    let size: Int?
    private var buffer: [UInt8] = []

    init(path: String) throws {
        name = path
        if path == "-" {
            fd = 0
            size = nil
            return
        }
        guard FileManager.default.fileExists(atPath: path) else { throw CLIError("\(path): no such file") }
        fd = open(path, O_RDONLY)
        guard fd >= 0 else { throw CLIError("\(path): cannot read (\(String(cString: strerror(errno))))") }
        var info = stat()
        size = fstat(fd, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG ? Int(info.st_size) : nil
    }

    /// The next bytes, at most `count`; nil at the end.
    func next(_ count: Int) throws -> ArraySlice<UInt8>? {
        if buffer.count < count { buffer = [UInt8](repeating: 0, count: count) }
        while true {
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, count) }
            if n > 0 { return buffer[0 ..< n] }
            if n == 0 { return nil }
            if errno != EINTR { throw CLIError("\(name): cannot read (\(String(cString: strerror(errno))))") }
        }
    }

    func close() {
        if fd > 0 { _ = systemClose(fd) }
    }
}

/// Output written as it comes: to stdout, or to a temporary file beside the target that
/// `commit()` renames over it (`abandon()` removes it), so an error leaves no file behind.
///
/// When stdout is a pipe or socket (and there is a second processor) the `write` calls happen
/// on a thread of their own: bytes are gathered into 256 KB buffers, at most four of them
/// waiting, so a decode goes on while the reader catches up (writing 36 MB of PPM into a pipe
/// in 192 KB rows on the decoding thread took 1.36x djpeg's wall time for 1.07x its processor
/// time; djpeg's small buffered writes rarely fill the pipe). Files and devices are written
/// straight from the caller's rows. `@unchecked Sendable`: the buffer is the caller's alone, and
/// the writing thread shares only the descriptor and `failed`, under its lock.
final class OutputSink: @unchecked Sendable {
    private let path: String
    private let temp: String?
    private let fd: Int32
    private var closed = false
    private static let bufferSize = 1 << 18
    private var buffer: [UInt8] = []
    private let queue: DispatchQueue?
    private let slots = DispatchSemaphore(value: 4)
    private let failure = Lock()
    private var failed: String?

    init(path: String) throws {
        self.path = path
        if path == "-" {
            temp = nil
            fd = 1
            // A pipe or socket: its reader may lag, so the writes go to a thread of their own.
            // A file or device takes a `write` as a copy, which the gathering would only double.
            var status = stat()
            let isStream = fstat(1, &status) == 0 && [S_IFIFO, S_IFSOCK].contains(status.st_mode & S_IFMT)
            queue = isStream && ProcessInfo.processInfo.activeProcessorCount > 1 ? DispatchQueue(label: "jpng.output") : nil
            if queue != nil { buffer.reserveCapacity(Self.bufferSize) }
            return
        }
        queue = nil
        if isSpecialFile(path) {
            // A device or pipe is written as it is (a rename would replace it with a file).
            temp = nil
            fd = open(path, O_WRONLY)
            guard fd >= 0 else { throw CLIError("\(path): cannot write (\(String(cString: strerror(errno))))") }
            return
        }
        let url = URL(fileURLWithPath: path)
        let dir = url.deletingLastPathComponent()
        if !FileManager.default.fileExists(atPath: dir.path) {
            try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        }
        let name = dir.appendingPathComponent(".\(url.lastPathComponent).\(ProcessInfo.processInfo.processIdentifier).tmp").path
        temp = name
        fd = open(name, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        guard fd >= 0 else { throw CLIError("\(path): cannot write (\(String(cString: strerror(errno))))") }
    }

    func write(_ bytes: UnsafeRawBufferPointer) throws {
        guard let queue else { return try Self.writeAll(fd, bytes, path: path) }
        try checkFailure()
        var rest = bytes
        while !rest.isEmpty {
            let n = min(rest.count, Self.bufferSize - buffer.count)
            buffer.append(contentsOf: UnsafeRawBufferPointer(rebasing: rest[rest.startIndex ..< rest.startIndex + n]))
            rest = UnsafeRawBufferPointer(rebasing: rest[(rest.startIndex + n)...])
            if buffer.count == Self.bufferSize { send(queue) }
        }
    }

    func write(_ bytes: [UInt8]) throws {
        try bytes.withUnsafeBytes { try write($0) }
    }

    /// Hands the gathered bytes to the writing thread (waiting while four buffers are queued).
    private func send(_ queue: DispatchQueue) {
        var next: [UInt8] = []
        next.reserveCapacity(Self.bufferSize)
        swap(&next, &buffer)
        let full = next
        slots.wait()
        let fd = fd, path = path
        queue.async { [self] in
            defer { slots.signal() }
            failure.lock()
            let gaveUp = failed != nil
            failure.unlock()
            guard !gaveUp else { return }
            do {
                try full.withUnsafeBytes { try Self.writeAll(fd, $0, path: path) }
            } catch {
                failure.lock()
                failed = (error as? CLIError)?.message ?? "\(path): cannot write"
                failure.unlock()
            }
        }
    }

    /// Writes the rest of the bytes and waits for the writing thread; throws what it met.
    private func drain() throws {
        guard let queue else { return }
        if !buffer.isEmpty { send(queue) }
        queue.sync {}
        try checkFailure()
    }

    private func checkFailure() throws {
        failure.lock()
        defer { failure.unlock() }
        if let failed { throw CLIError(failed) }
    }

    static func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer, path: String) throws {
        guard var at = bytes.baseAddress else { return }
        var left = bytes.count
        while left > 0 {
            let n = systemWrite(fd, at, left)
            if n < 0 {
                if errno == EINTR { continue }
                throw CLIError("\(path): cannot write (\(String(cString: strerror(errno))))")
            }
            at += n
            left -= n
        }
    }

    /// The output is complete: every byte written, and the temporary file takes the target's name.
    func commit() throws {
        do {
            try drain()
        } catch {
            abandon()
            throw error
        }
        guard !closed else { return }
        guard let temp else {
            // A device or pipe opened by name; stdout stays open.
            if fd > 2 {
                closed = true
                _ = systemClose(fd)
            }
            return
        }
        closed = true
        guard systemClose(fd) == 0, rename(temp, path) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(temp)
            throw CLIError("\(path): cannot write (\(reason))")
        }
    }

    /// Removes the temporary file after an error (once the writing thread is done with it).
    func abandon() {
        queue?.sync {}
        buffer = []
        guard let temp else {
            if fd > 2 && !closed { _ = systemClose(fd) }
            closed = true
            return
        }
        if !closed { _ = systemClose(fd) }
        closed = true
        unlink(temp)
    }
}
