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
                      mask: UnsafeBufferPointer<UInt8>?, importance: Bool) -> Histogram {
        let count = width * height
        precondition(pixels.count >= count && (mask?.count ?? count) >= count)
        var weights = [UInt8](repeating: 1, count: count)
        if importance {
            weights.withUnsafeMutableBufferPointer { w in
                ImportanceMap.compute(pixels: pixels, width: width, height: height, into: w)
            }
        }
        var bits = 0
        while true {
            let h = weights.withUnsafeBufferPointer { w in
                build(pixels: pixels, count: count, weights: w, mask: mask, ignoredBits: bits)
            }
            if let h { return h }
            bits += 1
        }
    }

    /// One pass; nil when the buckets pass ``maxBuckets`` (and `ignoredBits` can still grow).
    private static func build(pixels: UnsafeBufferPointer<UInt32>, count: Int, weights: UnsafeBufferPointer<UInt8>,
                              mask: UnsafeBufferPointer<UInt8>?, ignoredBits: Int) -> Histogram? {
        let keep = UInt32(truncatingIfNeeded: 0xFF << ignoredBits) & 0xFF
        let keyMask = keep << 24 | keep << 16 | keep << 8 | keep
        var table = ColorTable(capacity: 4096)
        var sums: [SIMD4<Double>] = []
        var totals: [Double] = []
        let gammaTable = Perceptual.gammaTable
        gammaTable.withUnsafeBufferPointer { gt in
            var lastColor: UInt32 = 0, lastSlot = -1, lastPoint = Point()
            for i in 0 ..< count {
                if let mask, mask[i] == 0 { continue }
                var c = UInt32(bigEndian: pixels[i])
                if c & 0xFF == 0 { c = 0 }
                if c != lastColor || lastSlot < 0 {
                    lastColor = c
                    lastPoint = Perceptual.point(c, gt)
                    let (slot, inserted) = table.insert(c & keyMask)
                    if inserted { sums.append(SIMD4<Double>()); totals.append(0) }
                    lastSlot = slot
                }
                let w = Double(weights[i])
                sums[lastSlot] += SIMD4<Double>(Double(lastPoint[0]), Double(lastPoint[1]),
                                                Double(lastPoint[2]), Double(lastPoint[3])) * w
                totals[lastSlot] += w
            }
        }
        if table.count > maxBuckets && ignoredBits < 6 { return nil }
        let order = table.keys.indices.sorted { table.keys[$0] < table.keys[$1] }
        var h = Histogram()
        h.ignoredBits = ignoredBits
        h.keys.reserveCapacity(order.count)
        h.points.reserveCapacity(order.count)
        h.weights.reserveCapacity(order.count)
        for k in order {
            let s = sums[k] / totals[k]
            h.keys.append(table.keys[k])
            h.points.append(Point(Float(s[0]), Float(s[1]), Float(s[2]), Float(s[3])))
            h.weights.append(Float(totals[k]))
        }
        return h
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
    static func compute(pixels: UnsafeBufferPointer<UInt32>, width: Int, height: Int,
                        into out: UnsafeMutableBufferPointer<UInt8>) {
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
        for y in 0 ..< height {
            let row = y * width
            for x in 0 ..< width {
                let c = pixels[row + x]
                var e = 0
                if x > 0 { e = max(e, diff(c, pixels[row + x - 1])) }
                if x + 1 < width { e = max(e, diff(c, pixels[row + x + 1])) }
                if y > 0 { e = max(e, diff(c, pixels[row - width + x])) }
                if y + 1 < height { e = max(e, diff(c, pixels[row + width + x])) }
                let t = 192 - min(e, 192)
                out[row + x] = UInt8(4 + (12 * t * t) / (192 * 192))
            }
        }
    }
}
