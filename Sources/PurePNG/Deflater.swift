import CZlib

/// A zlib deflate stream (RFC 1950/1951) that hands its output out in fixed-size blocks, one
/// block per IDAT chunk (PNG 10.1: the zlib datastream may be split at any byte boundary).
///
/// Parameters follow libpng's defaults: window bits 15, memLevel 8, `Z_FILTERED` when rows
/// are filtered (the filtered bytes are small values near zero, where zlib's default of
/// chasing long matches wastes time) and `Z_DEFAULT_STRATEGY` for unfiltered data.
///
/// `@unchecked Sendable` is sound because a `Deflater` is owned by exactly one encoder engine
/// (``ImageDataEncoder``), which is only reached through a value type that copies it on write
/// (``PNGStreamEncoder`` checks `isKnownUniquelyReferenced` before every mutation and clones
/// the stream with `deflateCopy` when shared). So no two threads ever touch one `z_stream`.
/// The `z_stream` lives in its own allocation because zlib keeps a pointer back to it
/// (`deflateStateCheck` compares `strm->state->strm`): it must never move.
final class Deflater: @unchecked Sendable {
    enum Strategy {
        case filtered, standard
        var zlibValue: Int32 { self == .filtered ? Z_FILTERED : Z_DEFAULT_STRATEGY }
    }

    /// Bytes per output block, so per IDAT chunk. libpng uses 8 KiB; bigger blocks mean fewer
    /// 12-byte chunk overheads and fewer sink calls, and stay small enough for streaming.
    static let defaultBlockSize = 64 * 1024

    private let stream: UnsafeMutablePointer<z_stream>
    private let block: UnsafeMutablePointer<UInt8>
    let blockSize: Int
    private var isFinished = false

    init(level: Int, strategy: Strategy, blockSize: Int = Deflater.defaultBlockSize) throws(PNGError) {
        guard (0 ... 9).contains(level) else {
            throw .invalidParameter("compression level \(level) is outside 0...9")
        }
        self.blockSize = max(blockSize, 64)
        stream = .allocate(capacity: 1)
        stream.initialize(to: z_stream())
        block = .allocate(capacity: self.blockSize)
        let status = deflateInit2_(stream, Int32(level), Z_DEFLATED, 15, 8, strategy.zlibValue,
                                   zlibVersion(), Int32(MemoryLayout<z_stream>.size))
        guard status == Z_OK else {
            stream.deallocate()
            block.deallocate()
            throw .compressionFailed(status: status)
        }
        resetOutput()
    }

    /// An independent copy of `other`, mid-stream state and pending output included.
    init(copying other: Deflater) throws(PNGError) {
        blockSize = other.blockSize
        isFinished = other.isFinished
        stream = .allocate(capacity: 1)
        stream.initialize(to: z_stream())
        block = .allocate(capacity: blockSize)
        let status = deflateCopy(stream, other.stream)
        guard status == Z_OK else {
            stream.deallocate()
            block.deallocate()
            throw .compressionFailed(status: status)
        }
        let used = other.blockSize - Int(other.stream.pointee.avail_out)
        block.update(from: other.block, count: used)
        stream.pointee.next_out = block + used
        stream.pointee.avail_out = UInt32(blockSize - used)
    }

    deinit {
        deflateEnd(stream)
        stream.deallocate()
        block.deallocate()
    }

    private func resetOutput() {
        stream.pointee.next_out = block
        stream.pointee.avail_out = UInt32(blockSize)
    }

    private func emitBlock(_ sink: (UnsafeRawBufferPointer) -> Void) {
        sink(UnsafeRawBufferPointer(start: block, count: blockSize))
        resetOutput()
    }

    /// Compresses `input`; every time a block fills it goes to `sink` (which must copy it).
    func write(_ input: UnsafeRawBufferPointer, sink: (UnsafeRawBufferPointer) -> Void) throws(PNGError) {
        guard !isFinished else { throw .invalidParameter("data written after the end of the zlib stream") }
        guard var next = input.baseAddress, input.count > 0 else { return }
        var remaining = input.count
        while remaining > 0 {
            // avail_in is 32 bits wide: feed larger inputs in slices.
            let n = min(remaining, Int(UInt32.max))
            stream.pointee.next_in = UnsafeMutablePointer(mutating: next.assumingMemoryBound(to: Bytef.self))
            stream.pointee.avail_in = UInt32(n)
            while stream.pointee.avail_in > 0 {
                let status = deflate(stream, Z_NO_FLUSH)
                guard status == Z_OK || status == Z_BUF_ERROR else { throw .compressionFailed(status: status) }
                if stream.pointee.avail_out == 0 { emitBlock(sink) }
            }
            next += n
            remaining -= n
        }
    }

    /// Convenience for one byte (a row's filter type).
    func write(byte: UInt8, sink: (UnsafeRawBufferPointer) -> Void) throws(PNGError) {
        var b = byte
        try withUnsafeBytes(of: &b) { (raw) throws(PNGError) in try write(raw, sink: sink) }
    }

    /// Ends the stream (adler-32 trailer included) and passes out everything still pending,
    /// the last block possibly short.
    func finish(sink: (UnsafeRawBufferPointer) -> Void) throws(PNGError) {
        guard !isFinished else { return }
        stream.pointee.next_in = nil
        stream.pointee.avail_in = 0
        while true {
            let status = deflate(stream, Z_FINISH)
            guard status == Z_OK || status == Z_STREAM_END || status == Z_BUF_ERROR else {
                throw .compressionFailed(status: status)
            }
            if stream.pointee.avail_out == 0 { emitBlock(sink) }
            if status == Z_STREAM_END { break }
        }
        isFinished = true
        let used = blockSize - Int(stream.pointee.avail_out)
        if used > 0 { sink(UnsafeRawBufferPointer(start: block, count: used)) }
        resetOutput()
    }

    /// A whole zlib datastream for `bytes` (iCCP profiles, zTXt and compressed iTXt text).
    static func compress(_ bytes: [UInt8], level: Int) throws(PNGError) -> [UInt8] {
        let deflater = try Deflater(level: level, strategy: .standard, blockSize: 16 * 1024)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count / 2 + 64)
        try bytes.withPNGBytes { (raw) throws(PNGError) in
            try deflater.write(raw) { out.append(contentsOf: $0) }
        }
        try deflater.finish { out.append(contentsOf: $0) }
        return out
    }
}
