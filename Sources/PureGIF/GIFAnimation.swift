import ImageCore

/// A whole GIF file with its frames decoded on demand.
///
/// `init` reads only the structure (frame rectangles, delays, disposal, loop count). Pixels are
/// decoded when asked for, forward from the first frame, with one canvas and at most one saved
/// rectangle in memory: never all frames at once.
///
/// ```swift
/// let animation = try GIFAnimation(bytes: data)
/// print(animation.width, animation.height, animation.frames.count, animation.loopCount as Any)
/// let third = try animation.frame(at: 2)           // canvas after frames 0, 1, 2
/// var iterator = animation.makeIterator()
/// while let canvas = try iterator.nextFrame() { show(canvas) }
/// ```
public struct GIFAnimation: Sendable, Sequence {
    /// The whole file, kept to decode frames on demand.
    public let bytes: [UInt8]
    /// The limits every frame decode enforces (with `inputSize` set to the file's length).
    public let limits: DecodingLimits
    /// The leniencies every frame decode uses.
    public let options: GIFDecodingOptions
    /// Canvas width in pixels (the logical screen); every composited frame has this size.
    public var width: Int
    /// Canvas height in pixels.
    public var height: Int
    /// Every frame the file declares (the last one may be cut short: see ``truncatedAt``).
    public var frames: [GIFFrameInfo]
    /// nil: no loop extension (play once); 0: forever; N: N + 1 plays.
    public var loopCount: Int?
    /// Comments (as `TextEntry(keyword: "Comment", ...)`); GIF carries no other metadata.
    public var metadata: ImageMetadata
    /// Where the input ends early, if it does: frames before the last are whole; asking for
    /// an unfinished one throws `.truncated` with what could be drawn.
    public var truncatedAt: Int?

    /// Total plays as browsers count them: 1 without a loop extension, nil for forever.
    public var playCount: Int? { GIFLoop.playCount(loopCount: loopCount) }

    /// Parses the structure. Throws for a file that is not a GIF, breaks a limit, lacks a
    /// colour table, or ends before its first image descriptor.
    public init(bytes: [UInt8], limits: DecodingLimits = .default, options: GIFDecodingOptions = .init()) throws(GIFError) {
        self.bytes = bytes
        self.limits = limits.knowingInputSize(bytes.count)
        self.options = options
        var decoder = GIFDecoder(limits: self.limits, options: options)
        decoder.decodePixels = false
        decoder.keepCanvases = false
        _ = try decoder.append(sharing: bytes)
        guard let header = decoder.header else {
            throw .truncated(offset: bytes.count, partial: nil)
        }
        if decoder.frames.isEmpty {
            if decoder.isAtEnd { throw .noFrames(offset: decoder.offset) }
            throw .truncated(offset: bytes.count, partial: nil)
        }
        width = header.width
        height = header.height
        frames = decoder.frames
        loopCount = decoder.loopCount
        metadata = decoder.metadata
        truncatedAt = decoder.isComplete ? nil : bytes.count
    }

    /// The canvas after frame `index` has been drawn (earlier frames decoded on the way).
    public func frame(at index: Int) throws(GIFError) -> Image {
        guard index >= 0 && index < frames.count else { throw .frameIndexOutOfRange(index: index, count: frames.count) }
        var iterator = makeIterator()
        iterator.decoder.pauseAfterFrame = index
        return try iterator.decode(upTo: index)
    }

    /// An iterator over the composited frames, in order, decoding each as it is asked for (memory
    /// is one canvas, whatever the frame count).
    ///
    /// ```swift
    /// for canvas in animation { show(canvas) }           // stops quietly at an error
    /// ```
    public func makeIterator() -> Iterator { Iterator(self) }

    /// Composited frames one at a time. `next()` stops at the first error, which ``error`` keeps;
    /// ``nextFrame()`` throws it instead.
    public struct Iterator: IteratorProtocol, Sendable {
        fileprivate var decoder: GIFDecoder
        private let bytes: [UInt8]
        private var fed = false
        private var index = 0
        private let count: Int
        /// The error that ended ``next()`` early, if one did.
        public private(set) var error: GIFError?

        fileprivate init(_ animation: GIFAnimation) {
            decoder = GIFDecoder(limits: animation.limits, options: animation.options)
            decoder.keepCanvases = false
            bytes = animation.bytes
            count = animation.frames.count
        }

        /// The next composited canvas (RGBA8, canvas size), or nil after the last frame or at the
        /// first error (then kept in ``error``).
        public mutating func next() -> Image? {
            do { return try nextFrame() } catch { self.error = error; return nil }
        }

        /// The next composited frame, nil after the last.
        public mutating func nextFrame() throws(GIFError) -> Image? {
            if let error { throw error }
            guard index < count else { return nil }
            let image = try decode(upTo: index)
            index += 1
            return image
        }

        fileprivate mutating func decode(upTo target: Int) throws(GIFError) -> Image {
            decoder.pauseAfterFrame = target
            if !fed {
                fed = true
                _ = try decoder.append(sharing: bytes)
            } else {
                _ = try decoder.run()
            }
            if decoder.completedFrameCount > target, let canvas = decoder.canvasImage {
                return canvas
            }
            throw .truncated(offset: bytes.count, partial: decoder.preview())
        }
    }
}

extension GIFDecoder {
    /// The canvas as it stands (between frames: after the last completed one).
    var canvasImage: Image? { preview() }
}
