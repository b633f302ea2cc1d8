import Testing
@testable import PureQuant

/// The fast paths against plain versions: the four-lane scan against its scalar twin, the
/// neighbour-list walk against a scan of every entry, k-means with bounds against plain
/// Lloyd rounds, and median cut's selection against a sort.
@Suite struct SearchTests {
    struct Random {
        var state: UInt32
        mutating func next() -> Float {
            state = state &* 1_664_525 &+ 1_013_904_223
            return Float(state >> 8) / Float(1 << 24)
        }
        /// Points on a coarse grid of values, so equal distances (ties) happen.
        mutating func point(coarse: Bool = false) -> Point {
            var p = Point(next(), next(), next(), next())
            if coarse { p = (p * 8).rounded(.down) / 8 }
            return p
        }
    }

    @Test(arguments: [1, 2, 3, 5, 17, 64, 200, 256])
    func scanMatchesScalarTwin(entries: Int) {
        for coarse in [false, true] {
            var random = Random(state: UInt32(entries) &* 31 &+ (coarse ? 7 : 0))
            let palette = (0 ..< entries).map { _ in random.point(coarse: coarse) }
            let search = NearestSearch(palette: palette)
            search.withView { view in
                for _ in 0 ..< 500 {
                    let q = random.point(coarse: coarse)
                    let a = view.scan(q), b = view.scanScalar(q)
                    #expect(a.index == b.index && a.distance == b.distance && a.other == b.other)
                }
            }
        }
    }

    @Test(arguments: [2, 3, 33, 40, 256])
    func walkMatchesScan(entries: Int) {
        for coarse in [false, true] {
            var random = Random(state: UInt32(entries) &* 17 &+ (coarse ? 3 : 0))
            let palette = (0 ..< entries).map { _ in random.point(coarse: coarse) }
            let search = NearestSearch(palette: palette)
            search.withView { view in
                for i in 0 ..< 2000 {
                    let q = random.point(coarse: coarse)
                    let truth = view.scanScalar(q)
                    let guess = (i &* 7) % entries
                    #expect(view.nearest(q, guess: guess).index == truth.index)
                    // The four-lane walk against the one-entry walk (its twin) and the scan.
                    let groups = view.nearestGroups(q, guess: guess)
                    let one = view.nearestTwo(q, guess: guess, second: false)
                    #expect(groups.index == one.index && groups.distance == one.distance)
                    #expect(groups.distance == truth.distance)
                    let two = view.nearestTwo(q, guess: guess, second: true)
                    #expect(two.index == truth.index)
                    // A lower bound on every other entry: at most the true second distance.
                    #expect(two.other <= truth.other * 1.0001 + 1e-6)
                }
            }
        }
    }

    /// k-means' bound over a list prefix, four entries a step, against its one-entry twin;
    /// on fresh and on moved lists, with the bucket's entry the nearest or not.
    @Test(arguments: [1, 2, 3, 5, 17, 64, 256])
    func otherBoundMatchesScalarTwin(entries: Int) {
        for coarse in [false, true] {
            var random = Random(state: UInt32(entries) &* 13 &+ (coarse ? 5 : 0))
            let palette = (0 ..< entries).map { _ in random.point(coarse: coarse) }
            var moved = palette
            for k in moved.indices { moved[k] += Point(random.next(), random.next(), random.next(), random.next()) * 0.004 - 0.002 }
            var drift: Float = 0
            for k in moved.indices { drift = max(drift, Perceptual.distance(moved[k], palette[k]).squareRoot()) }
            let fresh = NearestSearch(palette: palette)
            for search in [fresh, NearestSearch(moving: fresh, to: moved, drift: drift)] {
                search.withView { view in
                    var bounded = 0
                    for i in 0 ..< 1000 {
                        // Queries near an entry, so that entry is often the nearest.
                        let near = search.palette[(i &* 7) % entries]
                        let q = i % 3 == 0 ? random.point(coarse: coarse)
                            : near + (Point(random.next(), random.next(), random.next(), random.next()) - 0.5) * 0.05
                        let truth = view.scanScalar(q)
                        let a = i % 4 == 0 ? (i &* 11) % entries : truth.index
                        let du = Perceptual.distance(q, search.palette[a])
                        let fast = view.otherBound(q, entry: a, squared: du, root: du.squareRoot())
                        let twin = view.otherBoundScalar(q, entry: a, squared: du, root: du.squareRoot())
                        #expect(fast == twin)
                        if let b = fast {
                            bounded += 1
                            // Only for the true nearest, and below every other entry's distance.
                            #expect(a == truth.index)
                            #expect(b <= truth.other * 1.0001 + 1e-6)
                        }
                    }
                    if entries > 1 { #expect(bounded > 0) }
                }
            }
        }
    }

    /// Lists built with the previous build's lists as the candidate limit equal lists built
    /// from every entry.
    @Test(arguments: [2, 33, 34, 100, 256])
    func listsFromPreviousListsAreTheSame(entries: Int) {
        var random = Random(state: UInt32(entries) &* 41)
        let palette = (0 ..< entries).map { _ in random.point() }
        var moved = palette
        for k in moved.indices { moved[k] += Point(random.next(), random.next(), random.next(), random.next()) * 0.1 - 0.05 }
        let plain = NearestSearch(palette: moved)
        let limited = NearestSearch(palette: moved, previous: NearestSearch(palette: palette))
        plain.withView { a in
            limited.withView { b in
                for k in 0 ..< entries {
                    #expect(a.beyond[k] == b.beyond[k])
                    for j in 0 ..< a.listLength {
                        #expect(a.list(k)[j].index == b.list(k)[j].index && a.list(k)[j].distance == b.list(k)[j].distance)
                    }
                }
            }
        }
    }

    @Test func movedListsStillFindTheNearest() {
        var random = Random(state: 99)
        let palette = (0 ..< 256).map { _ in random.point() }
        var moved = palette
        for k in moved.indices { moved[k] += Point(random.next(), random.next(), random.next(), random.next()) * 0.004 - 0.002 }
        var drift: Float = 0
        for k in moved.indices { drift = max(drift, Perceptual.distance(moved[k], palette[k]).squareRoot()) }
        let search = NearestSearch(moving: NearestSearch(palette: palette), to: moved, drift: drift)
        search.withView { view in
            for i in 0 ..< 2000 {
                let q = random.point()
                #expect(view.nearest(q, guess: i % 256).index == view.scanScalar(q).index)
                #expect(view.nearestGroups(q, guess: i % 256).index == view.nearestTwo(q, guess: i % 256, second: false).index)
            }
        }
    }

    /// Plain Lloyd rounds: a full scan per bucket per round, the same stopping rule.
    func plainLloyd(_ start: [Point], _ points: [Point], _ weights: [Float], iterations: Int) -> [Point] {
        var palette = start
        var lastError = Double.infinity
        for round in 0 ... iterations {
            var sums = [SIMD4<Double>](repeating: .zero, count: palette.count)
            var totals = [Double](repeating: 0, count: palette.count)
            var error = 0.0, total = 0.0
            for (p, w) in zip(points, weights) {
                var best = 0
                for k in palette.indices where Perceptual.distance(p, palette[k]) < Perceptual.distance(p, palette[best]) { best = k }
                sums[best] += SIMD4<Double>(Double(p[0]), Double(p[1]), Double(p[2]), Double(p[3])) * Double(w)
                totals[best] += Double(w)
                error += Double(Perceptual.distance(p, palette[best])) * Double(w)
                total += Double(w)
            }
            error /= total
            if round == iterations || error >= lastError * 0.99995 { break }
            lastError = error
            for k in palette.indices where totals[k] > 0 {
                let m = sums[k] / totals[k]
                palette[k] = Point(Float(m[0]), Float(m[1]), Float(m[2]), Float(m[3]))
            }
        }
        return palette
    }

    @Test(arguments: [1, 3])
    func kMeansMatchesPlainLloyd(threads: Int) {
        var random = Random(state: 5)
        // Clustered points, as a histogram's buckets are.
        let centres = (0 ..< 40).map { _ in random.point() }
        let points = (0 ..< 20_000).map { i in centres[i % 40] + (Point(random.next(), random.next(), random.next(), random.next()) - 0.5) * 0.15 }
        let weights = (0 ..< 20_000).map { _ in Float(Int(random.next() * 16) + 1) }
        let start = MedianCut.palette(points: points, weights: weights, count: 64, targetError: nil)
        var fast = start
        _ = KMeans.refine(palette: &fast, points: points, weights: weights, iterations: 25, threads: threads)
        let plain = plainLloyd(start, points, weights, iterations: 25)
        #expect(fast.count == plain.count)
        var worst: Float = 0
        for (a, b) in zip(fast, plain) { worst = max(worst, Perceptual.distance(a, b)) }
        #expect(worst < 1e-8)
    }

    @Test func weightedSplitMatchesSortedWalk() {
        var random = Random(state: 11)
        for trial in 0 ..< 200 {
            let count = 2 + trial % 60
            let weights = (0 ..< count).map { _ in Float(Int(random.next() * 20) + 1) }
            // Few distinct values: many equal lane values, ordered by index.
            var keys = (0 ..< count).map { UInt64(UInt32(random.next() * 6)) << 32 | UInt64($0) }
            var total = 0.0
            for w in weights { total += Double(w) }
            let sorted = keys.sorted()
            var running = 0.0, expected = 1
            for i in 0 ..< count - 1 {
                running += Double(weights[Int(sorted[i] & 0xFFFF_FFFF)])
                expected = i + 1
                if running * 2 >= total { break }
            }
            let split = weights.withUnsafeBufferPointer { w in
                keys.withUnsafeMutableBufferPointer { k in
                    MedianCut.weightedSplit(k.baseAddress!, count: count, weights: w.baseAddress!, total: total)
                }
            }
            #expect(split == expected)
            #expect(Set(keys[..<split]) == Set(sorted[..<expected]))
        }
    }
}
