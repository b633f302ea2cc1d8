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
    /// to the canvas being written as `keep` (alpha 0: OVER leaves the canvas pixel alone) and
    /// every other pixel as itself. A differing pixel is drawn exactly by OVER only when it is
    /// opaque (it replaces the canvas pixel) or when the canvas pixel under it is fully
    /// transparent and its own alpha is not 0 (the APNG spec's OVER then yields the source
    /// pixel; apngdis and libpng's simplified API copy it). A partially transparent pixel over
    /// a visible one would be mixed, and a transparent one would leave the canvas: refused.
    ///
    /// `differsFromSource` is false when OVER's data would be SOURCE's byte for byte (no
    /// unchanged pixel, or all of them already equal to `keep`), so the caller can skip it.
    static func overEligibility<P: FixedWidthInteger & UnsignedInteger>(
        _: P.Type, target: UnsafeRawPointer, canvas: UnsafeRawPointer, width: Int, rect: FrameRect,
        alphaMask: P, keep: P
    ) -> (eligible: Bool, differsFromSource: Bool) {
        let size = MemoryLayout<P>.size
        var differs = false
        for y in rect.y ..< rect.y + rect.height {
            let t = target + (y * width + rect.x) * size, c = canvas + (y * width + rect.x) * size
            for x in 0 ..< rect.width {
                let f = t.loadUnaligned(fromByteOffset: x &* size, as: P.self)
                let d = c.loadUnaligned(fromByteOffset: x &* size, as: P.self)
                if f == d {
                    if f != keep { differs = true }
                    continue
                }
                let fa = f & alphaMask
                if fa == alphaMask || (fa != 0 && d & alphaMask == 0) { continue }
                return (false, false)
            }
        }
        return (true, differs)
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
