import ImageCore

// The APNG chunks (APNG specification 1.0, "Structure"): acTL says how many frames and plays,
// each fcTL describes one frame, fdAT carries a frame's compressed data after its sequence
// number. fcTL and fdAT share one sequence counter, 0, 1, 2, ... in file order.

/// The animation control chunk (acTL): how many frames the animation has and how often it plays.
public struct APNGAnimationControl: Sendable, Equatable {
    /// `num_frames`: the number of fcTL chunks the file must have (at least 1).
    public var frameCount: Int
    /// `num_plays`: how many times the animation plays; 0 is forever.
    public var plays: Int

    /// An acTL's content.
    public init(frameCount: Int, plays: Int) {
        self.frameCount = frameCount
        self.plays = plays
    }

    /// `num_plays` in GIF's loop-count terms (`ImageAnimation.loopCount`): 0 (forever) stays 0,
    /// N plays are N - 1 loops after the first, one play is nil.
    public var loopCount: Int? { plays == 0 ? 0 : plays == 1 ? nil : plays - 1 }

    /// Parses an acTL's 8 data bytes (PNG's limit on 31-bit values applies to both fields).
    static func parse(_ data: ArraySlice<UInt8>, offset: Int) throws(PNGError) -> APNGAnimationControl {
        guard data.count == 8 else { throw .apngInvalidChunk(chunk: "acTL", reason: "length \(data.count), expected 8", offset: offset) }
        let frames = readUInt32BE(data, 0), plays = readUInt32BE(data, 4)
        guard frames > 0, frames <= 0x7FFF_FFFF else {
            throw .apngInvalidChunk(chunk: "acTL", reason: "num_frames \(frames)", offset: offset)
        }
        guard plays <= 0x7FFF_FFFF else { throw .apngInvalidChunk(chunk: "acTL", reason: "num_plays \(plays)", offset: offset) }
        return APNGAnimationControl(frameCount: Int(frames), plays: Int(plays))
    }
}

/// A frame control chunk (fcTL): where a frame goes, how long it shows, and how it is drawn and
/// disposed of.
public struct APNGFrameControl: Sendable, Equatable {
    /// The chunk's sequence number.
    public var sequence: UInt32
    /// The frame's rectangle on the canvas.
    public var x: Int, y: Int, width: Int, height: Int
    /// `delay_num` / `delay_den` seconds; a denominator of 0 means 100.
    public var delayNumerator: UInt16, delayDenominator: UInt16
    /// What happens to the frame's rectangle before the next frame.
    public var dispose: FrameDisposal
    /// How the frame is drawn onto the canvas.
    public var blend: FrameBlend

    /// An fcTL's content.
    public init(sequence: UInt32, x: Int, y: Int, width: Int, height: Int, delayNumerator: UInt16,
                delayDenominator: UInt16, dispose: FrameDisposal, blend: FrameBlend) {
        self.sequence = sequence
        self.x = x; self.y = y; self.width = width; self.height = height
        self.delayNumerator = delayNumerator
        self.delayDenominator = delayDenominator
        self.dispose = dispose
        self.blend = blend
    }

    /// The delay in milliseconds, rounded to the nearest (`delay_den` 0 counts as 100).
    public var delayMilliseconds: Int {
        let den = delayDenominator == 0 ? 100 : Int(delayDenominator)
        return (Int(delayNumerator) * 1000 + den / 2) / den
    }

    /// The frame in the terms every animation shares.
    public func animationFrameInfo(index: Int) -> AnimationFrameInfo {
        AnimationFrameInfo(index: index, x: x, y: y, width: width, height: height,
                           delayMilliseconds: delayMilliseconds, disposal: dispose, blend: blend)
    }

    /// Parses an fcTL's 26 data bytes; the rectangle must be non-empty and inside the canvas.
    static func parse(_ data: ArraySlice<UInt8>, canvasWidth: Int, canvasHeight: Int,
                      offset: Int) throws(PNGError) -> APNGFrameControl {
        guard data.count == 26 else { throw .apngInvalidChunk(chunk: "fcTL", reason: "length \(data.count), expected 26", offset: offset) }
        let sequence = readUInt32BE(data, 0)
        let w = readUInt32BE(data, 4), h = readUInt32BE(data, 8), x = readUInt32BE(data, 12), y = readUInt32BE(data, 16)
        let b = data.startIndex
        let delayNum = UInt16(data[b + 20]) << 8 | UInt16(data[b + 21])
        let delayDen = UInt16(data[b + 22]) << 8 | UInt16(data[b + 23])
        let disposeOp = data[b + 24], blendOp = data[b + 25]
        // In UInt64: x + width may not wrap.
        guard w > 0, h > 0, UInt64(x) + UInt64(w) <= UInt64(canvasWidth), UInt64(y) + UInt64(h) <= UInt64(canvasHeight) else {
            throw .apngFrameOutsideCanvas(x: x, y: y, width: w, height: h, offset: offset)
        }
        let dispose: FrameDisposal
        switch disposeOp {
        case 0: dispose = .none
        case 1: dispose = .background
        case 2: dispose = .previous
        default: throw .apngInvalidChunk(chunk: "fcTL", reason: "dispose_op \(disposeOp)", offset: offset)
        }
        let blend: FrameBlend
        switch blendOp {
        case 0: blend = .source
        case 1: blend = .over
        default: throw .apngInvalidChunk(chunk: "fcTL", reason: "blend_op \(blendOp)", offset: offset)
        }
        return APNGFrameControl(sequence: sequence, x: Int(x), y: Int(y), width: Int(w), height: Int(h),
                                delayNumerator: delayNum, delayDenominator: delayDen, dispose: dispose, blend: blend)
    }
}

/// A big-endian 32-bit value at `index` from the slice's start (the caller checked the length).
func readUInt32BE(_ data: ArraySlice<UInt8>, _ index: Int) -> UInt32 {
    let i = data.startIndex + index
    return UInt32(data[i]) << 24 | UInt32(data[i + 1]) << 16 | UInt32(data[i + 2]) << 8 | UInt32(data[i + 3])
}
