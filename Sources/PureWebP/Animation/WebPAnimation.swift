import ImageCore

/// A whole animated (or still) WebP file with its frames decoded on demand, composited as
/// libwebp's `WebPAnimDecoder` composites them.
///
/// `init` reads only the structure (canvas, frames, loop count, metadata). Frames are decoded
/// forward from the first with one canvas in memory, never all frames at once.
///
/// ```swift
/// let animation = try WebPAnimation(bytes: data)
/// let third = try animation.frame(at: 2)          // canvas after frames 0, 1, 2
/// try animation.forEachFrame { index, canvas in show(canvas) }
/// ```
public struct WebPAnimation: Sendable, Sequence {
    /// The whole file, kept to decode frames on demand.
    public let bytes: [UInt8]
    /// The limits every frame decode enforces (with `inputSize` set to the file's length).
    public let limits: DecodingLimits
    /// The options every decode uses.
    public let options: WebPDecodingOptions
    /// Canvas size; every composited frame has it.
    public var width: Int, height: Int
    /// Every frame (a still image is one frame covering the canvas).
    public var frames: [WebPFrameInfo]
    /// The ANIM loop count as stored (total plays): 0 forever, nil for a still image.
    /// ``loopCount`` gives it in the shared (GIF) terms.
    public var animLoopCount: Int?
    /// The ANIM background colour as stored (unused when compositing, as in libwebp).
    public var backgroundColor: UInt32?
    /// ICC profile, EXIF, XMP.
    public var metadata: ImageMetadata

    /// Parses the structure. Throws for a file that is not WebP, breaks a limit, or is cut short.
    public init(bytes: [UInt8], limits: DecodingLimits = .default, options: WebPDecodingOptions = .init()) throws(WebPError) {
        self.bytes = bytes
        self.limits = limits.knowingInputSize(bytes.count)
        self.options = options
        var decoder = WebPDecoder(limits: self.limits, options: options)
        decoder.decodePixels = false
        _ = try decoder.append(bytes)
        guard decoder.isAtEnd, let header = decoder.header else {
            throw .incomplete(offset: bytes.count, partial: nil)
        }
        width = header.width
        height = header.height
        frames = decoder.isAnimated ? decoder.frames
            : [WebPFrameInfo(index: 0, x: 0, y: 0, width: header.width, height: header.height, durationMilliseconds: 0,
                             disposeToBackground: false, blend: true, isLossless: false, hasAlpha: header.pixelFormat.hasAlpha)]
        animLoopCount = decoder.loopCount
        backgroundColor = decoder.backgroundColor
        metadata = decoder.metadata
    }

    /// The canvas after frame `index` has been drawn (earlier frames decoded on the way).
    public func frame(at index: Int) throws(WebPError) -> Image {
        guard index >= 0 && index < frames.count else { throw .frameIndexOutOfRange(index: index, count: frames.count) }
        var iterator = makeIterator()
        return try iterator.decode(upTo: index)
    }

    /// The composited frames in order, one canvas in memory whatever the frame count.
    public func makeIterator() -> Iterator { Iterator(self) }

    /// Composited frames one at a time. `next()` stops at the first error, which ``error``
    /// keeps; ``nextFrame()`` throws it instead.
    public struct Iterator: IteratorProtocol, Sendable {
        private var decoder: WebPDecoder
        private let bytes: [UInt8]
        private var fed = false
        private var index = 0
        private let count: Int
        /// The error that ended ``next()`` early, if one did.
        public private(set) var error: WebPError?

        fileprivate init(_ animation: WebPAnimation) {
            decoder = WebPDecoder(limits: animation.limits, options: animation.options)
            bytes = animation.bytes
            count = animation.frames.count
        }

        /// The next composited canvas, or nil after the last frame or at the first error.
        public mutating func next() -> Image? {
            do { return try nextFrame() } catch { self.error = error; return nil }
        }

        /// The next composited frame (RGBA8, canvas size), nil after the last.
        public mutating func nextFrame() throws(WebPError) -> Image? {
            if let error { throw error }
            guard index < count else { return nil }
            let image = try decode(upTo: index)
            index += 1
            return image
        }

        fileprivate mutating func decode(upTo target: Int) throws(WebPError) -> Image {
            decoder.pauseAfterFrame = target
            if !fed {
                fed = true
                _ = try decoder.append(bytes)
            } else {
                _ = try decoder.run()
            }
            if !decoder.isAnimated {
                if decoder.isAtEnd {
                    // All bytes are in: VP8 data running past its chunk ends here (see endInput).
                    _ = try decoder.endInput()
                    if let image = decoder.preview() { return image.converted(to: .rgba8) }
                }
            } else if decoder.completedFrameCount > target, let canvas = decoder.preview() {
                return canvas
            }
            throw .incomplete(offset: bytes.count, partial: decoder.preview())
        }
    }
}

extension WebPAnimation: ImageAnimation {
    /// The canvas width.
    public var canvasWidth: Int { width }
    /// The canvas height.
    public var canvasHeight: Int { height }
    /// ``frames`` in the shared terms.
    public var frameInfo: [AnimationFrameInfo] { frames.map(\.animationFrameInfo) }
    /// Total plays: nil (forever) for loop count 0, else the count; 1 for a still image.
    public var playCount: Int? { animLoopCount.map { $0 == 0 ? nil : $0 } ?? 1 }
    /// Loops after the first play, as `ImageAnimation` counts them (GIF's terms): 0 forever,
    /// N plays are N - 1 loops, one play (or a still image) is nil.
    public var loopCount: Int? {
        guard let plays = animLoopCount, plays != 1 else { return nil }
        return plays == 0 ? 0 : plays - 1
    }
    /// The composited frames through ``Iterator``.
    public func makeFrameIterator() -> any AnimationFrameIterator { makeIterator() }
}

extension WebPAnimation.Iterator: AnimationFrameIterator {}
