import ImageCore
import Testing

@Suite("SIMD lane helpers")
struct SIMDLanesTests {
    @Test("truncatingLanesOf keeps the low byte of every lane, low vector first")
    func truncatingLanes() {
        var rng = SplitMix64(state: 3)
        for _ in 0 ..< 1000 {
            var low = SIMD8<Int16>(), high = SIMD8<Int16>()
            for k in 0 ..< 8 {
                low[k] = Int16(truncatingIfNeeded: rng.next())
                high[k] = Int16(truncatingIfNeeded: rng.next())
            }
            let bytes = SIMD16<UInt8>(truncatingLanesOf: low, high)
            for k in 0 ..< 8 {
                #expect(bytes[k] == UInt8(truncatingIfNeeded: low[k]))
                #expect(bytes[k + 8] == UInt8(truncatingIfNeeded: high[k]))
            }
        }
        #expect(SIMD16<UInt8>(truncatingLanesOf: SIMD8<Int16>(repeating: 300), SIMD8<Int16>(repeating: -1))
            == SIMD16<UInt8>(44, 44, 44, 44, 44, 44, 44, 44, 255, 255, 255, 255, 255, 255, 255, 255))
    }
}
