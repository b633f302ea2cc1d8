import ImageCore

/// An incremental APNG decoder: frames are decoded as their bytes arrive and composited onto
/// the canvas as browsers show them (APNG specification 1.0).
///
/// Events: `.header` (the canvas: the image's size, `.rgba8` or `.rgba16`, the declared frame
/// count) as the first frame starts, then per frame `.frameStarted(i)`, `.rows` of that frame as they are decoded,
/// `.frameComplete(i)` once it is drawn; `.end` at IEND. ``preview()`` is the canvas so far,
/// with the frame that is arriving drawn as far as it has come. A still PNG is an animation of
/// one frame, its image. Memory: the canvas, the rectangle a PREVIOUS frame saves, and the frame
/// being decoded, whatever the number of frames.
///
/// An animation whose chunks break the specification falls back to the static image with a
/// `.warning`, as browsers do (``PNGDecodingOptions/strict`` throws instead).
///
/// ```swift
/// var decoder = APNGDecoder()
/// for piece in download {
///     for event in try decoder.append(piece) {
///         if case .frameComplete(let i) = event, let canvas = decoder.preview() { show(canvas, frame: i) }
///     }
/// }
/// let still = try decoder.finish()      // the static image, as the canvas's RGBA
/// ```
public struct APNGDecoder: IncrementalImageDecoder {
    /// Every method throws ``PNGError``.
    public typealias Failure = PNGError

    private var png: PNGDecoder
    private var announced = false

    /// A decoder waiting for the signature; `limits.maxFrames` bounds acTL's frame count.
    public init(limits: DecodingLimits = .default, options: PNGDecodingOptions = .init()) {
        png = PNGDecoder(limits: limits, options: options)
        png.animation.decodesFrames = true
    }

    /// When true, ``append(_:)`` and ``resume()`` return right after each `.frameComplete`,
    /// keeping the rest of the input buffered, so ``preview()`` shows every frame's canvas; call
    /// ``resume()`` to go on (it returns no events once the buffered input is used up).
    public var pausesAfterEachFrame: Bool {
        get { png.animation.pausesAfterEachFrame }
        set { png.animation.pausesAfterEachFrame = newValue }
    }

    /// Paused after a frame (see ``pausesAfterEachFrame``).
    public var isPaused: Bool { png.animation.paused }

    /// The canvas: the image's size, `.rgba8` (or `.rgba16` for 16-bit images), and the frame
    /// count acTL declares (1 for a still PNG); reported when the first frame starts.
    public var header: ImageHeader? {
        guard let info = png.info else { return nil }
        return ImageHeader(fileFormat: .png, width: info.width, height: info.height,
                           pixelFormat: info.bitDepth == 16 ? .rgba16 : .rgba8, isInterlaced: info.interlaced,
                           frameCount: png.animation.control?.frameCount ?? 1)
    }

    /// The ancillary chunks read so far.
    public var metadata: ImageMetadata { png.metadata }
    /// The acTL, while the animation is valid.
    public var animationControl: APNGAnimationControl? { png.animationControl }
    /// The fcTL chunks read so far, while the animation is valid.
    public var frameControls: [APNGFrameControl] { png.frameControls }
    /// Frames composited so far.
    public var completedFrameCount: Int { png.animation.completed }

    /// Feeds the next bytes; returns what became available (see the type's discussion).
    public mutating func append(_ bytes: UnsafeRawBufferPointer) throws(PNGError) -> [DecodingEvent] {
        png.resume()
        return translate(try png.append(bytes))
    }

    /// Goes on after a pause (see ``pausesAfterEachFrame``).
    public mutating func resume() throws(PNGError) -> [DecodingEvent] {
        try append(UnsafeRawBufferPointer(start: nil, count: 0))
    }

    /// The frame events of the inner decoder, with the canvas header before the first frame's
    /// start and the static image's own header left out.
    private mutating func translate(_ inner: [DecodingEvent]) -> [DecodingEvent] {
        var events: [DecodingEvent] = []
        events.reserveCapacity(inner.count + 1)
        for event in inner {
            if case .header = event { continue }
            if case .frameStarted = event, !announced, let header {
                announced = true
                events.append(.header(header))
            }
            events.append(event)
        }
        return events
    }

    /// Ends the input: the static (IDAT) image as the canvas's RGBA, which is frame 0 whenever
    /// the file makes it part of the animation. A truncated file throws
    /// ``PNGError/truncated(offset:partial:)`` with the canvas so far.
    public mutating func finish() throws(PNGError) -> Image {
        let format: PixelFormat = png.info?.bitDepth == 16 ? .rgba16 : .rgba8
        do {
            return try png.finish().converted(to: format)
        } catch {
            if case let .truncated(offset, _) = error { throw .truncated(offset: offset, partial: preview()) }
            throw error
        }
    }

    /// The canvas with every completed frame and the arriving one drawn as far as it has come;
    /// for a still PNG, its image so far. Nil before any pixel data.
    public func preview() -> Image? {
        let format: PixelFormat = png.info?.bitDepth == 16 ? .rgba16 : .rgba8
        if png.isAnimated, let canvas = png.animationPreview() { return canvas }
        return png.preview()?.converted(to: format)
    }
}
