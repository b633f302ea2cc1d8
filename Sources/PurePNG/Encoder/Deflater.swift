import CZlib

/// A zlib deflate stream (RFC 1950/1951) that hands its output out in fixed-size blocks, one
/// block per IDAT chunk (PNG 10.1: the zlib datastream may be split at any byte boundary).
///
/// Parameters follow libpng's defaults: window bits 15, memLevel 8, `Z_FILTERED` when rows
/// are filtered (the filtered bytes are small values near zero, where zlib's default of
/// chasing long matches wastes time) and `Z_DEFAULT_STRATEGY` for unfiltered data.
///
/// ``Framing`` says who writes the zlib header and Adler-32 trailer: zlib itself, or this
/// class around a raw deflate stream, which a banded image data stream needs (each band
/// restarts the compressor primed with the previous 32 KiB, see ``ImageDataBands``).
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

    enum Framing {
        /// zlib writes header and trailer (the stream cannot be restarted).
        case zlib
        /// A raw deflate stream inside a header and trailer written here, the Adler-32
        /// computed here: the stream can end a band and restart with a dictionary.
        case zlibAroundRaw
        /// A raw deflate stream alone (one band of a stream assembled elsewhere); ``adler``
        /// and ``totalIn`` give what the assembler needs for the trailer.
        case raw
    }

    /// Bytes per output block, so per IDAT chunk. libpng uses 8 KiB; bigger blocks mean fewer
    /// 12-byte chunk overheads and fewer sink calls, and stay small enough for streaming.
    static let defaultBlockSize = 64 * 1024

    /// The sliding window: a restart's dictionary is at most this long (RFC 1951 3.2.5).
    static let windowSize = 32 * 1024

    private let stream: UnsafeMutablePointer<z_stream>
    private let block: UnsafeMutablePointer<UInt8>
    let blockSize: Int
    let framing: Framing
    private var isFinished = false
    /// Adler-32 (RFC 1950 8.2) of every byte written, for the framings that need it.
    private(set) var adler: UInt = 1
    /// Bytes written so far.
    private(set) var totalIn = 0

    init(level: Int, strategy: Strategy, blockSize: Int = Deflater.defaultBlockSize,
         framing: Framing = .zlib) throws(PNGError) {
        guard (0 ... 9).contains(level) else {
            throw .invalidParameter("compression level \(level) is outside 0...9")
        }
        self.blockSize = max(blockSize, 64)
        self.framing = framing
        stream = .allocate(capacity: 1)
        stream.initialize(to: z_stream())
        block = .allocate(capacity: self.blockSize)
        let windowBits: Int32 = framing == .zlib ? 15 : -15
        let status = deflateInit2_(stream, Int32(level), Z_DEFLATED, windowBits, 8, strategy.zlibValue,
                                   zlibVersion(), Int32(MemoryLayout<z_stream>.size))
        guard status == Z_OK else {
            stream.deallocate()
            block.deallocate()
            throw .compressionFailed(status: status)
        }
        resetOutput()
        if framing == .zlibAroundRaw {
            let header = Deflater.zlibHeader(level: level)
            block[0] = UInt8(header >> 8)
            block[1] = UInt8(header & 0xFF)
            stream.pointee.next_out = block + 2
            stream.pointee.avail_out = UInt32(self.blockSize - 2)
        }
    }

    /// The two header bytes zlib writes for a 32 KiB window at `level` (RFC 1950 2.2: CM 8,
    /// CINFO 7, FLEVEL as `deflate.c` sets it for the non-Huffman-only strategies, no FDICT,
    /// FCHECK making the pair a multiple of 31).
    static func zlibHeader(level: Int) -> UInt16 {
        let levelFlags: UInt16 = level < 2 ? 0 : level < 6 ? 1 : level == 6 ? 2 : 3
        let header: UInt16 = 0x7800 | levelFlags << 6
        return header + 31 - header % 31
    }

    /// An independent copy of `other`, mid-stream state and pending output included.
    init(copying other: Deflater) throws(PNGError) {
        blockSize = other.blockSize
        framing = other.framing
        isFinished = other.isFinished
        adler = other.adler
        totalIn = other.totalIn
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
            let bytes = UnsafeMutablePointer(mutating: next.assumingMemoryBound(to: Bytef.self))
            if framing != .zlib { adler = CZlib.adler32(adler, bytes, UInt32(n)) }
            stream.pointee.next_in = bytes
            stream.pointee.avail_in = UInt32(n)
            while stream.pointee.avail_in > 0 {
                let status = deflate(stream, Z_NO_FLUSH)
                guard status == Z_OK || status == Z_BUF_ERROR else { throw .compressionFailed(status: status) }
                if stream.pointee.avail_out == 0 { emitBlock(sink) }
            }
            next += n
            remaining -= n
        }
        totalIn += input.count
    }

    /// Convenience for one byte (a row's filter type).
    func write(byte: UInt8, sink: (UnsafeRawBufferPointer) -> Void) throws(PNGError) {
        var b = byte
        try withUnsafeBytes(of: &b) { (raw) throws(PNGError) in try write(raw, sink: sink) }
    }

    /// Ends the stream (the Adler-32 trailer included unless the framing is ``Framing/raw``)
    /// and passes out everything still pending, the last block possibly short.
    func finish(sink: (UnsafeRawBufferPointer) -> Void) throws(PNGError) {
        guard !isFinished else { return }
        try drain(Z_FINISH, sink: sink)
        isFinished = true
        if framing == .zlibAroundRaw {
            for shift in [24, 16, 8, 0] {
                if stream.pointee.avail_out == 0 { emitBlock(sink) }
                stream.pointee.next_out.pointee = UInt8(truncatingIfNeeded: adler >> UInt(shift))
                stream.pointee.next_out += 1
                stream.pointee.avail_out -= 1
            }
        }
        passOutPending(sink)
    }

    /// Ends a band of a raw stream: everything so far is compressed and out, ending on a byte
    /// boundary (zlib's `Z_SYNC_FLUSH`: the last block is not marked final, an empty stored
    /// block aligns the output). With `passingOut`, the partial last block goes to `sink` too.
    func endBand(passingOut: Bool, sink: (UnsafeRawBufferPointer) -> Void) throws(PNGError) {
        guard framing != .zlib, !isFinished else {
            throw .invalidParameter("a band ends only in an unfinished raw deflate stream")
        }
        try drain(Z_SYNC_FLUSH, sink: sink)
        if passingOut { passOutPending(sink) }
    }

    /// Starts the next band after ``endBand(passingOut:sink:)``: a fresh compressor whose
    /// window holds `dictionary` (the last 32 KiB written), as a separate compressor primed
    /// with it would be, so bands compressed apart join into the same bytes.
    func restart(dictionary: UnsafeRawBufferPointer) throws(PNGError) {
        guard framing != .zlib, !isFinished else {
            throw .invalidParameter("only an unfinished raw deflate stream restarts")
        }
        var status = deflateReset(stream)
        if status == Z_OK, let base = dictionary.baseAddress, dictionary.count > 0 {
            status = deflateSetDictionary(stream, base.assumingMemoryBound(to: Bytef.self), UInt32(dictionary.count))
        }
        guard status == Z_OK else { throw .compressionFailed(status: status) }
    }

    /// Runs `deflate` with `flush` until zlib has nothing more to give, emitting full blocks.
    private func drain(_ flush: Int32, sink: (UnsafeRawBufferPointer) -> Void) throws(PNGError) {
        stream.pointee.next_in = nil
        stream.pointee.avail_in = 0
        while true {
            let status = deflate(stream, flush)
            guard status == Z_OK || status == Z_STREAM_END || status == Z_BUF_ERROR else {
                throw .compressionFailed(status: status)
            }
            let full = stream.pointee.avail_out == 0
            if full { emitBlock(sink) }
            // Room left after the call means zlib is done with this flush (zlib's own rule
            // for Z_SYNC_FLUSH; Z_FINISH also says so with Z_STREAM_END).
            if status == Z_STREAM_END || (!full && flush != Z_FINISH) { break }
        }
    }

    private func passOutPending(_ sink: (UnsafeRawBufferPointer) -> Void) {
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
