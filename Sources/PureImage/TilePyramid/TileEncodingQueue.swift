#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Dispatch

/// Encodes finished tiles and writes their files, on other threads while decoding goes on.
///
/// At most `tilesInFlight` tiles are queued or being encoded at once: `submit` waits for a free
/// slot, so a fast decoder cannot pile up tiles in memory. The first failure is kept and thrown
/// by the next `submit` or `drain`; tiles after it are dropped.
final class TileEncodingQueue: @unchecked Sendable {
    // `@unchecked`: `failure` and `written` are only touched under `lock`, `next` only by the
    // submitting thread (one writer feeds a queue); the rest is immutable.
    let format: TileFormat
    let jpegOptions: JPEGEncodingOptions
    let pngOptions: PNGEncodingOptions
    private let slots: DispatchSemaphore?
    private let group = DispatchGroup()
    /// Serial queues, one per encoder thread, fed in turn: a concurrent queue would run as many
    /// encoders as there are cores and take the decoding thread's core too.
    private let workers: [DispatchQueue]
    private var next = 0
    private let lock = DispatchSemaphore(value: 1)
    private var failure: TilePyramidError?
    private var written = 0

    /// Tiles encoded and written so far.
    var tilesWritten: Int {
        lock.wait()
        defer { lock.signal() }
        return written
    }

    init(options: TilePyramidOptions) {
        format = options.format
        jpegOptions = JPEGEncodingOptions(unitQuality: options.quality, writeMetadata: false)
        // Deflate level 3 instead of the default 6: tiles are many and small, and the slower
        // search would cost more time than the bytes it saves are worth here.
        pngOptions = PNGEncodingOptions(compressionLevel: 3, writeMetadata: false)
        slots = options.tilesInFlight > 0 ? DispatchSemaphore(value: options.tilesInFlight) : nil
        workers = (0 ..< options.encoderThreadCount()).map { DispatchQueue(label: "PureImage.TileEncoding.\($0)") }
    }

    /// Queues `tile` to be written to `path`; throws an earlier tile's failure.
    func submit(_ tile: Image, to path: String) throws(TilePyramidError) {
        if let failure = currentFailure { throw failure }
        guard let slots else {
            try encodeAndWrite(tile, to: path)
            return
        }
        slots.wait()
        group.enter()
        let queue = workers[next]
        next = (next + 1) % workers.count
        queue.async { [self] in
            defer {
                slots.signal()
                group.leave()
            }
            if currentFailure != nil { return }
            do throws(TilePyramidError) {
                try encodeAndWrite(tile, to: path)
            } catch {
                record(error)
            }
        }
    }

    /// Waits for every queued tile; throws the first failure.
    func drain() throws(TilePyramidError) {
        group.wait()
        if let failure = currentFailure { throw failure }
    }

    /// Waits for the queued tiles without reporting their failures (before removing files).
    func waitQuietly() {
        group.wait()
    }

    private var currentFailure: TilePyramidError? {
        lock.wait()
        defer { lock.signal() }
        return failure
    }

    private func record(_ error: TilePyramidError) {
        lock.wait()
        defer { lock.signal() }
        if failure == nil { failure = error }
    }

    private func encodeAndWrite(_ tile: Image, to path: String) throws(TilePyramidError) {
        let bytes: [UInt8]
        do {
            switch format {
            case .jpeg: bytes = try JPEGEncoder.encode(tile, options: jpegOptions)
            case .png: bytes = try PNGEncoder.encode(tile, options: pngOptions)
            }
        } catch {
            throw .encoding("\(path): \(error)")
        }
        try TileFiles.write(bytes, to: path)
        lock.wait()
        written += 1
        lock.signal()
    }
}
