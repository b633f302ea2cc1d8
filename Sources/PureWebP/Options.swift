import ImageCore

/// How a WebP file is decoded. The defaults decode what `dwebp` and libwebp's animation
/// decoder decode, the way they decode it.
///
/// ```swift
/// var options = WebPDecodingOptions()
/// options.fancyUpsampling = false          // dwebp -nofancy
/// var decoder = WebPDecoder(options: options)
/// ```
public struct WebPDecodingOptions: Sendable, Equatable {
    /// Lossy chroma upsampling: libwebp's "fancy" (bilinear, the default) or point sampling
    /// (`dwebp -nofancy`).
    public var fancyUpsampling: Bool
    /// Leniencies libwebp's still decoder allows become errors: a metadata chunk whose VP8X
    /// flag is missing, a second image chunk, an ALPH chunk beside a lossless image, bytes
    /// after the last chunk inside the RIFF size, image data that runs past its chunk, a
    /// bitstream without the RIFF header or without a chunk header. Off: each is a `.warning`
    /// (and an animation frame's codec also gets its chunk's padding byte, as the demuxer's).
    public var strict: Bool
    /// Lossy images use a second thread (libwebp's `use_threads`): it parses the headers and
    /// coefficients of the macroblock rows ahead while the calling thread reconstructs,
    /// loop-filters and hands out each parsed row (parsing headers ahead while it waits); when it is ahead, it also converts finished
    /// rows of a still to RGB. The output is the same; lossless images
    /// always decode on one thread. (`ImageSource` sets it when its `threads` allows more
    /// than one, from half a megapixel when `threads` is nil: a 64x64 frame took three times as
    /// long with the thread's start, a 256x256 one up to 1.7 times.)
    public var useThreads: Bool
    /// `useThreads` applies to frames of at least this many pixels (0: every frame).
    package var minimumThreadedPixels = 0
    /// With `useThreads`, the worker writes out every band of rows it may (tests and the fuzz
    /// target: the worker's writes on every input; by default it writes only while its ring of
    /// parsed rows is full).
    package var workerWritesAllBands = false

    /// Options with libwebp's defaults.
    public init(fancyUpsampling: Bool = true, strict: Bool = false, useThreads: Bool = false) {
        self.fancyUpsampling = fancyUpsampling
        self.strict = strict
        self.useThreads = useThreads
    }
}

/// One frame of an animated WebP as its ANMF chunk and bitstream declare it.
public struct WebPFrameInfo: Sendable, Equatable, Hashable {
    /// 0-based position in the animation.
    public var index: Int
    /// The frame's rectangle on the canvas (offsets are stored halved, so they are even).
    public var x: Int, y: Int, width: Int, height: Int
    /// Display time in milliseconds (24 bits).
    public var durationMilliseconds: Int
    /// The frame's rectangle is cleared to transparent before the next frame.
    public var disposeToBackground: Bool
    /// The frame is blended over the canvas (false: it replaces the canvas in its rectangle).
    public var blend: Bool
    /// The frame is a VP8L bitstream.
    public var isLossless: Bool
    /// The frame has alpha (an ALPH chunk, or the VP8L alpha hint).
    public var hasAlpha: Bool

    /// The frame in the terms every animation shares.
    public var animationFrameInfo: AnimationFrameInfo {
        AnimationFrameInfo(index: index, x: x, y: y, width: width, height: height,
                           delayMilliseconds: durationMilliseconds,
                           disposal: disposeToBackground ? .background : .none, blend: blend ? .over : .source)
    }
}
