import ImageCore

/// An APNG's structure, with frames composited on request (APNG specification 1.0), as browsers
/// show them; the counterpart of `GIFAnimation`, and an `ImageAnimation`.
///
/// Making one reads the whole file once (its static image included, so a damaged file is
/// refused here); frames are decoded only when asked for: ``frame(at:)`` composites frames
/// 0...index, ``forEachFrame(_:)`` walks them all with one canvas alive at a time. A still PNG,
/// or an APNG whose animation chunks are broken (``fallback`` says why), is an animation of one
/// frame: its static image.
///
/// ```swift
/// let animation = try APNGAnimation(bytes: bytes)
/// print(animation.canvasWidth, animation.frameInfo.count, animation.playCount ?? 0)
/// try animation.forEachFrame { index, canvas in
///     show(canvas, for: animation.frameInfo[index].displayDelayMilliseconds)
/// }
/// ```
public struct APNGAnimation: Sendable {
    /// The file.
    public let bytes: [UInt8]
    /// The limits every frame decode checks.
    public let limits: DecodingLimits
    /// CRC checking and strictness.
    public let options: PNGDecodingOptions
    /// The canvas width (IHDR).
    public let width: Int
    /// The canvas height (IHDR).
    public let height: Int
    /// The acTL of a valid animation; nil for a still PNG or a broken animation.
    public let control: APNGAnimationControl?
    /// The frames of a valid animation (empty otherwise).
    public let frames: [APNGFrameControl]
    /// The file's metadata.
    public let metadata: ImageMetadata
    /// Why a file with animation chunks is shown as its still image (the rule it breaks); nil
    /// when the animation is valid or there is none.
    public let fallback: PNGError?
    /// The canvas's pixel format: `.rgba8`, or `.rgba16` for 16-bit images.
    public let format: PixelFormat
    /// IHDR, PLTE and tRNS: each frame is a PNG image of its size with these.
    let info: PNGInfo
    /// Where each frame's zlib stream lies in `bytes`.
    let dataRanges: [[Range<Int>]]

    /// Reads the file's structure and checks its static image. Throws what `PNGDecoder` throws
    /// (and, with ``PNGDecodingOptions/strict``, the broken animation rule).
    public init(bytes: [UInt8], limits: DecodingLimits = .default, options: PNGDecodingOptions = .init()) throws(PNGError) {
        self.bytes = bytes
        self.limits = limits.knowingInputSize(bytes.count)
        self.options = options
        var decoder = PNGDecoder(limits: self.limits, options: options)
        decoder.animation.recordsData = true
        _ = try decoder.append(bytes)
        _ = try decoder.finish()
        guard let info = decoder.info else { throw .missingHeader(offset: 8) }
        self.info = info
        dataRanges = decoder.animation.dataRanges
        width = info.width
        height = info.height
        format = info.bitDepth == 16 ? .rgba16 : .rgba8
        control = decoder.animationControl
        frames = decoder.frameControls
        metadata = decoder.metadata
        fallback = decoder.animation.broken
    }

    /// Whether the file is a valid animation (acTL and its frames).
    public var isAnimated: Bool { control != nil }

    /// The canvas after frame `index` has been drawn (earlier frames decoded on the way).
    public func frame(at index: Int) throws(PNGError) -> Image {
        let count = frameCount
        guard index >= 0 && index < count else {
            throw .invalidParameter("frame \(index) of an animation of \(count) frames")
        }
        // Frames past `index` are not decoded ahead.
        var iterator = Iterator(self, lastFrame: index)
        var result: Image?
        for _ in 0 ... index { result = try iterator.nextFrame() }
        guard let result else { throw .apngFrameData(frame: index, reason: "not decoded", offset: bytes.count) }
        return result
    }

    private var frameCount: Int { isAnimated ? frames.count : 1 }

    /// Composited frames one at a time, in order.
    public func makeIterator() -> Iterator { Iterator(self) }

    /// Composited frames one at a time, in order: memory is one canvas (and the rectangle a
    /// PREVIOUS frame saves) whatever the number of frames.
    ///
    /// With more than one thread (`PNGDecodingOptions.threads`), frames are decoded (inflated,
    /// unfiltered, expanded to RGBA) ahead on other threads, a few at a time, while this one
    /// composites them in order; with one, a decoder that pauses after each frame does both.
    public struct Iterator: Sendable, AnimationFrameIterator {
        private let animation: APNGAnimation
        private var decoder: PNGDecoder
        private var started = false
        private var index = 0
        /// Parallel decoding: the canvas, and the frames being decoded ahead, in order.
        private var compositor: APNGCompositor?
        private var ahead: [BackgroundWork<Image, PNGError>] = []
        private var nextToStart = 0
        private let threads: Int
        /// The last frame that will be asked for: none beyond it is decoded ahead.
        private let lastFrame: Int

        fileprivate init(_ animation: APNGAnimation, lastFrame: Int? = nil) {
            self.animation = animation
            self.lastFrame = lastFrame ?? animation.frames.count - 1
            decoder = PNGDecoder(limits: animation.limits, options: animation.options)
            decoder.animation.decodesFrames = true
            decoder.animation.pausesAfterEachFrame = true
            threads = animation.options.threads ?? Processors.online
            if threads > 1 && animation.isAnimated && animation.dataRanges.count == animation.frames.count {
                compositor = APNGCompositor(width: animation.width, height: animation.height,
                                            sixteenBit: animation.format == .rgba16)
            }
        }

        /// The next composited frame, nil after the last.
        public mutating func nextFrame() throws(PNGError) -> Image? {
            guard animation.isAnimated else {
                guard index == 0 else { return nil }
                index = 1
                return try PNGDecoder.decode(animation.bytes, limits: animation.limits, options: animation.options)
                    .converted(to: animation.format)
            }
            guard index < animation.frames.count else { return nil }
            if compositor != nil { return try nextFrameDecodedAhead() }
            if started {
                decoder.resume()
                _ = try decoder.append(UnsafeRawBufferPointer(start: nil, count: 0))
            } else {
                started = true
                _ = try decoder.append(animation.bytes)
            }
            guard decoder.animation.completed == index + 1, let compositor = decoder.animation.compositor else {
                throw .apngFrameData(frame: index, reason: "the frame could not be decoded", offset: animation.bytes.count)
            }
            index += 1
            return compositor.image(metadata: animation.metadata)
        }

        private mutating func nextFrameDecodedAhead() throws(PNGError) -> Image? {
            // Keep `threads` frames decoding beyond the one about to be drawn.
            while nextToStart <= lastFrame && nextToStart <= index + threads {
                let (animation, frame) = (animation, nextToStart)
                ahead.append(BackgroundWork { () throws(PNGError) in try APNGFrameDecoding.decode(animation, frame) })
                nextToStart += 1
            }
            let frame = try ahead.removeFirst().value()
            guard var canvas = compositor else { return nil }
            compositor = nil  // moved out while drawing, so the canvas is not copied on write
            canvas.draw(frame, control: animation.frames[index])
            compositor = canvas
            index += 1
            return canvas.image(metadata: animation.metadata)
        }
    }
}

/// Decoding one APNG frame apart from the chunk stream, from its recorded data ranges: a PNG
/// image of the frame's size, expanded to the canvas's RGBA.
enum APNGFrameDecoding {
    static func decode(_ animation: APNGAnimation, _ index: Int) throws(PNGError) -> Image {
        let control = animation.frames[index]
        var decoder = ImageDataDecoder(info: APNGState.frameInfo(animation.info, control))
        var ignored: [DecodingEvent] = []
        var failure: PNGError?
        animation.bytes.withUnsafeBytes { raw in
            for range in animation.dataRanges[index] {
                do throws(PNGError) {
                    _ = try decoder.feed(UnsafeRawBufferPointer(rebasing: raw[range]), fileOffset: range.lowerBound,
                                         events: &ignored)
                } catch {
                    failure = .apngFrameData(frame: index, reason: error.message, offset: error.offset ?? range.lowerBound)
                    return
                }
            }
        }
        if let failure { throw failure }
        guard decoder.rowsComplete else {
            throw .apngFrameData(frame: index, reason: "the data ends before the last row",
                                 offset: animation.dataRanges[index].last?.upperBound ?? animation.bytes.count)
        }
        return APNGState.canvasImage(from: decoder, control, preview: false, format: animation.format)
    }
}

extension APNGAnimation: ImageAnimation {
    /// The composited frames through ``Iterator``.
    public func makeFrameIterator() -> any AnimationFrameIterator { makeIterator() }

    /// The canvas width.
    public var canvasWidth: Int { width }
    /// The canvas height.
    public var canvasHeight: Int { height }

    /// The frames in the shared terms; a still image is one frame covering the canvas.
    public var frameInfo: [AnimationFrameInfo] {
        guard isAnimated else {
            return [AnimationFrameInfo(index: 0, x: 0, y: 0, width: width, height: height, delayMilliseconds: 0,
                                       disposal: .none, blend: .source)]
        }
        return frames.enumerated().map { $1.animationFrameInfo(index: $0) }
    }

    /// acTL's `num_plays` in GIF's terms: 0 (forever) stays 0, N plays are N - 1 loops after the
    /// first, and one play (or a still image) is nil.
    public var loopCount: Int? { control?.loopCount }

    /// How many times browsers play it: nil for forever.
    public var playCount: Int? {
        guard let plays = control?.plays else { return 1 }
        return plays == 0 ? nil : plays
    }
}
