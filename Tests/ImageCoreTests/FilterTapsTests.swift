import Testing
@testable import ImageCore

/// The reducer's filter taps, and its SIMD kernel against its scalar twin.
@Suite struct FilterTapsTests {
    @Test("weights are normalised and windows cover the kernel's support", arguments: [(100, 10), (64, 64), (2000, 1024), (7, 3), (33, 1)])
    func weights(source: Int, target: Int) {
        let taps = FilterTaps(lanczos3From: source, to: target)
        let factor = max(Double(source) / Double(target), 1)
        for i in 0 ..< target {
            let (start, w) = taps.window(of: i)
            #expect(abs(w.reduce(0, +) - 1) < 1e-5)
            #expect(start >= 0 && start + w.count <= source)
            #expect(Double(w.count) <= 6 * factor + 2)
        }
    }

    @Test("the 8-lane plane kernel equals the scalar reference", arguments: [1, 3, 4])
    func simdMatchesScalar(channels: Int) {
        for (source, target) in [(2000, 1024), (301, 77), (50, 50), (9, 2)] {
            let taps = FilterTaps(lanczos3From: source, to: target)
            var state: UInt32 = 12345
            let row: [Float] = (0 ..< source * channels).map { _ in
                state = state &* 1664525 &+ 1013904223
                return Float(state >> 24)
            }
            var scalar = [Float](repeating: 0, count: target * channels)
            var simd = scalar
            row.withUnsafeBufferPointer { taps.applyScalar($0.baseAddress!, to: &scalar, channels: channels, count: target) }
            for c in 0 ..< channels {
                var plane = (0 ..< source).map { row[$0 * channels + c] } + [Float](repeating: 0, count: 8)
                plane.withUnsafeMutableBufferPointer { p in
                    simd.withUnsafeMutableBufferPointer { taps.applyPlane(p.baseAddress!, to: $0.baseAddress!, channel: c, channels: channels, count: target) }
                }
            }
            let worst = zip(scalar, simd).map { abs($0 - $1) }.max() ?? 0
            // The same products summed in another order.
            #expect(worst < 1e-3, "\(source) -> \(target), \(channels) channels: \(worst)")
        }
    }
}
