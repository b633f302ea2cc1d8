import ImageCore

// GIF in the terms every animation shares (ImageCore's `ImageAnimation`), so callers and the
// `jpng` tool handle GIF and APNG alike.

extension GIFDisposal {
    /// The disposal in the shared terms: "unspecified", "keep" and the reserved values keep the
    /// frame, as browsers do.
    public var frameDisposal: FrameDisposal {
        switch self {
        case .restoreBackground: .background
        case .restorePrevious: .previous
        case .unspecified, .keep, .reserved: .none
        }
    }
}

extension GIFFrameInfo {
    /// The frame in the shared terms: the delay in milliseconds and blend `.over`
    /// (transparent pixels leave the canvas alone).
    public var animationFrameInfo: AnimationFrameInfo {
        AnimationFrameInfo(index: index, x: x, y: y, width: width, height: height,
                           delayMilliseconds: delayCentiseconds * 10, disposal: disposal.frameDisposal, blend: .over)
    }
}

extension GIFAnimation: ImageAnimation {
    /// The logical screen width.
    public var canvasWidth: Int { width }
    /// The logical screen height.
    public var canvasHeight: Int { height }
    /// ``frames`` in the shared terms.
    public var frameInfo: [AnimationFrameInfo] { frames.map(\.animationFrameInfo) }

    /// The composited frames through ``Iterator``.
    public func makeFrameIterator() -> any AnimationFrameIterator { makeIterator() }
}

extension GIFAnimation.Iterator: AnimationFrameIterator {}
