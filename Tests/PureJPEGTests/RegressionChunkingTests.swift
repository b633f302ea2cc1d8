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

    /// FF FF ... FF 00 in entropy-coded data is one data byte 0xFF (libjpeg skips fill bytes),
    /// so an MCU can consume any number of input bytes. The MCU loop copies its rollback state
    /// only for MCUs that could reach the end of the bytes (`RollbackGuard`); this checks the
    /// guard sees such runs: long runs inserted into stuffed bytes leave the pixels unchanged
    /// whatever the piece size.
    @Test("runs of 0xFF fill bytes inside scans decode like the single byte, in any pieces",
          arguments: ["valid/photo256_420_q90.jpg", "valid/photo256_progressive.jpg"])
    func fillRuns(_ file: String) throws {
        let bytes = try TestVectors.bytes("jpeg/" + file)
        let original = try JPEGDecoder.decode(bytes)
        // Stuffed FF 00 pairs after the first SOS: lengthen every fifth with 700 or 5000 fill bytes.
        guard let sos = (0 ..< bytes.count - 1).first(where: { bytes[$0] == 0xFF && bytes[$0 + 1] == 0xDA }) else {
            Issue.record("no SOS in \(file)")
            return
        }
        let stuffed = (sos ..< bytes.count - 1).filter { bytes[$0] == 0xFF && bytes[$0 + 1] == 0x00 }
        #expect(stuffed.count >= 10)
        var edited: [UInt8] = []
        var from = 0
        for (n, at) in stuffed.enumerated() where n % 5 == 0 {
            edited += bytes[from ..< at] + [UInt8](repeating: 0xFF, count: n % 10 == 0 ? 5000 : 700)
            from = at
        }
        edited += bytes[from...]
        let whole = decodeInPieces(edited, size: nil)
        guard case let .success(image) = whole.result else {
            Issue.record("\(file) with fill runs: \(whole.result)")
            return
        }
        #expect(image.pixels == original.pixels)
        for size in [1, 7, 13, 787, 4096] {
            let pieces = decodeInPieces(edited, size: size)
            guard case let .success(chunked) = pieces.result else {
                Issue.record("\(file) with fill runs in \(size)-byte pieces: \(pieces.result)")
                continue
            }
            let same = chunked.pixels == original.pixels
            #expect(same, "pixels differ with \(size)-byte pieces")
        }
    }
}
