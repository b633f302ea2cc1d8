import Testing
import ImageCore
@testable import PureQuant

/// pngquant's rating of a result: libimagequant's colour difference (blend on black and on
/// white) and the weight cap used with a target quality.
@Suite struct QualityRatingTests {
    static func image(_ pixels: [[UInt8]]) -> Image {
        Image(width: pixels.count, height: 1, format: .rgba8, pixels: pixels.flatMap { $0 })
    }

    static func g(_ v: Double) -> Double { power(v / 255, Perceptual.gamma) }

    @Test func opaqueIsTheSquaredDistance() throws {
        let q = QuantizedImage(width: 1, height: 1, palette: [RGBAColor(r: 190, g: 100, b: 60)], indices: [0], meanSquaredError: 0)
        let e = try QuantizationQuality.pngquantError(of: q, source: Self.image([[200, 100, 50, 255]]))
        let expected = (Self.g(200) - Self.g(190)) * (Self.g(200) - Self.g(190)) + (Self.g(50) - Self.g(60)) * (Self.g(50) - Self.g(60))
        #expect(abs(e - expected) < 1e-6 * expected)
    }

    /// White at alpha 255 shown as white at alpha 128: on black each colour lane is off by
    /// 127/255, on white not at all; the larger counts, in all three lanes, and alpha adds nothing.
    @Test func alphaCountsInEveryColourLane() throws {
        let q = QuantizedImage(width: 2, height: 1, palette: [RGBAColor(r: 255, g: 255, b: 255, a: 128), RGBAColor(r: 0, g: 0, b: 0, a: 0)],
                               indices: [0, 1], meanSquaredError: 0)
        let e = try QuantizationQuality.pngquantError(of: q, source: Self.image([[255, 255, 255, 255], [9, 9, 9, 0]]))
        let d = 127.0 / 255
        #expect(abs(e - 3 * d * d / 2) < 1e-5)
        let wrong = QuantizedImage(width: 1, height: 1, palette: [], indices: [0], meanSquaredError: 0)
        #expect(throws: QuantizationError.self) { try QuantizationQuality.pngquantError(of: wrong, source: Self.image([[1, 2, 3, 4], [1, 2, 3, 4]])) }
    }

    @Test func capIsATenthOfTheTotal() {
        #expect(Quantizer.capped([5, 80, 200, 3], total: 1000) == [5, 80, 100, 3])
        #expect(Quantizer.capped([4, 4], total: 5) == [1, 1])
    }
}
