import ImageCore

/// One frame of an animation to encode: the full canvas as it should look (any `PixelFormat`;
/// converted), and how long it shows (APNG fcTL `delay_num / delay_den` seconds).
///
/// ```swift
/// let frame = APNGFrame(image: canvas, delayMilliseconds: 40)   // stored as 1/25 s
/// ```
public struct APNGFrame: Sendable {
    /// The whole canvas for this frame; every frame of an animation has the first one's size.
    public var image: Image
    /// The delay's numerator, in seconds over ``delayDenominator``.
    public var delayNumerator: UInt16
    /// The delay's denominator; 0 means 100 (APNG spec, fcTL).
    public var delayDenominator: UInt16

    /// A frame shown for `delayNumerator / delayDenominator` seconds.
    public init(image: Image, delayNumerator: UInt16, delayDenominator: UInt16) {
        self.image = image
        self.delayNumerator = delayNumerator
        self.delayDenominator = delayDenominator
    }

    /// A frame shown for `delayMilliseconds` (>= 0): stored as `ms / 1000` reduced, so 40 ms is
    /// 1/25 s. Exact up to 65,535 ms (and for whole hundredths of a second up to 655 s); a
    /// longer delay whose fraction does not fit 16 bits is rounded to the nearest it can hold.
    public init(image: Image, delayMilliseconds: Int) {
        precondition(delayMilliseconds >= 0, "negative frame delay")
        let (n, d) = APNGFrame.fraction(milliseconds: delayMilliseconds)
        self.init(image: image, delayNumerator: n, delayDenominator: d)
    }

    static func fraction(milliseconds ms: Int) -> (UInt16, UInt16) {
        var a = ms, b = 1000
        while b != 0 { (a, b) = (b, a % b) }
        let num = ms / a, den = 1000 / a
        if num <= 65535 { return (UInt16(num), UInt16(den)) }
        // No exact fraction in 16 bits: the largest denominator (below `den`) keeping the
        // numerator in range, and the numerator rounded.
        let d = max(1, min(den, 65535 * 1000 / ms))
        let n = min(65535, (ms * d + 500) / 1000)
        return (UInt16(n), UInt16(d))
    }
}

/// Choices for ``APNGEncoder``.
///
/// ```swift
/// var options = APNGEncodingOptions(plays: 1)
/// options.png.compressionLevel = 9
/// options.allowPalette = false      // always RGB(A)/gray, never indexed
/// ```
public struct APNGEncodingOptions: Sendable, Equatable {
    /// Compression level and filter strategy, as for a still PNG; ``PNGEncodingOptions/colorType``
    /// and ``PNGEncodingOptions/bitDepth`` when set force the output layout (lossless or
    /// ``PNGError/unrepresentable(_:)``). Interlacing is not used for APNG: setting it throws
    /// ``PNGError/invalidParameter(_:)``. With ``PNGEncodingOptions/writeMetadata`` the first
    /// frame's `ImageMetadata` is written.
    public var png: PNGEncodingOptions
    /// acTL `num_plays`: how many times the animation plays; 0 (the default) is forever.
    public var plays: Int
    /// Store each frame after the first as the smallest rectangle that changed, choosing each
    /// frame's dispose and blend ops; off, every frame is the full canvas (dispose NONE, blend
    /// SOURCE).
    public var optimizeFrames: Bool
    /// Write a palette (with tRNS for its non-opaque entries) when all frames together use at
    /// most 256 distinct RGBA8 colours.
    public var allowPalette: Bool
    /// Frames compressed at once on other threads: nil (the default) uses the processors
    /// online, 1 compresses on the calling thread. The output is the same byte for byte;
    /// each thread holds one more frame and canvas.
    public var threads: Int?

    /// Options with the defaults unless given.
    public init(png: PNGEncodingOptions = .init(), plays: Int = 0, optimizeFrames: Bool = true,
                allowPalette: Bool = true, threads: Int? = nil) {
        self.png = png
        self.plays = plays
        self.optimizeFrames = optimizeFrames
        self.allowPalette = allowPalette
        self.threads = threads
    }
}

/// Encodes an animation as an APNG file: a PNG whose default image (IDAT) is the first frame,
/// followed by the other frames in fdAT chunks.
///
/// The output is lossless: a decoder compositing per the APNG spec shows exactly the given
/// frames (all four channels, the colour of transparent pixels included).
///
/// Colour type: a palette (``APNGEncodingOptions/allowPalette``) when all frames together use
/// at most 256 RGBA8 colours (bit depth 1, 2, 4 or 8, the smallest that holds them; entries with
/// alpha below 255 first, so tRNS is short); otherwise gray, gray + alpha, RGB or RGBA, the
/// smallest that holds every frame exactly, at 16 bits when any frame is 16-bit and 8 otherwise.
/// Gray and RGB output carry a tRNS colour key (a colour no frame uses) so that blend OVER can
/// leave pixels of the canvas alone.
///
/// Frame 0 is the default image (IDAT), full canvas, as ffmpeg and apngasm write it. Each later
/// frame is the smallest rectangle that differs from the canvas a decoder will have, drawn with
/// blend SOURCE or OVER (whichever compresses smaller, OVER only where it is exact) and followed
/// by the dispose op (NONE, BACKGROUND or PREVIOUS) that leaves the next frame the least to
/// store.
///
/// ```swift
/// let frames = sprites.map { APNGFrame(image: $0, delayMilliseconds: 50) }
/// let apng: [UInt8] = try APNGEncoder.encode(frames)
///
/// // Or straight to a file, one frame's data in memory at a time:
/// try APNGEncoder.encode(frames, options: .init(plays: 1)) { bytes in
///     try handle.write(contentsOf: bytes)
/// }
/// ```
public enum APNGEncoder {
    /// Encodes `frames` as a complete APNG file.
    ///
    /// `frames` is iterated twice and must give the same frames both times: acTL, which comes
    /// before the first frame's data, holds the frame count, and the colour type depends on
    /// every frame. The first pass reads pixels only as long as something is undecided (at most
    /// 256 colours for a palette, opacity, gray), stopping at the 257th colour.
    ///
    /// - Throws: ``PNGError/invalidParameter(_:)`` for no frames, frames of differing sizes,
    ///   interlacing, `plays` outside 0...2^32-1, or a sequence that changes between passes;
    ///   ``PNGError/unrepresentable(_:)`` when a requested colour type or depth cannot hold the
    ///   frames; ``PNGError/compressionFailed(status:)`` if zlib fails.
    public static func encode<Frames: Sequence>(_ frames: Frames, options: APNGEncodingOptions = .init())
        throws(PNGError) -> [UInt8] where Frames.Element == APNGFrame {
        var writer = try APNGFrameWriter(surveying: frames, options: options)
        for frame in frames { try writer.add(frame) }
        try writer.finish()
        return writer.take()
    }

    /// Encodes `frames`, handing the bytes to `output` as they are made, for writing to a file.
    ///
    /// Memory: two canvases (the frame waiting to be written and the canvas a decoder will have
    /// under it), the frame just received, and one frame's compressed data (two while SOURCE
    /// and OVER are compared); frames are never all held. Each frame's bytes are handed out
    /// once the next frame has been seen: its fcTL, written first, holds a dispose op chosen
    /// by looking at the next frame.
    ///
    /// ```swift
    /// try APNGEncoder.encode(frames) { try file.write(contentsOf: $0) }
    /// ```
    ///
    /// - Throws: the ``PNGError``s of ``encode(_:options:)``, or what `output` throws.
    public static func encode<Frames: Sequence>(
        _ frames: Frames, options: APNGEncodingOptions = .init(), output: (UnsafeRawBufferPointer) throws -> Void
    ) throws where Frames.Element == APNGFrame {
        var writer = try APNGFrameWriter(surveying: frames, options: options)
        func flush() throws {
            let bytes = writer.take()
            if !bytes.isEmpty { try bytes.withUnsafeBytes { try output($0) } }
        }
        for frame in frames {
            try writer.add(frame)
            try flush()
        }
        try writer.finish()
        try flush()
    }
}

// MARK: - First pass

/// Exact RGBA8 colours (packed as ``PaletteIndex`` does), counted up to 257: open addressing in
/// 1024 slots, so at most a quarter full and no allocation per pixel.
struct ColourTable {
    private var slots = [UInt64](repeating: 0, count: 1024)
    private(set) var count = 0

    mutating func insert(_ colour: UInt32) {
        var i = Int(truncatingIfNeeded: (colour &* 0x9E37_79B1) >> 22)
        while true {
            let s = slots[i]
            if s == 0 {
                slots[i] = UInt64(colour) | 1 << 32
                count += 1
                return
            }
            if UInt32(truncatingIfNeeded: s) == colour { return }
            i = (i + 1) & 1023
        }
    }

    var colours: [UInt32] { slots.filter { $0 != 0 }.map { UInt32(truncatingIfNeeded: $0) } }
}

/// What the first pass learns: the frame count and canvas size (acTL, IHDR) and what the
/// colour type may be.
struct APNGSurvey {
    var frameCount = 0
    var width = 0, height = 0
    var anySixteenBit = false
    /// Still counting: every colour so far is exact in 8 bits and there are at most 256.
    var countsColours: Bool
    var colours = ColourTable()
    let checksOpaque: Bool, checksGray: Bool
    var opaque = true, gray = true
    /// Looks for a colour no frame uses, for a tRNS colour key: gray and RGB output have no
    /// alpha, and OVER needs a pixel that leaves the canvas alone. Only while every frame is
    /// opaque, and only the candidates below are tracked (bitmaps of used values), so the
    /// first pass keeps no set of every colour.
    let tracksKey: Bool
    /// Gray levels used by 8-bit frames.
    var usedGray8 = [UInt64](repeating: 0, count: 4)
    /// 16-bit gray levels below 256 used (8-bit frames widen to multiples of 257: only 0 is one).
    var usedGray16 = [UInt64](repeating: 0, count: 4)
    /// Colours (1, g, b) used by 8-bit frames, bit `g << 8 | b`.
    var usedRGB8 = [UInt64](repeating: 0, count: 1024)
    /// 16-bit colours (1, g, b) with g, b < 256 used (no widened 8-bit sample is 1).
    var usedRGB16 = [UInt64](repeating: 0, count: 1024)

    init(options: APNGEncodingOptions) {
        let requested = options.png.colorType
        countsColours = requested == .palette || (requested == nil && options.allowPalette)
        checksOpaque = requested == nil || requested == .gray || requested == .rgb
        checksGray = requested == nil || requested == .gray || requested == .grayAlpha
        tracksKey = options.optimizeFrames && checksOpaque && options.png.bitDepth == nil
    }

    /// The first value in `0 ..< bits.count * 64` whose bit is clear.
    static func firstUnused(_ bits: [UInt64]) -> Int? {
        for (i, word) in bits.enumerated() where word != .max { return i * 64 + (~word).trailingZeroBitCount }
        return nil
    }

    mutating func add(_ frame: APNGFrame) throws(PNGError) {
        let image = try APNGSurvey.straight(frame.image, index: frameCount)
        if frameCount == 0 {
            width = image.width
            height = image.height
        } else if image.width != width || image.height != height {
            throw .invalidParameter("frame \(frameCount) is \(image.width)x\(image.height), but the canvas (frame 0) is \(width)x\(height)")
        }
        frameCount += 1
        anySixteenBit = anySixteenBit || image.format.is16Bit
        scan(image)
    }

    /// The image with straight alpha, its buffer checked.
    static func straight(_ image: Image, index: Int) throws(PNGError) -> Image {
        guard image.pixels.count == image.height * image.bytesPerRow else {
            throw .invalidParameter("frame \(index): pixel buffer of \(image.pixels.count) bytes does not match \(image.width)x\(image.height) \(image.format)")
        }
        // PNG stores straight alpha (PNG 12.4).
        return image.isPremultiplied ? image.unpremultiplied() : image
    }

    private mutating func scan(_ image: Image) {
        let format = image.format
        guard countsColours || (checksOpaque && opaque && format.hasAlpha) || (checksGray && gray && format.isColor)
            || (tracksKey && opaque) else { return }
        let sixteen = format.is16Bit, isColor = format.isColor, hasAlpha = format.hasAlpha
        let channels = format.channels, bpp = format.bytesPerPixel
        let maxValue: UInt32 = sixteen ? 65535 : 255
        let width = image.width, height = image.height
        image.pixels.withUnsafeBytes { raw in
            guard let base = raw.baseAddress else { return }
            var last: UInt32 = 0, haveLast = false
            for y in 0 ..< height {
                // Nothing left to learn from the remaining pixels.
                guard countsColours || (checksOpaque && opaque && hasAlpha) || (checksGray && gray && isColor)
                    || (tracksKey && opaque) else { return }
                let row = base + y * width * bpp
                for x in 0 ..< width {
                    let px = row + x * bpp
                    @inline(__always) func s(_ ch: Int) -> UInt32 {
                        sixteen ? UInt32(px.loadUnaligned(fromByteOffset: 2 * ch, as: UInt16.self))
                                : UInt32(px.load(fromByteOffset: ch, as: UInt8.self))
                    }
                    let r = s(0)
                    let g = isColor ? s(1) : r, b = isColor ? s(2) : r
                    let a = hasAlpha ? s(channels - 1) : maxValue
                    if a != maxValue { opaque = false }
                    if r != g || g != b { gray = false }
                    if tracksKey && opaque {
                        @inline(__always) func mark(_ bits: inout [UInt64], _ i: UInt32) { bits[Int(i >> 6)] |= 1 << (i & 63) }
                        if sixteen {
                            if r == g && g == b && r < 256 { mark(&usedGray16, r) }
                            if r == 1 && g < 256 && b < 256 { mark(&usedRGB16, g << 8 | b) }
                        } else {
                            if r == g && g == b {
                                mark(&usedGray8, r)
                                if r == 0 { mark(&usedGray16, 0) }
                            }
                            if r == 1 { mark(&usedRGB8, g << 8 | b) }
                        }
                    }
                    guard countsColours else { continue }
                    if sixteen && (r % 257 != 0 || g % 257 != 0 || b % 257 != 0 || a % 257 != 0) {
                        countsColours = false
                        continue
                    }
                    let colour = PaletteIndex.rgba8((r, g, b, a), sixteenBit: sixteen)
                    if haveLast && colour == last { continue }
                    last = colour
                    haveLast = true
                    colours.insert(colour)
                    if colours.count > 256 { countsColours = false }
                }
            }
        }
    }
}

// MARK: - Second pass

/// Writes the file frame by frame, one frame behind the input: frame k's fcTL holds its dispose
/// op, which is chosen by looking at frame k + 1.
///
/// State between frames (APNG spec, "fcTL"): `canvas` is what a decoder's canvas holds before
/// the pending frame is drawn, i.e. after the previous frame's dispose op; the pending frame's
/// pixels are what the canvas holds after it is drawn (the output is lossless).
struct APNGFrameWriter {
    struct Pending: Sendable {
        var pixels: [UInt8]
        var rect: FrameRect
        var delay: (UInt16, UInt16)
        var index: Int
    }

    let plan: EncodingPlan
    let packer: ScanlinePacker
    let options: APNGEncodingOptions
    /// The canvas layout: RGBA8, or RGBA16 when the output is 16-bit.
    let working: PixelFormat
    let width: Int, height: Int
    private let frameCount: Int
    private let anySixteenBit: Bool
    /// The bytes of a pixel that blend OVER leaves the canvas under (alpha 0 once decoded), in
    /// `working` layout; nil when the output cannot hold one.
    let keep: [UInt8]?
    /// tRNS for gray or RGB output: the colour key that `keep` is.
    private let colourKey: [UInt8]?
    private var out = ChunkWriter()
    private var sequence = 0
    private var received = 0
    var canvas: [UInt8] = []
    private var pending: Pending?
    /// Frames being compressed on other threads, in file order, with the dispose op each gets.
    private var inFlight: [(frame: Pending, dispose: FrameDisposal, job: BackgroundWork<(FrameBlend, [UInt8]), PNGError>)] = []

    init<Frames: Sequence>(surveying frames: Frames, options: APNGEncodingOptions) throws(PNGError)
        where Frames.Element == APNGFrame {
        if options.png.interlaced {
            throw .invalidParameter("APNG frames are not interlaced; turn off png.interlaced")
        }
        guard (0 ... Int(UInt32.max)).contains(options.plays) else {
            throw .invalidParameter("plays \(options.plays) is outside 0...\(UInt32.max)")
        }
        var survey = APNGSurvey(options: options)
        for frame in frames { try survey.add(frame) }
        guard survey.frameCount > 0 else { throw .invalidParameter("an animation needs at least one frame") }
        guard survey.frameCount <= Int(UInt32.max) else {
            throw .unrepresentable("\(survey.frameCount) frames do not fit acTL's 32-bit count")
        }
        self.options = options
        width = survey.width
        height = survey.height
        frameCount = survey.frameCount
        anySixteenBit = survey.anySixteenBit
        (plan, working, keep, colourKey) = try APNGFrameWriter.layout(survey: survey, options: options)
        packer = plan.packer
    }

    /// The output layout after the first pass, the canvas format, the OVER "keep" pixel and,
    /// for gray or RGB, the tRNS colour key that makes it transparent.
    private static func layout(survey: APNGSurvey, options: APNGEncodingOptions) throws(PNGError)
        -> (EncodingPlan, PixelFormat, [UInt8]?, [UInt8]?) {
        var png = options.png
        let optimize = options.optimizeFrames && survey.frameCount > 1
        let paletteDepths = PNGColorType.palette.allowedBitDepths
        let autoPalette = png.colorType == nil && options.allowPalette && survey.countsColours
            && survey.colours.count <= 1 << (png.bitDepth ?? 8) && paletteDepths.contains(png.bitDepth ?? 8)
        if png.colorType == .palette || autoPalette {
            let maxColors = 1 << (png.bitDepth ?? 8)
            guard survey.countsColours, survey.colours.count <= maxColors else {
                throw .unrepresentable("palette output needs at most \(maxColors) colours exact in 8 bits; the frames have more")
            }
            var colours = survey.colours.colours
            var keepColour = colours.filter { $0 & 0xFF == 0 }.min()
            // OVER needs an index that leaves the canvas alone (alpha 0); add transparent black
            // when there is room for it without a deeper palette.
            if keepColour == nil && optimize && colours.count < 1 << (png.bitDepth ?? paletteDepth(colours.count)) {
                colours.append(0)
                keepColour = 0
            }
            png.colorType = .palette
            png.bitDepth = png.bitDepth ?? paletteDepth(colours.count)
            var bytes: [UInt8] = []
            for c in colours { for shift: UInt32 in [24, 16, 8, 0] { bytes.append(UInt8(truncatingIfNeeded: c >> shift)) } }
            // EncodingPlan builds its palette from an image: one row of the colours.
            let swatch = Image(width: colours.count, height: 1, format: .rgba8, pixels: bytes)
            let plan = try EncodingPlan(width: survey.width, height: survey.height, format: .rgba8,
                                        options: png, image: swatch)
            let keep = keepColour.map { c in [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: c >> UInt32($0)) } }
            return (plan, .rgba8, keep, nil)
        }
        let colorType: PNGColorType
        if let requested = png.colorType {
            colorType = requested
            let hasAlpha = colorType == .grayAlpha || colorType == .rgba
            if !hasAlpha && !survey.opaque {
                throw .unrepresentable("\(colorType) output needs opaque frames; some pixels are not")
            }
            if (colorType == .gray || colorType == .grayAlpha) && !survey.gray {
                throw .unrepresentable("\(colorType) output needs R == G == B in every frame")
            }
        } else {
            colorType = switch (survey.gray, survey.opaque) {
            case (true, true): .gray
            case (true, false): .grayAlpha
            case (false, true): .rgb
            case (false, false): .rgba
            }
        }
        png.colorType = colorType
        png.bitDepth = png.bitDepth ?? (survey.anySixteenBit ? 16 : 8)
        let working: PixelFormat = png.bitDepth == 16 ? .rgba16 : .rgba8
        let plan = try EncodingPlan(width: survey.width, height: survey.height, format: working, options: png, image: nil)
        if plan.layout.hasAlpha {
            return (plan, working, optimize ? [UInt8](repeating: 0, count: working.bytesPerPixel) : nil, nil)
        }
        // No alpha: a tRNS colour key (PNG 11.3.2.1) that no frame uses, when one was found.
        guard optimize, survey.tracksKey else { return (plan, working, nil, nil) }
        let sixteen = working.is16Bit
        let key: [Int]
        if colorType == .gray {
            guard let v = APNGSurvey.firstUnused(sixteen ? survey.usedGray16 : survey.usedGray8) else {
                return (plan, working, nil, nil)
            }
            key = [v, v, v]
        } else {
            guard let gb = APNGSurvey.firstUnused(sixteen ? survey.usedRGB16 : survey.usedRGB8) else {
                return (plan, working, nil, nil)
            }
            key = [1, gb >> 8, gb & 255]
        }
        var trns: [UInt8] = []
        for v in colorType == .gray ? [key[0]] : key { trns.appendBigEndian16(UInt16(v)) }
        var keep: [UInt8] = []
        for v in key + [sixteen ? 65535 : 255] {
            if sixteen { withUnsafeBytes(of: UInt16(v)) { keep += $0 } } else { keep.append(UInt8(v)) }
        }
        return (plan, working, keep, trns)
    }

    private static func paletteDepth(_ count: Int) -> Int {
        switch count {
        case ...2: 1
        case ...4: 2
        case ...16: 4
        default: 8
        }
    }

    /// The bytes written so far, handed over.
    mutating func take() -> [UInt8] { out.take() }

    mutating func add(_ frame: APNGFrame) throws(PNGError) {
        let index = received
        guard index < frameCount else {
            throw .invalidParameter("the frames sequence gave more frames the second time than the first (\(frameCount))")
        }
        received += 1
        let image = try APNGSurvey.straight(frame.image, index: index)
        guard image.width == width, image.height == height else {
            throw .invalidParameter("frame \(index) is \(image.width)x\(image.height), but the canvas (frame 0) is \(width)x\(height)")
        }
        if image.format.is16Bit && !anySixteenBit {
            throw .invalidParameter("frame \(index) is 16-bit on the second pass but was not on the first")
        }
        if index == 0 { try writeHeader(metadata: image.metadata) }
        let pixels = image.converted(to: working).pixels
        let delay = (frame.delayNumerator, frame.delayDenominator)
        let full = FrameRect(x: 0, y: 0, width: width, height: height)
        guard var previous = pending else {
            pending = Pending(pixels: pixels, rect: full, delay: delay, index: 0)
            return
        }
        pending = nil
        var dispose = FrameDisposal.none
        var rect = full
        if options.optimizeFrames {
            (dispose, rect) = chooseDispose(of: previous, next: pixels)
        }
        try write(previous, dispose: dispose)
        switch dispose {
        case .none:
            canvas = previous.pixels
        case .background:
            canvas = previous.pixels
            previous.pixels = []  // so the canvas is the buffer's only owner
            clear(previous.rect)
        case .previous:
            break
        }
        pending = Pending(pixels: pixels, rect: rect, delay: delay, index: index)
    }

    mutating func finish() throws(PNGError) {
        guard received == frameCount, let last = pending else {
            throw .invalidParameter("the frames sequence gave \(received) frames the second time, \(frameCount) the first")
        }
        pending = nil
        try write(last, dispose: .none)
        while !inFlight.isEmpty { try writeFirstInFlight() }
        out.append(.IEND, UnsafeRawBufferPointer(start: nil, count: 0))
    }

    /// What compresses frames: the writer's layout and the canvas as it is now.
    private var compressor: FrameCompressor {
        FrameCompressor(plan: plan, packer: packer, options: options, working: working, width: width, keep: keep,
                        canvas: canvas)
    }

    // MARK: Header and chunks

    private mutating func writeHeader(metadata: ImageMetadata) throws(PNGError) {
        try plan.writeHeader(metadata: options.png.writeMetadata ? metadata : ImageMetadata(), into: &out)
        if let colourKey { try out.write(.tRNS, colourKey) }
        var actl: [UInt8] = []
        actl.appendBigEndian32(UInt32(frameCount))
        actl.appendBigEndian32(UInt32(options.plays))
        try out.write(.acTL, actl)
    }

    private mutating func nextSequenceNumber() throws(PNGError) -> UInt32 {
        // PNG's "unsigned int" fields stop at 2^31 - 1 (PNG 7.1).
        guard sequence < Int(Int32.max) else { throw .unrepresentable("more than 2^31-1 APNG chunks") }
        defer { sequence += 1 }
        return UInt32(sequence)
    }

    /// fcTL, then the frame's data: IDAT for frame 0 (the default image), fdAT after, each in
    /// blocks of ``Deflater/defaultBlockSize`` like a still PNG's IDAT.
    private mutating func write(_ frame: Pending, dispose: FrameDisposal) throws(PNGError) {
        let threads = options.threads ?? Processors.online
        guard threads > 1 else {
            let (blend, data) = try compressor.compress(frame)
            return try write(frame, dispose: dispose, blend: blend, data: data)
        }
        // Up to `threads` frames compress at once; they are written in order, so sequence
        // numbers and bytes are those of one thread.
        let compressor = compressor
        inFlight.append((frame, dispose, BackgroundWork { () throws(PNGError) in try compressor.compress(frame) }))
        while inFlight.count >= threads { try writeFirstInFlight() }
    }

    private mutating func writeFirstInFlight() throws(PNGError) {
        let (frame, dispose, job) = inFlight.removeFirst()
        let (blend, data) = try job.value()
        try write(frame, dispose: dispose, blend: blend, data: data)
    }

    private mutating func write(_ frame: Pending, dispose: FrameDisposal, blend: FrameBlend, data: [UInt8]) throws(PNGError) {
        let rect = frame.rect
        var fctl: [UInt8] = []
        fctl.appendBigEndian32(try nextSequenceNumber())
        for v in [rect.width, rect.height, rect.x, rect.y] { fctl.appendBigEndian32(UInt32(v)) }
        fctl.appendBigEndian16(frame.delay.0)
        fctl.appendBigEndian16(frame.delay.1)
        let disposeOp: UInt8 = switch dispose { case .none: 0; case .background: 1; case .previous: 2 }
        fctl.append(disposeOp)
        fctl.append(blend == .source ? 0 : 1)
        try out.write(.fcTL, fctl)
        let block = Deflater.defaultBlockSize
        var chunk: [UInt8] = []
        var start = 0
        while start < data.count {
            let end = min(data.count, start + block)
            if frame.index == 0 {
                data.withUnsafeBytes { out.append(.IDAT, UnsafeRawBufferPointer(rebasing: $0[start ..< end])) }
            } else {
                chunk.removeAll(keepingCapacity: true)
                chunk.appendBigEndian32(try nextSequenceNumber())
                chunk.append(contentsOf: data[start ..< end])
                chunk.withUnsafeBytes { out.append(.fdAT, $0) }
            }
            start = end
        }
    }
}
