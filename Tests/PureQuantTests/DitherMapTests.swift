import Testing
@testable import PureQuant
import TestSupport

@Suite struct DitherMapTests {
    /// Packed RGBA words in memory order, as `Quantizer.rgbaWords` makes them.
    func words(_ colors: [UInt32]) -> [UInt32] { colors.map { $0.bigEndian } }

    @Test func flatImageTakesFullErrorAndSmallImagesHaveNoMap() throws {
        let flat = words([UInt32](repeating: 0x8040_20FF, count: 64))
        let map = try #require(DitherMap.contrast(pixels: flat, width: 8, height: 8))
        #expect(map.allSatisfy { $0 == 255 })
        #expect(DitherMap.contrast(pixels: flat, width: 3, height: 21) == nil)
    }

    @Test func edgesAndNoiseTakeLessThanFlatAreas() throws {
        // Left half flat grey, right half a black/white checkerboard.
        var colors: [UInt32] = []
        for y in 0 ..< 16 {
            for x in 0 ..< 16 { colors.append(x < 8 ? 0x8080_80FF : ((x ^ y) & 1 == 0 ? 0xFFFF_FFFF : 0x0000_00FF)) }
        }
        let map = try #require(DitherMap.contrast(pixels: words(colors), width: 16, height: 16))
        #expect(map[8 * 16 + 1] == 255)
        #expect(map[8 * 16 + 12] < 100)
    }

    @Test func longRunsTakeMoreThanShortOnes() {
        // Row 1: a run of 12 of index 3, then four single pixels; rows 0 and 2 match the run.
        let width = 16
        var indices = [UInt8](repeating: 3, count: width * 3)
        for x in 12 ..< 16 { indices[width + x] = UInt8(x) }
        var map = [UInt8](repeating: 255, count: width * 3)
        DitherMap.weighByRuns(&map, indices: indices, width: width, height: 3)
        #expect(map[width + 2] > 240)
        #expect(map[width + 13] < 100)
        #expect(map[width + 2] > map[width + 13])
    }

    @Test func crossStepsMatchThePixelByPixelTwin() {
        var rng = SplitMix64(seed: 3)
        for (width, height) in [(2, 1), (3, 5), (17, 4), (18, 3), (33, 7), (320, 9), (47, 1)] {
            let src = (0 ..< width * height).map { _ in UInt8(rng.next() & 0xFF) }
            for max in [true, false] {
                var simd = [UInt8](repeating: 0, count: src.count), scalar = simd
                DitherMap.cross(src, &simd, width, height, max: max)
                DitherMap.crossReference(src, &scalar, width, height, max: max)
                #expect(simd == scalar, "\(width)x\(height) max \(max)")
            }
        }
    }

    @Test func runWeightsMatchTheFirstWriting() {
        // `weighByRuns` against the loop it replaced (run first, then its neighbours).
        func reference(_ map: inout [UInt8], indices: [UInt8], width: Int, height: Int) {
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
                    for x in start ..< end { map[base + x] = UInt8(min(Float(Int(map[base + x]) + 128) * f, 255)) }
                    start = end
                }
            }
        }
        var rng = SplitMix64(seed: 9)
        for (width, height, levels) in [(1, 1, 2), (5, 1, 2), (1, 6, 3), (40, 30, 3), (64, 16, 256)] {
            let indices = (0 ..< width * height).map { _ in UInt8(rng.next() % UInt64(levels)) }
            let map = (0 ..< width * height).map { _ in UInt8(rng.next() & 0xFF) }
            var fast = map, slow = map
            DitherMap.weighByRuns(&fast, indices: indices, width: width, height: height)
            reference(&slow, indices: indices, width: width, height: height)
            #expect(fast == slow, "\(width)x\(height)")
        }
    }

    @Test func contrastStepsMatchThePixelByPixelTwin() {
        // Random colours and alpha (transparent pixels among them), smooth patches, and
        // widths that leave every remainder of the 8-pixel steps.
        var rng = SplitMix64(seed: 21)
        for (width, height) in [(4, 4), (5, 7), (8, 4), (9, 5), (15, 6), (16, 16), (23, 9), (64, 5)] {
            var pixels: [UInt32] = []
            for i in 0 ..< width * height {
                let random = UInt32(truncatingIfNeeded: rng.next())
                let alpha: UInt32 = i % 7 == 0 ? random & 0xFF : (i % 11 == 0 ? 0 : 0xFF)
                let colour = i % 3 == 0 ? 0x8060_4000 | UInt32(i & 0x1F) << 8 : random & 0xFFFF_FF00
                pixels.append((colour | alpha).bigEndian)
            }
            let simd = DitherMap.contrast(pixels: pixels, width: width, height: height)
            let scalar = DitherMap.contrast(pixels: pixels, width: width, height: height, scalar: true)
            #expect(simd != nil && simd == scalar, "\(width)x\(height)")
        }
    }

    @Test func importanceMapSameOnOneThreadAndTwo() {
        // The lower half of the rows on another thread (from 128 rows and 65,536 pixels).
        var rng = SplitMix64(seed: 33)
        let (width, height) = (300, 231)
        let pixels = (0 ..< width * height).map { i -> UInt32 in
            i % 5 == 0 ? UInt32(truncatingIfNeeded: rng.next()) : UInt32(0x4080_C0FF) &+ UInt32(i / width) << 8
        }
        var one = [UInt8](repeating: 0, count: pixels.count), two = one
        pixels.withUnsafeBufferPointer { p in
            one.withUnsafeMutableBufferPointer { ImportanceMap.compute(pixels: p, width: width, height: height, into: $0, threads: 1) }
            two.withUnsafeMutableBufferPointer { ImportanceMap.compute(pixels: p, width: width, height: height, into: $0, threads: 2) }
        }
        #expect(one == two)
        #expect(Set(one).count > 2)
    }
}
