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
            let step = [0, 3, 10, 30, 80][trial % 5]
            let (y0, u0, v0) = Self.planes(&rng, step: step)
            let level = Int32.random(in: 1 ... 63, using: &rng)
            let interior = Int32.random(in: 1 ... 9, using: &rng)
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
