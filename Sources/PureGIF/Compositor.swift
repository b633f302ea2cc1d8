import ImageCore

/// The animation canvas (GIF89a section 23, "Disposal Method", read as browsers do): frames are
/// drawn one at a time onto an RGBA8 canvas that starts transparent; a frame's transparent index
/// leaves the canvas alone; after a frame, its disposal is applied when the next frame begins.
///
/// Memory is the canvas plus, for "restore to previous" frames, a copy of the part of the canvas
/// the frame covers (so a chain of such frames keeps returning to the canvas before the chain).
/// Pixels go straight from colour indices to the canvas through a 256-entry table of RGBA
/// values packed in `UInt32`s (little-endian byte order R, G, B, A in memory).
///
/// ```swift
/// var compositor = Compositor(width: 100, height: 80)
/// compositor.beginFrame(rect: rect, palette: palette, transparentIndex: nil, disposal: .keep)
/// compositor.compositeRow(row: 0, indices: rowIndices, count: rect.width)
/// compositor.endFrame()
/// ```
struct Compositor: Sendable {
    /// A frame rectangle as declared.
    struct Rect: Sendable, Equatable {
        var x: Int, y: Int, width: Int, height: Int
    }

    let width: Int
    let height: Int
    /// RGBA8 canvas, `width * height * 4` bytes.
    private(set) var canvas: [UInt8]
    /// Packed RGBA of each index (opaque black beyond the colour table, as browsers draw it).
    private var table = [UInt32](repeating: 0xFF00_0000, count: 256)
    /// All ones at the transparent index, zero elsewhere: `dst & keep[i] | table[i]` draws
    /// without a branch (the transparent entry of `table` is zero).
    private var keep = [UInt32](repeating: 0, count: 256)
    private var hasTransparency = false
    private var frame = Rect(x: 0, y: 0, width: 0, height: 0)
    /// The frame rectangle clipped to the canvas: columns x0 ..< x1, rows y0 ..< y1.
    private var x0 = 0, x1 = 0, y0 = 0, y1 = 0
    private var disposal = GIFDisposal.unspecified
    /// The frame's clipped rectangle as it was before the frame (for `.restorePrevious`).
    private var saved: [UInt8] = []
    /// Disposal of the last completed frame, applied when the next one begins.
    private var pending: (GIFDisposal, x0: Int, y0: Int, x1: Int, y1: Int)?

    init(width: Int, height: Int) {
        self.width = width
        self.height = height
        canvas = [UInt8](repeating: 0, count: width * height * 4)
    }

    /// The canvas as an image.
    func image(metadata: ImageMetadata = ImageMetadata()) -> Image {
        Image(width: width, height: height, format: .rgba8, pixels: canvas, metadata: metadata)
    }

    /// Disposes of the previous frame, then prepares to draw one covering `rect`.
    mutating func beginFrame(rect: Rect, palette: Palette, transparentIndex: UInt8?, disposal: GIFDisposal) {
        applyPendingDisposal()
        frame = rect
        x0 = min(max(rect.x, 0), width); x1 = min(max(rect.x + rect.width, 0), width)
        y0 = min(max(rect.y, 0), height); y1 = min(max(rect.y + rect.height, 0), height)
        if x1 < x0 { x1 = x0 }
        if y1 < y0 { y1 = y0 }
        self.disposal = disposal
        let entries = min(palette.count, 256)
        palette.rgba.withUnsafeBytes { raw in
            for i in 0 ..< entries { table[i] = UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: 4 * i, as: UInt32.self)) }
        }
        for i in entries ..< 256 { table[i] = UInt32(littleEndian: 0xFF00_0000) }
        if hasTransparency { for i in 0 ..< 256 { keep[i] = 0 } }
        hasTransparency = transparentIndex != nil
        if let t = transparentIndex {
            table[Int(t)] = 0
            keep[Int(t)] = 0xFFFF_FFFF
        }
        if disposal == .restorePrevious { saveRect() }
    }

    /// Draws the first `count` pixels of frame row `row` (indices for the whole declared row).
    mutating func compositeRow(row: Int, indices: UnsafePointer<UInt8>, count: Int) {
        let cy = frame.y + row
        guard cy >= y0 && cy < y1 else { return }
        let start = x0 - frame.x
        let end = min(x1, frame.x + count) - frame.x
        guard end > start else { return }
        let transparent = hasTransparency
        table.withUnsafeBufferPointer { tableBuffer in
            keep.withUnsafeBufferPointer { keepBuffer in
                canvas.withUnsafeMutableBytes { raw in
                    guard let t = tableBuffer.baseAddress, let k = keepBuffer.baseAddress,
                          let base = raw.baseAddress else { return }
                    let dst = base.assumingMemoryBound(to: UInt32.self) + (cy * width + x0)
                    let src = indices + start
                    let n = end - start
                    if transparent {
                        for i in 0 ..< n {
                            let index = Int(src[i])
                            dst[i] = dst[i] & k[index] | t[index]
                        }
                    } else {
                        for i in 0 ..< n { dst[i] = t[Int(src[i])] }
                    }
                }
            }
        }
    }

    /// Copies canvas row `from` over canvas row `to` within the frame's columns (interlace previews).
    mutating func replicateRow(from: Int, to: Int) {
        let cyFrom = frame.y + from, cyTo = frame.y + to
        guard cyFrom >= y0 && cyFrom < y1 && cyTo >= y0 && cyTo < y1 && x1 > x0 else { return }
        let bytes = (x1 - x0) * 4
        canvas.withUnsafeMutableBytes { raw in
            guard let base = raw.baseAddress else { return }
            (base + (cyTo * width + x0) * 4).copyMemory(from: base + (cyFrom * width + x0) * 4, byteCount: bytes)
        }
    }

    /// The frame is drawn; its disposal waits for the next frame (or never comes, for the last).
    mutating func endFrame() {
        pending = (disposal, x0, y0, x1, y1)
    }

    private mutating func applyPendingDisposal() {
        guard let (disposal, px0, py0, px1, py1) = pending else { return }
        pending = nil
        guard px1 > px0 && py1 > py0 else { return }
        let rowBytes = (px1 - px0) * 4
        switch disposal {
        case .restoreBackground:
            canvas.withUnsafeMutableBytes { raw in
                guard let base = raw.baseAddress else { return }
                for y in py0 ..< py1 { (base + (y * width + px0) * 4).initializeMemory(as: UInt8.self, repeating: 0, count: rowBytes) }
            }
        case .restorePrevious:
            guard saved.count == rowBytes * (py1 - py0) else { return }
            saved.withUnsafeBytes { src in
                canvas.withUnsafeMutableBytes { raw in
                    guard let base = raw.baseAddress, let s = src.baseAddress else { return }
                    for y in py0 ..< py1 {
                        (base + (y * width + px0) * 4).copyMemory(from: s + (y - py0) * rowBytes, byteCount: rowBytes)
                    }
                }
            }
        case .unspecified, .keep, .reserved:
            break
        }
    }

    private mutating func saveRect() {
        let rowBytes = (x1 - x0) * 4
        let count = rowBytes * (y1 - y0)
        if saved.count != count { saved = [UInt8](repeating: 0, count: count) }
        guard count > 0 else { return }
        let (sx0, sy0, sy1, w) = (x0, y0, y1, width)
        canvas.withUnsafeBytes { src in
            saved.withUnsafeMutableBytes { dst in
                guard let s = src.baseAddress, let d = dst.baseAddress else { return }
                for y in sy0 ..< sy1 {
                    (d + (y - sy0) * rowBytes).copyMemory(from: s + (y * w + sx0) * 4, byteCount: rowBytes)
                }
            }
        }
    }
}
