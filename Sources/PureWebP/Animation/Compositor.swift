/// The animation canvas, composited as libwebp's `WebPAnimDecoder` does (`anim_decode.c`):
///
/// - the canvas starts transparent black; the ANIM background colour is not used;
/// - a key frame (the first; one that covers the canvas and has no alpha or does not blend;
///   one after a frame disposed to background that covered the canvas or was itself a key
///   frame) starts from a transparent canvas and is drawn as is;
/// - any other frame is drawn over the canvas the previous frame left (after its disposal):
///   with blending, pixels whose alpha is not 255 are blended "over" with libwebp's
///   non-premultiplied integer formula, except where the previous frame was disposed;
/// - disposal to background clears the frame's rectangle to transparent black before the
///   next frame.
struct WebPCompositor: Sendable {
    struct Rect: Sendable, Equatable { var x = 0, y = 0, width = 0, height = 0 }
    let width: Int
    let height: Int
    /// RGBA8, `width * height * 4` bytes.
    private(set) var canvas: [UInt8]
    private var previous: (rect: Rect, disposeToBackground: Bool, wasKey: Bool)?
    private var rect = Rect()
    private var blend = false
    private var isKey = true
    /// The previous frame's disposed rectangle, not blended over (libwebp's `FindBlendRangeAtRow`).
    private var excluded: Rect?

    init(width: Int, height: Int) {
        self.width = width
        self.height = height
        canvas = [UInt8](repeating: 0, count: width * height * 4)
    }

    /// Starts a frame: applies the previous frame's disposal and decides whether this is a key frame.
    mutating func beginFrame(_ frame: Rect, hasAlpha: Bool, blend: Bool) {
        let full = frame.x == 0 && frame.y == 0 && frame.width == width && frame.height == height
        if let previous {
            if previous.disposeToBackground { clear(previous.rect) }
            let previousFull = previous.rect.width == width && previous.rect.height == height
            if (!hasAlpha || !blend) && full {
                isKey = true
            } else {
                isKey = previous.disposeToBackground && (previousFull || previous.wasKey)
            }
            excluded = previous.disposeToBackground ? previous.rect : nil
        } else {
            isKey = true
            excluded = nil
        }
        if isKey { canvas.withUnsafeMutableBufferPointer { $0.update(repeating: 0) } }
        rect = frame
        self.blend = blend
    }

    /// Draws row `y` of the current frame (RGBA8, the frame's width).
    mutating func drawRow(_ y: Int, _ row: UnsafeBufferPointer<UInt8>) {
        let cy = rect.y + y
        guard cy < height else { return }
        let blendRow = blend && !isKey
        var skipStart = 0, skipEnd = 0
        if let e = excluded, cy >= e.y, cy < e.y + e.height {
            skipStart = e.x; skipEnd = e.x + e.width
        }
        let rx = rect.x, count = min(rect.width, width - rect.x)
        canvas.withUnsafeMutableBufferPointer { c in
            for x in 0 ..< max(count, 0) {
                let o = ((cy * width) + rx + x) * 4, i = x * 4
                let sa = row[i + 3]
                let cx = rx + x
                if !blendRow || sa == 255 || (cx >= skipStart && cx < skipEnd) {
                    c[o] = row[i]; c[o + 1] = row[i + 1]; c[o + 2] = row[i + 2]; c[o + 3] = sa
                } else if sa != 0 {
                    let da = UInt32(c[o + 3])
                    let s = UInt32(sa)
                    let dstFactor = (da * (256 - s)) >> 8
                    let blendA = s + dstFactor
                    let scale = (UInt32(1) << 24) / blendA
                    for k in 0 ..< 3 {
                        let v = UInt32(row[i + k]) * s + UInt32(c[o + k]) * dstFactor
                        c[o + k] = UInt8(truncatingIfNeeded: (v &* scale) >> 24)
                    }
                    c[o + 3] = UInt8(truncatingIfNeeded: blendA)
                }
            }
        }
    }

    /// Ends the frame; its disposal happens when the next frame begins.
    mutating func endFrame(disposeToBackground: Bool) {
        previous = (rect, disposeToBackground, isKey)
    }

    private mutating func clear(_ r: Rect) {
        let w = width
        canvas.withUnsafeMutableBufferPointer { c in
            for y in r.y ..< min(r.y + r.height, height) {
                let start = (y * w + r.x) * 4, end = (y * w + min(r.x + r.width, w)) * 4
                if end > start { UnsafeMutableBufferPointer(rebasing: c[start ..< end]).update(repeating: 0) }
            }
        }
    }
}
