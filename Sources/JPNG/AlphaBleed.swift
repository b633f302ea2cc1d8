import ImageCore

/// Gives fully transparent pixels the colour of their nearest visible neighbours.
///
/// A JPEG block that straddles a transparent edge mixes the colours of all its pixels; if
/// the hidden ones keep whatever the source had (often white or black), that colour bleeds
/// into the visible edge as a halo. Filling them from the visible side first changes nothing
/// visible and removes the halo. The fill is a breadth-first flood from every visible pixel
/// at once: each hidden pixel takes the average of its already-coloured 8-neighbours when the
/// flood reaches it, so the work is linear in the pixel count.
enum AlphaBleed {
    /// `image` must be RGBA8 with straight alpha. Pixels with alpha 0 are recoloured; an image
    /// with no visible pixel is left as it is.
    static func fillTransparent(_ image: inout Image) {
        precondition(image.format == .rgba8)
        let w = image.width, h = image.height, n = w * h
        guard n > 0 else { return }
        var known = [Bool](repeating: false, count: n)
        var queue = [Int32]()
        queue.reserveCapacity(n)
        image.pixels.withUnsafeMutableBufferPointer { p in
            for i in 0 ..< n where p[4 * i + 3] != 0 {
                known[i] = true
            }
            // The first wave: hidden pixels that touch a visible one.
            var inQueue = [Bool](repeating: false, count: n)
            for i in 0 ..< n where !known[i] && hasKnownNeighbour(i, w, h, known) {
                queue.append(Int32(i))
                inQueue[i] = true
            }
            var head = 0
            while head < queue.count {
                // Colour a whole wave from the pixels known before it, then mark it known, so a
                // pixel's colour does not depend on the order within its wave.
                let waveEnd = queue.count
                var colours = [UInt32](repeating: 0, count: waveEnd - head)
                for q in head ..< waveEnd {
                    let i = Int(queue[q])
                    let x = i % w, y = i / w
                    var r = 0, g = 0, b = 0, count = 0
                    for dy in -1 ... 1 {
                        let yy = y + dy
                        if yy < 0 || yy >= h { continue }
                        for dx in -1 ... 1 where dx != 0 || dy != 0 {
                            let xx = x + dx
                            if xx < 0 || xx >= w { continue }
                            let j = yy * w + xx
                            if known[j] { r += Int(p[4 * j]); g += Int(p[4 * j + 1]); b += Int(p[4 * j + 2]); count += 1 }
                        }
                    }
                    if count > 0 {
                        colours[q - head] = UInt32((r + count / 2) / count) | UInt32((g + count / 2) / count) << 8
                            | UInt32((b + count / 2) / count) << 16
                    }
                }
                for q in head ..< waveEnd {
                    let i = Int(queue[q]), c = colours[q - head]
                    p[4 * i] = UInt8(truncatingIfNeeded: c)
                    p[4 * i + 1] = UInt8(truncatingIfNeeded: c >> 8)
                    p[4 * i + 2] = UInt8(truncatingIfNeeded: c >> 16)
                    known[i] = true
                }
                for q in head ..< waveEnd {
                    let i = Int(queue[q])
                    let x = i % w, y = i / w
                    for dy in -1 ... 1 {
                        let yy = y + dy
                        if yy < 0 || yy >= h { continue }
                        for dx in -1 ... 1 {
                            let xx = x + dx
                            if xx < 0 || xx >= w { continue }
                            let j = yy * w + xx
                            if !known[j] && !inQueue[j] { inQueue[j] = true; queue.append(Int32(j)) }
                        }
                    }
                }
                head = waveEnd
            }
        }
    }

    private static func hasKnownNeighbour(_ i: Int, _ w: Int, _ h: Int, _ known: [Bool]) -> Bool {
        let x = i % w, y = i / w
        for dy in -1 ... 1 {
            let yy = y + dy
            if yy < 0 || yy >= h { continue }
            for dx in -1 ... 1 {
                let xx = x + dx
                if xx >= 0 && xx < w && known[yy * w + xx] { return true }
            }
        }
        return false
    }
}
