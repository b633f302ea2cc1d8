/// The starting palette: Heckbert's median cut over the histogram's buckets, weighted.
///
/// Every box holds a run of buckets. The box with the largest weighted squared error around
/// its mean is split next, across the lane where its weighted variance is largest, at the
/// weighted median, until there are `count` boxes, no box holds two buckets, or the mean
/// error falls to `targetError`. Ties in the sort fall to the bucket order (the keys,
/// ascending), so the result never depends on anything but the input.
enum MedianCut {
    struct Box {
        var start: Int, end: Int
        var weight: Double
        var mean: Point
        var variance: SIMD4<Double>
        var error: Double { weight * variance.sum() }
    }

    static func palette(points: [Point], weights: [Float], count: Int, targetError: Double?) -> [Point] {
        guard !points.isEmpty, count > 0, weights.count == points.count, points.count < Int(Int32.max) else { return [] }
        var order = (0 ..< points.count).map { Int32($0) }
        var keys = [UInt64](repeating: 0, count: points.count)
        return points.withUnsafeBufferPointer { p in
            weights.withUnsafeBufferPointer { w in
                order.withUnsafeMutableBufferPointer { o in
                    keys.withUnsafeMutableBufferPointer { k in
                        cut(p, w, o, k, count: count, targetError: targetError)
                    }
                }
            }
        }
    }

    private static func cut(_ points: UnsafeBufferPointer<Point>, _ weights: UnsafeBufferPointer<Float>,
                            _ order: UnsafeMutableBufferPointer<Int32>, _ keys: UnsafeMutableBufferPointer<UInt64>,
                            count: Int, targetError: Double?) -> [Point] {
        var boxes = [makeBox(start: 0, end: points.count, order: order, points: points, weights: weights)]
        let totalWeight = boxes[0].weight
        var totalError = boxes[0].error
        while boxes.count < count {
            if let targetError, totalError <= targetError * totalWeight { break }
            var pick = -1
            var best = 0.0
            for (i, box) in boxes.enumerated() where box.end - box.start > 1 && box.error > best {
                best = box.error
                pick = i
            }
            if pick < 0 { break }
            let box = boxes[pick]
            let v = box.variance
            var lane = 0
            for l in 1 ..< 4 where v[l] > v[lane] { lane = l }
            // Keys order the box's buckets by the lane's value, then by index (lane values are
            // never negative, so their bits order like the values).
            let n = box.end - box.start
            let k = keys.baseAddress!
            for i in 0 ..< n {
                let index = order[box.start &+ i]
                k[i] = UInt64(points[Int(index)][lane].bitPattern) << 32 | UInt64(UInt32(index))
            }
            let split = weightedSplit(k, count: n, weights: weights.baseAddress!, total: box.weight)
            for i in 0 ..< n { order[box.start &+ i] = Int32(truncatingIfNeeded: k[i] & 0xFFFF_FFFF) }
            let left = makeBox(start: box.start, end: box.start + split, order: order, points: points, weights: weights)
            let right = makeBox(start: box.start + split, end: box.end, order: order, points: points, weights: weights)
            totalError += left.error + right.error - box.error
            boxes[pick] = left
            boxes.append(right)
        }
        return boxes.map(\.mean)
    }

    /// Reorders `keys[0 ..< count]` (count >= 2) so that its first `split` entries are the
    /// smallest keys and returns `split`: one past the first key, in key order, at which the
    /// weight so far reaches half of `total`, at most `count - 1` (the weighted median as a
    /// sorted walk would find it). Weights are whole numbers, so the sums are exact in any
    /// order. Hoare's selection, weighted.
    static func weightedSplit(_ keys: UnsafeMutablePointer<UInt64>, count: Int, weights: UnsafePointer<Float>,
                              total: Double) -> Int {
        @inline(__always) func weight(_ key: UInt64) -> Double { Double(weights[Int(key & 0xFFFF_FFFF)]) }
        var lo = 0, hi = count   // the median is in lo ..< hi
        var before = 0.0         // weight of keys[0 ..< lo]
        while hi - lo > 1 {
            // Median-of-three pivot, moved to the end of the range.
            let mid = lo + (hi - lo) / 2
            let a = keys[lo], b = keys[mid], c = keys[hi - 1]
            let pivot = max(min(a, b), min(max(a, b), c))
            let at = pivot == a ? lo : (pivot == b ? mid : hi - 1)
            keys[at] = keys[hi - 1]; keys[hi - 1] = pivot
            var store = lo
            var below = 0.0
            for i in lo ..< hi - 1 where keys[i] < pivot {
                let t = keys[i]; keys[i] = keys[store]; keys[store] = t
                below += weight(t)
                store += 1
            }
            keys[hi - 1] = keys[store]; keys[store] = pivot
            if (before + below) * 2 >= total {
                hi = store
            } else if (before + below + weight(pivot)) * 2 >= total {
                lo = store; hi = store + 1
            } else {
                before += below + weight(pivot)
                lo = store + 1
            }
        }
        return min(lo + 1, count - 1)
    }

    static func makeBox(start: Int, end: Int, order: UnsafeMutableBufferPointer<Int32>,
                        points: UnsafeBufferPointer<Point>, weights: UnsafeBufferPointer<Float>) -> Box {
        var sum = SIMD4<Double>(), total = 0.0
        for i in start ..< end {
            let k = Int(order[i])
            let w = Double(weights[k])
            let p = points[k]
            sum += SIMD4<Double>(Double(p[0]), Double(p[1]), Double(p[2]), Double(p[3])) * w
            total += w
        }
        let mean = total > 0 ? sum / total : SIMD4<Double>()
        var variance = SIMD4<Double>()
        for i in start ..< end {
            let k = Int(order[i])
            let p = points[k]
            let d = SIMD4<Double>(Double(p[0]), Double(p[1]), Double(p[2]), Double(p[3])) - mean
            variance += d * d * Double(weights[k])
        }
        if total > 0 { variance /= total }
        return Box(start: start, end: end, weight: total,
                   mean: Point(Float(mean[0]), Float(mean[1]), Float(mean[2]), Float(mean[3])),
                   variance: variance)
    }
}
