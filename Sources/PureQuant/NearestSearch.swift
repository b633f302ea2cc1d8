/// The nearest palette entry to a colour: a vantage-point tree over the palette, and a
/// shortcut for a guess (usually the previous pixel's entry).
///
/// Ties go to the lowest index, so the answer depends on the query alone, never on the guess
/// or the path through the tree: the same colour maps to the same index everywhere, in every
/// frame that shares the palette.
struct NearestSearch: Sendable {
    struct Node: Sendable {
        var vantage: Int32 = -1      // -1: a leaf
        var radius: Float = 0
        var near: Int32 = -1, far: Int32 = -1
        var leafStart: Int32 = 0, leafCount: Int32 = 0
    }

    let palette: [Point]
    private var nodes: [Node] = []
    private var leafItems: [Int32] = []
    /// For each entry, a quarter of the squared distance to its nearest other entry: a query
    /// closer than that (squared) to the entry has it as its one nearest.
    private var safeRadius: [Float]

    init(palette: [Point]) {
        self.palette = palette
        safeRadius = [Float](repeating: .infinity, count: palette.count)
        for i in palette.indices {
            var best = Float.infinity
            for j in palette.indices where j != i { best = min(best, Perceptual.distance(palette[i], palette[j])) }
            safeRadius[i] = best / 4
        }
        if !palette.isEmpty { _ = build(Array(0 ..< Int32(palette.count))) }
    }

    private mutating func build(_ items: [Int32]) -> Int32 {
        let index = Int32(nodes.count)
        nodes.append(Node())
        if items.count <= 6 {
            nodes[Int(index)].leafStart = Int32(leafItems.count)
            nodes[Int(index)].leafCount = Int32(items.count)
            leafItems.append(contentsOf: items)
            return index
        }
        // The vantage: the entry farthest from the items' mean (a corner of the set).
        var mean = Point()
        for i in items { mean += palette[Int(i)] }
        mean /= Float(items.count)
        var vantage = items[0]
        var far: Float = -1
        for i in items {
            let d = Perceptual.distance(palette[Int(i)], mean)
            if d > far { far = d; vantage = i }
        }
        let others = items.filter { $0 != vantage }
        let distances = others.map { Perceptual.distance(palette[Int($0)], palette[Int(vantage)]).squareRoot() }
        let radius = distances.sorted()[distances.count / 2]
        var nearItems: [Int32] = [], farItems: [Int32] = []
        for (k, i) in others.enumerated() {
            if distances[k] < radius { nearItems.append(i) } else { farItems.append(i) }
        }
        let nearNode = nearItems.isEmpty ? -1 : build(nearItems)
        let farNode = farItems.isEmpty ? -1 : build(farItems)
        nodes[Int(index)].vantage = vantage
        nodes[Int(index)].radius = radius
        nodes[Int(index)].near = nearNode
        nodes[Int(index)].far = farNode
        return index
    }

    /// The index of the entry nearest `q` (lowest index among equals) and its squared distance.
    @inline(__always)
    func nearest(_ q: Point, guess: Int) -> (index: Int, distance: Float) {
        let dg = Perceptual.distance(q, palette[guess])
        if dg < safeRadius[guess] { return (guess, dg) }
        var best = guess, bestD = dg
        nodes.withUnsafeBufferPointer { n in
            leafItems.withUnsafeBufferPointer { leaves in
                palette.withUnsafeBufferPointer { p in
                    Self.search(0, q, n, leaves, p, &best, &bestD)
                }
            }
        }
        return (best, bestD)
    }

    private static func search(_ node: Int, _ q: Point, _ nodes: UnsafeBufferPointer<Node>,
                               _ leaves: UnsafeBufferPointer<Int32>, _ p: UnsafeBufferPointer<Point>,
                               _ best: inout Int, _ bestD: inout Float) {
        let n = nodes[node]
        if n.vantage < 0 {
            for k in Int(n.leafStart) ..< Int(n.leafStart + n.leafCount) {
                let i = Int(leaves[k])
                let d = Perceptual.distance(q, p[i])
                if d < bestD || (d == bestD && i < best) { best = i; bestD = d }
            }
            return
        }
        let v = Int(n.vantage)
        let d2 = Perceptual.distance(q, p[v])
        if d2 < bestD || (d2 == bestD && v < best) { best = v; bestD = d2 }
        let d = d2.squareRoot()
        if d < n.radius {
            if n.near >= 0 { search(Int(n.near), q, nodes, leaves, p, &best, &bestD) }
            if n.far >= 0 && d + bestD.squareRoot() >= n.radius { search(Int(n.far), q, nodes, leaves, p, &best, &bestD) }
        } else {
            if n.far >= 0 { search(Int(n.far), q, nodes, leaves, p, &best, &bestD) }
            if n.near >= 0 && d - bestD.squareRoot() <= n.radius { search(Int(n.near), q, nodes, leaves, p, &best, &bestD) }
        }
    }
}
