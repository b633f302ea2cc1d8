/// A LUT-based source's whole chain to the destination, precomputed once as a device link
/// (as lcms2's optimiser does): a grid over the source device space (33^3 for RGB, 17^4 for
/// CMYK) holding the destination's encoded values, not clipped (see `LUTSource.destination`),
/// in 1/16384 steps (`scale`) as `Int16`, three lanes a node (R, G, B). Pixels are
/// interpolated in it: tetrahedral for 3 inputs; for 4, tetrahedral in the two slices around
/// the first input (C), blended linearly along it; then clipped to [0, 1] and rounded to 8 bits
/// through the 16-bit code (as lcms2 rounds).
///
/// Each 8-bit input gives a node offset and a weight in 1/32768 (`cells`); the four tetrahedron
/// corners are weighted by non-negative weights summing to 32768. For 3 inputs the sums are
/// integer (node values fit `Int16`, +-2 full scales, so they stay inside `Int32`); for 4 they
/// are `Float` (`scalar4`: SSE2 has no 32-bit integer lane multiply).
final class DeviceLink: Sendable {
    /// Weight of a whole cell step.
    static let one: Int32 = 1 << 15
    /// Node values: full scale (linear 1.0) is 16384.
    static let scale: Int32 = 1 << 14
    /// `Int16` lanes a node: R, G, B, packed (6 bytes a node; the SIMD kernels load four lanes
    /// and ignore the fourth, the next node's R).
    static let lanes: Int32 = 3
    /// Linear [0, 1] in 1/16384 steps to the 8-bit code (as `Tables8.encode`).
    let encode: [UInt8]
    /// The same steps to the 16-bit code (16-bit pixels; RGB links only, empty for CMYK).
    /// `encode` is these codes reduced as lcms2 reduces 16 bits to 8.
    let encode16: [UInt16]
    /// Grid points a dimension.
    let points: Int
    /// Input channels: 3 or 4.
    let inputs: Int
    /// Node `(i0, i1, ...)` at `sum(i_k * strides[k])`: lanes R, G, B as `Int16` (the last
    /// input varies fastest for 3 inputs, the first for 4), then one lane of padding
    /// (6 bytes a node: a 17^4 CMYK link is 501 KB, 21^4 1.2 MB, so more of it stays in cache
    /// for random pixels). Values are clamped to [-2, 2) full scales.
    let grid: [Int16]
    /// For each input channel and 8-bit value: the lane offset of the cell's first node and the
    /// weight of the next node (0...32768). Channel c at `c * 256 + v`. `inverted` holds the
    /// same for `255 - v` (CMYK stored with 255 = no ink).
    let cells: [SIMD2<Int32>]
    let invertedCells: [SIMD2<Int32>]
    /// Lane offsets of one step along each input.
    let strides: [Int32]

    /// Builds the link. When the LUT starts with curves they stay out of the grid (lcms2's
    /// pre-linearisation): the grid covers the CLUT's input space, the curves go into the
    /// per-value cell tables, and the grid size is raised to a multiple of the CLUT's cells
    /// (`(g - 1) * k + 1`, at most `maximumPoints`) so every CLUT node is a grid node.
    init(source: LUTSource, points defaultPoints: Int, maximumPoints: Int, prelinearize: Bool) {
        let inputs = source.lut.inputChannels
        let leading = prelinearize ? source.lut.leadingCurves : nil
        var points = defaultPoints
        var clutPoints = leading?.gridPoints
        if case .clut(let grid, _, _) = source.lut.stages.first, grid.allSatisfy({ $0 == grid[0] }) { clutPoints = grid[0] }
        if let g = clutPoints, g >= 2 {
            let aligned = (g - 1) * ((defaultPoints - 1 + g - 2) / (g - 1)) + 1
            if aligned <= maximumPoints { points = aligned }
        }
        self.points = points
        self.inputs = inputs
        var strides = [Int32](repeating: Self.lanes, count: inputs)
        if inputs == 4 {
            // The first input (C), blended linearly between the tetrahedral lookups of its two
            // slices, varies fastest: a corner's two slice nodes sit 6 bytes apart, so a
            // pixel's eight node reads touch about four cache lines instead of eight.
            for i in 1 ..< inputs { strides[i] = strides[i - 1] * Int32(points) }
        } else {
            for i in stride(from: inputs - 2, through: 0, by: -1) { strides[i] = strides[i + 1] * Int32(points) }
        }
        self.strides = strides
        var nodes = 1
        for _ in 0 ..< inputs { nodes *= points }
        // One lane of padding: a SIMD kernel loads four lanes at the last node.
        var grid = [Int16](repeating: 0, count: nodes * Int(Self.lanes) + 1)
        let levels = (0 ..< points).map { Double(ICCLut.quantize(Double($0) / Double(points - 1))) / 65535 }
        var index = [Int](repeating: 0, count: inputs)
        var input = [Double](repeating: 0, count: inputs)
        for node in 0 ..< nodes {
            for k in 0 ..< inputs {
                index[k] = node / Int(strides[k] / Self.lanes) % points
                input[k] = levels[index[k]]
            }
            let out = source.destination(input, encoded: false, from: leading == nil ? 0 : 1)
            for c in 0 ..< 3 {
                let v = (out[c].isFinite ? out[c] : 0) * Double(Self.scale)
                grid[node * Int(Self.lanes) + c] = Int16(min(max(v.rounded(), -32768), 32767))
            }
        }
        self.grid = grid
        let codes = (0 ... Int(Self.scale)).map { ColorTransform.encode16(Double($0) / Double(Self.scale)) }
        encode = codes.map(ColorTransform.to8)
        encode16 = inputs == 3 && leading == nil ? codes : []
        func cells(inverted: Bool) -> [SIMD2<Int32>] {
            var table = [SIMD2<Int32>](repeating: .zero, count: inputs * 256)
            for c in 0 ..< inputs {
                for v in 0 ..< 256 {
                    let value = inverted ? 255 - v : v
                    // Position on the grid in 1/32768 of a cell: the 8-bit value, or the
                    // leading curve's 16-bit output for it (the code lcms2's CLUT stage sees).
                    let code = leading.map { Int(ICCLut.quantize(ICCLut.evaluate($0.curves[c], Double(value) / 255))) }
                    let position = code.map { ($0 * (points - 1) * Int(Self.one) + 32767) / 65535 }
                        ?? (value * (points - 1) * Int(Self.one) + 127) / 255
                    var cell = position >> 15, weight = Int32(position & (Int(Self.one) - 1))
                    if cell == points - 1 {
                        cell -= 1
                        weight = Self.one
                    }
                    table[c * 256 + v] = SIMD2(Int32(cell) * strides[c], weight)
                }
            }
            return table
        }
        self.cells = cells(inverted: false)
        invertedCells = cells(inverted: true)
    }

    /// The corners after the first of the tetrahedron holding fractions (rx, ry, rz) along
    /// strides (sx, sy, sz), and the four corner weights (summing to `one`).
    ///
    /// The tetrahedron follows the fractions sorted, largest first: weights (one - hi, hi - mid,
    /// mid - lo, lo), the second corner one step along the largest fraction's axis, the third
    /// one step along every axis but the smallest's. Selects instead of the six-way branch
    /// (which mispredicts on pixels unlike their neighbours). On ties either axis gives the same
    /// value, the corner between them weighing 0; the largest's axis is taken in x, y, z order
    /// and the smallest's in z, y, x order, so the two are never the same axis.
    @inline(__always)
    static func tetrahedron(_ rx: Int32, _ ry: Int32, _ rz: Int32, _ sx: Int32, _ sy: Int32, _ sz: Int32)
        -> (n1: Int, n2: Int, w: SIMD4<Int32>) {
        let hi = max(rx, max(ry, rz)), lo = min(rx, min(ry, rz))
        let mid = rx &+ ry &+ rz &- hi &- lo
        let n1 = rx == hi ? sx : (ry == hi ? sy : sz)
        let nLo = rz == lo ? sz : (ry == lo ? sy : sx)
        let n2 = sx &+ sy &+ sz &- nLo
        return (Int(n1), Int(n2), SIMD4(one &- hi, hi &- mid, mid &- lo, lo))
    }

    /// An interpolated value (full scale 8192) clipped, to the 16-bit code, then to 8 bits as
    /// lcms2 reduces 16-bit codes (round(v / 257)).
    @inline(__always) static func to8(_ v: Int32, _ encode: UnsafePointer<UInt8>) -> UInt8 {
        encode[Int(v > 0 ? (v < scale ? v : scale) : 0)]
    }

    // MARK: - Scalar kernels

    /// 8-bit, 3 inputs: `count` pixels of `inStep` bytes (R, G, B first) to pixels of `outStep`
    /// bytes (R, G, B first; a fourth output byte is copied from the input's fourth when both
    /// steps are 4).
    static func scalar3(_ input: UnsafePointer<UInt8>, _ inStep: Int, _ output: UnsafeMutablePointer<UInt8>,
                        _ outStep: Int, _ count: Int, _ grid: UnsafePointer<Int16>, _ cells: UnsafePointer<SIMD2<Int32>>,
                        _ strides: (Int32, Int32, Int32), _ encode: UnsafePointer<UInt8>) {
        let half: Int32 = one >> 1
        var i = 0, o = 0
        for _ in 0 ..< count {
            let a = cells[Int(input[i])], b = cells[256 + Int(input[i + 1])], c = cells[512 + Int(input[i + 2])]
            let alpha = input[i + 3 < i + inStep ? i + 3 : i]
            let t = tetrahedron(a.y, b.y, c.y, strides.0, strides.1, strides.2)
            let base = grid + Int(a.x &+ b.x &+ c.x)
            let n3 = Int(strides.0 &+ strides.1 &+ strides.2)
            for lane in 0 ..< 3 {
                var sum = t.w.x &* Int32(base[lane]) &+ t.w.y &* Int32(base[t.n1 + lane])
                sum = sum &+ t.w.z &* Int32(base[t.n2 + lane]) &+ t.w.w &* Int32(base[n3 + lane])
                output[o + lane] = to8((sum &+ half) &>> 15, encode)
            }
            if outStep == 4 { output[o + 3] = inStep == 4 ? alpha : 255 }
            i += inStep
            o += outStep
        }
    }

    /// Adding this to a float of magnitude under 2^22 leaves the nearest integer (ties to even)
    /// in its low mantissa bits: `(x + magic).bitPattern - magic.bitPattern`.
    static let magic: Float = 12_582_912

    /// 8-bit, 4 inputs (CMYK, 4 bytes a pixel) to pixels of `outStep` bytes (R, G, B, then 255).
    /// In `Float`: each slice's four corners weighted (weights in 1/32768, exact as floats), the
    /// two slices blended along C, rounded to the node scale. Products of an `Int16` node and a
    /// 15-bit weight are within 2^-9 of exact, so the result is the integer interpolation's to
    /// within 0.01 of a node step; SSE2 multiplies four float lanes natively, where `Int32` lanes
    /// take two `pmuludq` and three shuffles. The SIMD twin does the same operations in the same
    /// order, lane by lane, so the bytes are identical.
    static func scalar4(_ input: UnsafePointer<UInt8>, _ output: UnsafeMutablePointer<UInt8>, _ outStep: Int,
                        _ count: Int, _ grid: UnsafePointer<Int16>, _ cells: UnsafePointer<SIMD2<Int32>>,
                        _ strides: (Int32, Int32, Int32, Int32), _ encode: UnsafePointer<UInt8>) {
        let unit: Float = 1 / Float(one)
        var i = 0, o = 0
        for _ in 0 ..< count {
            let k = cells[Int(input[i])], a = cells[256 + Int(input[i + 1])]
            let b = cells[512 + Int(input[i + 2])], c = cells[768 + Int(input[i + 3])]
            let t = tetrahedron(a.y, b.y, c.y, strides.1, strides.2, strides.3)
            let n3 = Int(strides.1 &+ strides.2 &+ strides.3)
            let low = grid + Int(k.x &+ a.x &+ b.x &+ c.x), high = low + Int(strides.0)
            let w0 = Float(t.w.x) * unit, w1 = Float(t.w.y) * unit, w2 = Float(t.w.z) * unit, w3 = Float(t.w.w) * unit
            let kf = Float(k.y) * unit
            for lane in 0 ..< 3 {
                let s0 = Float(low[lane]) * w0 + Float(low[t.n1 + lane]) * w1 + Float(low[t.n2 + lane]) * w2
                    + Float(low[n3 + lane]) * w3
                let s1 = Float(high[lane]) * w0 + Float(high[t.n1 + lane]) * w1 + Float(high[t.n2 + lane]) * w2
                    + Float(high[n3 + lane]) * w3
                let v = s0 + (s1 - s0) * kf
                output[o + lane] = to8(Int32(bitPattern: (v + magic).bitPattern &- magic.bitPattern), encode)
            }
            if outStep == 4 { output[o + 3] = 255 }
            i += 4
            o += outStep
        }
    }

    /// 16-bit RGB(A) (host byte order, `channels` samples a pixel) through a 3-input link
    /// without leading curves: each sample's cell and weight computed as the 8-bit table's
    /// (`v * (points - 1) / 65535` in 1/32768 of a cell, rounded), the tetrahedron
    /// interpolated as `scalar3`, the result encoded through `encode16`. An 8-bit value `v`
    /// and its 16-bit `v * 257` land on the same position, so the 16-bit result reduced to
    /// 8 bits is the 8-bit kernel's.
    static func scalar3x16(_ input: UnsafeRawPointer, _ output: UnsafeMutableRawPointer, _ count: Int, _ channels: Int,
                           _ grid: UnsafePointer<Int16>, _ points: Int, _ strides: (Int32, Int32, Int32),
                           _ encode: UnsafePointer<UInt16>) {
        let half: Int32 = one >> 1
        let span = Int64(points - 1) * Int64(one)
        let last = Int32(points - 1)
        @inline(__always) func cell(_ v: UInt16, _ stride: Int32) -> (offset: Int32, weight: Int32) {
            let position = (Int64(v) &* span &+ 32767) / 65535
            var c = Int32(truncatingIfNeeded: position >> 15), w = Int32(truncatingIfNeeded: position & Int64(one - 1))
            if c == last { c = last &- 1; w = one }
            return (c &* stride, w)
        }
        let n3 = Int(strides.0 &+ strides.1 &+ strides.2)
        let step = channels * 2
        var at = 0
        for _ in 0 ..< count {
            let a = cell(input.loadUnaligned(fromByteOffset: at, as: UInt16.self), strides.0)
            let b = cell(input.loadUnaligned(fromByteOffset: at + 2, as: UInt16.self), strides.1)
            let c = cell(input.loadUnaligned(fromByteOffset: at + 4, as: UInt16.self), strides.2)
            let t = tetrahedron(a.weight, b.weight, c.weight, strides.0, strides.1, strides.2)
            let base = grid + Int(a.offset &+ b.offset &+ c.offset)
            for lane in 0 ..< 3 {
                var sum = t.w.x &* Int32(base[lane]) &+ t.w.y &* Int32(base[t.n1 + lane])
                sum = sum &+ t.w.z &* Int32(base[t.n2 + lane]) &+ t.w.w &* Int32(base[n3 + lane])
                let v = (sum &+ half) &>> 15
                let code = encode[Int(v > 0 ? (v < scale ? v : scale) : 0)]
                output.storeBytes(of: code, toByteOffset: at + 2 * lane, as: UInt16.self)
            }
            if channels == 4 {
                output.storeBytes(of: input.loadUnaligned(fromByteOffset: at + 6, as: UInt16.self), toByteOffset: at + 6, as: UInt16.self)
            }
            at += step
        }
    }
}
