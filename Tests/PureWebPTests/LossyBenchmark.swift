import Foundation
import Testing
@testable import PureWebP

/// Decode speed of a lossy file named by `VP8_BENCH` (skipped without it): prints MP/s for whole
/// decodes into RGB with fancy and point upsampling. Build in release with testing enabled:
/// `swift build -c release --build-tests -Xswiftc -enable-testing`, then
/// `VP8_BENCH=photo.webp swift test -c release --skip-build --filter LossyBenchmark`.
@Suite struct LossyBenchmark {
    static let path = ProcessInfo.processInfo.environment["VP8_BENCH"]

    @Test(.enabled(if: path != nil))
    func decodeSpeed() throws {
        let file = [UInt8](try Data(contentsOf: URL(fileURLWithPath: Self.path!)))
        let (payload, offset) = try #require(LossyVectors.payload(file))
        for fancy in [true, false] {
            var best = Double.infinity
            var size = (0, 0)
            for _ in 0 ..< 5 {
                let start = DispatchTime.now().uptimeNanoseconds
                let result = try payload.withUnsafeBytes { raw in
                    try VP8Image.decode(raw, offset: offset, fancyUpsampling: fancy, bytesPerPixel: 3)
                }
                let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
                best = min(best, seconds)
                size = (result.width, result.height)
            }
            let mp = Double(size.0 * size.1) / 1e6
            print("VP8 \(size.0)x\(size.1) fancy \(fancy): best \(String(format: "%.3f", best)) s, \(String(format: "%.1f", mp / best)) MP/s")
        }
    }
}
