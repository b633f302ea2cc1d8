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
        guard !points.isEmpty, count > 0 else { return [] }
        var order = (0 ..< points.count).map { Int32($0) }
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
            order.withUnsafeMutableBufferPointer { o in
                var slice = UnsafeMutableBufferPointer(rebasing: o[box.start ..< box.end])
                points.withUnsafeBufferPointer { p in
                    slice.sort { x, y in
                        let a = p[Int(x)][lane], b = p[Int(y)][lane]
                        return a < b || (a == b && x < y)
                    }
                }
            }
            var running = 0.0
            var split = box.start + 1
            for i in box.start ..< box.end - 1 {
                running += Double(weights[Int(order[i])])
                split = i + 1
                if running * 2 >= box.weight { break }
            }
            let left = makeBox(start: box.start, end: split, order: order, points: points, weights: weights)
            let right = makeBox(start: split, end: box.end, order: order, points: points, weights: weights)
            totalError += left.error + right.error - box.error
            boxes[pick] = left
            boxes.append(right)
        }
        return boxes.map(\.mean)
    }

    static func makeBox(start: Int, end: Int, order: [Int32], points: [Point], weights: [Float]) -> Box {
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
