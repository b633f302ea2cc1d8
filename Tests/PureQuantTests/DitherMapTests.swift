import Testing
@testable import PureQuant

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
}
