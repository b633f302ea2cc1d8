import ImageCore

/// A resumable GIF decoder: feed bytes as they arrive, get events, and read the canvas.
///
/// Every frame is composited onto an RGBA8 canvas as its rows are decoded (disposal applied as
/// browsers apply it: see ``GIFDisposal``). Events:
/// - `.header` once the logical screen descriptor and global colour table are read
///   (`frameCount` 0 then; ``header`` counts frames as they start);
/// - `.frameStarted(i)` at each image descriptor;
/// - `.rows(r)` for non-interlaced frames: canvas rows `r` (canvas coordinates, clipped to the
///   canvas) now hold the frame's final pixels. A run of rows may be reported in several
///   events, split where the input was cut;
/// - `.passComplete(k)` for interlaced frames, k = 0...3, when the k-th pass is decoded;
///   ``preview()`` then shows the frame with undecoded rows replicated from the rows above;
/// - `.frameComplete(i)` at the frame's block terminator; `.end` at the trailer (or any byte
///   that cannot start a block, which ends the stream as in browsers).
///
/// ```swift
/// var decoder = GIFDecoder()
/// for chunk in download {
///     for event in try decoder.append(chunk) {
///         if case .frameComplete = event, let canvas = decoder.currentCanvas { show(canvas) }
///     }
/// }
/// let first = try decoder.finish()   // the first frame on its canvas
/// ```
public struct GIFDecoder: IncrementalImageDecoder {
    /// Every method throws ``GIFError``.
    public typealias Failure = GIFError

    /// The limits checked against the canvas, each frame and the frame count.
    public let limits: DecodingLimits
    /// The leniencies in force (browser-compatible by default).
    public let options: GIFDecodingOptions
    /// The canvas size (`pixelFormat` `.rgba8`) once the logical screen descriptor is read;
    /// `frameCount` counts the frames started so far.
    public private(set) var header: ImageHeader?
    /// Info of the frames seen so far (a frame is listed from its image descriptor on).
    public private(set) var frames: [GIFFrameInfo] = []
    /// The loop extension's count: nil without one (play once), 0 forever, N for N + 1 plays.
    public private(set) var loopCount: Int?
    /// Comments, as `TextEntry(keyword: "Comment", ...)`.
    public private(set) var metadata = ImageMetadata()

    private enum State: Sendable, Equatable {
        case screen
        case globalTable(entries: Int)
        case block
        case extensionLabel
        case extensionData(label: UInt8, subBlock: Int)
        case imageDescriptor
        case localTable(entries: Int)
        case codeSize
        case imageData(remaining: Int)
        case ended
    }

    /// What the LZW decoder is doing for the current frame.
    private enum Phase: Sendable, Equatable {
        case decoding
        /// Output full, strict: only clear and end codes may follow.
        case tail
        /// Output full (lenient) or end code read: the remaining data is skipped.
        case done
    }

    private var input = InputBuffer()
    private var state = State.screen
    private var failure: GIFError?
    private var screen: ScreenDescriptor?
    private var globalTable: Palette?
    private var control: GraphicControl?
    private var applicationIsLoop = false
    private var comment: [UInt8] = []
    private var commentDropped = false
    private var metadataBytes = 0

    // The current frame.
    private var descriptor: ImageDescriptor?
    private var descriptorOffset = 0
    private var localTable: Palette?
    private var inFrame = false
    private var phase = Phase.decoding
    private var sawEndCode = false
    /// Sub-blocks started after the one holding the end code.
    private var dataAfterEnd = false
    private var lzw: LZWDecoder?
    /// The frame's colour indices, rows in stored (interlaced) order.
    private var indices: [UInt8] = []
    private var decodedPixels = 0
    /// Stored rows composited so far.
    private var rowsDone = 0
    private var passesReported = 0
    private var interlace: InterlaceMap?

    private var compositor: Compositor?
    private var firstFrame: [UInt8]?
    private var completedCanvas: [UInt8]?
    private var completedFrames = 0

    /// When true, ``append(_:)`` and ``resume()`` return right after each `.frameComplete`,
    /// keeping the rest of the input buffered, so ``currentCanvas`` can be read for every frame;
    /// call ``resume()`` to go on (it returns no events once the buffered input is used up).
    public var pausesAfterEachFrame = false

    /// When true, frames after the first are read for their structure only (frame list,
    /// delays, loop count, where the file ends) and their image data is skipped undecoded, as
    /// ImageIO and libvips read one image of an animation. ``finish()`` returns the first frame
    /// either way; damage inside a later frame's LZW data then goes unnoticed.
    /// (`ImageSource` sets it unless strict.)
    public var decodesFirstFrameOnly = false

    // Knobs for ``GIFAnimation``.
    /// Decode pixels (false: parse the structure only, skipping image data).
    var decodePixels = true
    /// Keep the first frame and the last completed canvas (for ``finish()`` and ``currentCanvas``).
    var keepCanvases = true
    /// Stop (leaving the rest of the input unread) once this frame is complete.
    var pauseAfterFrame: Int?

    /// A decoder waiting for the first bytes.
    /// - Parameters:
    ///   - limits: Bounds on canvas and frame size, memory and frame count.
    ///   - options: Which malformations are tolerated; the default reads what browsers read.
    public init(limits: DecodingLimits = .default, options: GIFDecodingOptions = .init()) {
        self.limits = limits
        self.options = options
    }

    /// The number of frames whose block terminator has been read.
    public var completedFrameCount: Int { completedFrames }
    /// True once the trailer (or a byte that ends the stream) has been read.
    public var isAtEnd: Bool { state == .ended }
    /// True when the input so far is a whole file: the trailer was read, or (with
    /// `allowMissingTrailer`) it stops at a block boundary after at least one complete frame.
    public var isComplete: Bool {
        state == .ended || (state == .block && completedFrames > 0 && options.allowMissingTrailer)
    }
    /// Absolute offset of the next byte the decoder will read.
    public var offset: Int { input.offset() }

    /// Feeds the next bytes and decodes as far as they allow; returns the events that became true.
    /// Throws a ``GIFError`` for invalid data (with its byte offset); after an error every call
    /// throws it again.
    public mutating func append(_ bytes: UnsafeRawBufferPointer) throws(GIFError) -> [DecodingEvent] {
        if let failure { throw failure }
        if state != .ended { input.append(contentsOf: bytes) }
        return try run()
    }
    /// ``append(_:)`` for an array, shared instead of copied when nothing is buffered.
    mutating func append(sharing bytes: [UInt8]) throws(GIFError) -> [DecodingEvent] {
        if let failure { throw failure }
        if state != .ended { input.append(bytes) }
        return try run()
    }

    /// Goes on decoding the buffered input after a pause (see ``pausesAfterEachFrame``).
    public mutating func resume() throws(GIFError) -> [DecodingEvent] { try run() }

    /// Runs the state machine over the buffered input until it needs more or is paused.
    mutating func run() throws(GIFError) -> [DecodingEvent] {
        if let failure { throw failure }
        var events: [DecodingEvent] = []
        do {
            try step(&events)
        } catch {
            failure = error
            throw error
        }
        return events
    }

    /// Ends the input and returns the first frame composited on its canvas (RGBA8). Use
    /// ``GIFAnimation`` or ``currentCanvas`` for later frames.
    ///
    /// Throws ``GIFError/truncated(offset:partial:)`` when the file is not complete (the partial
    /// image is the first frame as far as it was decoded), ``GIFError/noFrames(offset:)`` when it
    /// holds no image.
    public mutating func finish() throws(GIFError) -> Image {
        if let failure { throw failure }
        input.isFinished = true
        if !isComplete {
            let error = GIFError.truncated(offset: input.offset(input.count), partial: partialImage())
            failure = error
            throw error
        }
        guard completedFrames > 0, let compositor else {
            let error = GIFError.noFrames(offset: input.offset())
            failure = error
            throw error
        }
        return Image(width: compositor.width, height: compositor.height, format: .rgba8,
                     pixels: firstFrame ?? compositor.canvas, metadata: metadata)
    }

    /// The canvas with the current frame drawn as far as it is decoded (for an interlaced
    /// frame, undecoded rows replicated from the decoded ones above them); nil before the header.
    public func preview() -> Image? {
        guard let screen else { return nil }
        guard var canvas = compositor else {
            return Image(width: screen.width, height: screen.height, format: .rgba8, metadata: metadata)
        }
        if decodePixels, inFrame, let interlace, let descriptor, rowsDone < descriptor.height {
            for row in 0 ..< descriptor.height where interlace.ordinal(row: row) >= rowsDone {
                if let source = interlace.standIn(row: row, decoded: rowsDone) { canvas.replicateRow(from: source, to: row) }
            }
        }
        return canvas.image(metadata: metadata)
    }

    /// The canvas after the last completed frame (nil before the first is complete).
    public var currentCanvas: Image? {
        guard completedFrames > 0, let compositor else { return nil }
        let pixels = inFrame ? (completedCanvas ?? compositor.canvas) : compositor.canvas
        return Image(width: compositor.width, height: compositor.height, format: .rgba8, pixels: pixels, metadata: metadata)
    }

    /// The image a truncation error carries: the first frame if it is complete, else the first
    /// frame as far as it was decoded.
    private func partialImage() -> Image? {
        if let firstFrame, let compositor {
            return Image(width: compositor.width, height: compositor.height, format: .rgba8, pixels: firstFrame, metadata: metadata)
        }
        if completedFrames > 0, let compositor, !inFrame { return compositor.image(metadata: metadata) }
        return preview()
    }

    // MARK: - The state machine

    private mutating func step(_ events: inout [DecodingEvent]) throws(GIFError) {
        while true {
            switch state {
            case .ended:
                return
            case .screen:
                guard let bytes = input.bytes(at: 0, count: ScreenDescriptor.byteCount) else {
                    // Reject a wrong signature as soon as its bytes are there.
                    let prefix = Array(input.unread.prefix(6))
                    if !prefix.isEmpty && !Array("GIF89a".utf8).starts(with: prefix) && !Array("GIF87a".utf8).starts(with: prefix) {
                        throw .invalidSignature(offset: input.offset())
                    }
                    return
                }
                guard let s = ScreenDescriptor(bytes) else { throw .invalidSignature(offset: input.offset()) }
                if let violation = limits.check(width: s.width, height: s.height, bytesPerPixel: 4) {
                    throw .limitExceeded(violation, offset: input.offset(6))
                }
                screen = s
                input.consume(ScreenDescriptor.byteCount)
                if s.globalTableEntries > 0 {
                    state = .globalTable(entries: s.globalTableEntries)
                } else {
                    reportHeader(&events)
                }
            case let .globalTable(entries):
                guard let rgb = input.bytes(at: 0, count: entries * 3) else { return }
                input.consume(entries * 3)
                globalTable = Palette(rgb: rgb)
                reportHeader(&events)
            case .block:
                guard input.count >= 1 else { return }
                let label = input[0]
                input.consume(1)
                switch label {
                case BlockLabel.extensionIntroducer: state = .extensionLabel
                case BlockLabel.imageSeparator: state = .imageDescriptor
                default:
                    // The trailer, or any other byte: browsers end the stream here (GIF89a section 27).
                    state = .ended
                    events.append(.end)
                    return
                }
            case .extensionLabel:
                guard input.count >= 1 else { return }
                let label = input[0]
                input.consume(1)
                applicationIsLoop = false
                comment.removeAll(keepingCapacity: true)
                state = .extensionData(label: label, subBlock: 0)
            case let .extensionData(label, index):
                guard input.count >= 1 else { return }
                let length = Int(input[0])
                guard input.count >= 1 + length else { return }
                if length == 0 {
                    input.consume(1)
                    if label == BlockLabel.comment { keepComment() }
                    state = .block
                    continue
                }
                let body = input.unread.dropFirst().prefix(length)
                handleExtensionSubBlock(label: label, index: index, body: body)
                input.consume(1 + length)
                state = .extensionData(label: label, subBlock: index + 1)
            case .imageDescriptor:
                guard let bytes = input.bytes(at: 0, count: ImageDescriptor.byteCount) else { return }
                let d = ImageDescriptor(bytes)
                descriptorOffset = input.offset() - 1
                try startFrame(d, &events)
                input.consume(ImageDescriptor.byteCount)
                state = d.localTableEntries > 0 ? .localTable(entries: d.localTableEntries) : .codeSize
            case let .localTable(entries):
                guard let rgb = input.bytes(at: 0, count: entries * 3) else { return }
                input.consume(entries * 3)
                localTable = Palette(rgb: rgb)
                state = .codeSize
            case .codeSize:
                guard input.count >= 1 else { return }
                let size = input[0]
                // GIF89a allows 2...8; encoders write 1 for two-colour images, which decodes the same way.
                guard size >= 1 && size <= 8 else { throw .invalidLZWCodeSize(size, offset: input.offset()) }
                try beginPixels(codeSize: Int(size))
                input.consume(1)
                state = .imageData(remaining: 0)
            case let .imageData(remaining):
                if remaining == 0 {
                    guard input.count >= 1 else { return }
                    let length = Int(input[0])
                    if length == 0 {
                        input.consume(1)
                        try endFrame(&events)
                        if pausesAfterEachFrame { return }
                        if let pause = pauseAfterFrame, completedFrames > pause { return }
                        continue
                    }
                    if sawEndCode {
                        dataAfterEnd = true
                        if !options.allowDataAfterEndCode {
                            throw .dataAfterEndCode(frame: frames.count - 1, offset: input.offset())
                        }
                    }
                    input.consume(1)
                    state = .imageData(remaining: length)
                    continue
                }
                if decodePixels && phase != .done && lzw != nil {
                    // This sub-block and the whole ones after it, in one pass.
                    let (used, left) = try feed(remaining: remaining, &events)
                    guard used > 0 else { return }
                    input.consume(used)
                    state = .imageData(remaining: left)
                    reportRows(&events)
                    continue
                }
                let available = min(remaining, input.count)
                guard available > 0 else { return }
                input.consume(available)
                state = .imageData(remaining: remaining - available)
                if decodePixels { reportRows(&events) }
            }
        }
    }

    private mutating func reportHeader(_ events: inout [DecodingEvent]) {
        guard let screen else { return }
        let h = ImageHeader(fileFormat: .gif, width: screen.width, height: screen.height,
                            pixelFormat: .rgba8, isInterlaced: false, frameCount: 0)
        header = h
        events.append(.header(h))
        state = .block
    }

    private mutating func handleExtensionSubBlock(label: UInt8, index: Int, body: ArraySlice<UInt8>) {
        switch label {
        case BlockLabel.graphicControl where index == 0:
            // A later graphic control extension before the same image replaces the earlier one.
            if let c = GraphicControl(subBlock: body) { control = c }
        case BlockLabel.application:
            if index == 0 {
                applicationIsLoop = ApplicationIdentifier.isLoopExtension(body)
            } else if applicationIsLoop, let count = ApplicationIdentifier.loopCount(body) {
                loopCount = count
            }
        case BlockLabel.comment:
            // Past the metadata limit the comment is dropped whole (the image still decodes).
            if metadataBytes + comment.count + body.count <= limits.maxMetadataBytes {
                comment.append(contentsOf: body)
            } else {
                commentDropped = true
            }
        default:
            break   // plain text and unknown extensions are skipped, as browsers do
        }
    }

    private mutating func keepComment() {
        defer { commentDropped = false }
        if commentDropped { comment.removeAll(keepingCapacity: true); return }
        metadataBytes += comment.count
        metadata.texts.append(TextEntry(keyword: "Comment", text: String(latin1: comment)))
        comment.removeAll(keepingCapacity: true)
    }

    private mutating func startFrame(_ d: ImageDescriptor, _ events: inout [DecodingEvent]) throws(GIFError) {
        let index = frames.count
        guard index < limits.maxFrames else { throw .limitExceeded(.frames(limit: limits.maxFrames), offset: descriptorOffset) }
        let c = control ?? GraphicControl()
        control = nil
        let info = GIFFrameInfo(index: index, x: d.x, y: d.y, width: d.width, height: d.height,
                                delayCentiseconds: c.delayCentiseconds, disposal: c.disposal,
                                transparentIndex: c.transparentIndex, interlaced: d.interlaced,
                                hasLocalColorTable: d.localTableEntries > 0, userInputFlag: c.userInput)
        frames.append(info)
        header?.frameCount = frames.count
        if index == 0 { header?.isInterlaced = d.interlaced }
        descriptor = d
        localTable = nil
        // Until its pixels begin, the preview is the canvas as the previous frame left it.
        interlace = nil
        rowsDone = 0
        inFrame = true
        events.append(.frameStarted(index))
    }

    private mutating func beginPixels(codeSize: Int) throws(GIFError) {
        guard let d = descriptor, let screen else { return }
        let index = frames.count - 1
        guard let palette = localTable ?? globalTable ?? options.defaultColorTable else {
            throw .missingColorTable(frame: index, offset: descriptorOffset)
        }
        phase = .decoding
        sawEndCode = false
        dataAfterEnd = false
        decodedPixels = 0
        rowsDone = 0
        passesReported = 0
        interlace = d.interlaced ? InterlaceMap(height: d.height) : nil
        // Working memory: the frame's indices beside the canvas, the first frame's copy, the
        // last completed canvas and the saved rectangle of a "restore to previous" frame.
        let canvasPixels = screen.width * screen.height
        if let violation = limits.check(width: d.width, height: d.height, bytesPerPixel: 1,
                                        extraBytes: canvasPixels.multipliedReportingOverflow(by: 16).partialValue) {
            throw .limitExceeded(violation, offset: descriptorOffset)
        }
        guard decodePixels else { return }
        let pixels = d.width * d.height
        if indices.count < pixels { indices = [UInt8](repeating: 0, count: pixels) }
        if lzw?.minimumCodeSize == codeSize { lzw?.restart() } else { lzw = LZWDecoder(minimumCodeSize: codeSize) }
        if compositor == nil { compositor = Compositor(width: screen.width, height: screen.height) }
        let info = frames[index]
        compositor?.beginFrame(rect: .init(x: d.x, y: d.y, width: d.width, height: d.height), palette: palette,
                               transparentIndex: info.transparentIndex, disposal: info.disposal)
        if pixels == 0 { phase = options.allowExcessPixelData ? .done : .tail }
    }

    /// Decodes the current sub-block (`remaining` bytes of it to come) and the ones after it that
    /// the input holds, with one hand-off of the LZW state (one a sub-block cost a tenth of a
    /// decode in reference counting); stops before the terminator, after a sub-block whose status
    /// is not "more input", or where the input ends. Returns the bytes used and what is left of
    /// the last sub-block. An error composites the rows before the failing sub-block first.
    private mutating func feed(remaining: Int, _ events: inout [DecodingEvent]) throws(GIFError) -> (used: Int, left: Int) {
        guard var lzw else { return (0, remaining) }
        self.lzw = nil   // keeps `lzw` uniquely referenced while it decodes
        defer { self.lzw = lzw }
        let capacity = (descriptor?.width ?? 0) * (descriptor?.height ?? 0)
        let base = input.offset(), phase = self.phase
        var position = decodedPixels, offset = 0, left = remaining
        // The sub-block that stopped the pass: status, bytes used, data offset, length, position before.
        var stop: (status: LZWDecoder.Status, used: Int, at: Int, count: Int, before: Int)?
        input.withUnsafeUnread { unread in
            indices.withUnsafeMutableBufferPointer { out in
                while true {
                    if left == 0 {
                        guard offset < unread.count, unread[offset] != 0 else { return }
                        left = Int(unread[offset])
                        offset += 1
                    }
                    let count = min(left, unread.count - offset)
                    guard count > 0 else { return }
                    let data = UnsafeBufferPointer(rebasing: unread[offset ..< offset + count])
                    let before = position
                    let (status, used): (LZWDecoder.Status, Int)
                    if phase == .tail {
                        (status, used) = lzw.decodeTail(data)
                    } else if let outBase = out.baseAddress {
                        (status, used) = lzw.decode(data, into: outBase, capacity: capacity, position: &position)
                    } else {
                        (status, used) = (.outputFull, 0)
                    }
                    if status != .needInput { stop = (status, used, offset, count, before) }
                    offset += count
                    left -= count
                    if stop != nil { return }
                }
            }
        }
        guard let stop else {
            decodedPixels = position
            return (offset, left)
        }
        let frame = frames.count - 1, start = base + stop.at
        // The rows before the failing sub-block, then the error.
        func fail(_ error: GIFError, _ events: inout [DecodingEvent]) -> GIFError {
            decodedPixels = stop.before
            reportRows(&events)
            decodedPixels = position
            return error
        }
        switch stop.status {
        case .needInput:
            break
        case .end:
            sawEndCode = true
            self.phase = .done
        case .outputFull:
            if options.allowExcessPixelData {
                self.phase = .done
            } else {
                self.phase = .tail
                // The bit buffer and the rest of this sub-block may already hold the codes after the last pixel.
                let (tailStatus, tailUsed) = input.withUnsafeUnread { unread in
                    lzw.decodeTail(UnsafeBufferPointer(rebasing: unread[stop.at + stop.used ..< stop.at + stop.count]))
                }
                let at = start + max(stop.used + tailUsed - lzw.bufferedBytes - 1, 0)
                if tailStatus == .excessData { throw fail(.tooMuchPixelData(frame: frame, offset: at), &events) }
                if tailStatus == .end { sawEndCode = true; self.phase = .done }
            }
        case let .invalidCode(code):
            throw fail(.invalidCode(code: code, offset: start + max(stop.used - lzw.bufferedBytes - 1, 0)), &events)
        case .excessData:
            throw fail(.tooMuchPixelData(frame: frame, offset: start + max(stop.used - lzw.bufferedBytes - 1, 0)), &events)
        }
        decodedPixels = position
        return (offset, left)
    }

    /// Composites the stored rows completed since the last call and reports them.
    private mutating func reportRows(_ events: inout [DecodingEvent]) {
        guard let d = descriptor, d.width > 0 else { return }
        let complete = decodedPixels / d.width
        if complete > rowsDone { compositeRows(rowsDone ..< complete, d, &events) }
        rowsDone = max(rowsDone, complete)
        if let interlace {
            while passesReported < 4 && interlace.passEnds[passesReported] <= rowsDone {
                events.append(.passComplete(passesReported))
                passesReported += 1
            }
        }
    }

    private mutating func compositeRows(_ ordinals: Range<Int>, _ d: ImageDescriptor, _ events: inout [DecodingEvent]) {
        guard var compositor else { return }
        self.compositor = nil
        defer { self.compositor = compositor }
        let interlace = self.interlace
        indices.withUnsafeBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return }
            for ordinal in ordinals {
                let row = interlace?.row(ordinal: ordinal) ?? ordinal
                compositor.compositeRow(row: row, indices: base + ordinal * d.width, count: d.width)
            }
        }
        if interlace == nil, let screen {
            let top = max(d.y + ordinals.lowerBound, 0), bottom = min(d.y + ordinals.upperBound, screen.height)
            if bottom > top {
                if case let .rows(last)? = events.last, last.upperBound == top {
                    events[events.count - 1] = .rows(last.lowerBound ..< bottom)
                } else {
                    events.append(.rows(top ..< bottom))
                }
            }
        }
    }

    private mutating func endFrame(_ events: inout [DecodingEvent]) throws(GIFError) {
        let index = frames.count - 1
        if decodePixels, let d = descriptor {
            let pixels = d.width * d.height
            if !sawEndCode && !options.allowMissingEndCode {
                throw .missingEndCode(frame: index, offset: input.offset() - 1)
            }
            if decodedPixels < pixels && !options.allowIncompletePixelData {
                throw .notEnoughPixelData(frame: index, offset: input.offset() - 1)
            }
            reportRows(&events)
            // The last, partly decoded row of a frame cut short.
            if d.width > 0 && decodedPixels < pixels && decodedPixels % d.width != 0, var compositor {
                self.compositor = nil
                let ordinal = decodedPixels / d.width
                let row = interlace?.row(ordinal: ordinal) ?? ordinal
                indices.withUnsafeBufferPointer { buffer in
                    guard let base = buffer.baseAddress else { return }
                    compositor.compositeRow(row: row, indices: base + ordinal * d.width, count: decodedPixels % d.width)
                }
                self.compositor = compositor
            }
            compositor?.endFrame()
            if keepCanvases, let canvas = compositor?.canvas {
                if index == 0 { firstFrame = canvas }
                completedCanvas = canvas
            }
        }
        if decodesFirstFrameOnly && index == 0 { decodePixels = false }
        inFrame = false
        descriptor = nil
        completedFrames += 1
        events.append(.frameComplete(index))
        state = .block
    }
}
