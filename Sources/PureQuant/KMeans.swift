/// Lloyd's k-means over the histogram's buckets, started from median cut's palette: each
/// bucket goes to its nearest entry, each entry moves to the weighted mean of its buckets.
///
/// Hamerly's bounds make a round after the first cost little more than a test per bucket:
/// each bucket keeps its entry `a` and a lower bound `l` on its distance to every other
/// entry; its distance `u` to `a` is measured every round. When the entries move, an entry
/// `k` is at least `l - move(k)` from the bucket: while `u` is under `l` less the largest
/// move of any other entry, `a` is still the nearest. Failing that, `k` is also at least
/// `|a - k| - u` away (triangle inequality), so only entries within `2u` of `a` (a prefix of
/// `a`'s neighbour list) can be nearer: they are measured, four a step without a branch per
/// entry (`NearestSearch.View.otherBound`), and the nearest of them and the first entry
/// beyond the prefix give the new `l`. Failing that too (one of them nearer, or the bound
/// not clearing `u`), the search starts from `a` and walks until it knows the
/// second-nearest distance, the new `l`. The entries' sums
/// (weighted colour, weight, weighted squared norm, opaque weight) change only for buckets
/// that change entry, and the error follows from them: `Σ w|q - c|² = S2 - 2c·S1 + W|c|²`.
///
/// The neighbour lists are rebuilt when the entries have drifted by a quarter of their
/// median spacing since the last build; in between the search allows for the drift.
///
/// Buckets are handled in pieces of 16,384 (cut by count, not by thread), each piece writing
/// only its own buckets' state, and the pieces' sums are added in piece order, so the palette
/// is the same for any thread count.
enum KMeans {
    static let pieceSize = 16_384

    /// Refines `palette` in place; returns the weighted mean squared error of the last
    /// assignment and, per entry, the share of its weight that came from opaque buckets.
    static func refine(palette: inout [Point], points: [Point], weights: [Float], iterations: Int,
                       threads: Int) -> (error: Double, opaqueShare: [Double]) {
        guard !palette.isEmpty, !points.isEmpty, palette.count <= 256, weights.count == points.count else { return (0, []) }
        let n = palette.count, count = points.count
        var totalWeight = 0.0
        for w in weights { totalWeight += Double(w) }
        var assigned = [UInt8](repeating: 0, count: count)
        var lower = [Float](repeating: 0, count: count)
        var stats = Sums(n: n)
        var moved = [Float](repeating: 0, count: n)
        var lastError = Double.infinity
        var error = 0.0
        var search = NearestSearch(palette: palette)
        var rebuildAt = Float.infinity
        for round in 0 ... iterations {
            if round > 0 {
                var most: Float = 0
                for m in moved { most = max(most, m) }
                search = NearestSearch(moving: search, to: palette, drift: most)
                if search.slack > rebuildAt { search = NearestSearch(palette: palette, previous: search) }
            }
            if search.slack == 0 { rebuildAt = spacing(search) / 4 }
            let bounds = Bounds(moved: moved)
            let current = search
            let pieces = (count + pieceSize - 1) / pieceSize
            let deltas = assigned.withUnsafeMutableBufferPointer { a in
                lower.withUnsafeMutableBufferPointer { l in
                        let state = State(assigned: a.baseAddress!, lower: l.baseAddress!)
                        return inPieces(pieces, threads: threads) { piece -> Sums in
                            let start = piece * pieceSize, end = min(count, start + pieceSize)
                            return assign(start ..< end, first: round == 0, points: points, weights: weights,
                                          search: current, bounds: bounds, state: state, n: n)
                        }
                    }
            }
            for d in deltas { stats.add(d) }
            error = 0
            for k in 0 ..< n where stats.totals[k] > 0 {
                let p = palette[k]
                let c = SIMD4<Double>(Double(p[0]), Double(p[1]), Double(p[2]), Double(p[3]))
                error += stats.squares[k] - 2 * (c * stats.sums[k]).sum() + stats.totals[k] * (c * c).sum()
            }
            error = max(error, 0) / max(totalWeight, 1e-30)
            // The last round only measures; earlier rounds move the entries.
            if round == iterations || error >= lastError * 0.99995 { break }
            lastError = error
            for k in 0 ..< n {
                moved[k] = 0
                guard stats.totals[k] > 0 else { continue }
                let m = stats.sums[k] / stats.totals[k]
                let next = Point(Float(m[0]), Float(m[1]), Float(m[2]), Float(m[3]))
                moved[k] = Perceptual.distance(next, palette[k]).squareRoot() * NearestSearch.margin
                palette[k] = next
            }
        }
        let opaqueShare = (0 ..< n).map { stats.totals[$0] > 0 ? stats.opaque[$0] / stats.totals[$0] : 0 }
        return (error, opaqueShare)
    }

    /// The median distance from an entry to its nearest other entry.
    static func spacing(_ search: NearestSearch) -> Float {
        guard search.listLength > 0 else { return 0 }
        let nearest = search.withView { v in (0 ..< v.count).map { v.list($0)[0].distance } }.sorted()
        return nearest[nearest.count / 2]
    }

    /// One round over `range`: assignments and bounds updated in `state`, and the change in
    /// the entries' sums returned (round one: the sums themselves).
    static func assign(_ range: Range<Int>, first: Bool, points: [Point], weights: [Float], search: NearestSearch,
                       bounds: Bounds, state: State, n: Int) -> Sums {
        var delta = Sums(n: n)
        let opaqueAlpha = Perceptual.weights[3]
        search.withView { view in
            points.withUnsafeBufferPointer { p in weights.withUnsafeBufferPointer { wt in
            bounds.fall.withUnsafeBufferPointer { fall in
            delta.sums.withUnsafeMutableBufferPointer { sums in delta.totals.withUnsafeMutableBufferPointer { totals in
            delta.squares.withUnsafeMutableBufferPointer { squares in delta.opaque.withUnsafeMutableBufferPointer { opaque in
                @inline(__always) func add(_ k: Int, _ q: Point, _ w: Double) {
                    let qd = SIMD4<Double>(Double(q[0]), Double(q[1]), Double(q[2]), Double(q[3]))
                    sums[k] += qd * w
                    totals[k] += w
                    squares[k] += (qd * qd).sum() * w
                    if q[3] == opaqueAlpha { opaque[k] += w }
                }
                let assigned = state.assigned, lower = state.lower
                if first {
                    var previous = 0
                    for i in range {
                        // Round one starts from the previous bucket's entry (buckets come in
                        // key order, so neighbours are alike).
                        let q = p[i]
                        let r = view.nearestTwo(q, guess: previous, second: true)
                        previous = r.index
                        assigned[i] = UInt8(truncatingIfNeeded: r.index)
                        lower[i] = r.other
                        add(r.index, q, Double(wt[i]))
                    }
                    delta.searches &+= range.count
                    return
                }
                var searches = 0
                for i in range {
                    let q = p[i]
                    let a = Int(assigned[i])
                    let l = lower[i]
                    let du = Perceptual.distance(q, view.points[a])
                    var b = l - fall[a]   // Hamerly's own test first: no list needed
                    // `clears(b, u)` on squares, without the root.
                    let t = (b - NearestSearch.tiny) * (1 / NearestSearch.margin)
                    if !(t > 0 && du < t * t) {
                        let u = du.squareRoot()
                        if let r = view.otherBound(q, entry: a, squared: du, root: u) {
                            b = r
                        } else {
                            let r = view.nearestTwo(q, guess: a, second: true)
                            if r.index != a {
                                let w = Double(wt[i])
                                add(a, q, -w)
                                add(r.index, q, w)
                                assigned[i] = UInt8(truncatingIfNeeded: r.index)
                            }
                            b = r.other
                            searches &+= 1
                        }
                    }
                    lower[i] = b
                }
                delta.searches &+= searches
            } }
            } }
            } }
            }
        }
        return delta
    }

    /// Per-bucket state, written by one piece per range (so shared across threads).
    struct State: @unchecked Sendable {
        let assigned: UnsafeMutablePointer<UInt8>
        let lower: UnsafeMutablePointer<Float>
    }

    /// How far the entries moved last round, as the bounds need it.
    struct Bounds: Sendable {
        /// Per entry, the largest move of any other entry.
        var fall: [Float]

        init(moved: [Float]) {
            let n = moved.count
            var top = 0
            for k in 0 ..< n where moved[k] > moved[top] { top = k }
            var runnerUp: Float = 0
            for k in 0 ..< n where k != top { runnerUp = max(runnerUp, moved[k]) }
            fall = (0 ..< n).map { $0 == top ? runnerUp : moved[top] }
        }
    }

    /// Per entry: weighted colour sum, weight, weighted squared norm, opaque weight.
    struct Sums: Sendable {
        var sums: [SIMD4<Double>], totals: [Double], squares: [Double], opaque: [Double]
        var searches = 0
        init(n: Int) {
            sums = [SIMD4<Double>](repeating: SIMD4<Double>(), count: n)
            totals = [Double](repeating: 0, count: n)
            squares = [Double](repeating: 0, count: n)
            opaque = [Double](repeating: 0, count: n)
        }

        mutating func add(_ d: Sums) {
            for k in sums.indices {
                sums[k] += d.sums[k]; totals[k] += d.totals[k]; squares[k] += d.squares[k]; opaque[k] += d.opaque[k]
            }
            searches += d.searches
        }
    }
}
