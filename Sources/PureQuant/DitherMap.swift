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
        Perceptual.gammaTable.withUnsafeBufferPointer { gt in
            var above = [Point](repeating: Point(), count: width)
            var row = [Point](repeating: Point(), count: width)
            var next = [Point](repeating: Point(), count: width)
            @inline(__always) func load(_ y: Int, _ out: inout [Point]) {
                for x in 0 ..< width {
                    var c = UInt32(bigEndian: pixels[y * width + x])
                    if c & 0xFF == 0 { c = 0 }
                    out[x] = Perceptual.point(c, gt) * unweight
                }
            }
            load(0, &row)
            above = row
            for y in 0 ..< height {
                if y + 1 < height { load(y + 1, &next) } else { next = row }
                for x in 0 ..< width {
                    let c = row[x]
                    let l = row[max(x - 1, 0)], r = row[min(x + 1, width - 1)]
                    let hd = l + r - c * 2, vd = above[x] + next[x] - c * 2
                    let h = absLanes(hd).max(), v = absLanes(vd).max()
                    let edge = max(h, v)
                    var z = 1 - max(edge - abs(h - v) * 0.5, min(h, v))
                    z = max(z, 0)
                    z *= z
                    z *= z
                    noise[y * width + x] = UInt8(min(85 + Int(z * 171), 255))
                    let e = 255 - Int(edge * 256)
                    edges[y * width + x] = UInt8(min(max(e, 0), 255))
                }
                swap(&above, &row)   // above = this row
                swap(&row, &next)    // row = the next row; `next` is reloaded at the top
            }
        }
        var tmp = [UInt8](repeating: 0, count: n)
        cross(noise, &tmp, width, height, max)
        cross(tmp, &noise, width, height, max)
        blur(&noise, &tmp, width, height, radius: 3)
        cross(noise, &tmp, width, height, max)
        cross(tmp, &noise, width, height, min)
        cross(noise, &tmp, width, height, min)
        cross(tmp, &noise, width, height, min)
        cross(edges, &tmp, width, height, min)
        cross(tmp, &edges, width, height, max)
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
    private static func cross(_ src: [UInt8], _ dst: inout [UInt8], _ width: Int, _ height: Int,
                              _ op: (UInt8, UInt8) -> UInt8) {
        for y in 0 ..< height {
            let up = max(y - 1, 0) * width, down = min(y + 1, height - 1) * width, base = y * width
            for x in 0 ..< width {
                let l = src[base + max(x - 1, 0)], r = src[base + min(x + 1, width - 1)]
                dst[base + x] = op(op(src[base + x], op(l, r)), op(src[up + x], src[down + x]))
            }
        }
    }

    /// Box blur over `2·radius + 1` samples, across then down (edges repeated), in place.
    private static func blur(_ data: inout [UInt8], _ tmp: inout [UInt8], _ width: Int, _ height: Int, radius: Int) {
        let span = 2 * radius + 1
        for y in 0 ..< height {
            let base = y * width
            var sum = 0
            for d in -radius ... radius { sum += Int(data[base + min(max(d, 0), width - 1)]) }
            for x in 0 ..< width {
                tmp[base + x] = UInt8(sum / span)
                sum += Int(data[base + min(x + radius + 1, width - 1)]) - Int(data[base + max(x - radius, 0)])
            }
        }
        for x in 0 ..< width {
            var sum = 0
            for d in -radius ... radius { sum += Int(tmp[min(max(d, 0), height - 1) * width + x]) }
            for y in 0 ..< height {
                data[y * width + x] = UInt8(sum / span)
                sum += Int(tmp[min(y + radius + 1, height - 1) * width + x]) - Int(tmp[max(y - radius, 0) * width + x])
            }
        }
    }
}
