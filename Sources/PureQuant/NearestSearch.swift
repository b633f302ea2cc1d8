/// The nearest palette entry to a colour, searched outward from a guess (usually the previous
/// pixel's entry, or a bucket's entry in the last k-means round): Orchard's method.
///
/// Each entry keeps its `listLength` nearest other entries sorted by distance. For a query
/// `q` and guess `g`, an entry `j` at distance `r` from `g` is at least `r - |q - g|` from
/// `q` (triangle inequality), so the walk down `g`'s list stops at the first entry with
/// `r > |q - g| + |q - best|`: every later one is farther than the best found. A walk that
/// runs off the list while entries beyond it could still be nearer starts again from the best
/// found (twice at most), then finishes with a scan of the whole palette, four entries a step.
///
/// Ties go to the lowest index (the stop test carries a margin, so rounding never cuts off an
/// equal entry): the answer depends on the query alone, never on the guess,
/// so the same colour maps to the same index everywhere, in every frame sharing the palette.
struct NearestSearch: Sendable {
    struct Neighbour: Sendable {
        /// Distance (not squared) from the list's owner.
        var distance: Float
        var index: Int32
    }

    /// Entries kept per list.
    static let maxListLength = 32
    /// The stop test's factor and addend: a bound must clear a distance by both before an
    /// entry is left out, far more than the rounding of the square roots (distances here are
    /// at most 2), so an entry as near as the best is never cut off.
    static let margin: Float = 1.0001
    static let tiny: Float = 1e-6

    let palette: [Point]
    let listLength: Int
    /// `palette.count * listLength`: entry k's list is `k * listLength ..< (k + 1) * listLength`.
    private var neighbours: [Neighbour]
    /// Per entry, a lower bound on the distance to every entry not in its list (the last list
    /// distance), or infinity when the list holds every other entry.
    private var beyond: [Float]
    /// The palette by lanes for the scan of every entry (``lanes(_:)``).
    private var lanes: [SIMD4<Float>]
    /// The lists four entries a group, for ``View/otherBound(_:entry:squared:root:)``: per
    /// entry `groups` groups of list distances, of indices, and of points by lanes (four
    /// `SIMD4`s a group: r, g, b, a), the last group padded with infinite distances.
    private var groupDistances: [SIMD4<Float>] = []
    private var groupIndices: [SIMD4<Int32>] = []
    private var groupLanes: [SIMD4<Float>] = []
    /// Groups of four per list.
    var groups: Int { (listLength + 3) / 4 }

    /// With `previous` (lists over the same number of entries, e.g. k-means' last build), only
    /// the colours no farther than the farthest of an entry's previous list members (now) are
    /// candidates for its new list: those members are that near, so the nearest `listLength`
    /// are among the candidates. The lists are the same as without it.
    init(palette: [Point], previous: NearestSearch? = nil) {
        self.palette = palette
        let n = palette.count
        let length = max(min(Self.maxListLength, n - 1), 0)
        listLength = length
        lanes = Self.lanes(palette)
        neighbours = [Neighbour](repeating: Neighbour(distance: 0, index: 0), count: n * length)
        beyond = [Float](repeating: .infinity, count: n)
        guard length > 0 else { return }
        var matrix = [Float](repeating: 0, count: n * n)
        var keys = [UInt64](repeating: 0, count: n)
        matrix.withUnsafeMutableBufferPointer { m in
            palette.withUnsafeBufferPointer { p in
                for i in 0 ..< n {
                    for j in i + 1 ..< n {
                        let d = Perceptual.distance(p[i], p[j])
                        m[i &* n &+ j] = d
                        m[j &* n &+ i] = d
                    }
                }
            }
        }
        let earlier = previous.flatMap { $0.palette.count == n && $0.listLength == length ? $0.neighbours : nil }
        matrix.withUnsafeBufferPointer { m in
            keys.withUnsafeMutableBufferPointer { key in
                neighbours.withUnsafeMutableBufferPointer { out in
                    // Per entry: keys (squared distance bits, then index: unique, and in the
                    // order of distance, then index), the smallest `length` selected, sorted.
                    for i in 0 ..< n {
                        var c = 0
                        let row = m.baseAddress! + i &* n
                        if let earlier, length < n &- 1 {
                            var limit: Float = 0
                            for x in 0 ..< length { limit = max(limit, row[Int(earlier[i &* length &+ x].index)]) }
                            for j in 0 ..< n where j != i {
                                key[c] = UInt64(row[j].bitPattern) << 32 | UInt64(j)
                                c &+= row[j] <= limit ? 1 : 0
                            }
                        } else {
                            for j in 0 ..< n where j != i {
                                key[c] = UInt64(row[j].bitPattern) << 32 | UInt64(j)
                                c &+= 1
                            }
                        }
                        let k = key.baseAddress!
                        // The first `length` keys sorted, then each later key below the
                        // last kept one inserted in order (few are, once the list fills
                        // with near entries; no branchy partition).
                        for x in 1 ..< length {
                            let v = k[x]
                            var y = x
                            while y > 0 && k[y - 1] > v { k[y] = k[y - 1]; y -= 1 }
                            k[y] = v
                        }
                        var x = length
                        while x < c {
                            let v = k[x]
                            if v < k[length &- 1] {
                                var y = length &- 1
                                while y > 0 && k[y &- 1] > v { k[y] = k[y &- 1]; y &-= 1 }
                                k[y] = v
                            }
                            x &+= 1
                        }
                        for x in 0 ..< length {
                            let d = Float(bitPattern: UInt32(truncatingIfNeeded: k[x] >> 32))
                            out[i &* length &+ x] = Neighbour(distance: d.squareRoot(),
                                                             index: Int32(truncatingIfNeeded: k[x] & 0xFFFF_FFFF))
                        }
                        if length < n &- 1 { beyond[i] = out[i &* length &+ length &- 1].distance }
                    }
                }
            }
        }
        let g = groups
        groupDistances = [SIMD4<Float>](repeating: SIMD4(repeating: .infinity), count: n * g)
        groupIndices = [SIMD4<Int32>](repeating: .zero, count: n * g)
        for k in 0 ..< n {
            for j in 0 ..< length {
                let nb = neighbours[k * length + j]
                groupDistances[k * g + j / 4][j % 4] = nb.distance
                groupIndices[k * g + j / 4][j % 4] = nb.index
            }
        }
        groupLanes = Self.groupLanes(palette, groupIndices, listLength: length)
    }

    /// The lists' points by lanes (see `groupLanes`), padded with points at infinity.
    static func groupLanes(_ palette: [Point], _ indices: [SIMD4<Int32>], listLength: Int) -> [SIMD4<Float>] {
        let n = palette.count, g = (listLength + 3) / 4
        var out = [SIMD4<Float>](repeating: SIMD4(repeating: .infinity), count: n * g * 4)
        for k in 0 ..< n {
            for j in 0 ..< listLength {
                let p = palette[Int(indices[k * g + j / 4][j % 4])]
                for lane in 0 ..< 4 { out[(k * g + j / 4) * 4 + lane][j % 4] = p[lane] }
            }
        }
        return out
    }

    /// The palette by lanes, four entries a group (`[r, g, b, a]` of entries 4g ..< 4g + 4),
    /// the last group padded with points at infinity (their distances are infinite, never
    /// nearest and never second).
    static func lanes(_ palette: [Point]) -> [SIMD4<Float>] {
        let groups = (palette.count + 3) / 4
        var out = [SIMD4<Float>](repeating: SIMD4<Float>(repeating: .infinity), count: groups * 4)
        for (k, p) in palette.enumerated() {
            for lane in 0 ..< 4 { out[(k / 4) * 4 + lane][k % 4] = p[lane] }
        }
        return out
    }

    /// The same lists over moved entries: `palette` is `self.palette` with each entry moved
    /// by at most `drift` (not squared). List distances may then be off by up to twice that,
    /// which the search allows for (``View/slack``); the lists keep their order.
    init(moving search: NearestSearch, to palette: [Point], drift: Float) {
        precondition(palette.count == search.palette.count)
        self.palette = palette
        listLength = search.listLength
        neighbours = search.neighbours
        beyond = search.beyond
        lanes = Self.lanes(palette)
        groupDistances = search.groupDistances
        groupIndices = search.groupIndices
        groupLanes = Self.groupLanes(palette, search.groupIndices, listLength: search.listLength)
        slack = search.slack + 2 * drift
    }

    /// How far list distances may be from the entries' true distances (0 when built for
    /// `palette`).
    private(set) var slack: Float = 0

    /// The index of the entry nearest `q` (lowest index among equals) and its squared distance.
    @inline(__always)
    func nearest(_ q: Point, guess: Int) -> (index: Int, distance: Float) {
        withView { $0.nearest(q, guess: guess) }
    }

    @inline(__always)
    func withView<R>(_ body: (View) -> R) -> R {
        palette.withUnsafeBufferPointer { p in
            neighbours.withUnsafeBufferPointer { nb in
                beyond.withUnsafeBufferPointer { b in
                    lanes.withUnsafeBufferPointer { l in
                        groupDistances.withUnsafeBufferPointer { gd in
                            groupIndices.withUnsafeBufferPointer { gi in
                                groupLanes.withUnsafeBufferPointer { gl in
                                    body(View(points: p.baseAddress!, neighbours: nb.baseAddress, beyond: b.baseAddress!,
                                              lanes: l.baseAddress!, groupDistances: gd.baseAddress,
                                              groupIndices: gi.baseAddress, groupLanes: gl.baseAddress,
                                              count: p.count, listLength: listLength, slack: slack))
                                }
                            }
                        }
                    }
                }
            }
        }
    }

    /// The search's arrays as pointers, for hot loops (valid inside ``withView(_:)`` only).
    struct View {
        let points: UnsafePointer<Point>
        let neighbours: UnsafePointer<Neighbour>?
        let beyond: UnsafePointer<Float>
        let lanes: UnsafePointer<SIMD4<Float>>
        let groupDistances: UnsafePointer<SIMD4<Float>>?
        let groupIndices: UnsafePointer<SIMD4<Int32>>?
        let groupLanes: UnsafePointer<SIMD4<Float>>?
        let count: Int
        let listLength: Int
        /// List distances may exceed true ones by this much (see ``init(moving:to:drift:)``).
        let slack: Float

        /// Entry `k`'s list (`listLength` entries, nearest first).
        @inline(__always)
        func list(_ k: Int) -> UnsafePointer<Neighbour> { neighbours.unsafelyUnwrapped + k &* listLength }

        /// As ``NearestSearch/nearest(_:guess:)``; `guess` must be in `0 ..< count`.
        @inline(__always)
        func nearest(_ q: Point, guess: Int) -> (index: Int, distance: Float) {
            // The common case first, on squares: `q` well inside the guess's cell (its
            // nearest neighbour farther than twice the distance, with the margin).
            let d = Perceptual.distance(q, points[guess])
            if listLength > 0 {
                let t = (neighbours.unsafelyUnwrapped[guess &* listLength].distance - slack - NearestSearch.tiny)
                    * (1 / (1 + NearestSearch.margin))
                if t > 0 && d < t * t { return (guess, d) }
            }
            return nearestGroups(q, guess: guess)
        }

        /// The walk of ``nearestTwo(_:guess:second:)`` without the second distance, four list
        /// entries a step: the stop test on a group's first (nearest) entry, then the four
        /// distances at once and one test for a better entry among them (lowest index among
        /// equals). Entries past the stop point inside a group are measured too, which
        /// changes nothing: the answer is the nearest entry either way.
        @inline(__always)
        func nearestGroups(_ q: Point, guess: Int) -> (index: Int, distance: Float) {
            var best = guess
            var bestD = Perceptual.distance(q, points[guess])
            let s = slack
            let qr = SIMD4<Float>(repeating: q[0]), qg = SIMD4<Float>(repeating: q[1])
            let qb = SIMD4<Float>(repeating: q[2]), qa = SIMD4<Float>(repeating: q[3])
            let groups = (listLength + 3) &>> 2
            var g = guess
            for _ in 0 ..< 3 {
                // The walk's origin is the best so far: `dq` is both its distance and the reach.
                let dq = bestD.squareRoot()
                var reach = dq
                var h = g &* groups
                let end = h &+ groups
                while h < end {
                    let dist = groupDistances.unsafelyUnwrapped[h]
                    if dist[0] - s - dq > reach * NearestSearch.margin + NearestSearch.tiny { return (best, bestD) }
                    let l = groupLanes.unsafelyUnwrapped + h &<< 2
                    let dr = qr - l[0], dg = qg - l[1], db = qb - l[2], da = qa - l[3]
                    // Summed in the order of `Perceptual.distance`, so equal to it bit for bit.
                    let d = dr * dr + dg * dg + db * db + da * da
                    let m = minLane(d)
                    if m <= bestD {
                        let at = groupIndices.unsafelyUnwrapped[h].replacing(with: .max, where: d .!= SIMD4(repeating: m))
                        let k = Int(min(min(at[0], at[1]), min(at[2], at[3])))
                        if m < bestD || k < best { best = k; bestD = m; reach = m.squareRoot() }
                    }
                    h &+= 1
                }
                if beyond[g] - s - dq > bestD.squareRoot() * NearestSearch.margin + NearestSearch.tiny {
                    return (best, bestD)
                }
                if best == g { break }
                g = best
            }
            let r = scan(q)
            return (r.index, r.distance)
        }

        /// The nearest entry, its squared distance and a lower bound on the distance (not
        /// squared) from `q` to every other entry. With `second` the walk goes on until that
        /// bound is the second-nearest distance (or the list ends), for k-means' bounds;
        /// without it the bound is only what the walk happened to see.
        @inline(__always)
        func nearestTwo(_ q: Point, guess: Int, second: Bool) -> (index: Int, distance: Float, other: Float) {
            var best = guess
            var bestD = Perceptual.distance(q, points[guess])
            var secondD = Float.infinity
            let s = slack
            // A walk that runs off its list with the best still in doubt starts again from the
            // best found, once or twice, before the scan of every entry.
            var g = guess
            for _ in 0 ..< 3 {
                let dq = bestD.squareRoot()
                var reach = dq   // the distance whose ball must be covered: best's, or second's
                if second { reach = max(reach, secondD.squareRoot()) }
                let list = neighbours.unsafelyUnwrapped + g &* listLength
                var j = 0
                while j < listLength {
                    let nb = list[j]
                    let low = nb.distance - s - dq   // no entry from here on is nearer than this
                    if low > reach * NearestSearch.margin + NearestSearch.tiny {
                        return (best, bestD, min(secondD.squareRoot(), low))
                    }
                    let k = Int(nb.index)
                    let d = Perceptual.distance(q, points[k])
                    if d < bestD || (d == bestD && k < best) {
                        if k != best { secondD = min(secondD, bestD) }
                        best = k; bestD = d
                        if !second { reach = d.squareRoot() }
                    } else if d < secondD && k != best {
                        secondD = d
                    }
                    if second { reach = secondD.squareRoot() }
                    j &+= 1
                }
                let low = beyond[g] - s - dq
                if low > bestD.squareRoot() * NearestSearch.margin + NearestSearch.tiny {
                    // No entry off the list beats the best (the second may be looser).
                    return (best, bestD, min(secondD.squareRoot(), low))
                }
                if best == g { break }
                g = best
            }
            return scan(q)
        }

        /// For k-means' bounds: `q`'s entry is `a`, at squared distance `du` (root `u`). A lower
        /// bound (not squared) on the distance from `q` to every other entry, or nil when `a`
        /// may not be the nearest (an entry nearer, or as near with a lower index, or a bound
        /// that does not clear `u` with the margin). Entries farther than `2u` from `a` (with
        /// the slack) are at least `|a - k| - u` from `q`, so only the prefix of `a`'s list
        /// within that reach is measured, four entries a step, without a branch per entry.
        @inline(__always)
        func otherBound(_ q: Point, entry a: Int, squared du: Float, root u: Float) -> Float? {
            let reach = SIMD4<Float>(repeating: 2 * u + slack)
            let qr = SIMD4<Float>(repeating: q[0]), qg = SIMD4<Float>(repeating: q[1])
            let qb = SIMD4<Float>(repeating: q[2]), qa = SIMD4<Float>(repeating: q[3])
            let duV = SIMD4<Float>(repeating: du), aV = SIMD4<Int32>(repeating: Int32(truncatingIfNeeded: a))
            let groups = (listLength + 3) &>> 2
            var g = a &* groups
            let end = g &+ groups
            var nearest = SIMD4<Float>(repeating: .infinity)
            var next = beyond[a]
            while g < end {
                let dist = groupDistances.unsafelyUnwrapped[g]
                let inside = dist .<= reach
                let l = groupLanes.unsafelyUnwrapped + g &<< 2
                let dr = qr - l[0], dg = qg - l[1], db = qb - l[2], da = qa - l[3]
                // Summed in the order of `Perceptual.distance`, so equal to it bit for bit.
                let d = dr * dr + dg * dg + db * db + da * da
                let tie = (d .== duV) .& (groupIndices.unsafelyUnwrapped[g] .< aV)
                if any(inside .& ((d .< duV) .| tie)) { return nil }
                nearest = nearest.replacing(with: d, where: inside .& (d .< nearest))
                if !all(inside) {
                    // Sorted: the first entry out of reach is the nearest of the rest.
                    next = min(next, minLane(dist.replacing(with: .infinity, where: inside)))
                    break
                }
                g &+= 1
            }
            let b = min(minLane(nearest).squareRoot(), next - slack - u)
            return b > u * NearestSearch.margin + NearestSearch.tiny ? b : nil
        }

        /// ``otherBound(_:entry:squared:root:)`` one list entry at a time (its twin, for tests).
        func otherBoundScalar(_ q: Point, entry a: Int, squared du: Float, root u: Float) -> Float? {
            let reach = 2 * u + slack
            let list = self.list(a)
            var nearest = Float.infinity
            var j = 0
            while j < listLength && list[j].distance <= reach {
                let k = Int(list[j].index)
                let d = Perceptual.distance(q, points[k])
                if d < du || (d == du && k < a) { return nil }
                nearest = min(nearest, d)
                j += 1
            }
            let b = min(nearest.squareRoot(), (j < listLength ? list[j].distance : beyond[a]) - slack - u)
            return b > u * NearestSearch.margin + NearestSearch.tiny ? b : nil
        }

        /// Every entry: the nearest (lowest index among equals), its squared distance and the
        /// second-smallest squared distance's root, four entries a step.
        @inline(__always)
        func scan(_ q: Point) -> (index: Int, distance: Float, other: Float) {
            let qr = SIMD4<Float>(repeating: q[0]), qg = SIMD4<Float>(repeating: q[1])
            let qb = SIMD4<Float>(repeating: q[2]), qa = SIMD4<Float>(repeating: q[3])
            var first = SIMD4<Float>(repeating: .infinity), second = first
            var index = SIMD4<Int32>.zero
            var at = SIMD4<Int32>(0, 1, 2, 3)
            var g = lanes
            let end = lanes + (count + 3) / 4 * 4
            while g < end {
                let dr = qr - g[0], dg = qg - g[1], db = qb - g[2], da = qa - g[3]
                // Summed in the order of `Perceptual.distance`, so equal to it bit for bit.
                let d = dr * dr + dg * dg + db * db + da * da
                let nearer = d .< first
                index.replace(with: at, where: nearer)
                // second = min(second, max(first, d)); first = min(first, d)
                second.replace(with: d, where: d .< second)
                second.replace(with: first, where: nearer)
                first.replace(with: d, where: nearer)
                at &+= 4
                g += 4
            }
            var lane = 0
            for l in 1 ..< 4 where first[l] < first[lane] || (first[l] == first[lane] && index[l] < index[lane]) { lane = l }
            var other = minLane(second)
            for l in 0 ..< 4 where l != lane { other = min(other, first[l]) }
            return (Int(index[lane]), first[lane], other.squareRoot())
        }

        /// ``scan(_:)`` one entry at a time (its twin, for tests).
        func scanScalar(_ q: Point) -> (index: Int, distance: Float, other: Float) {
            var best = 0, bestD = Float.infinity, secondD = Float.infinity
            for k in 0 ..< count {
                let d = Perceptual.distance(q, points[k])
                if d < bestD { secondD = bestD; best = k; bestD = d } else if d < secondD { secondD = d }
            }
            return (best, bestD, secondD.squareRoot())
        }
    }
}

/// The least lane (the generic `min()` reduction is not inlined).
@inline(__always)
func minLane(_ v: SIMD4<Float>) -> Float { min(min(v[0], v[1]), min(v[2], v[3])) }
