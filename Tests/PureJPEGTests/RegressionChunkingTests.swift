import ImageCore
import Testing
@testable import PureJPEG

/// FUZZING.md JPEG-1: corrupt files whose recovery (restart resynchronisation, premature markers)
/// once depended on where an `append` boundary fell.
@Suite("JPEG chunking invariance on corrupt input (JPEG-1)")
struct RegressionChunkingTests {
    @Test("whole and chunked decodes agree", arguments: 1 ... 4)
    func chunkedMatchesWhole(_ n: Int) throws {
        let bytes = try TestVectors.bytes("regressions/jpeg-chunked-differs-\(n).jpg")
        let whole = decodeInPieces(bytes, size: nil)
        for size in [1, 7, 13, 64, 512, 787, 4096] {
            let pieces = decodeInPieces(bytes, size: size)
            switch (whole.result, pieces.result) {
            case let (.success(a), .success(b)):
                // A Bool, so a failure reports the piece size rather than both images in full.
                let same = a == b
                #expect(same, "pixels differ with \(size)-byte pieces")
            case let (.failure(a), .failure(b)):
                #expect(a.code == b.code, "errors differ with \(size)-byte pieces: \(a) vs \(b)")
            default:
                Issue.record("outcome differs with \(size)-byte pieces: \(whole.result) vs \(pieces.result)")
            }
        }
    }
}
