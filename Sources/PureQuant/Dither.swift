/// Floyd-Steinberg error diffusion, serpentine: even rows left to right, odd rows right to
/// left, the error split 7/16 ahead, 3/16, 5/16 and 1/16 on the row below. The error
/// carried into a pixel is scaled by the strength and capped at twice the palette's typical
/// spacing (so a colour the palette lacks does not smear: libimagequant caps it too); fully
/// transparent pixels and pixels outside the mask take no error and pass none on.
extension Remapper {
    func diffuse(pixels: [UInt32], width: Int, height: Int, mask: [UInt8]?,
                 strength: Float) -> (indices: [UInt8], error: Double, mapped: Int) {
        var indices = [UInt8](repeating: 0, count: width * height)
        var error = 0.0, mapped = 0
        var current = [Point](repeating: Point(), count: width + 2)
        var below = [Point](repeating: Point(), count: width + 2)
        let cap = max(spacing * 0.75, 1e-3)
        let cap2 = cap * cap
        let w = Perceptual.weights
        Perceptual.gammaTable.withUnsafeBufferPointer { gt in
            var guess = 0
            for y in 0 ..< height {
                let forward = y & 1 == 0
                for s in 0 ..< width {
                    let x = forward ? s : width - 1 - s
                    let i = y * width + x
                    let carried = current[x + 1]
                    current[x + 1] = Point()
                    if let mask, mask[i] == 0 { continue }
                    mapped += 1
                    var c = UInt32(bigEndian: pixels[i])
                    if c & 0xFF == 0 { c = 0 }
                    let p = Perceptual.point(c, gt)
                    if c == 0, let t = transparentIndex {
                        indices[i] = UInt8(t)
                        continue
                    }
                    var e = carried * (strength * Self.ditherWeight(pixels, width, height, x, y))
                    let e2 = (e * e).sum()
                    if e2 > cap2 { e *= (cap2 / e2).squareRoot() }
                    var q = p + e
                    // Opaque pixels stay opaque: alpha error does not pass into them.
                    let alpha = c & 0xFF == 0xFF ? w[3] : min(max(q[3], 0), w[3])
                    let limit = w * (alpha / w[3])
                    q = Point(min(max(q[0], 0), limit[0]), min(max(q[1], 0), limit[1]),
                              min(max(q[2], 0), limit[2]), alpha)
                    let k = nearest(q, color: c, guess: guess)
                    guess = k
                    indices[i] = UInt8(k)
                    error += Double(Perceptual.distance(p, points[k]))
                    let err = q - points[k]
                    let ahead = forward ? x + 2 : x
                    let behind = forward ? x : x + 2
                    current[ahead] += err * (7.0 / 16)
                    below[behind] += err * (3.0 / 16)
                    below[x + 1] += err * (5.0 / 16)
                    below[ahead] += err * (1.0 / 16)
                }
                swap(&current, &below)
                for k in below.indices { below[k] = Point() }
            }
        }
        return (indices, error, mapped)
    }

    /// libimagequant's dither map in small: full error in flat areas, a quarter at edges and
    /// in noise (which hide the banding dithering is for), from the largest RGBA difference to
    /// the four neighbours.
    @inline(__always)
    static func ditherWeight(_ pixels: [UInt32], _ width: Int, _ height: Int, _ x: Int, _ y: Int) -> Float {
        let i = y * width + x
        let c = pixels[i]
        @inline(__always) func diff(_ o: UInt32) -> Int {
            var d = 0, s: UInt32 = 0
            while s < 32 {
                let a = Int((c &>> s) & 0xFF), b = Int((o &>> s) & 0xFF)
                d = max(d, a > b ? a &- b : b &- a)
                s &+= 8
            }
            return d
        }
        var e = 0
        if x > 0 { e = max(e, diff(pixels[i - 1])) }
        if x + 1 < width { e = max(e, diff(pixels[i + 1])) }
        if y > 0 { e = max(e, diff(pixels[i - width])) }
        if y + 1 < height { e = max(e, diff(pixels[i + width])) }
        let t = 1 - Float(min(e, 48)) / 48
        return 0.25 + 0.75 * t * t
    }
}
