import ImageCore

/// The distinct colours of an image with their weights: the quantizer works on these, not on
/// pixels.
///
/// Each pixel counts with a weight from the importance map (1 to 16: flat areas high, edges
/// and noise low). Fully transparent pixels are one colour (packed 0) whatever their RGB.
/// When an image has more distinct colours than the quantizer needs to see, the histogram is
/// built again with low bits of every sample ignored (libimagequant's `ignorebits`): each
/// bucket keeps the weighted mean of the colours that fell in it, so its point is exact.
struct Histogram: Sendable {
    /// The bucket keys (colours with the ignored bits cleared), ascending.
    var keys: [UInt32] = []
    /// The weighted mean colour of each bucket.
    var points: [Point] = []
    /// Each bucket's total weight.
    var weights: [Float] = []
    /// Low bits ignored per sample (0: `keys` are the exact colours).
    var ignoredBits = 0

    var count: Int { keys.count }

    /// Buckets above this count are merged by ignoring one more bit per sample.
    static let maxBuckets = 1 << 17

    /// The histogram of `pixels` (RGBA8 bytes as `UInt32` in memory order, `width * height`);
    /// pixels whose `mask` byte is 0 are left out.
    static func build(pixels: UnsafeBufferPointer<UInt32>, width: Int, height: Int,
                      mask: UnsafeBufferPointer<UInt8>?, importance: Bool, threads: Int = 1) -> Histogram {
        let count = width * height
        precondition(pixels.count >= count && (mask?.count ?? count) >= count)
        var weights = [UInt8](repeating: 1, count: count)
        if importance {
            weights.withUnsafeMutableBufferPointer { w in
                ImportanceMap.compute(pixels: pixels, width: width, height: height, into: w, threads: threads)
            }
        }
        // One pass over the pixels for the exact colours and their weights; merging by
        // ignored bits then works on the colours, not the pixels.
        var table = ColorTable(capacity: 4096)
        var totals: [Double] = []
        weights.withUnsafeBufferPointer { w in
            var lastColor: UInt32 = 0, lastSlot = -1
            for i in 0 ..< count {
                if let mask, mask[i] == 0 { continue }
                var c = UInt32(bigEndian: pixels[i])
                if c & 0xFF == 0 { c = 0 }
                if c != lastColor || lastSlot < 0 {
                    let (slot, inserted) = table.insert(c)
                    if inserted { totals.append(0) }
                    lastColor = c
                    lastSlot = slot
                }
                totals[lastSlot] += Double(w[i])
            }
        }
        var bits = 0
        while true {
            if let h = merged(table.keys, totals, ignoredBits: bits) { return h }
            bits += 1
        }
    }

    /// The buckets of `colours` (with their weights `totals`) with `ignoredBits` low bits of
    /// each sample cleared, keys ascending; nil when there would be more than ``maxBuckets``
    /// and bits can still grow (up to 6).
    private static func merged(_ colours: [UInt32], _ totals: [Double], ignoredBits: Int) -> Histogram? {
        let keep = UInt32(truncatingIfNeeded: 0xFF << ignoredBits) & 0xFF
        let keyMask = keep << 24 | keep << 16 | keep << 8 | keep
        var h = Histogram()
        h.ignoredBits = ignoredBits
        if ignoredBits == 0 {
            if colours.count > maxBuckets { return nil }
            let order = sortedOrder(colours)
            h.keys = order.map { colours[$0] }
            h.weights = order.map { Float(totals[$0]) }
            h.points = Perceptual.gammaTable.withUnsafeBufferPointer { gt in h.keys.map { Perceptual.point($0, gt) } }
            return h
        }
        var table = ColorTable(capacity: colours.count / 2)
        var sums: [SIMD4<Double>] = []
        var weights: [Double] = []
        Perceptual.gammaTable.withUnsafeBufferPointer { gt in
            for (c, w) in zip(colours, totals) {
                let (slot, inserted) = table.insert(c & keyMask)
                if inserted { sums.append(SIMD4<Double>()); weights.append(0) }
                let p = Perceptual.point(c, gt)
                sums[slot] += SIMD4<Double>(Double(p[0]), Double(p[1]), Double(p[2]), Double(p[3])) * w
                weights[slot] += w
            }
        }
        if table.count > maxBuckets && ignoredBits < 6 { return nil }
        let order = sortedOrder(table.keys)
        h.keys = order.map { table.keys[$0] }
        h.weights = order.map { Float(weights[$0]) }
        h.points = order.map {
            let m = sums[$0] / weights[$0]
            return Point(Float(m[0]), Float(m[1]), Float(m[2]), Float(m[3]))
        }
        return h
    }

    /// The indices of `keys` (distinct) in ascending key order.
    private static func sortedOrder(_ keys: [UInt32]) -> [Int] {
        var packed = keys.enumerated().map { UInt64($0.element) << 32 | UInt64($0.offset) }
        packed.sort()
        return packed.map { Int($0 & 0xFFFF_FFFF) }
    }
}

/// Open addressing from a packed colour to a dense index (insertion order).
struct ColorTable {
    private var slots: [Int32]
    private var mask: Int
    private(set) var keys: [UInt32] = []

    init(capacity: Int) {
        var size = 16
        while size < capacity * 2 { size <<= 1 }
        slots = [Int32](repeating: -1, count: size)
        mask = size - 1
    }

    var count: Int { keys.count }

    @inline(__always)
    private static func hash(_ key: UInt32) -> Int { Int((key &* 0x9E37_79B1) &>> 7) }

    /// The dense index of `key` and whether it was added now.
    @inline(__always)
    mutating func insert(_ key: UInt32) -> (Int, Bool) {
        var s = Self.hash(key) & mask
        while true {
            let e = slots[s]
            if e < 0 { break }
            if keys[Int(e)] == key { return (Int(e), false) }
            s = (s &+ 1) & mask
        }
        slots[s] = Int32(keys.count)
        keys.append(key)
        if keys.count * 2 > slots.count { grow() }
        return (keys.count - 1, true)
    }

    /// The dense index of `key`, or nil.
    @inline(__always)
    func find(_ key: UInt32) -> Int? {
        var s = Self.hash(key) & mask
        while true {
            let e = slots[s]
            if e < 0 { return nil }
            if keys[Int(e)] == key { return Int(e) }
            s = (s &+ 1) & mask
        }
    }

    private mutating func grow() {
        let size = slots.count * 2
        slots = [Int32](repeating: -1, count: size)
        mask = size - 1
        for (i, key) in keys.enumerated() {
            var s = Self.hash(key) & mask
            while slots[s] >= 0 { s = (s &+ 1) & mask }
            slots[s] = Int32(i)
        }
    }
}

/// Per-pixel weights: libimagequant's idea that errors hide in texture and show in flat
/// areas. A pixel's edge strength is the largest difference (sum over RGBA of absolute
/// differences) to its four neighbours; the weight falls from 16 (flat) to 4 (edge or noise).
enum ImportanceMap {
    /// Each output row depends on the input rows above, at and below it only, so with more
    /// than one thread the rows are split in two: the lower half on a `ThreadWork`.
    static func compute(pixels: UnsafeBufferPointer<UInt32>, width: Int, height: Int,
                        into out: UnsafeMutableBufferPointer<UInt8>, threads: Int = 1) {
        guard width > 0, height > 0, pixels.count >= width * height, out.count >= width * height else { return }
        guard threads > 1, height >= 128, width * height >= 65_536 else {
            compute(pixels: pixels, width: width, height: height, rows: 0 ..< height, into: out)
            return
        }
        let half = height / 2
        let shared = SharedBuffers(pixels: pixels, out: out)
        let lower = ThreadWork {
            compute(pixels: shared.pixels, width: width, height: height, rows: half ..< height, into: shared.out)
        }
        compute(pixels: pixels, width: width, height: height, rows: 0 ..< half, into: out)
        lower.value()
    }

    /// The input and output buffers for the thread that makes the lower rows (it writes rows
    /// the caller does not touch, and the caller waits for it).
    private struct SharedBuffers: @unchecked Sendable {
        let pixels: UnsafeBufferPointer<UInt32>
        let out: UnsafeMutableBufferPointer<UInt8>
    }

    /// Output `rows` of the map.
    static func compute(pixels: UnsafeBufferPointer<UInt32>, width: Int, height: Int, rows: Range<Int>,
                        into out: UnsafeMutableBufferPointer<UInt8>) {
        /// Sum over the four bytes of the absolute differences.
        @inline(__always) func diff(_ x: UInt32, _ y: UInt32) -> Int {
            var d = 0
            var s: UInt32 = 0
            while s < 32 {
                let a = Int((x &>> s) & 0xFF), b = Int((y &>> s) & 0xFF)
                d &+= a > b ? a &- b : b &- a
                s &+= 8
            }
            return d
        }
        // Each difference is taken once: `across[x]` between x and x + 1 on this row,
        // `down[x]` between this row and the next (`up` holds the previous row's).
        var across = [Int](repeating: 0, count: width + 1)
        var down = [Int](repeating: 0, count: width)
        var up = [Int](repeating: 0, count: width)
        across.withUnsafeMutableBufferPointer { ac in
        down.withUnsafeMutableBufferPointer { dn in
        up.withUnsafeMutableBufferPointer { upp in
            var dn = dn.baseAddress!, up = upp.baseAddress!
            let ac = ac.baseAddress!
            let px = pixels.baseAddress!
            if rows.lowerBound > 0 {
                // The differences between the row above the first and the first.
                let above = px + (rows.lowerBound - 1) &* width
                for x in 0 ..< width { up[x] = diff(above[x], above[x &+ width]) }
            }
            for y in rows {
                let row = px + y &* width
                for x in 0 ..< width - 1 { ac[x + 1] = diff(row[x], row[x &+ 1]) }
                ac[0] = 0; ac[width] = 0
                if y + 1 < height {
                    let next = row + width
                    for x in 0 ..< width { dn[x] = diff(row[x], next[x]) }
                } else {
                    for x in 0 ..< width { dn[x] = 0 }
                }
                if y == 0 { for x in 0 ..< width { up[x] = 0 } }
                let o = out.baseAddress! + y &* width
                for x in 0 ..< width {
                    let e = max(max(ac[x], ac[x &+ 1]), max(up[x], dn[x]))
                    let t = 192 - min(e, 192)
                    o[x] = UInt8(truncatingIfNeeded: 4 + (12 * t * t) / (192 * 192))
                }
                swap(&dn, &up)
            }
        } } }
    }
}
