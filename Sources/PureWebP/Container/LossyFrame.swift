import ImageCore

/// The adapter between the container and the lossy decoder under `Lossy/` (`VP8Decoder`, see
/// Notes.md "Lossy"): it creates the decoder from the frame header, passes it the payload so
/// far, and turns its row bands into RGBA rows with the ALPH plane applied.
struct LossyFrame: Sendable {
    let width: Int
    let height: Int
    /// The decoded ALPH plane (`width * height`), if the frame has one.
    let alpha: [UInt8]?
    let fancyUpsampling: Bool
    let useThreads: Bool
    let limits: DecodingLimits
    /// `WebPDecodingOptions.workerWritesAllBands`.
    var workerWritesAllBands = false
    private var decoder: VP8Decoder?
    private var band: [UInt8] = []

    static let placeholder = LossyFrame(width: 0, height: 0, alpha: nil, fancyUpsampling: true, useThreads: false,
                                          limits: .default)

    init(width: Int, height: Int, alpha: [UInt8]?, fancyUpsampling: Bool, useThreads: Bool, limits: DecodingLimits) {
        self.useThreads = useThreads
        self.width = width
        self.height = height
        self.alpha = alpha
        self.fancyUpsampling = fancyUpsampling
        self.limits = limits
    }

    /// Decodes what `data` (the `VP8 ` payload so far, and for a still the bytes after it) allows;
    /// `complete`: no more bytes will come; `chunkComplete`: the chunk's own bytes are all there.
    /// `emit(y, rgba)` gets each final row.
    /// With `direct` (a still image's pixels, their bytes per pixel, 3 or 4, and row stride),
    /// rows are written straight into it and `emit` gets an empty buffer for each row written.
    mutating func advance(_ data: UnsafeBufferPointer<UInt8>, complete: Bool, chunkComplete: Bool, payloadOffset: Int, payloadSize: Int,
                          direct: FrameDecoder.DirectRows? = nil,
                          emit: (Int, UnsafeBufferPointer<UInt8>) -> Void) throws(WebPError) {
        let raw = UnsafeRawBufferPointer(data)
        if decoder == nil {
            // A still's frame header may lie past a short chunk: wait for its 10 bytes. (A raw
            // bitstream, payload size 0, has no chunk size to check the first partition against.)
            if raw.count < VP8Header.size && !complete { return }
            let header = try VP8Decoder.readHeader(raw, offset: payloadOffset, payloadSize: payloadSize > 0 ? payloadSize : nil)
            decoder = try VP8Decoder(header: header, limits: limits, fancyUpsampling: fancyUpsampling,
                                     useThreads: useThreads)
            decoder?.workerWritesAllBands = workerWritesAllBands
        }
        guard var d = decoder else { return }
        decoder = nil
        defer { decoder = d }
        let width = self.width
        var band = self.band
        self.band = []
        defer { self.band = band }
        let alpha = self.alpha
        /// Decodes into `output` (a still's pixels), or else through `band` to `emit`.
        func run(_ output: VP8Output?) throws(WebPError) {
            try d.decode(raw, isComplete: complete, chunkComplete: chunkComplete, offset: payloadOffset,
                         output: output) { rows in
                if output != nil {
                    // Written by the decoder already.
                    for y in rows.rows { emit(y, UnsafeBufferPointer(start: nil, count: 0)) }
                    return
                }
                let needed = rows.rows.count * width * 4
                if band.count < needed { band = [UInt8](repeating: 0, count: needed) }
                band.withUnsafeMutableBufferPointer { out in
                    guard let base = out.baseAddress else { return }
                    if let alpha {
                        alpha.withUnsafeBufferPointer { a in
                            rows.write(to: base, stride: width * 4, bytesPerPixel: 4,
                                       alpha: a.baseAddress! + rows.rows.lowerBound * width, alphaStride: width)
                        }
                    } else {
                        rows.write(to: base, stride: width * 4, bytesPerPixel: 4)
                    }
                    for (i, y) in rows.rows.enumerated() {
                        emit(y, UnsafeBufferPointer(start: base + i * width * 4, count: width * 4))
                    }
                }
            }
        }
        guard let direct else { return try run(nil) }
        let output = VP8Output(pixels: direct.pixels, stride: direct.stride, bytesPerPixel: direct.bytesPerPixel)
        guard let alpha, direct.bytesPerPixel == 4 else { return try run(output) }
        try alpha.withUnsafeBufferPointer { a throws(WebPError) in
            try run(VP8Output(pixels: output.pixels, stride: output.stride, bytesPerPixel: 4,
                              alpha: a.baseAddress!, alphaStride: width))
        }
    }
}
