import CZlib

/// One zlib inflate stream, heap-allocated so its address never moves: zlib keeps a pointer
/// back to the `z_stream` in its private state and refuses a stream that has moved.
///
/// `@unchecked Sendable` is sound because the only way to reach the stream is through
/// ``Inflater``, which copies the stream (`inflateCopy`) before mutating it whenever the box
/// is shared (`isKnownUniquelyReferenced`). So a box that two values can see is never written,
/// and a box that is written belongs to exactly one value.
final class ZlibInflateStream: @unchecked Sendable {
    let stream: UnsafeMutablePointer<z_stream>
    /// False when zlib could not set the stream up (out of memory).
    let isValid: Bool

    init() {
        stream = .allocate(capacity: 1)
        stream.initialize(to: z_stream())
        isValid = inflateInit_(stream, zlibVersion(), Int32(MemoryLayout<z_stream>.size)) == Z_OK
    }

    init(copying other: ZlibInflateStream) {
        stream = .allocate(capacity: 1)
        stream.initialize(to: z_stream())
        isValid = other.isValid && inflateCopy(stream, other.stream) == Z_OK
    }

    deinit {
        if isValid { inflateEnd(stream) }
        stream.deinitialize(count: 1)
        stream.deallocate()
    }
}

/// What one ``Inflater/inflate(_:into:)`` call did.
struct InflateStep {
    /// Input bytes zlib took.
    var consumed: Int
    /// Output bytes zlib wrote.
    var produced: Int
    /// The zlib stream is complete (its Adler-32 checked).
    var streamEnded: Bool
    /// zlib's message for corrupt data; nil when all is well.
    var failure: String?
}

/// A zlib (RFC 1950) decompressor fed incrementally, with value semantics: copying an
/// `Inflater` and advancing both copies works (copy-on-write with `inflateCopy`).
struct Inflater: Sendable {
    private var box = ZlibInflateStream()
    private(set) var streamEnded = false
    /// zlib leaves the Adler-32 to the caller (`inflateValidate(strm, 0)`), who computes it
    /// elsewhere (a PNG's rows, on the thread that unfilters them) and compares it with
    /// ``trailer`` when the stream ends.
    let leavesCheckToCaller: Bool
    /// The last four bytes consumed, big-endian: once the stream has ended, its Adler-32.
    private(set) var trailer: UInt32 = 0

    init(leavingCheckToCaller: Bool = false) {
        leavesCheckToCaller = leavingCheckToCaller && box.isValid && inflateValidate(box.stream, 0) == Z_OK
    }

    /// Decompresses as much of `input` as fits in `output`. zlib counts in `UInt32`, so
    /// large buffers go in pieces.
    mutating func inflate(_ input: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer) -> InflateStep {
        if !isKnownUniquelyReferenced(&box) { box = ZlibInflateStream(copying: box) }
        guard box.isValid else { return InflateStep(consumed: 0, produced: 0, streamEnded: false, failure: "zlib initialisation failed") }
        var step = InflateStep(consumed: 0, produced: 0, streamEnded: streamEnded, failure: nil)
        if streamEnded { return step }
        let z = box.stream
        let piece = 1 << 30
        // zlib refuses a null `next_out` even with `avail_out` 0, which is how the stream's end
        // (or what follows the last row) is read without room for more output.
        var sinkByte: UInt8 = 0
        return withUnsafeMutablePointer(to: &sinkByte) { sink -> InflateStep in
            while true {
                let inLeft = input.count - step.consumed, outLeft = output.count - step.produced
                if outLeft == 0 && inLeft == 0 { break }
                let inPiece = min(inLeft, piece), outPiece = min(outLeft, piece)
                z.pointee.next_in = inPiece == 0 ? nil
                    : UnsafeMutablePointer(mutating: input.baseAddress.map { $0.assumingMemoryBound(to: UInt8.self) + step.consumed })
                z.pointee.avail_in = UInt32(inPiece)
                z.pointee.next_out = outPiece == 0 ? sink
                    : output.baseAddress.map { $0.assumingMemoryBound(to: UInt8.self) + step.produced }
                z.pointee.avail_out = UInt32(outPiece)
                let status = CZlib.inflate(z, Z_NO_FLUSH)
                let usedIn = inPiece - Int(z.pointee.avail_in), madeOut = outPiece - Int(z.pointee.avail_out)
                if leavesCheckToCaller, let base = input.baseAddress {
                    for k in max(0, usedIn - 4) ..< usedIn {
                        trailer = trailer << 8 | UInt32(base.load(fromByteOffset: step.consumed + k, as: UInt8.self))
                    }
                }
                step.consumed += usedIn
                step.produced += madeOut
                z.pointee.next_in = nil
                z.pointee.next_out = nil
                switch status {
                case Z_OK:
                    // Stop when one side is exhausted and no larger piece remains to hand over.
                    if Int(z.pointee.avail_in) == 0 && step.consumed == input.count { return step }
                    if Int(z.pointee.avail_out) == 0 && step.produced == output.count { return step }
                case Z_STREAM_END:
                    streamEnded = true
                    step.streamEnded = true
                    return step
                case Z_BUF_ERROR:
                    // No progress possible: input or output space exhausted. Not an error in itself.
                    return step
                case Z_NEED_DICT:
                    step.failure = "preset dictionary not allowed"
                    return step
                case Z_MEM_ERROR:
                    step.failure = "out of memory"
                    return step
                default:
                    step.failure = z.pointee.msg.map { String(cString: $0) } ?? "invalid deflate data"
                    return step
                }
                if usedIn == 0 && madeOut == 0 { return step }
            }
            return step
        }
    }

    enum WholeFailure: Error, Equatable {
        case corrupt(String)
        case truncated
        case tooLarge
    }

    /// Decompresses a whole zlib stream held in memory (iCCP, zTXt, iTXt), refusing more
    /// than `limit` bytes of output before it is produced in full.
    static func inflateAll(_ bytes: ArraySlice<UInt8>, limit: Int) -> Result<[UInt8], WholeFailure> {
        var inflater = Inflater()
        var out: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16384)
        var consumed = 0
        return bytes.withUnsafeBytes { input -> Result<[UInt8], WholeFailure> in
            while true {
                let step = chunk.withUnsafeMutableBytes { buffer in
                    inflater.inflate(UnsafeRawBufferPointer(rebasing: input[consumed...]), into: buffer)
                }
                consumed += step.consumed
                if let failure = step.failure { return .failure(.corrupt(failure)) }
                if out.count + step.produced > limit { return .failure(.tooLarge) }
                out.append(contentsOf: chunk[0 ..< step.produced])
                if step.streamEnded { return .success(out) }
                if step.consumed == 0 && step.produced == 0 { return .failure(.truncated) }
            }
        }
    }
}
