/// What happens to a frame's rectangle before the next frame is drawn, in the terms both GIF
/// and APNG use.
public enum FrameDisposal: String, Sendable, Equatable, Hashable {
    /// The frame stays on the canvas (GIF "unspecified" and "do not dispose", APNG
    /// `APNG_DISPOSE_OP_NONE`).
    case none
    /// The frame's rectangle is cleared to transparent black before the next frame.
    case background
    /// The canvas goes back to what it was before the frame was drawn.
    case previous
}

/// How a frame's pixels are drawn onto the canvas.
public enum FrameBlend: String, Sendable, Equatable, Hashable {
    /// The frame's pixels replace the canvas's in its rectangle, alpha included.
    case source
    /// The frame is composited over the canvas with its alpha (GIF: transparent pixels leave
    /// the canvas alone).
    case over
}

/// One frame of an animation as its file declares it.
public struct AnimationFrameInfo: Sendable, Equatable, Hashable {
    /// 0-based position in the animation.
    public var index: Int
    /// The frame's rectangle on the canvas as declared (a GIF frame may reach past the canvas;
    /// only the part inside is drawn).
    public var x: Int, y: Int, width: Int, height: Int
    /// The delay the file asks for, in milliseconds (rounded to the nearest).
    public var delayMilliseconds: Int
    /// The delay browsers play: delays of 10 ms or less play as 100 ms.
    public var displayDelayMilliseconds: Int
    /// What happens to the frame's rectangle before the next frame.
    public var disposal: FrameDisposal
    /// How the frame is drawn onto the canvas.
    public var blend: FrameBlend

    /// A frame as a decoder reports it; ``displayDelayMilliseconds`` is derived from
    /// `delayMilliseconds` by ``displayDelay(milliseconds:)``.
    public init(index: Int, x: Int, y: Int, width: Int, height: Int, delayMilliseconds: Int,
                disposal: FrameDisposal, blend: FrameBlend) {
        self.index = index
        self.x = x; self.y = y; self.width = width; self.height = height
        self.delayMilliseconds = delayMilliseconds
        self.displayDelayMilliseconds = Self.displayDelay(milliseconds: delayMilliseconds)
        self.disposal = disposal
        self.blend = blend
    }

    /// The delay browsers play for a declared delay: 10 ms or less becomes 100 ms (the rule
    /// Chrome, Firefox and Safari share for GIF and APNG).
    public static func displayDelay(milliseconds: Int) -> Int {
        milliseconds <= 10 ? 100 : milliseconds
    }
}

/// An animated image: a canvas and frames composited onto it one after another, decoded on
/// request. GIF's `GIFAnimation` provides it; `ImageSource.animation(_:)` hands one out for any
/// animated file.
///
/// Frames are composited as browsers show them. Asking for frame N composites the frames before
/// it (no frame is kept decoded), and ``makeFrameIterator()`` (or ``forEachFrame(_:)``) walks
/// them all in constant memory.
///
/// ```swift
/// if let animation = try ImageSource.animation(bytes) {
///     print(animation.canvasWidth, animation.canvasHeight, animation.frameInfo.count)
///     try animation.forEachFrame { index, canvas in
///         show(canvas, for: animation.frameInfo[index].displayDelayMilliseconds)
///     }
/// }
/// ```
public protocol ImageAnimation: Sendable {
    /// The canvas width in pixels.
    var canvasWidth: Int { get }
    /// The canvas height in pixels.
    var canvasHeight: Int { get }
    /// Every frame the file declares, in order.
    var frameInfo: [AnimationFrameInfo] { get }
    /// How many times the file asks for the animation to loop after the first play: nil when
    /// it says nothing (plays once), 0 for forever. GIF's NETSCAPE2.0 count is passed through.
    var loopCount: Int? { get }
    /// How many times browsers play it in all: nil for forever.
    var playCount: Int? { get }
    /// The file's metadata (comments, ICC profile, ...).
    var metadata: ImageMetadata { get }
    /// The full canvas after frames 0...index have been drawn, as RGBA.
    func frame(at index: Int) throws -> Image
    /// The composited frames in order, decoded one at a time as they are asked for.
    func makeFrameIterator() -> any AnimationFrameIterator
}

/// Composited frames of an ``ImageAnimation``, one at a time: a pull iterator whose decoding
/// can fail.
public protocol AnimationFrameIterator {
    /// The next composited frame (the full canvas), nil after the last; throws the codec's error.
    mutating func nextFrame() throws -> Image?
}

extension ImageAnimation {
    /// Every composited frame in order, one canvas alive at a time. Stops at the first error
    /// (the codec's, or `body`'s) and throws it.
    public func forEachFrame(_ body: (Int, Image) throws -> Void) throws {
        var iterator = makeFrameIterator()
        var index = 0
        while let frame = try iterator.nextFrame() {
            try body(index, frame)
            index += 1
        }
    }
}
