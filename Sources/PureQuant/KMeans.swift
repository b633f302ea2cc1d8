/// Lloyd's k-means over the histogram's buckets, started from median cut's palette: each
/// bucket goes to its nearest entry, each entry moves to the weighted mean of its buckets.
///
/// Buckets are handled in pieces of 16,384 (cut by count, not by thread), and the pieces'
/// sums are added in piece order, so the palette is the same for any thread count.
enum KMeans {
    static let pieceSize = 16_384

    /// Refines `palette` in place; returns the weighted mean squared error of the last
    /// assignment and, per entry, the share of its weight that came from opaque buckets.
    static func refine(palette: inout [Point], points: [Point], weights: [Float], iterations: Int,
                       threads: Int) -> (error: Double, opaqueShare: [Double]) {
        guard !palette.isEmpty, !points.isEmpty else { return (0, []) }
        let opaqueAlpha = Perceptual.weights[3]
        var opaqueShare = [Double](repeating: 0, count: palette.count)
        var lastError = Double.infinity
        var error = 0.0
        var totalWeight = 0.0
        for w in weights { totalWeight += Double(w) }
        for round in 0 ... iterations {
            let search = NearestSearch(palette: palette)
            let pieces = (points.count + pieceSize - 1) / pieceSize
            let n = palette.count
            let results = inPieces(pieces, threads: threads) { piece -> ([SIMD4<Double>], [Double], Double, [Double]) in
                var sums = [SIMD4<Double>](repeating: SIMD4<Double>(), count: n)
                var totals = [Double](repeating: 0, count: n)
                var opaque = [Double](repeating: 0, count: n)
                var err = 0.0
                var guess = 0
                let end = min(points.count, (piece + 1) * pieceSize)
                for i in piece * pieceSize ..< end {
                    let p = points[i]
                    let (k, d) = search.nearest(p, guess: guess)
                    guess = k
                    let w = Double(weights[i])
                    sums[k] += SIMD4<Double>(Double(p[0]), Double(p[1]), Double(p[2]), Double(p[3])) * w
                    totals[k] += w
                    if p[3] == opaqueAlpha { opaque[k] += w }
                    err += Double(d) * w
                }
                return (sums, totals, err, opaque)
            }
            var sums = [SIMD4<Double>](repeating: SIMD4<Double>(), count: n)
            var totals = [Double](repeating: 0, count: n)
            var opaque = [Double](repeating: 0, count: n)
            error = 0
            for (s, t, e, o) in results {
                for k in 0 ..< n { sums[k] += s[k]; totals[k] += t[k]; opaque[k] += o[k] }
                error += e
            }
            for k in 0 ..< n { opaqueShare[k] = totals[k] > 0 ? opaque[k] / totals[k] : 0 }
            error /= max(totalWeight, 1e-30)
            // The last round only measures; earlier rounds move the entries.
            if round == iterations || error >= lastError * 0.99995 { break }
            lastError = error
            for k in 0 ..< n where totals[k] > 0 {
                let m = sums[k] / totals[k]
                palette[k] = Point(Float(m[0]), Float(m[1]), Float(m[2]), Float(m[3]))
            }
        }
        return (error, opaqueShare)
    }
}
