/// libimagequant's dither map (written from its published description): how much of the
/// diffused error each pixel takes, 0...255.
///
/// 1. Contrast: per pixel the second difference across the row (`|left + right - 2·centre|`)
///    and down the column, each the largest over the four lanes (colour premultiplied with
///    gamma, alpha 0...1). `edge` is the larger of the two; `z = 1 - max(edge - |h - v|/2,
///    min(h, v))`, to the 4th power, gives a noise value `85 + 171·z` (flat 255, noise 85) and
///    the edge value `255 - 256·edge` (clamped).
/// 2. The noise map is grown twice (3x3 cross maximum), box-blurred, grown once and shrunk
///    three times (cross minimum), which drops thin lines from it; the edge map is shrunk and
///    grown once; the map is the smaller of the two.
/// 3. After a remap without dithering, each horizontal run of one index scores 10 per pixel
///    plus 15 per pixel above or below with the same index; every pixel of the run gets
///    `(map + 128)·255/383·(1 - 20/(20 + score))`. Long flat runs, where banding shows, get
///    the full error; edges and noise, which hide quantization, little.
enum DitherMap {
    /// The contrast map (step 1 and 2), or nil for images under 4 pixels across or down.
    static func contrast(pixels: [UInt32], width: Int, height: Int) -> [UInt8]? {
        guard width >= 4, height >= 4, pixels.count >= width * height else { return nil }
        let n = width * height
        var noise = [UInt8](repeating: 0, count: n)
        var edges = [UInt8](repeating: 0, count: n)
        let unweight = Point(1, 1, 1, 1) / Perceptual.weights
        // Three rows of points (above, this, below) in a ring.
        var rows = [Point](repeating: Point(), count: 3 * width)
        Perceptual.gammaTable.withUnsafeBufferPointer { gt in
        pixels.withUnsafeBufferPointer { px in
        rows.withUnsafeMutableBufferPointer { ring in
        noise.withUnsafeMutableBufferPointer { noise in
        edges.withUnsafeMutableBufferPointer { edges in
            let r = ring.baseAddress!
            @inline(__always) func load(_ y: Int, into out: UnsafeMutablePointer<Point>) {
                let src = px.baseAddress! + y &* width
                for x in 0 ..< width {
                    var c = UInt32(bigEndian: src[x])
                    if c & 0xFF == 0 { c = 0 }
                    out[x] = Perceptual.point(c, gt) * unweight
                }
            }
            // Row y lives in slot y % 3; the row above the first and below the last are
            // the row itself.
            load(0, into: r)
            for y in 0 ..< height {
                let row = r + (y % 3) &* width
                let above = y > 0 ? r + ((y - 1) % 3) &* width : row
                var next = row
                if y + 1 < height {
                    next = r + ((y + 1) % 3) &* width
                    load(y + 1, into: next)
                }
                let base = y &* width
                for x in 0 ..< width {
                    let c = row[x]
                    let l = row[x > 0 ? x &- 1 : 0], rr = row[x + 1 < width ? x &+ 1 : width &- 1]
                    let hd = l + rr - c * 2, vd = above[x] + next[x] - c * 2
                    let h = absLanes(hd).max(), v = absLanes(vd).max()
                    let edge = max(h, v)
                    var z = 1 - max(edge - abs(h - v) * 0.5, min(h, v))
                    z = max(z, 0)
                    z *= z
                    z *= z
                    noise[base &+ x] = UInt8(min(85 + Int(z * 171), 255))
                    let e = 255 - Int(edge * 256)
                    edges[base &+ x] = UInt8(min(max(e, 0), 255))
                }
            }
        } } } } }
        var tmp = [UInt8](repeating: 0, count: n)
        cross(noise, &tmp, width, height, max: true)
        cross(tmp, &noise, width, height, max: true)
        blur(&noise, &tmp, width, height, radius: 3)
        cross(noise, &tmp, width, height, max: true)
        cross(tmp, &noise, width, height, max: false)
        cross(noise, &tmp, width, height, max: false)
        cross(tmp, &noise, width, height, max: false)
        cross(edges, &tmp, width, height, max: false)
        cross(tmp, &edges, width, height, max: true)
        for i in 0 ..< n { edges[i] = min(edges[i], noise[i]) }
        return edges
    }

    /// Step 3: `map` (from `contrast`) turned into the dither map by the runs of `indices`
    /// (an undithered remap). Pixels outside `mask` neither form nor break runs' counts but
    /// take their value like any other.
    static func weighByRuns(_ map: inout [UInt8], indices: [UInt8], width: Int, height: Int) {
        guard map.count == width * height, indices.count == map.count else { return }
        for y in 0 ..< height {
            let base = y * width
            var start = 0
            while start < width {
                let k = indices[base + start]
                var end = start + 1
                while end < width && indices[base + end] == k { end += 1 }
                var score = 10 * (end - start)
                for x in start ..< end {
                    if y > 0 && indices[base - width + x] == k { score += 15 }
                    if y + 1 < height && indices[base + width + x] == k { score += 15 }
                }
                let f = (255.0 / 383.0) * (1 - 20 / (20 + Float(score)))
                for x in start ..< end {
                    map[base + x] = UInt8(min(Float(Int(map[base + x]) + 128) * f, 255))
                }
                start = end
            }
        }
    }

    /// 3x3 cross (centre and its four neighbours, edges repeated) maximum or minimum.
    private static func cross(_ src: [UInt8], _ dst: inout [UInt8], _ width: Int, _ height: Int, max: Bool) {
        if max { cross(src, &dst, width, height, Swift.max) } else { cross(src, &dst, width, height, Swift.min) }
    }

    @inline(__always)
    private static func cross(_ src: [UInt8], _ dst: inout [UInt8], _ width: Int, _ height: Int,
                              _ op: (UInt8, UInt8) -> UInt8) {
        guard src.count >= width * height, dst.count >= width * height, width >= 2 else { return }
        src.withUnsafeBufferPointer { s in
            dst.withUnsafeMutableBufferPointer { d in
                for y in 0 ..< height {
                    let row = s.baseAddress! + y &* width
                    let up = s.baseAddress! + Swift.max(y - 1, 0) &* width
                    let down = s.baseAddress! + Swift.min(y + 1, height - 1) &* width
                    let out = d.baseAddress! + y &* width
                    out[0] = op(op(row[0], op(row[0], row[1])), op(up[0], down[0]))
                    for x in 1 ..< width - 1 {
                        out[x] = op(op(row[x], op(row[x &- 1], row[x &+ 1])), op(up[x], down[x]))
                    }
                    let x = width - 1
                    out[x] = op(op(row[x], op(row[x - 1], row[x])), op(up[x], down[x]))
                }
            }
        }
    }

    /// Box blur over `2·radius + 1` samples, across then down (edges repeated), in place.
    private static func blur(_ data: inout [UInt8], _ tmp: inout [UInt8], _ width: Int, _ height: Int, radius: Int) {
        guard data.count >= width * height, tmp.count >= width * height else { return }
        let span = 2 * radius + 1
        data.withUnsafeMutableBufferPointer { dp in
            tmp.withUnsafeMutableBufferPointer { tp in
                let d = dp.baseAddress!, t = tp.baseAddress!
                for y in 0 ..< height {
                    let src = d + y &* width, out = t + y &* width
                    var sum = 0
                    for k in -radius ... radius { sum &+= Int(src[min(max(k, 0), width - 1)]) }
                    for x in 0 ..< width {
                        out[x] = UInt8(truncatingIfNeeded: sum / span)
                        sum &+= Int(src[min(x + radius + 1, width - 1)]) &- Int(src[max(x - radius, 0)])
                    }
                }
                // Down the columns, a row at a time: one running sum per column.
                var sums = [Int](repeating: 0, count: width)
                sums.withUnsafeMutableBufferPointer { sp in
                    let sums = sp.baseAddress!
                    for k in -radius ... radius {
                        let row = t + min(max(k, 0), height - 1) &* width
                        for x in 0 ..< width { sums[x] &+= Int(row[x]) }
                    }
                    for y in 0 ..< height {
                        let out = d + y &* width
                        let add = t + min(y + radius + 1, height - 1) &* width
                        let drop = t + max(y - radius, 0) &* width
                        for x in 0 ..< width {
                            out[x] = UInt8(truncatingIfNeeded: sums[x] / span)
                            sums[x] &+= Int(add[x]) &- Int(drop[x])
                        }
                    }
                }
            }
        }
    }
}
