import Testing
import TestSupport
@testable import PureWebP

/// Every VP8 vector decodes exactly as `dwebp` 1.2.4 does, with fancy and point upsampling,
/// whole and fed in pieces.
@Suite struct LossyVectorTests {
    @Test func vectorsArePresent() {
        #expect(LossyVectors.names.count >= 40)
    }

    @Test(arguments: LossyVectors.names)
    func decodesExactly(name: String) throws {
        let file = try LossyVectors.file(name)
        let (payload, offset) = try #require(LossyVectors.payload(file))
        for fancy in [true, false] {
            let reference = try LossyVectors.pam(name, fancy: fancy)
            let result = try payload.withUnsafeBytes { raw in
                try VP8Image.decode(raw, offset: offset, fancyUpsampling: fancy)
            }
            #expect(result.width == reference.width && result.height == reference.height)
            let diff = LossyVectors.firstDifference(result.pixels, reference.pixels, width: reference.width)
            #expect(diff == nil, "\(name) fancy \(fancy): \(diff ?? "")")
            // The two-thread pipeline gives the same pixels.
            let threaded = try payload.withUnsafeBytes { raw in
                try VP8Image.decode(raw, offset: offset, fancyUpsampling: fancy, useThreads: true)
            }
            let threadDiff = LossyVectors.firstDifference(threaded.pixels, reference.pixels, width: reference.width)
            #expect(threadDiff == nil, "\(name) fancy \(fancy) threads: \(threadDiff ?? "")")
        }
    }

    /// The public option reaches the lossy decoder: a whole file decodes the same with threads.
    @Test func publicThreadsOption() throws {
        for name in LossyVectors.names.prefix(6) {
            let file = try LossyVectors.file(name)
            let plain = try WebPDecoder.decode(file)
            let threaded = try WebPDecoder.decode(file, options: WebPDecodingOptions(useThreads: true))
            #expect(plain == threaded, "\(name)")
        }
    }

    @Test(arguments: LossyVectors.names)
    func decodesExactlyInPieces(name: String) throws {
        let file = try LossyVectors.file(name)
        let (payload, _) = try #require(LossyVectors.payload(file))
        for (step, fancy) in [(1, true), (7, false), (4096, true), (7, true)] {
            let reference = try LossyVectors.pam(name, fancy: fancy)
            let result = LossyVectors.decodeInPieces(payload, step: step, fancy: fancy)
            #expect(result.error == nil, "\(name) step \(step): \(String(describing: result.error))")
            #expect(result.rows == reference.height, "\(name) step \(step): rows \(result.rows)")
            let diff = LossyVectors.firstDifference(result.pixels, reference.pixels, width: reference.width)
            #expect(diff == nil, "\(name) step \(step) fancy \(fancy): \(diff ?? "")")
        }
    }
}
