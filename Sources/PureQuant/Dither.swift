/// Floyd-Steinberg error diffusion, serpentine: even rows left to right, odd rows right to
/// left, the error split 7/16 ahead, 3/16, 5/16 and 1/16 on the row below (libimagequant's
/// rules, written from its published description):
///
/// - the error carried into a pixel is scaled by `(1 - (1 - strength)²)·15/16` and by the
///   pixel's dither map value / 255 (`DitherMap`; no map: 1);
/// - scaled down where it would push a colour lane outside -0.1...1.1 (a little overflow
///   keeps clamped areas from banding); alpha is clamped to 0...1, and opaque pixels stay
///   opaque;
/// - a carried error whose square exceeds `maxError` is taken at 0.8; one below 2/65536 is
///   dropped (the pixel maps undithered: flat areas stay clean);
/// - an error passed on whose square exceeds `maxError` is passed at 0.75;
/// - both squares are taken with libimagequant's channel weights (`thresholdWeights`).
///
/// Fully transparent pixels and pixels outside the mask take no error and pass none on.
extension Remapper {
    /// libimagequant's colour weights (R 0.5, G 1, B 0.45; alpha as in this space), which its
    /// thresholds are in: errors are measured with them against `maxError` and 2/65536
    /// (with this space's equal weights the cut-off drops too little error, and dithering
    /// cost 0.1 dB PSNR and 0.001 SSIM more on the benchmark set).
    static let thresholdWeights = Point(0.5, 1, 0.45, 1)

    /// The mean squared error of `indices` in `thresholdWeights` (libimagequant's units).
    func weightedError(pixels: [UInt32], indices: [UInt8], mask: [UInt8]?) -> Float {
        guard indices.count <= pixels.count else { return 0 }
        var sum = 0.0, count = 0
        let tw = Self.thresholdWeights
        Perceptual.gammaTable.withUnsafeBufferPointer { gt in
            for i in indices.indices {
                if let mask, i < mask.count, mask[i] == 0 { continue }
                var c = UInt32(bigEndian: pixels[i])
                if c & 0xFF == 0 { c = 0 }
                let k = Int(indices[i])
                guard k < points.count else { continue }
                let d = (Perceptual.point(c, gt) - points[k]) * tw
                sum += Double((d * d).sum())
                count += 1
            }
        }
        return count > 0 ? Float(sum / Double(count)) : 0
    }

    func diffuse(pixels: [UInt32], width: Int, height: Int, mask: [UInt8]?, strength: Float,
                 map: [UInt8]?, maxError: Float, plain: [UInt8]) -> (indices: [UInt8], error: Double, mapped: Int) {
        let n = width * height
        var indices = [UInt8](repeating: 0, count: n)
        guard plain.count >= n else { return (indices, 0, 0) }
        var error = 0.0, mapped = 0
        guard pixels.count >= n, mask.map({ $0.count >= n }) ?? true, map.map({ $0.count >= n }) ?? true else {
            return (indices, error, mapped)
        }
        // Error carried into this row and the next, one slot of margin at each end.
        var carry = [Point](repeating: Point(), count: 2 * (width + 2))
        let w = Perceptual.weights
        let base = (1 - (1 - strength) * (1 - strength)) * (15.0 / 16)
        let low = w * -0.1, high = w * 1.1
        let tw = Self.thresholdWeights
        withViews { all, opaqueView in Perceptual.gammaTable.withUnsafeBufferPointer { gt in
        pixels.withUnsafeBufferPointer { px in indices.withUnsafeMutableBufferPointer { out in
        carry.withUnsafeMutableBufferPointer { carry in points.withUnsafeBufferPointer { points in
        plain.withUnsafeBufferPointer { plain in
            var current = carry.baseAddress!, below = current + (width + 2)
            for y in 0 ..< height {
                let forward = y & 1 == 0
                for s in 0 ..< width {
                    let x = forward ? s : width &- 1 &- s
                    let i = y &* width &+ x
                    let carried = current[x &+ 1]
                    current[x &+ 1] = Point()
                    if let mask, mask[i] == 0 { continue }
                    mapped &+= 1
                    var c = UInt32(bigEndian: px[i])
                    if c & 0xFF == 0 { c = 0 }
                    let p = Perceptual.point(c, gt)
                    if c == 0, let t = transparentIndex {
                        out[i] = UInt8(truncatingIfNeeded: t)
                        continue
                    }
                    var level = base
                    if let map { level *= Float(map[i]) * (1 / 255) }
                    var e = carried * level
                    let opaque = c & 0xFF == 0xFF
                    if opaque { e[3] = 0 }
                    var q = p
                    let et = e * tw
                    let e2 = (et * et).sum()
                    if e2 >= 2.0 / 65536 {
                        var ratio: Float = 1
                        for ch in 0 ..< 3 {
                            let v = p[ch] + e[ch]
                            if v > high[ch] { ratio = min(ratio, (high[ch] - p[ch]) / e[ch]) }
                            else if v < low[ch] { ratio = min(ratio, (low[ch] - p[ch]) / e[ch]) }
                        }
                        if e2 > maxError { ratio *= 0.8 }
                        ratio = max(ratio, 0)
                        q = p + e * ratio
                        q[3] = opaque ? w[3] : min(max(p[3] + e[3], 0), w[3])
                    }
                    // The search starts from the pixel's undithered entry, the nearest to its
                    // own colour (the result never depends on where it starts).
                    let k = nearest(q, color: c, guess: Int(plain[i]), all, opaqueView)
                    out[i] = UInt8(truncatingIfNeeded: k)
                    error += Double(Perceptual.distance(p, points[k]))
                    var err = q - points[k]
                    let errt = err * tw
                    if (errt * errt).sum() > maxError { err *= 0.75 }
                    let ahead = forward ? x &+ 2 : x
                    let behind = forward ? x : x &+ 2
                    current[ahead] += err * (7.0 / 16)
                    below[behind] += err * (3.0 / 16)
                    below[x &+ 1] += err * (5.0 / 16)
                    below[ahead] += err * (1.0 / 16)
                }
                swap(&current, &below)
                below.update(repeating: Point(), count: width + 2)
            }
        } } } } } } }
        return (indices, error, mapped)
    }
}
