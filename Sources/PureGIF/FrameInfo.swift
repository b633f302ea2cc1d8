import ImageCore

/// What happens to a frame's rectangle before the next frame is drawn (GIF89a section 23,
/// graphic control extension, "Disposal Method").
public enum GIFDisposal: Sendable, Equatable, Hashable {
    /// 0: no disposal specified; browsers keep the frame, as for ``keep``.
    case unspecified
    /// 1: leave the frame in place.
    case keep
    /// 2: clear the frame's rectangle to transparent (browsers ignore the background colour).
    case restoreBackground
    /// 3 (and 4, which some encoders write and browsers read as 3): put back the canvas as it
    /// was before the frame.
    case restorePrevious
    /// 5-7: reserved; treated as ``keep``.
    case reserved(UInt8)

    /// The disposal for the 3-bit field of the graphic control extension.
    public init(rawValue: UInt8) {
        switch rawValue {
        case 0: self = .unspecified
        case 1: self = .keep
        case 2: self = .restoreBackground
        case 3, 4: self = .restorePrevious
        default: self = .reserved(rawValue)
        }
    }
}

/// One frame as the file declares it, known as soon as its image descriptor is read.
///
/// ```swift
/// let animation = try GIFAnimation(bytes: data)
/// for info in animation.frames { print(info.index, info.displayDelayMilliseconds, info.disposal) }
/// ```
public struct GIFFrameInfo: Sendable, Equatable {
    /// 0-based position in the file.
    public var index: Int
    /// The rectangle as declared, before clipping to the canvas.
    public var x: Int, y: Int, width: Int, height: Int
    /// The graphic control extension's delay in hundredths of a second (0 without one).
    public var delayCentiseconds: Int
    /// The delay a browser plays: delays of 10 ms or less (0 or 1 centisecond) play as 100 ms.
    public var displayDelayMilliseconds: Int
    /// What happens to the frame's rectangle before the next frame is drawn.
    public var disposal: GIFDisposal
    /// The colour index drawn as "leave the canvas alone", if the frame has one.
    public var transparentIndex: UInt8?
    /// True when the frame's rows are stored in the four interlace passes (GIF89a appendix E).
    public var interlaced: Bool
    /// True when the frame carries its own colour table instead of using the global one.
    public var hasLocalColorTable: Bool
    /// The graphic control extension's user input flag (browsers ignore it).
    public var userInputFlag: Bool

    /// Frame information as a decoder builds it; ``displayDelayMilliseconds`` is derived from
    /// `delayCentiseconds` by ``displayDelay(centiseconds:)``.
    public init(index: Int, x: Int, y: Int, width: Int, height: Int, delayCentiseconds: Int = 0,
                disposal: GIFDisposal = .unspecified, transparentIndex: UInt8? = nil,
                interlaced: Bool = false, hasLocalColorTable: Bool = false, userInputFlag: Bool = false) {
        self.index = index
        self.x = x; self.y = y; self.width = width; self.height = height
        self.delayCentiseconds = delayCentiseconds
        self.displayDelayMilliseconds = GIFFrameInfo.displayDelay(centiseconds: delayCentiseconds)
        self.disposal = disposal
        self.transparentIndex = transparentIndex
        self.interlaced = interlaced
        self.hasLocalColorTable = hasLocalColorTable
        self.userInputFlag = userInputFlag
    }

    /// The browsers' rule (Chromium, Firefox, Safari): a delay of 10 ms or less plays as 100 ms.
    public static func displayDelay(centiseconds: Int) -> Int {
        AnimationFrameInfo.displayDelay(milliseconds: centiseconds * 10)
    }
}

/// How often an animation plays, from its loop extension's count.
public enum GIFLoop {
    /// Total plays for a NETSCAPE2.0 / ANIMEXTS1.0 loop count: absent plays once, 0 forever
    /// (`nil`), N plays N + 1 times (the count is of repeats, as browsers read it).
    public static func playCount(loopCount: Int?) -> Int? {
        guard let loopCount else { return 1 }
        return loopCount == 0 ? nil : loopCount + 1
    }
}
