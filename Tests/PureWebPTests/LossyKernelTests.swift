import Testing
import TestSupport
@testable import PureWebP

/// Each SIMD kernel of the lossy decoder gives its scalar twin's output.
@Suite struct LossyKernelTests {
    /// Planes around one macroblock (with 8 rows and columns of context above and left), smooth
    /// with steps and noise so that every filter branch (skip, 2-tap, 4-tap, 6-tap) is taken.
    static func planes(_ rng: inout SplitMix64, step: Int) -> ([UInt8], [UInt8], [UInt8]) {
        func plane(_ size: Int) -> [UInt8] {
            let w = size + 8
            var p = [UInt8](repeating: 0, count: w * w)
            let base = Int.random(in: 0 ... 255, using: &rng)
            let noise = [0, 1, 2, 4, 8, 40][Int.random(in: 0 ..< 6, using: &rng)]
            for y in 0 ..< w {
                for x in 0 ..< w {
                    var v = base + (x >= 8 ? step : 0) + (y >= 8 ? -step / 2 : 0) + (x % 4 == 0 ? step / 3 : 0)
                    v += Int.random(in: -noise ... noise, using: &rng)
                    p[y * w + x] = UInt8(max(0, min(255, v)))
                }
            }
            return p
        }
        return (plane(16), plane(8), plane(8))
    }

    @Test func loopFilterSIMDMatchesScalar() {
        var rng = SplitMix64(seed: 7)
        var filtered = 0
        for trial in 0 ..< 3000 {
            // Steps of 120 and 200 at the largest level: differences that saturate the
            // filter's sums (its base value and its updates) on lanes the masks pass.
            let step = [0, 3, 10, 30, 80, 120, 200][trial % 7]
            let (y0, u0, v0) = Self.planes(&rng, step: step)
            let level = step >= 120 ? 63 : Int32.random(in: 1 ... 63, using: &rng)
            // Interior limits up to 9 (sharpness > 0) or up to the level (sharpness 0).
            let interior = Int32.random(in: 1 ... (trial % 2 == 0 ? 9 : level), using: &rng)
            let strength = VP8FilterStrength(limit: 2 * level + interior, interiorLimit: interior,
                                             hevThreshold: Int32.random(in: 0 ... 2, using: &rng))
            let inner = Bool.random(using: &rng), left = Bool.random(using: &rng), top = Bool.random(using: &rng)
            let simple = Bool.random(using: &rng)
            var (y1, u1, v1) = (y0, u0, v0)
            var (y2, u2, v2) = (y0, u0, v0)
            var scratch = [UInt8](repeating: 0, count: 320)
            y1.withUnsafeMutableBufferPointer { y in u1.withUnsafeMutableBufferPointer { u in v1.withUnsafeMutableBufferPointer { v in
                VP8LoopFilter.filterMacroblock(y: y.baseAddress! + 8 * 24 + 8, u: u.baseAddress! + 8 * 16 + 8,
                                               v: v.baseAddress! + 8 * 16 + 8, yStride: 24, uvStride: 16,
                                               strength: strength, inner: inner, left: left, top: top, simple: simple)
            }}}
            y2.withUnsafeMutableBufferPointer { y in u2.withUnsafeMutableBufferPointer { u in v2.withUnsafeMutableBufferPointer { v in
                scratch.withUnsafeMutableBufferPointer { s in
                    VP8LoopFilterSIMD.filterMacroblock(y: y.baseAddress! + 8 * 24 + 8, u: u.baseAddress! + 8 * 16 + 8,
                                                       v: v.baseAddress! + 8 * 16 + 8, yStride: 24, uvStride: 16,
                                                       strength: strength, inner: inner, left: left, top: top,
                                                       simple: simple, scratch: s.baseAddress!)
                }
            }}}
            if y1 != y0 || u1 != u0 { filtered += 1 }
            #expect(y1 == y2 && u1 == u2 && v1 == v2, "trial \(trial)")
            if y1 != y2 || u1 != u2 || v1 != v2 { break }
        }
        #expect(filtered > 1000)
    }
}

extension LossyKernelTests {
    /// The 16-lane YUV to RGB(A) conversion equals the scalar per-pixel one (libwebp's yuv.h),
    /// and the full-row chroma upsampler the packed-pair one, on random rows of all widths.
    @Test func inverseTransformSIMDMatchesScalar() {
        var rng = SplitMix64(seed: 11)
        for trial in 0 ..< 20000 {
            // Typical magnitudes, then the whole Int16 range (hostile streams).
            let bound = [64, 600, 2048, 32767][trial % 4]
            var coefficients = (0 ..< 16).map { _ in Int16(Int.random(in: -bound ... bound, using: &rng)) }
            if trial % 3 == 0 { for k in 1 ..< 16 where Bool.random(using: &rng) { coefficients[k] = 0 } }
            if trial % 97 == 0 { coefficients = (0 ..< 16).map { _ in Bool.random(using: &rng) ? Int16.min : Int16.max } }
            let block = (0 ..< 4 * VP8Predict.stride).map { _ in UInt8.random(in: 0 ... 255, using: &rng) }
            var scalar = block, simd = block
            coefficients.withUnsafeBufferPointer { c in
                scalar.withUnsafeMutableBufferPointer { VP8Transform.inverse(c.baseAddress!, $0.baseAddress!) }
                simd.withUnsafeMutableBufferPointer { VP8Transform.inverseSIMD(c.baseAddress!, $0.baseAddress!) }
            }
            #expect(scalar == simd, "trial \(trial)")
            if scalar != simd { return }
        }
    }

    /// Every (Y, U, V) triple converts as the scalar per-pixel code does (RGB and RGBA).
    @Test func colorConversionSIMDAllTriples() {
        for bpp in [3, 4] {
            var y = [UInt8](repeating: 0, count: 256), u = y, v = y
            var simd = [UInt8](repeating: 0, count: 256 * bpp), scalar = simd
            var mismatches = 0
            for yv in 0 ..< 256 where bpp == 3 || yv % 5 == 0 {
                for uv in 0 ..< 256 {
                    for x in 0 ..< 256 { y[x] = UInt8(yv); u[x] = UInt8(uv); v[x] = UInt8(x) }
                    VP8Upsample.convertRow(y: y, u: u, v: v, dst: &simd, width: 256, bytesPerPixel: bpp)
                    scalar.withUnsafeMutableBufferPointer { out in
                        for x in 0 ..< 256 {
                            VP8Upsample.writePixel(y[x], Int32(u[x]), Int32(v[x]), out.baseAddress! + x * bpp)
                            if bpp == 4 { out[4 * x + 3] = 255 }
                        }
                    }
                    if simd != scalar { mismatches += 1 }
                }
            }
            #expect(mismatches == 0, "bpp \(bpp)")
        }
    }

    @Test func transposeSIMDMatchesBytewise() {
        var rng = SplitMix64(seed: 5)
        for left in [false, true] {
            for _ in 0 ..< 200 {
                let stride = 40
                let plane = (0 ..< 16 * stride).map { _ in UInt8.random(in: 0 ... 255, using: &rng) }
                var a = [UInt8](repeating: 0, count: 20 * 16), b = a
                plane.withUnsafeBufferPointer { p in
                    let src = p.baseAddress! + 8
                    a.withUnsafeMutableBufferPointer { t in
                        VP8LoopFilterSIMD.transpose(src + (left ? -4 : 0), stride: stride, rows: 16, cols: left ? 20 : 16,
                                                    into: t.baseAddress! + (left ? 0 : 64))
                    }
                    b.withUnsafeMutableBufferPointer { VP8Transpose.lumaIn(src, stride: stride, withLeft: left, into: $0.baseAddress!) }
                }
                #expect(a == b)
                let scratch = (0 ..< 20 * 16).map { _ in UInt8.random(in: 0 ... 255, using: &rng) }
                var out1 = plane, out2 = plane
                scratch.withUnsafeBufferPointer { t in
                    out1.withUnsafeMutableBufferPointer { o in
                        VP8LoopFilterSIMD.untranspose(t.baseAddress! + (left ? 0 : 64), into: o.baseAddress! + 8 + (left ? -4 : 0),
                                                      stride: stride, rows: 16, cols: (left ? 1 : 0) ..< (left ? 20 : 16))
                    }
                }
                var copy = scratch
                copy.withUnsafeMutableBufferPointer { t in
                    out2.withUnsafeMutableBufferPointer { o in
                        VP8Transpose.lumaOut(t.baseAddress!, into: o.baseAddress! + 8, stride: stride, withLeft: left)
                    }
                }
                #expect(out1 == out2)
            }
        }
    }

    @Test func colorConversionSIMDMatchesScalar() {
        var rng = SplitMix64(seed: 11)
        for width in [1, 2, 3, 15, 16, 17, 31, 32, 33, 64, 77] {
            for _ in 0 ..< 40 {
                let y = (0 ..< width).map { _ in UInt8.random(in: 0 ... 255, using: &rng) }
                let half = (width + 1) / 2
                let nu = (0 ..< half).map { _ in UInt8.random(in: 0 ... 255, using: &rng) }
                let nv = (0 ..< half).map { _ in UInt8.random(in: 0 ... 255, using: &rng) }
                let fu = (0 ..< half).map { _ in UInt8.random(in: 0 ... 255, using: &rng) }
                let fv = (0 ..< half).map { _ in UInt8.random(in: 0 ... 255, using: &rng) }
                for bpp in [3, 4] {
                    var scalar = [UInt8](repeating: 0, count: width * bpp)
                    var simd = scalar
                    var uFull = [UInt8](repeating: 0, count: width), vFull = uFull
                    VP8Upsample.fancyRow(y: y, nearU: nu, nearV: nv, farU: fu, farV: fv, dst: &scalar, width: width,
                                         bytesPerPixel: bpp)
                    if bpp == 4 { for x in 0 ..< width { scalar[4 * x + 3] = 255 } }
                    VP8Upsample.fancyChroma(near: nu, far: fu, out: &uFull, width: width)
                    VP8Upsample.fancyChroma(near: nv, far: fv, out: &vFull, width: width)
                    VP8Upsample.convertRow(y: y, u: uFull, v: vFull, dst: &simd, width: width, bytesPerPixel: bpp)
                    #expect(scalar == simd, "width \(width) bpp \(bpp)")
                    var point = [UInt8](repeating: 0, count: width * bpp)
                    VP8Upsample.pointRow(y: y, u: nu, v: nv, dst: &point, width: width, bytesPerPixel: bpp)
                    if bpp == 4 { for x in 0 ..< width { point[4 * x + 3] = 255 } }
                    VP8Upsample.pointChroma(nu, out: &uFull, width: width)
                    VP8Upsample.pointChroma(nv, out: &vFull, width: width)
                    VP8Upsample.convertRow(y: y, u: uFull, v: vFull, dst: &simd, width: width, bytesPerPixel: bpp)
                    #expect(point == simd, "point width \(width) bpp \(bpp)")
                }
            }
        }
    }
}

extension LossyKernelTests {
    /// Rows of random bytes, or of the extremes (0, 255, alternating) that the clamps meet.
    static func row(_ n: Int, _ kind: Int, _ rng: inout SplitMix64) -> [UInt8] {
        switch kind {
        case 0: return [UInt8](repeating: 0, count: n)
        case 1: return [UInt8](repeating: 255, count: n)
        case 2: return (0 ..< n).map { $0 & 1 == 0 ? 0 : 255 }
        default: return (0 ..< n).map { _ in UInt8.random(in: 0 ... 255, using: &rng) }
        }
    }

    /// The vector chroma upsamplers and the row conversion equal their scalar twins at every
    /// width up to 80 and a few long ones, and write nothing past the row.
    @Test func upsamplingSIMDMatchesScalar() {
        var rng = SplitMix64(seed: 23)
        let widths = Array(1 ... 80) + [255, 256, 257, 1000, 4000]
        for width in widths {
            for trial in 0 ..< 12 {
                let half = (width + 1) / 2
                let near = Self.row(half, trial % 5, &rng), far = Self.row(half, (trial + 2) % 5, &rng)
                var a = [UInt8](repeating: 7, count: width + 32), b = a
                near.withUnsafeBufferPointer { n in far.withUnsafeBufferPointer { f in
                    VP8Upsample.fancyChroma(near: n.baseAddress!, far: f.baseAddress!, out: &a, width: width)
                    VP8Upsample.fancyChromaScalar(near: n.baseAddress!, far: f.baseAddress!, out: &b, width: width)
                }}
                #expect(a == b, "fancy width \(width)")
                var pairA = [UInt8](repeating: 7, count: width + 32), pairB = pairA
                var twinA = pairA, twinB = pairA
                near.withUnsafeBufferPointer { n in far.withUnsafeBufferPointer { f in
                    VP8Upsample.fancyChromaPair(n.baseAddress!, f.baseAddress!, outA: &pairA, outB: &pairB, width: width)
                    VP8Upsample.fancyChromaScalar(near: n.baseAddress!, far: f.baseAddress!, out: &twinA, width: width)
                    VP8Upsample.fancyChromaScalar(near: f.baseAddress!, far: n.baseAddress!, out: &twinB, width: width)
                }}
                #expect(pairA == twinA && pairB == twinB, "fancy pair width \(width)")
                a = [UInt8](repeating: 7, count: width + 32); b = a
                VP8Upsample.pointChroma(near, out: &a, width: width)
                VP8Upsample.pointChromaScalar(near, out: &b, width: width)
                #expect(a == b, "point width \(width)")
                let y = Self.row(width, (trial + 1) % 5, &rng)
                let u = Self.row(width, trial % 5, &rng), v = Self.row(width, (trial + 3) % 5, &rng)
                for bpp in [3, 4] {
                    var simd = [UInt8](repeating: 7, count: width * bpp + 32), scalar = simd
                    VP8Upsample.convertRow(y: y, u: u, v: v, dst: &simd, width: width, bytesPerPixel: bpp)
                    VP8Upsample.convertRowScalar(y: y, u: u, v: v, dst: &scalar, width: width, bytesPerPixel: bpp)
                    #expect(simd == scalar, "convert width \(width) bpp \(bpp)")
                    if simd != scalar || a != b { return }
                }
            }
        }
    }
}

extension LossyKernelTests {
    /// The chroma transposes (16x16 shuffles over U and V rows) equal the bytewise ones, in and
    /// out, with and without the left neighbour's columns.
    @Test func chromaTransposeSIMDMatchesBytewise() {
        var rng = SplitMix64(seed: 31)
        let stride = 40, origin = 4 * stride + 16
        for left in [false, true] {
            for _ in 0 ..< 200 {
                let u0 = (0 ..< 14 * stride).map { _ in UInt8.random(in: 0 ... 255, using: &rng) }
                let v0 = (0 ..< 14 * stride).map { _ in UInt8.random(in: 0 ... 255, using: &rng) }
                let firstCol = left ? -4 : 0, cols = left ? 12 : 8
                var mine = [UInt8](repeating: 0, count: 16 * 16), bytewise = [UInt8](repeating: 0, count: 20 * 16)
                u0.withUnsafeBufferPointer { u in v0.withUnsafeBufferPointer { v in
                    let up = u.baseAddress! + origin, vp = v.baseAddress! + origin
                    mine.withUnsafeMutableBufferPointer {
                        VP8Transpose.chromaIn(up, vp, stride: stride, withLeft: left, into: $0.baseAddress!)
                    }
                    bytewise.withUnsafeMutableBufferPointer { t in
                        let dst = t.baseAddress! + (firstCol + 4) * 16
                        VP8LoopFilterSIMD.transpose(up + firstCol, stride: stride, rows: 8, cols: cols, into: dst)
                        VP8LoopFilterSIMD.transpose(vp + firstCol, stride: stride, rows: 8, cols: cols, into: dst, laneOffset: 8)
                    }
                }}
                for c in firstCol ..< 8 {
                    #expect(mine[(c + 8) * 16 ..< (c + 9) * 16] == bytewise[(c + 4) * 16 ..< (c + 5) * 16], "left \(left) column \(c)")
                }
                // New values for the columns the filter may change, written back both ways.
                for c in firstCol + (left ? 1 : 0) ..< 8 {
                    for lane in 0 ..< 16 {
                        let x = UInt8.random(in: 0 ... 255, using: &rng)
                        mine[(c + 8) * 16 + lane] = x
                        bytewise[(c + 4) * 16 + lane] = x
                    }
                }
                var (u1, v1, u2, v2) = (u0, v0, u0, v0)
                u1.withUnsafeMutableBufferPointer { u in v1.withUnsafeMutableBufferPointer { v in
                    mine.withUnsafeMutableBufferPointer {
                        VP8Transpose.chromaOut($0.baseAddress!, into: u.baseAddress! + origin, v.baseAddress! + origin,
                                               stride: stride, withLeft: left)
                    }
                }}
                u2.withUnsafeMutableBufferPointer { u in v2.withUnsafeMutableBufferPointer { v in
                    bytewise.withUnsafeBufferPointer { t in
                        let src = t.baseAddress! + (firstCol + 4) * 16
                        let range = (left ? 1 : 0) ..< cols
                        VP8LoopFilterSIMD.untranspose(src, into: u.baseAddress! + origin + firstCol, stride: stride, rows: 8, cols: range)
                        VP8LoopFilterSIMD.untranspose(src, into: v.baseAddress! + origin + firstCol, stride: stride, rows: 8, cols: range,
                                                      laneOffset: 8)
                    }
                }}
                #expect(u1 == u2 && v1 == v2, "left \(left)")
                if u1 != u2 || v1 != v2 { return }
            }
        }
    }
}

extension LossyKernelTests {
    /// The vector TrueMotion predictor equals the scalar one (clamps at both ends included).
    @Test func trueMotionSIMDMatchesScalar() {
        var rng = SplitMix64(seed: 41)
        let s = VP8Predict.stride
        for size in [4, 8, 16] {
            for trial in 0 ..< 300 {
                var block = Self.row(s * 18, trial % 5, &rng)
                if trial % 7 == 0 { block[0] = 255 - block[s + 1] }   // corner far from its neighbours
                var scalar = block
                block.withUnsafeMutableBufferPointer { VP8Predict.trueMotion($0.baseAddress! + s + 1, size) }
                scalar.withUnsafeMutableBufferPointer { VP8Predict.trueMotionScalar($0.baseAddress! + s + 1, size) }
                #expect(block == scalar, "size \(size) trial \(trial)")
                if block != scalar { return }
            }
        }
    }
}
