import ImageCore

/// The per-frame decisions of ``APNGEncoder``: which rectangle changed, which dispose op leaves
/// the next frame the least to store, and whether blend OVER can stand in for SOURCE.
///
/// The canvases are RGBA8 or RGBA16 (host order) and are read one pixel at a time as a single
/// word, `P` = `UInt32` or `UInt64`, so "pixel differs" is one compare. Nothing here depends on
/// byte order: the alpha mask and the "keep" pixel are words loaded from byte patterns.
///
/// APNG terms (APNG spec, "fcTL"): a frame is drawn into its rectangle with blend SOURCE
/// (replace, alpha included) or OVER (composite); afterwards dispose NONE leaves the canvas,
/// BACKGROUND clears the rectangle to transparent black, PREVIOUS restores the canvas as it was
/// before the frame.
///
/// The "keep" pixel is what OVER draws where the canvas must stay: any pixel that decodes with
/// alpha 0. RGBA and gray + alpha use transparent black; a palette uses an entry with alpha 0
/// (transparent black is added when there is room without a deeper palette); gray and RGB use
/// a tRNS colour key that no frame contains (the encoder looks for one in its first pass).

/// A frame's rectangle on the canvas (fcTL x_offset, y_offset, width, height).
struct FrameRect: Equatable, Sendable {
    var x: Int, y: Int, width: Int, height: Int
    var area: Int { width * height }

    /// The 1x1 rectangle written for a frame identical to the canvas (fcTL needs a size >= 1).
    static let unchanged = FrameRect(x: 0, y: 0, width: 1, height: 1)
}

/// What one candidate canvas leaves the next frame to store.
struct FrameChange: Equatable, Sendable {
    /// The smallest rectangle holding every pixel that differs; nil when none does.
    var rect: FrameRect?
    /// Pixels inside `rect` that differ.
    var changed: Int

    /// The estimate the dispose choice minimises: differing pixels are stored as they are
    /// (costly), the other pixels of the rectangle compress to little when OVER turns them
    /// transparent, and to more under SOURCE; so area plus three times the changed pixels.
    /// An empty change still stores a 1x1 frame.
    var cost: Int {
        guard let rect else { return 1 }
        return rect.area + 3 * changed
    }
}

enum FrameOptimizer {
    /// A pixel word from its bytes in memory order (RGBA8: 4 bytes, RGBA16: 8 bytes).
    @inline(__always)
    static func word<P: FixedWidthInteger & UnsignedInteger>(_ bytes: [UInt8], as _: P.Type) -> P {
        precondition(bytes.count == MemoryLayout<P>.size)
        return bytes.withUnsafeBytes { $0.loadUnaligned(as: P.self) }
    }

    // MARK: Changed rectangle

    /// The pixels of `target` that differ from `reference`, where `reference` reads as zero
    /// (transparent black) inside `cleared`: the canvas after dispose BACKGROUND, without
    /// building it. Both canvases are `width` x `height` words of type `P`.
    ///
    /// Found row by row with early exits: the first differing row from the top (its first and
    /// last differing pixels start the left and right bounds), the first from the bottom, then
    /// each row between only left of the left bound and right of the right bound. With
    /// `countChanged` the rectangle is then scanned once more to count differing pixels.
    static func changes<P: FixedWidthInteger & UnsignedInteger>(
        _: P.Type, target: UnsafeRawPointer, reference: UnsafeRawPointer, cleared: FrameRect?,
        width: Int, height: Int, countChanged: Bool
    ) -> FrameChange {
        let size = MemoryLayout<P>.size
        let rowBytes = width * size
        /// Row `y` of both canvases and the cleared span on it (empty when the row is outside).
        @inline(__always) func row(_ y: Int) -> (t: UnsafeRawPointer, r: UnsafeRawPointer, lo: Int, hi: Int) {
            let t = target + y * rowBytes, r = reference + y * rowBytes
            if let c = cleared, y >= c.y, y < c.y + c.height { return (t, r, c.x, c.x + c.width) }
            return (t, r, 0, 0)
        }
        @inline(__always) func differs(_ t: UnsafeRawPointer, _ r: UnsafeRawPointer, _ lo: Int, _ hi: Int, _ x: Int) -> Bool {
            let v = t.loadUnaligned(fromByteOffset: x &* size, as: P.self)
            if x >= lo && x < hi { return v != 0 }
            return v != r.loadUnaligned(fromByteOffset: x &* size, as: P.self)
        }
        /// The first differing x in `from ..< to`.
        func first(_ y: Int, _ from: Int, _ to: Int) -> Int? {
            let (t, r, lo, hi) = row(y)
            var x = from
            while x < to {
                if differs(t, r, lo, hi, x) { return x }
                x &+= 1
            }
            return nil
        }
        /// The last differing x in `from ..< to`.
        func last(_ y: Int, _ from: Int, _ to: Int) -> Int? {
            let (t, r, lo, hi) = row(y)
            var x = to - 1
            while x >= from {
                if differs(t, r, lo, hi, x) { return x }
                x &-= 1
            }
            return nil
        }

        var top = -1, left = 0, right = 0
        for y in 0 ..< height {
            if let x = first(y, 0, width) {
                top = y
                left = x
                right = last(y, x, width) ?? x
                break
            }
        }
        guard top >= 0 else { return FrameChange(rect: nil, changed: 0) }
        var bottom = top
        var y = height - 1
        while y > top {
            if let x = last(y, 0, width) {
                bottom = y
                right = max(right, x)
                break
            }
            y -= 1
        }
        if top < bottom {
            for y in top + 1 ... bottom {
                if left > 0, let x = first(y, 0, left) { left = x }
                if right < width - 1, let x = last(y, right + 1, width) { right = x }
            }
        }
        let rect = FrameRect(x: left, y: top, width: right - left + 1, height: bottom - top + 1)
        var changed = 0
        if countChanged {
            for y in top ... bottom {
                let (t, r, lo, hi) = row(y)
                for x in left ... right where differs(t, r, lo, hi, x) { changed &+= 1 }
            }
        }
        return FrameChange(rect: rect, changed: changed)
    }

    // MARK: Blend OVER

    /// Whether blend OVER can draw `target` exactly over `canvas` inside `rect`, each pixel equal
    /// to the canvas being written as `keep` (alpha 0 once decoded: OVER leaves the canvas) and
    /// every other pixel as itself, which must then be opaque (OVER copies it).
    ///
    /// The APNG spec's OVER would also copy a partially transparent pixel landing on a fully
    /// transparent one (apngdis does), but Pillow composites OVER as a paste through the alpha
    /// mask, exact only for alpha 0 and 255 (in palette mode it even mixes indices): allowing it
    /// changed 7 of 12 frames of a test animation in Pillow, and saved 8 bytes of 1,216.
    ///
    /// `kept` counts the unchanged pixels OVER would store as `keep` that SOURCE stores as
    /// something else: 0 means OVER's data would be SOURCE's byte for byte.
    static func overEligibility<P: FixedWidthInteger & UnsignedInteger>(
        _: P.Type, target: UnsafeRawPointer, canvas: UnsafeRawPointer, width: Int, rect: FrameRect,
        alphaMask: P, keep: P
    ) -> (eligible: Bool, kept: Int) {
        let size = MemoryLayout<P>.size
        var kept = 0
        for y in rect.y ..< rect.y + rect.height {
            let t = target + (y * width + rect.x) * size, c = canvas + (y * width + rect.x) * size
            for x in 0 ..< rect.width {
                let f = t.loadUnaligned(fromByteOffset: x &* size, as: P.self)
                let d = c.loadUnaligned(fromByteOffset: x &* size, as: P.self)
                if f == d {
                    if f != keep { kept &+= 1 }
                    continue
                }
                if f & alphaMask == alphaMask { continue }
                return (false, 0)
            }
        }
        return (true, kept)
    }

    /// Row `y` of `rect` as OVER draws it: pixels equal to the canvas become `keep`.
    static func overRow<P: FixedWidthInteger & UnsignedInteger>(
        _: P.Type, target: UnsafeRawPointer, canvas: UnsafeRawPointer, width: Int, rect: FrameRect, y: Int,
        keep: P, into out: UnsafeMutableRawPointer
    ) {
        let size = MemoryLayout<P>.size
        let t = target + (y * width + rect.x) * size, c = canvas + (y * width + rect.x) * size
        for x in 0 ..< rect.width {
            let f = t.loadUnaligned(fromByteOffset: x &* size, as: P.self)
            let d = c.loadUnaligned(fromByteOffset: x &* size, as: P.self)
            out.storeBytes(of: f == d ? keep : f, toByteOffset: x &* size, as: P.self)
        }
    }
}

// MARK: - Decisions of the frame writer

extension APNGFrameWriter {
    /// Dispose op of `frame` (APNG spec, fcTL `dispose_op`) and the rectangle the next frame
    /// then needs. Each candidate canvas (NONE: the frame as drawn; BACKGROUND: the same with
    /// its rectangle cleared; PREVIOUS: the canvas before it, not for frame 0, whose PREVIOUS
    /// decoders treat as BACKGROUND) is compared with the next frame, and the one with the
    /// smallest ``FrameChange/cost`` wins, ties going to NONE, then BACKGROUND.
    func chooseDispose(of frame: Pending, next: [UInt8]) -> (FrameDisposal, FrameRect) {
        let wide = working.is16Bit
        let (w, h) = (width, height)
        func change(_ target: UnsafeRawPointer, _ reference: UnsafeRawPointer, cleared: FrameRect?) -> FrameChange {
            wide ? FrameOptimizer.changes(UInt64.self, target: target, reference: reference, cleared: cleared,
                                          width: w, height: h, countChanged: true)
                 : FrameOptimizer.changes(UInt32.self, target: target, reference: reference, cleared: cleared,
                                          width: w, height: h, countChanged: true)
        }
        var candidates: [(FrameDisposal, FrameChange)] = []
        next.withUnsafeBytes { t in
            frame.pixels.withUnsafeBytes { drawn in
                candidates.append((.none, change(t.baseAddress!, drawn.baseAddress!, cleared: nil)))
                candidates.append((.background, change(t.baseAddress!, drawn.baseAddress!, cleared: frame.rect)))
            }
            if frame.index > 0 {
                canvas.withUnsafeBytes { before in
                    candidates.append((.previous, change(t.baseAddress!, before.baseAddress!, cleared: nil)))
                }
            }
        }
        var best = candidates[0]
        for c in candidates.dropFirst() where c.1.cost < best.1.cost { best = c }
        return (best.0, best.1.rect ?? .unchanged)
    }

    /// APNG dispose BACKGROUND: the rectangle becomes transparent black.
    mutating func clear(_ rect: FrameRect) {
        let bpp = working.bytesPerPixel, w = width
        canvas.withUnsafeMutableBytes { raw in
            for y in rect.y ..< rect.y + rect.height {
                (raw.baseAddress! + (y * w + rect.x) * bpp).initializeMemory(as: UInt8.self, repeating: 0,
                                                                             count: rect.width * bpp)
            }
        }
    }
}

/// Compresses one frame: everything it reads is its own (the frame, a snapshot of the canvas
/// under it, the layout), so frames can be compressed on other threads while the writer goes
/// on with the next ones; each frame's zlib stream is its own, so the bytes are the same
/// whichever thread makes them.
struct FrameCompressor: Sendable {
    let plan: EncodingPlan
    let packer: ScanlinePacker
    let options: APNGEncodingOptions
    let working: PixelFormat
    let width: Int
    let keep: [UInt8]?
    /// The canvas a decoder has under the frame (after the previous frame's dispose op).
    let canvas: [UInt8]

    /// The frame's zlib data and its blend op. SOURCE stores the rectangle as it is; OVER,
    /// when it is exact (``FrameOptimizer/overEligibility``), stores pixels equal to the canvas
    /// as the transparent `keep` pixel. When OVER would change at least 1/32 of the rectangle's
    /// pixels into `keep`, both are compressed and the smaller is kept (ties to SOURCE): no
    /// cheap estimate can tell what the filters and zlib's matches make of either (a run of
    /// kept pixels is cheap, and so is a run that repeats the row above). Below 1/32 the
    /// second deflate is not worth it: on 30 frames of 320x240 noise where 0.2% of pixels stay,
    /// it doubled the time (0.9 s to 1.8 s, release) and OVER was never the smaller.
    func compress(_ frame: APNGFrameWriter.Pending) throws(PNGError) -> (FrameBlend, [UInt8]) {
        let rect = frame.rect
        let bpp = working.bytesPerPixel, w = width
        return try frame.pixels.withPNGBytes { (target) throws(PNGError) -> (FrameBlend, [UInt8]) in
            let base = target.baseAddress!
            let source = try compressRows(rect) { y, _ in UnsafeRawPointer(base + (y * w + rect.x) * bpp) }
            guard let keep, frame.index > 0, options.optimizeFrames else { return (.source, source) }
            let over = try working.is16Bit ? overData(UInt64.self, rect, target: base, keep: keep)
                                           : overData(UInt32.self, rect, target: base, keep: keep)
            if let over, over.count < source.count { return (.over, over) }
            return (.source, source)
        }
    }

    /// OVER's data for `rect` of `target` drawn on ``canvas``; nil when OVER would not be exact
    /// or would store SOURCE's bytes.
    private func overData<P: FixedWidthInteger & UnsignedInteger>(
        _: P.Type, _ rect: FrameRect, target: UnsafeRawPointer, keep: [UInt8]
    ) throws(PNGError) -> [UInt8]? {
        let keepWord = FrameOptimizer.word(keep, as: P.self), mask = alphaMask(P.self), w = width
        return try canvas.withPNGBytes { (under) throws(PNGError) -> [UInt8]? in
            let canvasBase = under.baseAddress!
            let check = FrameOptimizer.overEligibility(P.self, target: target, canvas: canvasBase, width: w, rect: rect,
                                                       alphaMask: mask, keep: keepWord)
            guard check.eligible && check.kept > 0 && check.kept >= rect.area / 32 else { return nil }
            return try compressRows(rect) { y, scratch in
                FrameOptimizer.overRow(P.self, target: target, canvas: canvasBase, width: w, rect: rect, y: y,
                                       keep: keepWord, into: scratch)
                return UnsafeRawPointer(scratch)
            }
        }
    }

    /// A word with the alpha sample's bits set.
    private func alphaMask<P: FixedWidthInteger & UnsignedInteger>(_: P.Type) -> P {
        let bytes = (0 ..< MemoryLayout<P>.size).map { $0 >= MemoryLayout<P>.size - working.bytesPerSample ? UInt8(0xFF) : 0 }
        return FrameOptimizer.word(bytes, as: P.self)
    }

    /// Packs, filters and deflates the rows of `rect` (PNG 7.2, 9, 10); `row(y, scratch)` gives row `y`'s pixels
    /// in `working` layout, either in place or written into `scratch` (one row of the rectangle).
    func compressRows(_ rect: FrameRect,
                      row: (Int, UnsafeMutableRawPointer) -> UnsafeRawPointer) throws(PNGError) -> [UInt8] {
        let layout = plan.layout
        let scratch = UnsafeMutableRawPointer.allocate(byteCount: rect.width * working.bytesPerPixel,
                                                       alignment: MemoryLayout<UInt64>.alignment)
        defer { scratch.deallocate() }
        // Adaptive filtering picks per row the filter with the smallest sum of magnitudes,
        // which suits continuous tone and misleads on few colours, dithered or not: frames of a
        // converted GIF (at most 256 colours each) compress to about half with no filter
        // (16.0 MB against 8.3 MB for the 100-frame benchmark animation). libpng advises None
        // for palette images; a rectangle of at most 256 colours is treated the same way.
        var mode = plan.mode
        if mode == .adaptive && !working.is16Bit && hasFewColours(rect, row: row, scratch: scratch) { mode = .fixed(0) }
        let engine = try ImageDataEncoder(layout: layout, mode: mode, level: options.png.compressionLevel,
                                          capacity: layout.bytesPerRow(width: rect.width))
        engine.beginPass(rowBytes: layout.bytesPerRow(width: rect.width))
        var out: [UInt8] = []
        for y in rect.y ..< rect.y + rect.height {
            try packer.pack(row: row(y, scratch), first: 0, step: 1, count: rect.width, y: y, into: engine.currentRow)
            try engine.encodeRow { out.append(contentsOf: $0) }
        }
        try engine.finish { out.append(contentsOf: $0) }
        return out
    }

    /// Whether the rectangle's 8-bit pixels take at most 256 distinct values (stops at the 257th).
    private func hasFewColours(_ rect: FrameRect, row: (Int, UnsafeMutableRawPointer) -> UnsafeRawPointer,
                               scratch: UnsafeMutableRawPointer) -> Bool {
        let bpp = working.bytesPerPixel
        guard bpp <= 4 else { return false }
        var table = ColourTable()
        for y in rect.y ..< rect.y + rect.height {
            let pixels = row(y, scratch)
            for x in 0 ..< rect.width {
                var colour: UInt32 = 0
                for c in 0 ..< bpp { colour = colour << 8 | UInt32(pixels.load(fromByteOffset: x &* bpp &+ c, as: UInt8.self)) }
                table.insert(colour)
                if table.count > 256 { return false }
            }
        }
        return true
    }
}
