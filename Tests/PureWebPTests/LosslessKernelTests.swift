import Testing
import TestSupport
@testable import PureWebP

/// The lossless decoder's packed and SIMD kernels give their per-byte scalar twins' output.
@Suite struct LosslessKernelTests {
    static func pixel(_ rng: inout SplitMix64) -> UInt32 {
        // Mostly random bytes, some at the extremes (0, 1, 127, 128, 254, 255) where clips and
        // signed halves turn.
        var p: UInt32 = 0
        for shift in stride(from: 0, to: 32, by: 8) {
            let edge = [0, 1, 127, 128, 254, 255]
            let b = Int.random(in: 0 ..< 3, using: &rng) == 0 ? edge[Int.random(in: 0 ..< 6, using: &rng)]
                                                               : Int.random(in: 0 ... 255, using: &rng)
            p |= UInt32(b) << UInt32(shift)
        }
        return p
    }

    @Test func packedPredictorsMatchPerByte() {
        var rng = SplitMix64(seed: 11)
        for _ in 0 ..< 200_000 {
            let a = Self.pixel(&rng), b = Self.pixel(&rng), c = Self.pixel(&rng)
            #expect(VP8LInverse.clampedAddSubtractFullPacked(a, b, c) == VP8LInverse.clampedAddSubtractFull(a, b, c))
            #expect(VP8LInverse.clampedAddSubtractHalfPacked(a, b) == VP8LInverse.clampedAddSubtractHalf(a, b))
            #expect(VP8LInverse.selectPacked(a, b, c) == VP8LInverse.select(a, b, c))
            var sum: UInt32 = 0
            for shift: UInt32 in [0, 8, 16, 24] { sum |= (((a >> shift) &+ (b >> shift)) & 0xFF) << shift }
            #expect(VP8LInverse.add(a, b) == sum)
        }
        // Every pair of channel values, in one channel at a time.
        for x in 0 ... 255 {
            for y in 0 ... 255 {
                for shift: UInt32 in [0, 8, 16, 24] {
                    let a = UInt32(x) << shift, b = UInt32(y) << shift, c = UInt32(255 - y) << shift
                    let ok = VP8LInverse.clampedAddSubtractHalfPacked(a, b) == VP8LInverse.clampedAddSubtractHalf(a, b)
                        && VP8LInverse.clampedAddSubtractFullPacked(a, b, c) == VP8LInverse.clampedAddSubtractFull(a, b, c)
                        && VP8LInverse.selectPacked(a, b, c) == VP8LInverse.select(a, b, c)
                        && VP8LInverse.selectPacked(a, c, b) == VP8LInverse.select(a, c, b)
                    if !ok { #expect(Bool(false), "x \(x) y \(y) shift \(shift)"); return }
                }
            }
        }
    }

    @Test func crossColorSIMDMatchesScalar() {
        var rng = SplitMix64(seed: 12)
        for trial in 0 ..< 400 {
            let bits = 2 + trial % 4
            let width = Int.random(in: 1 ... 97, using: &rng)
            let tiles = VP8LCodes.subsample(width, bits)
            let data = (0 ..< tiles * 2).map { _ in Self.pixel(&rng) }
            let t = VP8LTransform(kind: .crossColor, width: width, bits: bits, data: data)
            let row = (0 ..< width).map { _ in Self.pixel(&rng) }
            let y = Int.random(in: 0 ..< (2 << bits), using: &rng)
            var scalar = row, simd = row
            scalar.withUnsafeMutableBufferPointer { VP8LInverse.crossColor(t, y: y, row: $0.baseAddress!) }
            simd.withUnsafeMutableBufferPointer { VP8LInverseSIMD.crossColor(t, y: y, row: $0.baseAddress!) }
            #expect(scalar == simd, "trial \(trial)")
            // Out of place (from the coded pixels): the same output, the source untouched.
            var out = [UInt32](repeating: 0, count: width)
            row.withUnsafeBufferPointer { src in
                out.withUnsafeMutableBufferPointer { VP8LInverseSIMD.crossColor(t, y: y, row: $0.baseAddress!, from: src.baseAddress!) }
            }
            #expect(out == scalar, "trial \(trial) out of place")
            if scalar != simd { return }
        }
    }

    @Test func rgbOutputSIMDMatchesScalar() {
        var rng = SplitMix64(seed: 13)
        for count in 0 ... 70 {
            let row = (0 ..< count).map { _ in Self.pixel(&rng) }
            // A guard byte past the row: neither version may write it.
            var scalar = [UInt8](repeating: 0xA5, count: 3 * count + 1), simd = scalar
            row.withUnsafeBufferPointer { src in
                let base = src.baseAddress ?? UnsafePointer(bitPattern: 4)!
                scalar.withUnsafeMutableBytes { VP8LOutput.rgbScalar(base, count: count, into: $0.baseAddress!) }
                simd.withUnsafeMutableBytes { VP8LOutput.rgb(base, count: count, into: $0.baseAddress!) }
            }
            var expected: [UInt8] = []
            for p in row { expected += [UInt8(truncatingIfNeeded: p >> 16), UInt8(truncatingIfNeeded: p >> 8), UInt8(truncatingIfNeeded: p)] }
            expected.append(0xA5)
            #expect(scalar == expected, "count \(count)")
            #expect(simd == expected, "count \(count)")
        }
    }

    /// The pixel loop's branch-free refill reads the same bits as the exact reader, also from a
    /// state the byte-wise end refill left on a shorter prefix (the stream resumed with more data).
    @Test func refillMatchesTheExactReader() {
        var rng = SplitMix64(seed: 14)
        let data = (0 ..< 48).map { _ in UInt8.random(in: 0 ... 255, using: &rng) }
        data.withUnsafeBufferPointer { full in
            for prefix in 1 ... 16 {
                for skipped in [0, 1, 7, 8, 9, 31, 32, 40] {
                    var short = VP8LBitReader(UnsafeBufferPointer(rebasing: full[0 ..< prefix]), state: VP8LBitState(), complete: false)
                    _ = short.read(min(skipped, 8 * prefix))
                    short.fill()
                    #expect(short.state.count <= 63)
                    let resumed = VP8LBitReader(full, state: short.state)
                    var exact = resumed
                    var fast = VP8LImageData.FastBits(resumed)
                    for step in 0 ..< 12 {
                        let n = [15, 3, 12, 7, 1, 14][step % 6]
                        fast.refill()
                        let a = Int(truncatingIfNeeded: fast.value & ((1 << UInt64(n)) - 1))
                        fast.value >>= UInt64(n)
                        fast.count -= n
                        let b = exact.read(n)
                        #expect(a == b, "prefix \(prefix) skipped \(skipped) step \(step)")
                        if a != b { return }
                    }
                }
            }
        }
    }
}
