import ImageCore

/// What `PNGDecoder` knows of a file's animation (APNG specification 1.0), and, when it decodes
/// frames (``APNGDecoder``), the frame being decoded and the canvas.
///
/// The checks follow the specification: one acTL before IDAT; fcTL and fdAT sequence numbers
/// 0, 1, 2, ... in file order; every frame inside the canvas; an fcTL before IDAT makes the
/// static image frame 0 and must then cover the whole canvas; each fdAT after an fcTL; as many
/// fcTL as acTL declares. The first broken rule ends the animation (`broken`): in the default
/// mode the file is then its static image, with a `.warning`, as browsers show it; strict
/// decoding throws the error instead.
struct APNGState: Sendable {
    /// The acTL, once read (nil: a still PNG).
    var control: APNGAnimationControl?
    /// The fcTL chunks read so far, in order.
    var frames: [APNGFrameControl] = []
    /// The next sequence number an fcTL or fdAT must carry.
    var nextSequence: UInt32 = 0
    /// The first rule the animation broke: from then on its chunks are skipped.
    var broken: PNGError?
    /// Whether frames are decoded and composited (``APNGDecoder``), or only their chunks read.
    var decodesFrames = false

    // Frame decoding.
    /// The frame whose fdAT data is being decoded (frame 0 is the IDAT image when its fcTL came
    /// before IDAT).
    var frameData: ImageDataDecoder?
    /// Rows of the current frame already reported.
    var reportedRows = 0
    var compositor: APNGCompositor?
    /// Frames composited so far.
    var completed = 0
    /// Stop after each composited frame until the caller resumes (frame-by-frame iteration).
    var pausesAfterEachFrame = false
    var paused = false
    /// A file without a valid acTL at its first IDAT: decoding frames, its static image is
    /// reported as the one frame.
    var stillFrame = false
    /// Record where each frame's compressed data lies in the file (``frameData``), so frames can
    /// be decoded apart from the chunk stream, on other threads (`APNGAnimation`).
    var recordsData = false
    /// Per frame, the file ranges of its zlib stream (IDAT payloads for frame 0 when the static
    /// image is frame 0, else fdAT payloads after their sequence numbers).
    var dataRanges: [[Range<Int>]] = []

    /// Adds a range of frame `frame`'s data.
    mutating func record(_ range: Range<Int>, frame: Int) {
        guard frame >= 0, !range.isEmpty else { return }
        while dataRanges.count <= frame { dataRanges.append([]) }
        if let last = dataRanges[frame].last, last.upperBound == range.lowerBound {
            dataRanges[frame][dataRanges[frame].count - 1] = last.lowerBound ..< range.upperBound
        } else {
            dataRanges[frame].append(range)
        }
    }

    /// Whether the file is an animation that is (so far) valid.
    var isAnimated: Bool { control != nil && broken == nil }

    /// Whether the static IDAT image is frame 0 (its fcTL came before IDAT).
    var fcTLBeforeIDAT = false
    /// An fcTL after IDAT has come and no fdAT yet: its frame has no data so far.
    var awaitingData = false
    /// The static image's fcTL when it came before acTL (both before IDAT): libpng's APNG reader,
    /// and so Firefox and ImageIO, take it, so it is read once the acTL arrives.
    var earlyFrameControl: (data: [UInt8], offset: Int)?

    /// Checks a sequence number and moves the counter on.
    mutating func take(sequence: UInt32, offset: Int) throws(PNGError) {
        guard sequence == nextSequence else {
            throw .apngSequence(expected: nextSequence, found: sequence, offset: offset)
        }
        nextSequence &+= 1
    }

    /// An acTL: before IDAT, once.
    mutating func readAnimationControl(_ data: ArraySlice<UInt8>, seenIDAT: Bool, offset: Int) throws(PNGError) {
        if seenIDAT { throw .apngInvalidChunk(chunk: "acTL", reason: "after IDAT", offset: offset) }
        if control != nil { throw .apngInvalidChunk(chunk: "acTL", reason: "a second acTL", offset: offset) }
        control = try APNGAnimationControl.parse(data, offset: offset)
    }

    /// An fcTL: in sequence, inside the canvas; before IDAT, the whole canvas at 0,0.
    mutating func readFrameControl(_ data: ArraySlice<UInt8>, info: PNGInfo, seenIDAT: Bool,
                                   offset: Int) throws(PNGError) -> APNGFrameControl {
        guard let control else { throw .apngInvalidChunk(chunk: "fcTL", reason: "no acTL before it", offset: offset) }
        let frame = try APNGFrameControl.parse(data, canvasWidth: info.width, canvasHeight: info.height, offset: offset)
        try take(sequence: frame.sequence, offset: offset)
        if !seenIDAT {
            guard frames.isEmpty else { throw .apngInvalidChunk(chunk: "fcTL", reason: "a second fcTL before IDAT", offset: offset) }
            guard frame.x == 0, frame.y == 0, frame.width == info.width, frame.height == info.height else {
                throw .apngInvalidChunk(chunk: "fcTL", reason: "the frame of the static image does not cover the canvas",
                                        offset: offset)
            }
            fcTLBeforeIDAT = true
        } else {
            awaitingData = true
        }
        guard frames.count < control.frameCount else {
            throw .apngFrameCount(declared: UInt32(control.frameCount), found: frames.count + 1, offset: offset)
        }
        frames.append(frame)
        return frame
    }

    /// An fdAT: it belongs to the last fcTL, which must have come after IDAT.
    mutating func acceptFrameData(offset: Int) throws(PNGError) {
        guard !frames.isEmpty, !(frames.count == 1 && fcTLBeforeIDAT) else {
            throw .apngInvalidChunk(chunk: "fdAT", reason: "no fcTL after IDAT before it", offset: offset)
        }
        awaitingData = false
    }

    /// At the next fcTL or IEND: the frame before it had data, and (decoding) all its rows.
    mutating func endFrameData(offset: Int) throws(PNGError) {
        if awaitingData { throw .apngFrameData(frame: frames.count - 1, reason: "no fdAT chunk", offset: offset) }
        if let frameData, !frameData.rowsComplete {
            throw .apngFrameData(frame: frames.count - 1, reason: "the data ends before the last row", offset: offset)
        }
        frameData = nil
    }

    /// At IEND: as many frames as declared.
    func checkFrameCount(offset: Int) throws(PNGError) {
        guard let control, control.frameCount != frames.count else { return }
        throw .apngFrameCount(declared: UInt32(control.frameCount), found: frames.count, offset: offset)
    }

    /// The frame's own PNGInfo: the image's colour type, depth, interlace, palette and tRNS, at
    /// the frame's size.
    static func frameInfo(_ info: PNGInfo, _ frame: APNGFrameControl) -> PNGInfo {
        var sub = info
        sub.width = frame.width
        sub.height = frame.height
        return sub
    }

    /// The decoded frame (its decoder's output) as the canvas's RGBA.
    static func canvasImage(from decoder: ImageDataDecoder, _ frame: APNGFrameControl, preview: Bool,
                            format: PixelFormat) -> Image {
        let pixels = preview ? decoder.previewPixels() : decoder.pixels
        return Image(width: frame.width, height: frame.height, format: decoder.format, pixels: pixels).converted(to: format)
    }
}
