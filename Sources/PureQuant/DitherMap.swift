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
    /// Step 1 takes 8 pixels a step (`contrastStep`); `scalar` takes one at a time (the twin
    /// the tests compare it with: the same operations on the same values, so the same bytes).
    static func contrast(pixels: [UInt32], width: Int, height: Int, scalar: Bool = false) -> [UInt8]? {
        guard width >= 4, height >= 4, pixels.count >= width * height else { return nil }
        let n = width * height
        var noise = [UInt8](repeating: 0, count: n)
        var edges = [UInt8](repeating: 0, count: n)
        if scalar {
            contrastScalar(pixels, width, height, &noise, &edges)
        } else {
            contrastStep(pixels, width, height, &noise, &edges)
        }
        var tmp = [UInt8](repeating: 0, count: n)
        cross(noise, &tmp, width, height, max: true)
        cross(tmp, &noise, width, height, max: true)
        blur(&noise, &tmp, width, height)
        cross(noise, &tmp, width, height, max: true)
        cross(tmp, &noise, width, height, max: false)
        cross(noise, &tmp, width, height, max: false)
        cross(tmp, &noise, width, height, max: false)
        cross(edges, &tmp, width, height, max: false)
        cross(tmp, &edges, width, height, max: true)
        for i in 0 ..< n { edges[i] = min(edges[i], noise[i]) }
        return edges
    }

    /// Step 1 one pixel at a time, points as `SIMD4` lanes r, g, b, a.
    static func contrastScalar(_ pixels: [UInt32], _ width: Int, _ height: Int, _ noise: inout [UInt8], _ edges: inout [UInt8]) {
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
    }

    /// Step 1 eight pixels a step: each row as four planes (r, g, b, a) of `Float`, one
    /// repeated value at each end (and room for a last step's overrun), lanes `SIMD8<Float>`.
    static func contrastStep(_ pixels: [UInt32], _ width: Int, _ height: Int, _ noise: inout [UInt8], _ edges: inout [UInt8]) {
        let unweight = Point(1, 1, 1, 1) / Perceptual.weights
        let w = Perceptual.weights
        let stride = width + 2 + 8
        // Three rows (above, this, below) in a ring, each four planes of `stride` floats.
        var ring = [Float](repeating: 0, count: 3 * 4 * stride)
        Perceptual.gammaTable.withUnsafeBufferPointer { gt in
        pixels.withUnsafeBufferPointer { px in
        ring.withUnsafeMutableBufferPointer { ring in
        noise.withUnsafeMutableBufferPointer { noise in
        edges.withUnsafeMutableBufferPointer { edges in
            let r = ring.baseAddress!
            @inline(__always) func load(_ y: Int, into out: UnsafeMutablePointer<Float>) {
                let src = px.baseAddress! + y &* width
                let pr = out, pg = out + stride, pb = out + 2 &* stride, pa = out + 3 &* stride
                for x in 0 ..< width {
                    var c = UInt32(bigEndian: src[x])
                    if c & 0xFF == 0 { c = 0 }
                    // As `Perceptual.point(c, gt) * unweight`, lane by lane.
                    let a = Float(c & 0xFF) * (1 / 255)
                    pr[x &+ 1] = gt[Int(c &>> 24)] * w[0] * a * unweight[0]
                    pg[x &+ 1] = gt[Int((c &>> 16) & 0xFF)] * w[1] * a * unweight[1]
                    pb[x &+ 1] = gt[Int((c &>> 8) & 0xFF)] * w[2] * a * unweight[2]
                    pa[x &+ 1] = 1 * w[3] * a * unweight[3]
                }
                pr[0] = pr[1]; pr[width &+ 1] = pr[width]
                pg[0] = pg[1]; pg[width &+ 1] = pg[width]
                pb[0] = pb[1]; pb[width &+ 1] = pb[width]
                pa[0] = pa[1]; pa[width &+ 1] = pa[width]
            }
            @inline(__always) func lanes(_ p: UnsafeMutablePointer<Float>) -> SIMD8<Float> {
                UnsafeRawPointer(p).loadUnaligned(as: SIMD8<Float>.self)
            }
            @inline(__always) func magnitude(_ x: SIMD8<Float>) -> SIMD8<Float> { x.replacing(with: -x, where: x .< 0) }
            @inline(__always) func maximum(_ x: SIMD8<Float>, _ y: SIMD8<Float>) -> SIMD8<Float> { x.replacing(with: y, where: y .>= x) }
            @inline(__always) func minimum(_ x: SIMD8<Float>, _ y: SIMD8<Float>) -> SIMD8<Float> { x.replacing(with: y, where: y .< x) }
            let planes = 4 &* stride
            load(0, into: r)
            for y in 0 ..< height {
                let row = r + (y % 3) &* planes
                let above = y > 0 ? r + ((y - 1) % 3) &* planes : row
                var next = row
                if y + 1 < height {
                    next = r + ((y + 1) % 3) &* planes
                    load(y + 1, into: next)
                }
                let base = y &* width
                var x = 0
                while x < width {
                    var h = SIMD8<Float>(repeating: 0), v = h
                    for k in 0 ..< 4 {
                        let o = k &* stride &+ x
                        let c2 = lanes(row + (o &+ 1)) * 2
                        let hd = lanes(row + o) + lanes(row + (o &+ 2)) - c2
                        let vd = lanes(above + (o &+ 1)) + lanes(next + (o &+ 1)) - c2
                        h = k == 0 ? magnitude(hd) : maximum(h, magnitude(hd))
                        v = k == 0 ? magnitude(vd) : maximum(v, magnitude(vd))
                    }
                    let edge = maximum(h, v)
                    var z = 1 - maximum(edge - magnitude(h - v) * 0.5, minimum(h, v))
                    z = maximum(z, SIMD8<Float>(repeating: 0))
                    z *= z
                    z *= z
                    let zs = z * 171, es = edge * 256
                    @inline(__always) func store(_ i: Int) {
                        noise[base &+ x &+ i] = UInt8(truncatingIfNeeded: Swift.min(85 &+ Int32(zs[i]), 255))
                        let e = 255 &- Int32(Swift.min(es[i], 1024))
                        edges[base &+ x &+ i] = UInt8(truncatingIfNeeded: Swift.max(e, 0))
                    }
                    if x &+ 8 <= width {
                        store(0); store(1); store(2); store(3); store(4); store(5); store(6); store(7)
                    } else {
                        for i in 0 ..< width &- x { store(i) }
                    }
                    x &+= 8
                }
            }
        } } } } }
    }

    /// Step 3: `map` (from `contrast`) turned into the dither map by the runs of `indices`
    /// (an undithered remap). Pixels outside `mask` neither form nor break runs' counts but
    /// take their value like any other.
    static func weighByRuns(_ map: inout [UInt8], indices: [UInt8], width: Int, height: Int) {
        guard !map.isEmpty, map.count == width * height, indices.count == map.count else { return }
        map.withUnsafeMutableBufferPointer { mp in
            indices.withUnsafeBufferPointer { ip in
                let m = mp.baseAddress!, all = ip.baseAddress!
                for y in 0 ..< height {
                    let row = all + y &* width, out = m + y &* width
                    // A missing row above or below is the row itself, its matches worth 0.
                    let up = y > 0 ? row - width : row, upScore = y > 0 ? 15 : 0
                    let down = y + 1 < height ? row + width : row, downScore = y + 1 < height ? 15 : 0
                    var start = 0
                    while start < width {
                        let k = row[start]
                        var end = start
                        var score = 0
                        repeat {
                            score &+= 10 &+ (up[end] == k ? upScore : 0) &+ (down[end] == k ? downScore : 0)
                            end &+= 1
                        } while end < width && row[end] == k
                        let f = (255.0 / 383.0) * (1 - 20 / (20 + Float(score)))
                        for x in start ..< end {
                            let v = min(Float(Int(out[x]) &+ 128) * f, 255)
                            out[x] = UInt8(truncatingIfNeeded: Int32(v))
                        }
                        start = end
                    }
                }
            }
        }
    }

    /// 3x3 cross (centre and its four neighbours, edges repeated) maximum or minimum: 16
    /// pixels a step (`SIMD16<UInt8>`), the row's ends and the last few pixels one at a time
    /// (`crossScalar`, the twin the tests compare it with).
    static func cross(_ src: [UInt8], _ dst: inout [UInt8], _ width: Int, _ height: Int, max: Bool) {
        guard src.count >= width * height, dst.count >= width * height, width >= 2, height >= 1 else { return }
        src.withUnsafeBufferPointer { s in
            dst.withUnsafeMutableBufferPointer { d in
                for y in 0 ..< height {
                    let row = s.baseAddress! + y &* width
                    let up = s.baseAddress! + Swift.max(y - 1, 0) &* width
                    let down = s.baseAddress! + Swift.min(y + 1, height - 1) &* width
                    let out = d.baseAddress! + y &* width
                    var x = 1
                    while x &+ 16 <= width &- 1 {
                        @inline(__always) func load(_ p: UnsafePointer<UInt8>) -> SIMD16<UInt8> {
                            UnsafeRawPointer(p).loadUnaligned(as: SIMD16<UInt8>.self)
                        }
                        let c = load(row + x), l = load(row + (x &- 1)), r = load(row + (x &+ 1))
                        let u = load(up + x), w = load(down + x)
                        var v: SIMD16<UInt8>
                        if max {
                            v = c.replacing(with: l, where: l .> c)
                            v = v.replacing(with: r, where: r .> v)
                            v = v.replacing(with: u, where: u .> v)
                            v = v.replacing(with: w, where: w .> v)
                        } else {
                            v = c.replacing(with: l, where: l .< c)
                            v = v.replacing(with: r, where: r .< v)
                            v = v.replacing(with: u, where: u .< v)
                            v = v.replacing(with: w, where: w .< v)
                        }
                        UnsafeMutableRawPointer(out + x).storeBytes(of: v, as: SIMD16<UInt8>.self)
                        x &+= 16
                    }
                    crossScalar(row, up, down, out, from: x, width: width, max: max)
                    crossScalar(row, up, down, out, from: 0, to: 1, width: width, max: max)
                }
            }
        }
    }

    /// `cross` one pixel at a time over `from ..< to` of one row (every pixel to the end by
    /// default).
    @inline(__always)
    static func crossScalar(_ row: UnsafePointer<UInt8>, _ up: UnsafePointer<UInt8>, _ down: UnsafePointer<UInt8>,
                            _ out: UnsafeMutablePointer<UInt8>, from: Int, to: Int? = nil, width: Int, max: Bool) {
        let op: (UInt8, UInt8) -> UInt8 = max ? { Swift.max($0, $1) } : { Swift.min($0, $1) }
        for x in from ..< (to ?? width) {
            let l = row[x > 0 ? x - 1 : 0], r = row[x + 1 < width ? x + 1 : width - 1]
            out[x] = op(op(row[x], op(l, r)), op(up[x], down[x]))
        }
    }

    /// `cross` one pixel at a time: the reference for the SIMD steps.
    static func crossReference(_ src: [UInt8], _ dst: inout [UInt8], _ width: Int, _ height: Int, max: Bool) {
        guard src.count >= width * height, dst.count >= width * height, width >= 2, height >= 1 else { return }
        src.withUnsafeBufferPointer { s in
            dst.withUnsafeMutableBufferPointer { d in
                for y in 0 ..< height {
                    crossScalar(s.baseAddress! + y * width, s.baseAddress! + Swift.max(y - 1, 0) * width,
                                s.baseAddress! + Swift.min(y + 1, height - 1) * width, d.baseAddress! + y * width,
                                from: 0, width: width, max: max)
                }
            }
        }
    }

    /// Box blur over 7 samples (radius 3), across then down (edges repeated), in place:
    /// running sums in `Int32`, divided by the constant 7, so the compiler vectorizes the
    /// pass down the columns.
    private static func blur(_ data: inout [UInt8], _ tmp: inout [UInt8], _ width: Int, _ height: Int) {
        guard width > 0, height > 0, data.count >= width * height, tmp.count >= width * height else { return }
        let radius = 3
        data.withUnsafeMutableBufferPointer { dp in
            tmp.withUnsafeMutableBufferPointer { tp in
                let d = dp.baseAddress!, t = tp.baseAddress!
                for y in 0 ..< height {
                    let src = d + y &* width, out = t + y &* width
                    var sum: Int32 = 0
                    for k in -radius ... radius { sum &+= Int32(src[min(max(k, 0), width - 1)]) }
                    for x in 0 ..< width {
                        out[x] = UInt8(truncatingIfNeeded: sum / 7)
                        sum &+= Int32(src[min(x + radius + 1, width - 1)]) &- Int32(src[max(x - radius, 0)])
                    }
                }
                // Down the columns, a row at a time: one running sum per column.
                var sums = [Int32](repeating: 0, count: width)
                sums.withUnsafeMutableBufferPointer { sp in
                    let sums = sp.baseAddress!
                    for k in -radius ... radius {
                        let row = t + min(max(k, 0), height - 1) &* width
                        for x in 0 ..< width { sums[x] &+= Int32(row[x]) }
                    }
                    for y in 0 ..< height {
                        let out = d + y &* width
                        let add = t + min(y + radius + 1, height - 1) &* width
                        let drop = t + max(y - radius, 0) &* width
                        for x in 0 ..< width {
                            out[x] = UInt8(truncatingIfNeeded: sums[x] / 7)
                            sums[x] &+= Int32(add[x]) &- Int32(drop[x])
                        }
                    }
                }
            }
        }
    }
}
