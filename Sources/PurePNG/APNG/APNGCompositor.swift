import ImageCore

/// The APNG canvas (APNG specification 1.0, "fcTL": dispose_op and blend_op): frames are drawn
/// one after another onto an RGBA canvas of the image's depth (8 or 16 bits), which starts fully
/// transparent black.
///
/// Before a frame is drawn, the previous frame's dispose op is applied to the previous frame's
/// rectangle: NONE leaves it, BACKGROUND clears it to transparent black, PREVIOUS puts back what
/// was there before the previous frame was drawn (a PREVIOUS on the first frame acts as
/// BACKGROUND). Only the rectangle a PREVIOUS frame covers is saved, so memory is one canvas
/// plus at most one more.
///
/// Blend SOURCE copies the frame's pixels, alpha included. Blend OVER composites with the integer
/// arithmetic of the APNG author's reference code (apngdis, apngasm): a source pixel of alpha 255
/// is copied, of alpha 0 leaves the canvas, and otherwise over a canvas pixel of alpha `da`
/// (max = 255, or 65535 for 16-bit samples):
///
///     u = sa * max,  v = (max - sa) * da,  al = u + v
///     colour = (src * u + dst * v) / al,  alpha = al / max      (truncating)
///
/// or the source pixel copied where `da` is 0.
struct APNGCompositor: Sendable {
    let width: Int
    let height: Int
    let sixteenBit: Bool
    /// RGBA samples, 4 bytes a pixel (8-bit) or 4 host-order UInt16 (16-bit).
    private(set) var canvas: [UInt8]
    /// The rectangle under the last frame, when its dispose op is PREVIOUS.
    private var saved: [UInt8] = []
    /// The frame drawn last: its dispose op applies before the next frame.
    private var last: APNGFrameControl?
    /// Frames drawn so far.
    private(set) var framesDrawn = 0

    init(width: Int, height: Int, sixteenBit: Bool) {
        self.width = width
        self.height = height
        self.sixteenBit = sixteenBit
        canvas = [UInt8](repeating: 0, count: width * height * (sixteenBit ? 8 : 4))
    }

    /// The pixel format frames must come in, and of ``image``.
    var format: PixelFormat { sixteenBit ? .rgba16 : .rgba8 }

    private var bytesPerPixel: Int { sixteenBit ? 8 : 4 }

    /// The canvas as an image.
    func image(metadata: ImageMetadata = ImageMetadata()) -> Image {
        Image(width: width, height: height, format: format, pixels: canvas, metadata: metadata)
    }

    /// Draws `frame` (of the control's size, in ``format``) at its rectangle, after the previous
    /// frame's dispose op.
    mutating func draw(_ frame: Image, control: APNGFrameControl) {
        precondition(frame.format == format && frame.width == control.width && frame.height == control.height,
                     "frame does not match its fcTL")
        disposeLast()
        var control = control
        if framesDrawn == 0 && control.dispose == .previous { control.dispose = .background }
        if control.dispose == .previous { saved = copyRect(control) }
        switch control.blend {
        case .source: copyIn(frame, control)
        case .over:
            if sixteenBit { blendOver(UInt16.self, wide: UInt64.self, frame, control) }
            else { blendOver(UInt8.self, wide: UInt32.self, frame, control) }
        }
        last = control
        framesDrawn += 1
    }

    /// Composites `frame` as ``draw(_:control:)`` would, onto a copy: the canvas a frame that is
    /// still arriving will give (its missing rows as the decoder holds them).
    func preview(with frame: Image, control: APNGFrameControl) -> Image {
        var copy = self
        copy.draw(frame, control: control)
        return copy.image()
    }

    private mutating func disposeLast() {
        guard let last else { return }
        switch last.dispose {
        case .none: break
        case .background: clearRect(last)
        case .previous: pasteRect(last, saved)
        }
    }

    private func copyRect(_ r: APNGFrameControl) -> [UInt8] {
        let rowBytes = r.width * bytesPerPixel, stride = width * bytesPerPixel
        var out = [UInt8](repeating: 0, count: rowBytes * r.height)
        canvas.withUnsafeBytes { src in
            out.withUnsafeMutableBytes { dst in
                for row in 0 ..< r.height {
                    let from = (r.y + row) * stride + r.x * bytesPerPixel
                    dst.baseAddress!.advanced(by: row * rowBytes).copyMemory(from: src.baseAddress!.advanced(by: from), byteCount: rowBytes)
                }
            }
        }
        return out
    }

    private mutating func pasteRect(_ r: APNGFrameControl, _ rows: [UInt8]) {
        let rowBytes = r.width * bytesPerPixel, stride = width * bytesPerPixel
        guard rows.count == rowBytes * r.height else { return }
        let bpp = bytesPerPixel
        rows.withUnsafeBytes { src in
            canvas.withUnsafeMutableBytes { dst in
                for row in 0 ..< r.height {
                    let to = (r.y + row) * stride + r.x * bpp
                    dst.baseAddress!.advanced(by: to).copyMemory(from: src.baseAddress!.advanced(by: row * rowBytes), byteCount: rowBytes)
                }
            }
        }
    }

    private mutating func clearRect(_ r: APNGFrameControl) {
        let rowBytes = r.width * bytesPerPixel, stride = width * bytesPerPixel, bpp = bytesPerPixel
        canvas.withUnsafeMutableBytes { dst in
            for row in 0 ..< r.height {
                dst.baseAddress!.advanced(by: (r.y + row) * stride + r.x * bpp).initializeMemory(as: UInt8.self, repeating: 0, count: rowBytes)
            }
        }
    }

    private mutating func copyIn(_ frame: Image, _ r: APNGFrameControl) {
        pasteRect(r, frame.pixels)
    }

    /// OVER for samples of type `S` (8 or 16 bits) with products in `W` (32 or 64 bits, so
    /// `(max * max) * 2` cannot wrap): specialised for each, one loop to read.
    @inline(__always)
    private mutating func blendOver<S: FixedWidthInteger & UnsignedInteger, W: FixedWidthInteger & UnsignedInteger>(
        _: S.Type, wide _: W.Type, _ frame: Image, _ r: APNGFrameControl
    ) {
        let stride = width * 4, frameStride = r.width * 4
        let max = W(S.max)
        frame.pixels.withUnsafeBytes { rawSrc in
            canvas.withUnsafeMutableBytes { rawDst in
                let src = rawSrc.bindMemory(to: S.self), dst = rawDst.bindMemory(to: S.self)
                for row in 0 ..< r.height {
                    var s = row * frameStride
                    var d = (r.y + row) * stride + r.x * 4
                    for _ in 0 ..< r.width {
                        let sa = W(src[s + 3])
                        if sa == max || sa != 0 && dst[d + 3] == 0 {
                            // Opaque over anything, or anything over nothing: a copy.
                            dst[d] = src[s]; dst[d + 1] = src[s + 1]; dst[d + 2] = src[s + 2]; dst[d + 3] = src[s + 3]
                        } else if sa != 0 {
                            let da = W(dst[d + 3])
                            let u = sa &* max, v = (max &- sa) &* da, al = u &+ v
                            for c in 0 ..< 3 {
                                dst[d + c] = S(truncatingIfNeeded: (W(src[s + c]) &* u &+ W(dst[d + c]) &* v) / al)
                            }
                            dst[d + 3] = S(truncatingIfNeeded: al / max)
                        }
                        s &+= 4
                        d &+= 4
                    }
                }
            }
        }
    }
}
