/// The decoder of one image chunk (`VP8 ` or `VP8L`, a still image or an animation frame):
/// the chunk payload is gathered as it arrives and handed to the lossless or lossy decoder,
/// which gives back rows as RGBA8 as soon as they are final.
struct FrameDecoder: Sendable {
    /// Where a still's rows are written in its output format (see `run(direct:emit:)`).
    typealias DirectRows = (pixels: UnsafeMutablePointer<UInt8>, bytesPerPixel: Int, stride: Int)
    enum Codec: Sendable {
        case lossless(VP8LStream)
        case lossy(LossyFrame)
    }
    var codec: Codec
    let width: Int
    let height: Int
    /// The payload's offset in the file (errors are reported from it).
    let payloadOffset: Int
    let payloadSize: Int
    private var payload: [UInt8] = []
    private var scratch: [UInt32]
    /// Rows handed out so far.
    private(set) var rowsDone = 0
    /// A still image: the payload may go on past the chunk with the bytes that follow it in the
    /// file, as libwebp's still decoder gives the codec everything to the end of the input
    /// (`strict` off). The lossy codec then learns the data is complete only at `inputEnded`;
    /// the lossless one decodes the chunk alone as complete first and, if it runs out, goes
    /// on over the bytes after it (complete at `inputEnded`).
    var extendsPastChunk = false
    /// No more input will come (``WebPDecoder/finish()``).
    var inputEnded = false

    init(codec: Codec, width: Int, height: Int, payloadOffset: Int, payloadSize: Int) {
        self.codec = codec
        self.width = width
        self.height = height
        self.payloadOffset = payloadOffset
        self.payloadSize = payloadSize
        scratch = [UInt32](repeating: 0, count: width)
        payload.reserveCapacity(min(payloadSize, 1 << 24))
    }

    var isComplete: Bool { rowsDone == height }
    var isLossless: Bool { if case .lossless = codec { true } else { false } }
    var bytesReceived: Int { payload.count }

    /// Adds payload bytes that arrived (past the chunk: the bytes after it, see `extendsPastChunk`).
    mutating func append(_ bytes: ArraySlice<UInt8>) { payload.append(contentsOf: bytes) }
    mutating func append(_ bytes: UnsafeRawBufferPointer) { payload.append(contentsOf: bytes) }

    /// Decodes as far as the payload allows; `emit(y, rgba)` gets each row that became final.
    /// With `direct` (a still image's pixels, their bytes per pixel, 3 or 4, and the bytes from
    /// one row to the next), rows are written straight into it and `emit` gets an empty buffer
    /// for each row written.
    mutating func run(direct: DirectRows? = nil,
                      emit: (Int, UnsafeBufferPointer<UInt8>) -> Void) throws(WebPError) {
        let complete = payload.count >= payloadSize
        let width = self.width
        var done = rowsDone
        var scratch = self.scratch
        self.scratch = []
        defer { self.scratch = scratch; rowsDone = done }
        switch codec {
        case .lossless(var stream):
            codec = .lossless(VP8LStream(width: 0, height: 0, headerless: true))   // keeps `stream` unique
            defer { codec = .lossless(stream) }
            // Past its chunk: the chunk alone first (as complete), then the longer data. A
            // stream under 8 bytes reads zeros past its end (libwebp's bit reader), so a chunk
            // that short waits for the end of the input: the bytes after it are what libwebp reads.
            let streamComplete = !extendsPastChunk ? complete
                : inputEnded || (complete && payload.count == payloadSize && payloadSize >= 8)
            do throws(VP8LFailure) {
                try payload.withUnsafeBufferPointer { data throws(VP8LFailure) in
                    try stream.advance(data, complete: streamComplete) { y, row in
                        if let direct {
                            // Straight into the image: RGBA words, or RGB with overlapping
                            // 4-byte stores (each pixel's fourth byte overwritten by the next).
                            let out = UnsafeMutableRawPointer(direct.pixels + y * direct.stride)
                            guard let src = row.baseAddress else { return }
                            if direct.bytesPerPixel == 4 {
                                var x = 0
                                while x + 4 <= width {
                                    let v = UnsafeRawPointer(src + x).loadUnaligned(as: SIMD4<UInt32>.self)
                                    let w = (v & 0xFF00_FF00) | ((v &>> 16) & 0xFF) | ((v & 0xFF) &<< 16)
                                    out.storeBytes(of: w, toByteOffset: 4 * x, as: SIMD4<UInt32>.self)
                                    x &+= 4
                                }
                                while x < width { out.storeBytes(of: VP8LOutput.rgba(src[x]), toByteOffset: 4 * x, as: UInt32.self); x &+= 1 }
                            } else {
                                VP8LOutput.rgb(src, count: width, into: out)
                            }
                            emit(y, UnsafeBufferPointer(start: nil, count: 0))
                            done = y + 1
                            return
                        }
                        scratch.withUnsafeMutableBufferPointer { out in
                            // ARGB words to R, G, B, A bytes: one word store a pixel.
                            for x in 0 ..< width {
                                let argb = row[x]
                                let rgba = (argb & 0xFF00_FF00) | ((argb &>> 16) & 0xFF) | ((argb & 0xFF) &<< 16)
                                out[x] = UInt32(littleEndian: rgba)
                            }
                            out.withMemoryRebound(to: UInt8.self) { emit(y, UnsafeBufferPointer($0)) }
                        }
                        done = y + 1
                    }
                }
            } catch {
                switch error {
                case .needMoreData:
                    // The stream stands at the code that ran out; the bytes after the chunk may
                    // complete it (the container decides, see `WebPDecoder.endImage`).
                    if extendsPastChunk && !inputEnded { return }
                    throw .truncated(what: "VP8L bitstream", offset: payloadOffset + payload.count)
                case .invalid(let what, let byte): throw .invalid(what: "VP8L \(what)", offset: payloadOffset + byte)
                }
            }
        case .lossy(var frame):
            codec = .lossy(LossyFrame.placeholder)
            defer { codec = .lossy(frame) }
            let ended = extendsPastChunk ? inputEnded : complete
            try payload.withUnsafeBufferPointer { data throws(WebPError) in
                try frame.advance(data, complete: ended, chunkComplete: complete, payloadOffset: payloadOffset,
                                  payloadSize: payloadSize, direct: direct) { y, row in
                    emit(y, row)
                    done = y + 1
                }
            }
        }
    }
}
