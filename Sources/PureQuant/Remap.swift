/// Pixels to palette indices without error diffusion: nearest entry, or nearest after an
/// ordered (Bayer 8x8) offset. Every pixel depends on its own colour and position only, so
/// bands of 64 rows run on separate threads.
struct Remapper: Sendable {
    /// Palette colours as packed `r << 24 | g << 16 | b << 8 | a`.
    let colors: [UInt32]
    let points: [Point]
    let search: NearestSearch
    /// The opaque entries alone (nil when every entry is opaque or none is), for opaque
    /// pixels: an opaque pixel never takes a translucent entry.
    let opaqueSearch: NearestSearch?
    /// `opaqueSearch`'s indices in the palette.
    let opaqueIndices: [Int]
    /// Per palette index, its index in `opaqueSearch` (0 for an entry not opaque): where a
    /// search from that entry starts.
    let opaqueSlots: [Int]
    /// The first fully transparent entry, where every fully transparent pixel goes.
    let transparentIndex: Int?
    /// The median distance from an entry to its nearest neighbour: the scale of dithering.
    let spacing: Float
    /// The plain remap's colour caches, kept from one image to the next.
    let caches = RemapCaches()

    init(colors: [UInt32]) {
        self.colors = colors
        let points = Perceptual.gammaTable.withUnsafeBufferPointer { gt in colors.map { Perceptual.point($0, gt) } }
        self.points = points
        search = NearestSearch(palette: points)
        let opaque = colors.indices.filter { colors[$0] & 0xFF == 0xFF }
        opaqueIndices = opaque
        var slots = [Int](repeating: 0, count: colors.count)
        for (k, i) in opaque.enumerated() { slots[i] = k }
        opaqueSlots = slots
        opaqueSearch = opaque.isEmpty || opaque.count == colors.count ? nil : NearestSearch(palette: opaque.map { points[$0] })
        transparentIndex = colors.firstIndex { $0 & 0xFF == 0 }
        var nearest: [Float] = []
        for i in points.indices {
            var best = Float.infinity
            for j in points.indices where j != i { best = min(best, Perceptual.distance(points[i], points[j])) }
            if best.isFinite { nearest.append(best.squareRoot()) }
        }
        nearest.sort()
        spacing = nearest.isEmpty ? 0.05 : nearest[nearest.count / 2]
    }

    static let bandRows = 64
    /// Entries of the plain remap's colour cache (a power of two) and the hash shift for it.
    static let cacheSize = 1 << 14
    static let cacheShift: UInt32 = 18

    /// The least bound on a dithering error's square: libimagequant 4's, the error of
    /// quality 35 (its 2.x took 16/256, which let more error through: 0.07 dB PSNR and
    /// 0.0007 SSIM lower on the benchmark set).
    static let minimumDitherError = Float(QuantizationQuality.maximumError(forQuality: 35))

    /// Runs `body` with the searches' views (the opaque one nil when there is none).
    @inline(__always)
    func withViews<R>(_ body: (NearestSearch.View, NearestSearch.View?) -> R) -> R {
        search.withView { all in
            if let opaqueSearch { return opaqueSearch.withView { body(all, $0) } }
            return body(all, nil)
        }
    }

    /// The entry nearest `q` for a pixel whose source colour is `c`.
    @inline(__always)
    func nearest(_ q: Point, color c: UInt32, guess: Int, _ all: NearestSearch.View, _ opaque: NearestSearch.View?) -> Int {
        if c & 0xFF == 0xFF, let opaque {
            // The guess is a palette index; the opaque search wants its own.
            return opaqueIndices[opaque.nearest(q, guess: opaqueGuess(guess)).index]
        }
        return all.nearest(q, guess: guess).index
    }

    /// The opaque search's index for a palette index, in any palette order (a GIF palette
    /// may hold its transparent entry last: a guess of 0 there made most searches of a
    /// dithered frame run off their lists and scan every entry, 3.6x the remap's time on
    /// the mandelbrot clip).
    @inline(__always)
    private func opaqueGuess(_ paletteIndex: Int) -> Int { opaqueSlots[paletteIndex] }

    /// The 8x8 Bayer matrix, as thresholds in -0.5 ..< 0.5.
    static let bayer: [Float] = {
        let m: [Int] = [0, 32, 8, 40, 2, 34, 10, 42, 48, 16, 56, 24, 50, 18, 58, 26,
                        12, 44, 4, 36, 14, 46, 6, 38, 60, 28, 52, 20, 62, 30, 54, 22,
                        3, 35, 11, 43, 1, 33, 9, 41, 51, 19, 59, 27, 49, 17, 57, 25,
                        15, 47, 7, 39, 13, 45, 5, 37, 63, 31, 55, 23, 61, 29, 53, 21]
        return m.map { (Float($0) + 0.5) / 64 - 0.5 }
    }()

    /// Indices for `pixels` (RGBA8 in memory order as `UInt32`), the summed squared error and
    /// the number of pixels mapped; pixels whose `mask` byte is 0 get index 0 and no error.
    func remap(pixels: [UInt32], width: Int, height: Int, mask: [UInt8]?, ordered: Float,
               threads: Int) -> (indices: [UInt8], error: Double, mapped: Int) {
        let bands = (height + Self.bandRows - 1) / Self.bandRows
        let results = inPieces(bands, threads: threads) { band -> ([UInt8], Double, Int) in
            let y0 = band * Self.bandRows, y1 = min(height, y0 + Self.bandRows)
            var out = [UInt8](repeating: 0, count: (y1 - y0) * width)
            var error = 0.0, mapped = 0
            // Without an offset a pixel's entry depends on its colour alone: a direct-mapped
            // cache of colour, entry and squared distance (one band's alone while it runs,
            // kept for the next image: `RemapCaches`) saves the search and the error for
            // colours seen before.
            let cache = ordered == 0 ? caches.take() : RemapCaches.Cache.empty
            defer { if ordered == 0 { caches.give(cache) } }
            withViews { all, opaqueView in Perceptual.gammaTable.withUnsafeBufferPointer { gt in
            pixels.withUnsafeBufferPointer { px in out.withUnsafeMutableBufferPointer { out in
            cache.keys.withUnsafeMutableBufferPointer { cacheKeys in cache.errors.withUnsafeMutableBufferPointer { cacheErrors in
                var guess = 0
                for y in y0 ..< y1 {
                    let row = px.baseAddress! + y &* width
                    let o = out.baseAddress! + (y &- y0) &* width
                    for x in 0 ..< width {
                        if let mask, mask[y &* width &+ x] == 0 { continue }
                        mapped &+= 1
                        var c = UInt32(bigEndian: row[x])
                        if c & 0xFF == 0 { c = 0 }
                        if ordered == 0 {
                            let slot = Int(truncatingIfNeeded: (c &* 0x9E37_79B1) &>> Self.cacheShift)
                            let key = cacheKeys[slot]
                            if key >> 8 == UInt64(c) | 1 << 32 {
                                let k = Int(key & 0xFF)
                                o[x] = UInt8(truncatingIfNeeded: k)
                                error += Double(cacheErrors[slot])
                                guess = k
                                continue
                            }
                            let p = Perceptual.point(c, gt)
                            let k = c == 0 && transparentIndex != nil ? transparentIndex! : nearest(p, color: c, guess: guess, all, opaqueView)
                            let d = Perceptual.distance(p, points[k])
                            cacheKeys[slot] = (UInt64(c) | 1 << 32) << 8 | UInt64(k)
                            cacheErrors[slot] = d
                            guess = k
                            o[x] = UInt8(truncatingIfNeeded: k)
                            error += Double(d)
                            continue
                        }
                        let p = Perceptual.point(c, gt)
                        let k: Int
                        if c == 0, let t = transparentIndex {
                            k = t
                        } else {
                            let t = Self.bayer[(y & 7) << 3 | (x & 7)] * spacing * ordered
                            let alpha = p[3] / Perceptual.weights[3]
                            let q = p + Point(t, t, t, 0) * Perceptual.weights * alpha * 1.6
                            k = nearest(q, color: c, guess: guess, all, opaqueView)
                        }
                        guess = k
                        o[x] = UInt8(truncatingIfNeeded: k)
                        error += Double(Perceptual.distance(p, points[k]))
                    }
                }
            } } } } } }
            return (out, error, mapped)
        }
        var indices: [UInt8] = []
        indices.reserveCapacity(width * height)
        var error = 0.0, mapped = 0
        for (o, e, m) in results { indices.append(contentsOf: o); error += e; mapped += m }
        return (indices, error, mapped)
    }
}
