/// Evaluation of an ``ICCLut`` in double precision, quantised where lcms2 quantises (its float
/// pipeline evaluates table curves and CLUTs on 16-bit codes): a table curve or a CLUT rounds
/// its input to a 16-bit code (`_cmsQuickSaturateWord`), interpolates in 16.16 fixed point
/// (`LinLerp1D`, `TetrahedralInterp16`, `Eval4Inputs`) and hands on the 16-bit result over
/// 65,535; functions (gamma, `para`) and matrices are evaluated in double.
extension ICCLut {
    /// True when the pipeline can be evaluated here: 3 or 4 inputs into the CLUT (any channel
    /// count for curves and matrices that keep it).
    var isEvaluable: Bool {
        for stage in stages {
            if case .clut(let grid, _, _) = stage, grid.count != 3 && grid.count != 4 && grid.count != 1 { return false }
        }
        return true
    }

    /// The pipeline at `input` (values in [0, 1], `inputChannels` of them); `outputChannels` values.
    func evaluate(_ input: [Double], from first: Int = 0) -> [Double] {
        var values = input
        for stage in stages.dropFirst(first) {
            switch stage {
            case .curves(let curves):
                for c in 0 ..< min(curves.count, values.count) { values[c] = Self.evaluate(curves[c], values[c]) }
            case .matrix(let m, let offset):
                guard values.count >= 3 else { continue }
                let v = m * SIMD3(values[0], values[1], values[2]) + offset
                values = [v.x, v.y, v.z] + values.dropFirst(3)
            case .clut(let grid, let outputs, let table):
                var codes = [Int](repeating: 0, count: grid.count)
                for i in 0 ..< grid.count { codes[i] = Int(Self.quantize(i < values.count ? values[i] : 0)) }
                values = Self.interpolate(table, grid: grid, outputs: outputs, codes).map { Double($0) / 65535 }
            }
        }
        return values
    }

    /// The input curves when the pipeline starts with curves (lcms2's optimiser keeps them as
    /// a pre-linearisation and samples the rest), and the grid size of the CLUT right after them.
    var leadingCurves: (curves: [ToneCurve], gridPoints: Int?)? {
        guard case .curves(let curves) = stages.first, curves.count == inputChannels else { return nil }
        var points: Int?
        if stages.count > 1, case .clut(let grid, _, _) = stages[1], grid.allSatisfy({ $0 == grid[0] }) { points = grid[0] }
        return (curves, points)
    }

    /// lcms2's `_cmsQuickSaturateWord(x * 65535)`: round half up, saturated to 0...65535.
    static func quantize(_ x: Double) -> UInt16 {
        let d = x * 65535 + 0.5
        guard d > 0 else { return 0 }
        return d >= 65535 ? 65535 : UInt16(d)
    }

    /// A curve as lcms2's float pipeline evaluates it: tables on the 16-bit code, functions in double.
    static func evaluate(_ curve: ToneCurve, _ x: Double) -> Double {
        switch curve {
        case .table(let entries): Double(ToneCurve.interpolate(entries, quantize(x))) / 65535
        default: curve.evaluate(x)
        }
    }

    /// lcms2's `_cmsToFixedDomain`: a value times 65535 in 16.16 fixed point, rounded.
    @inline(__always) static func toFixedDomain(_ a: Int) -> Int { a + (a + 0x7FFF) / 0xFFFF }

    /// 16-bit CLUT interpolation as lcms2 does it: tetrahedral for 3 inputs; for 4, two
    /// tetrahedral lookups in the slices around the first input, blended linearly along it;
    /// linear for 1 input.
    static func interpolate(_ table: [UInt16], grid: [Int], outputs: Int, _ codes: [Int]) -> [UInt16] {
        var strides = [Int](repeating: outputs, count: grid.count)
        if grid.count > 1 {
            for i in stride(from: grid.count - 2, through: 0, by: -1) { strides[i] = strides[i + 1] * grid[i + 1] }
        }
        switch grid.count {
        case 1:
            let f = toFixedDomain(codes[0] * (grid[0] - 1))
            let k0 = f >> 16, rk = f & 0xFFFF
            let k1 = codes[0] == 0xFFFF ? k0 : k0 + 1
            return (0 ..< outputs).map { o in
                lerp(rk, table[k0 * outputs + o], table[min(k1, grid[0] - 1) * outputs + o])
            }
        case 3:
            return tetrahedral(table, base: 0, strides: strides, grid: grid, outputs: outputs, codes[0], codes[1], codes[2])
        case 4:
            let f = toFixedDomain(codes[0] * (grid[0] - 1))
            let k0 = f >> 16, rk = f & 0xFFFF
            let k1 = k0 + (codes[0] != 0xFFFF ? 1 : 0)
            let inner = Array(strides[1...]), innerGrid = Array(grid[1...])
            let a = tetrahedral(table, base: k0 * strides[0], strides: inner, grid: innerGrid, outputs: outputs,
                                codes[1], codes[2], codes[3])
            let b = tetrahedral(table, base: k1 * strides[0], strides: inner, grid: innerGrid, outputs: outputs,
                                codes[1], codes[2], codes[3])
            return (0 ..< outputs).map { lerp(rk, a[$0], b[$0]) }
        default:
            return [UInt16](repeating: 0, count: outputs)
        }
    }

    /// lcms2's `LinearInterp`: `l + (h - l) * a` in 16.16, rounded.
    @inline(__always) static func lerp(_ a: Int, _ l: UInt16, _ h: UInt16) -> UInt16 {
        let dif = (Int(h) - Int(l)) * a + 0x8000
        return UInt16(truncatingIfNeeded: (dif >> 16) + Int(l))
    }

    /// lcms2's `TetrahedralInterp16` over the 3-D table at `base`.
    static func tetrahedral(_ table: [UInt16], base: Int, strides: [Int], grid: [Int], outputs: Int,
                            _ x: Int, _ y: Int, _ z: Int) -> [UInt16] {
        let fx = toFixedDomain(x * (grid[0] - 1)), fy = toFixedDomain(y * (grid[1] - 1)), fz = toFixedDomain(z * (grid[2] - 1))
        let rx = fx & 0xFFFF, ry = fy & 0xFFFF, rz = fz & 0xFFFF
        let x0 = strides[0] * (fx >> 16), y0 = strides[1] * (fy >> 16), z0 = strides[2] * (fz >> 16)
        let x1 = x0 + (x == 0xFFFF ? 0 : strides[0])
        let y1 = y0 + (y == 0xFFFF ? 0 : strides[1])
        let z1 = z0 + (z == 0xFFFF ? 0 : strides[2])
        var out = [UInt16](repeating: 0, count: outputs)
        for o in 0 ..< outputs {
            func d(_ i: Int, _ j: Int, _ k: Int) -> Int { Int(table[base + i + j + k + o]) }
            let c0 = d(x0, y0, z0)
            var c1 = 0, c2 = 0, c3 = 0
            if rx >= ry && ry >= rz {
                c1 = d(x1, y0, z0) - c0; c2 = d(x1, y1, z0) - d(x1, y0, z0); c3 = d(x1, y1, z1) - d(x1, y1, z0)
            } else if rx >= rz && rz >= ry {
                c1 = d(x1, y0, z0) - c0; c2 = d(x1, y1, z1) - d(x1, y0, z1); c3 = d(x1, y0, z1) - d(x1, y0, z0)
            } else if rz >= rx && rx >= ry {
                c1 = d(x1, y0, z1) - d(x0, y0, z1); c2 = d(x1, y1, z1) - d(x1, y0, z1); c3 = d(x0, y0, z1) - c0
            } else if ry >= rx && rx >= rz {
                c1 = d(x1, y1, z0) - d(x0, y1, z0); c2 = d(x0, y1, z0) - c0; c3 = d(x1, y1, z1) - d(x1, y1, z0)
            } else if ry >= rz && rz >= rx {
                c1 = d(x1, y1, z1) - d(x0, y1, z1); c2 = d(x0, y1, z0) - c0; c3 = d(x0, y1, z1) - d(x0, y1, z0)
            } else if rz >= ry && ry >= rx {
                c1 = d(x1, y1, z1) - d(x0, y1, z1); c2 = d(x0, y1, z1) - d(x0, y0, z1); c3 = d(x0, y0, z1) - c0
            }
            let rest = c1 * rx + c2 * ry + c3 * rz + 0x8001
            out[o] = UInt16(truncatingIfNeeded: c0 + ((rest + (rest >> 16)) >> 16))
        }
        return out
    }
}
