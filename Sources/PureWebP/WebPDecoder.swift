import ImageCore

/// A resumable WebP decoder: feed bytes as they arrive, get events, and read the image.
///
/// Still images (simple `VP8 `/`VP8L` files, or VP8X with `ALPH`, `ICCP`, `EXIF`, `XMP `)
/// decode to `.rgba8` when the file has alpha (the VP8X alpha flag, an ALPH chunk, the VP8L
/// alpha hint), else `.rgb8`. Animations composite every frame onto an RGBA8 canvas as
/// libwebp's `WebPAnimDecoder` does (see ``WebPAnimation``). Events:
/// - `.header` when the image chunk's bitstream header is read (for an animation: at the
///   VP8X chunk, with `frameCount` 0 then; ``header`` counts frames as they start);
/// - `.rows(r)`: rows `r` (image or canvas coordinates) are final; a lossless image reports
///   rows as its pixels decode;
/// - `.frameStarted(i)` / `.frameComplete(i)` for each ANMF frame;
/// - `.warning` for what libwebp reads past (see ``WebPDecodingOptions/strict``);
/// - `.end` at the end of the RIFF chunk.
///
/// ```swift
/// var decoder = WebPDecoder()
/// for chunk in download {
///     for event in try decoder.append(chunk) {
///         if case .rows = event, let partial = decoder.preview() { show(partial) }
///     }
/// }
/// let image = try decoder.finish()   // throws .incomplete with the partial image if cut short
/// ```
public struct WebPDecoder: IncrementalImageDecoder {
    /// Every method throws ``WebPError``.
    public typealias Failure = WebPError

    /// The limits checked against the canvas, each frame, the frame count and the metadata.
    public let limits: DecodingLimits
    /// Upsampling and strictness.
    public let options: WebPDecodingOptions
    /// Known once the `.header` event has been reported.
    public internal(set) var header: ImageHeader?
    /// ICC profile, EXIF (with its orientation) and XMP (as a text entry keyed
    /// `XML:com.adobe.xmp`) read so far.
    public internal(set) var metadata = ImageMetadata()
    /// The animation's frames seen so far (empty for a still image).
    public internal(set) var frames: [WebPFrameInfo] = []
    /// The ANIM chunk's loop count (0: forever), nil before it or for a still image.
    public internal(set) var loopCount: Int?
    /// The ANIM chunk's background colour as stored (bytes B, G, R, A in a little-endian
    /// word); libwebp's compositing does not use it.
    public internal(set) var backgroundColor: UInt32?
    /// A still image's bitstream: true for VP8L (lossless), false for VP8 (lossy); nil before
    /// its header and for an animation (see ``WebPFrameInfo/isLossless``).
    public internal(set) var stillIsLossless: Bool?
    /// True when a lossy still image takes its alpha from an ALPH chunk.
    public internal(set) var stillHasALPH = false
    /// The VP8X chunk, if the file has one.
    var vp8x: VP8XInfo?

    enum State: Sendable, Equatable {
        case riffHeader
        case chunkHeader
        case collect(FourCC, size: Int)
        case skip(remaining: Int)
        case anmfHeader(size: Int)
        case imageHeader(FourCC, size: Int)
        case imageData(remaining: Int)
        case ended
    }

    var input = InputBuffer()
    var state = State.riffHeader
    var failure: WebPError?
    var riffEnd = 0
    var sawFirstChunk = false
    var sawANIM = false
    /// The end of the current ANMF payload, while inside one.
    var frameEnd: Int?
    var pendingFrame: ANMFHeader?
    var frameHasImage = false
    var pendingAlpha: [UInt8]?
    var pendingAlphaOffset = 0
    var metadataBytes = 0
    var frame: FrameDecoder?
    var imageChunkSize = 0
    /// The image is a raw bitstream with no chunk header (see `beginWithoutRIFF`).
    var rawBitstream = false
    /// Chunks without a RIFF header, from an ALPH up to the image (see `beginWithoutRIFF`).
    var bareChunks = false
    var imageStarted = false
    /// The still image (rgb8 or rgba8) as rows decode. Allocated without a zero fill: rows
    /// from `imageRowsFinal` on are not yet written, and ``preview()`` shows them as zeros.
    var image: [UInt8] = []
    /// Rows 0 ..< this of `image` are final.
    var imageRowsFinal = 0
    var imageDone = false
    /// A still's VP8 data ran past its chunk: `frame` stays and gets every later input byte
    /// until it completes or the input ends (see `endImage`).
    var overrun = false
    var compositor: WebPCompositor?
    var firstFrame: [UInt8]?
    var completedFrames = 0

    // Knobs for ``WebPAnimation``.
    /// Decode pixels (false: parse the structure only).
    var decodePixels = true
    /// Stop (leaving the rest of the input buffered) once this many frames are complete.
    var pauseAfterFrame: Int?
    /// A still image's rows go to the `sink` of ``append(_:sink:)`` instead of into `image`
    /// (``WebPRowDecoder``); the decoder then keeps no image.
    var streamRows = false
    /// A still image's rows go straight into caller memory instead of `image` (set only on the
    /// private decoder of ``decode(_:into:bytesPerRow:format:limits:options:)``).
    var directOutput: DirectOutput?

    /// A decoder waiting for the first bytes.
    public init(limits: DecodingLimits = .default, options: WebPDecodingOptions = .init()) {
        self.limits = limits
        self.options = options
    }

    /// Decodes a whole WebP held in memory (an animation: its first frame).
    ///
    /// ```swift
    /// let image = try WebPDecoder.decode(bytes)
    /// ```
    public static func decode(_ bytes: [UInt8], limits: DecodingLimits = .default,
                              options: WebPDecodingOptions = .init()) throws(WebPError) -> Image {
        var decoder = WebPDecoder(limits: limits.knowingInputSize(bytes.count), options: options)
        _ = try decoder.append(bytes)
        return try decoder.finish()
    }

    /// True for an animated file (VP8X animation flag).
    public var isAnimated: Bool { vp8x?.isAnimated ?? false }
    /// True once the end of the RIFF chunk has been read.
    public var isAtEnd: Bool { state == .ended }
    /// Frames whose image data has been decoded.
    public var completedFrameCount: Int { completedFrames }
    /// Absolute offset of the next byte the decoder will read.
    public var offset: Int { input.offset() }

    /// Feeds the next bytes and decodes as far as they allow; returns the events that became
    /// true. Throws a ``WebPError`` with its byte offset; after an error every call throws it.
    public mutating func append(_ bytes: UnsafeRawBufferPointer) throws(WebPError) -> [DecodingEvent] {
        if let failure { throw failure }
        if state != .ended { input.append(contentsOf: bytes) }
        if overrun { frame?.append(bytes) }
        return try run()
    }

    /// Where a streamed still image's rows go: `y`, the row as RGBA8, the image's pixel format.
    typealias RowSink = (Int, UnsafeBufferPointer<UInt8>, PixelFormat) -> Void

    /// ``append(_:)`` handing a still image's rows to `sink` as they become final (with
    /// ``streamRows`` set).
    mutating func append(_ bytes: UnsafeRawBufferPointer,
                         sink: RowSink) throws(WebPError) -> [DecodingEvent] {
        if let failure { throw failure }
        if state != .ended { input.append(contentsOf: bytes) }
        if overrun { frame?.append(bytes) }
        return try run(sink: sink)
    }

    /// The offset just past the input buffered so far.
    var endOffset: Int { input.offset(input.count) }

    /// Goes on decoding buffered input after a pause (``WebPAnimation`` uses it).
    mutating func run(sink: RowSink = { _, _, _ in }) throws(WebPError) -> [DecodingEvent] {
        if let failure { throw failure }
        var events: [DecodingEvent] = []
        do {
            if overrun { try continueOverrun(&events, sink) }
            try step(&events, sink)
        } catch {
            failure = error
            throw error
        }
        return events
    }

    /// Ends the input and returns the image (an animation: the first frame on its canvas).
    /// Throws ``WebPError/incomplete(offset:partial:)`` when the file is cut short, with what
    /// was decoded.
    public mutating func finish() throws(WebPError) -> Image {
        _ = try endInput()
        guard state == .ended, let result = finalImage() else {
            let error = WebPError.incomplete(offset: input.offset(input.count), partial: preview())
            failure = error
            throw error
        }
        return result
    }

    private func finalImage() -> Image? {
        guard let header else { return nil }
        if let compositor {
            guard let firstFrame else { return nil }
            return Image(width: compositor.width, height: compositor.height, format: .rgba8, pixels: firstFrame, metadata: metadata)
        }
        guard imageDone else { return nil }
        return Image(width: header.width, height: header.height, format: header.pixelFormat, pixels: image, metadata: metadata)
    }

    /// The image as far as it is decoded (rows not yet decoded transparent black), or the
    /// canvas of an animation with the current frame drawn so far; nil before the header.
    public func preview() -> Image? {
        guard let header else { return nil }
        if let compositor {
            return Image(width: compositor.width, height: compositor.height, format: .rgba8, pixels: compositor.canvas, metadata: metadata)
        }
        let rowBytes = header.width * header.pixelFormat.bytesPerPixel
        if image.count == header.height * rowBytes {
            var pixels = image
            if !imageDone {
                // Rows not yet decoded hold whatever the allocation held: transparent black.
                let start = min(imageRowsFinal, header.height) * rowBytes
                pixels.withUnsafeMutableBufferPointer { p in
                    if start < p.count { (p.baseAddress! + start).update(repeating: 0, count: p.count - start) }
                }
            }
            return Image(width: header.width, height: header.height, format: header.pixelFormat, pixels: pixels, metadata: metadata)
        }
        return Image(width: header.width, height: header.height, format: header.pixelFormat, metadata: metadata)
    }

    /// The animation canvas after the last completed frame (nil before one is complete).
    public var currentCanvas: Image? {
        guard completedFrames > 0, let compositor, frame == nil else { return nil }
        return Image(width: compositor.width, height: compositor.height, format: .rgba8, pixels: compositor.canvas, metadata: metadata)
    }

    /// Marks the end of the input: a still whose VP8 data runs past its chunk decodes its last
    /// macroblocks now (libwebp's zero bits at the end of the data), or throws its truncation.
    /// (A RIFF cut short stays `.incomplete` for `finish`.)
    mutating func endInput(sink: RowSink = { _, _, _ in }) throws(WebPError) -> [DecodingEvent] {
        if let failure { throw failure }
        input.isFinished = true
        var events: [DecodingEvent] = []
        if overrun && state == .ended {
            frame?.inputEnded = true
            do {
                try continueOverrun(&events, sink)
            } catch {
                failure = error
                throw error
            }
        }
        return events
    }

    /// Decodes what the bytes after the chunk allow; completes the image when it is whole.
    mutating func continueOverrun(_ events: inout [DecodingEvent], _ sink: RowSink) throws(WebPError) {
        try decodeRows(&events, sink)
        guard frame?.isComplete == true else { return }
        overrun = false
        frame = nil
        pendingAlpha = nil
        imageDone = true
        completedFrames = 1
    }

    /// Reports a leniency as a warning, or throws `error` when strict.
    mutating func lenient(_ message: String, _ error: WebPError, _ events: inout [DecodingEvent]) throws(WebPError) {
        if options.strict { throw error }
        events.append(.warning(message))
    }

    // MARK: - The chunk loop

    private mutating func step(_ events: inout [DecodingEvent], _ sink: RowSink) throws(WebPError) {
        while true {
            switch state {
            case .ended:
                return
            case .riffHeader:
                guard let b = input.bytes(at: 0, count: RIFF.headerSize)?[...] else {
                    // (Without `strict`, a raw bitstream may start with anything: see Bare.swift.)
                    let prefix = Array(input.unread.prefix(4))
                    if options.strict && !prefix.isEmpty && !Array("RIFF".utf8).starts(with: prefix) { throw .invalid(what: "RIFF signature", offset: 0) }
                    return
                }
                if FourCC(b.le32(0)) != .riff {
                    try beginWithoutRIFF(b, &events)
                    continue
                }
                guard FourCC(b.le32(8)) == .webp else { throw .invalid(what: "RIFF/WEBP signature", offset: 0) }
                let size = b.le32(4)
                guard size >= 12, size <= RIFF.maxChunkPayload else { throw .invalid(what: "RIFF size \(size)", offset: 4) }
                riffEnd = 8 + Int(size)
                if let violation = limits.checkPlausible(neededBytes: riffEnd) { throw .limit(violation, offset: 4) }
                input.consume(RIFF.headerSize)
                state = .chunkHeader
            case .chunkHeader:
                if isAnimated, let pause = pauseAfterFrame, completedFrames > pause { return }
                let at = input.offset()
                if at >= riffEnd {
                    try endOfFile(&events)
                    return
                }
                if riffEnd - at < RIFF.chunkHeaderSize {
                    guard input.count >= riffEnd - at else { return }
                    if (imageDone || overrun) && compositor == nil {
                        try lenient("\(riffEnd - at) bytes after the last chunk", .invalid(what: "chunk header", offset: at), &events)
                        input.consume(riffEnd - at)
                        continue
                    }
                    throw .invalid(what: "chunk header past the RIFF size", offset: at)
                }
                guard let b = input.bytes(at: 0, count: RIFF.chunkHeaderSize)?[...] else { return }
                let tag = FourCC(b.le32(0))
                let size = b.le32(4)
                if !sawFirstChunk && tag != .vp8 && tag != .vp8l && tag != .vp8x {
                    // Not a chunk libwebp starts with: it reads a raw bitstream here (Bare.swift).
                    if beginRawInRIFF(b, at: at, &events) { continue }
                }
                input.consume(RIFF.chunkHeaderSize)
                guard size <= RIFF.maxChunkPayload else {
                    if try endAfterStill(tag, size: Int(size), at: at, &events) { continue }
                    throw .invalid(what: "\(tag) chunk size \(size)", offset: at + 4)
                }
                try dispatch(tag, size: Int(size), at: at, &events)
            case let .collect(tag, size):
                let padded = size + (size & 1)
                let at = input.offset()
                let available = min(padded, riffEnd - at)
                guard let payload = input.bytes(at: 0, count: size) else { return }
                guard input.count >= available else { return }
                input.consume(available)
                state = .chunkHeader
                try handle(tag, payload, at: at, &events)
            case let .skip(remaining):
                let n = min(remaining, input.count)
                input.consume(n)
                if n < remaining { state = .skip(remaining: remaining - n); return }
                state = .chunkHeader
            case let .anmfHeader(size):
                guard let b = input.bytes(at: 0, count: ANMFHeader.byteCount)?[...] else { return }
                let at = input.offset()
                input.consume(ANMFHeader.byteCount)
                try beginANMF(ANMFHeader(b), size: size, at: at)
                state = .chunkHeader
            case let .imageHeader(tag, size):
                let headerBytes = tag == .vp8l ? VP8LHeader.byteCount : VP8FrameInfo.byteCount
                // A still's codec reads on past its chunk (see `beginImage`), its header too.
                let pastChunk = !options.strict && pendingFrame == nil && size < headerBytes
                let need = pastChunk ? headerBytes : min(size, headerBytes)
                guard let b = input.bytes(at: 0, count: need)?[...] else { return }
                try beginImage(tag, b, size: size, at: input.offset(), &events)
                state = .imageData(remaining: size)
            case let .imageData(remaining):
                let n = min(remaining, input.count)
                if n == 0 && remaining > 0 { return }
                if decodePixels, frame != nil {
                    frame!.append(input.unread.prefix(n))
                    input.consume(n)
                    try decodeRows(&events, sink)
                } else {
                    input.consume(n)
                }
                if n < remaining { state = .imageData(remaining: remaining - n); return }
                // The padding byte of an odd chunk (libwebp accepts its absence at the RIFF end).
                let padding = imageChunkSize & 1 == 1 && input.offset() < riffEnd ? 1 : 0
                try endImage(&events, sink)
                state = .skip(remaining: padding)
            }
        }
    }
}
