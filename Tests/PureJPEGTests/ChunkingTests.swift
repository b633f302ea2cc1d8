import ImageCore
import Testing
@testable import PureJPEG

/// Feeds `bytes` in pieces of `size` (whole when nil) and returns the events of every call and
/// the final image or error.
func decodeInPieces(_ bytes: [UInt8], size: Int?, options: JPEGDecodingOptions = .init())
    -> (events: [DecodingEvent], result: Result<Image, JPEGError>) {
    var decoder = JPEGDecoder(options: options)
    var events: [DecodingEvent] = []
    let step = size ?? max(bytes.count, 1)
    var i = 0
    let result = Result { () throws(JPEGError) -> Image in
        while i < bytes.count {
            let end = min(bytes.count, i + step)
            events += try decoder.append(bytes[i ..< end])
            i = end
        }
        return try decoder.finish()
    }
    // finish() returns no events: its warnings (a file cut short) are in `warnings`.
    let seen = events.reduce(0) { if case .warning = $1 { $0 + 1 } else { $0 } }
    events += decoder.warnings.dropFirst(seen).map { .warning($0) }
    return (events, result)
}

@Suite("JPEG chunking invariance")
struct ChunkingTests {
    // Damaged files (Vectors/jpeg-damaged) have their own chunking test in DamagedFileTests.
    static let files: [String] = JPEGVector.valid.map(\.file) + ["invalid/truncated_progressive_half.jpg"]

    @Test("same pixels and events whatever the piece size", arguments: files)
    func pieces(_ file: String) throws {
        let bytes = try TestVectors.bytes("jpeg/" + file)
        let whole = decodeInPieces(bytes, size: nil)
        // Byte-by-byte feeding only on small files, to keep the suite quick.
        let sizes = bytes.count <= 4000 ? [1, 7, 13, 787, 4096] : [7, 13, 787, 4096]
        for size in sizes {
            let pieces = decodeInPieces(bytes, size: size)
            #expect(pieces.events == whole.events, "events differ with \(size)-byte pieces")
            switch (whole.result, pieces.result) {
            case let (.success(a), .success(b)):
                #expect(a == b, "pixels differ with \(size)-byte pieces")
            case let (.failure(a), .failure(b)):
                #expect(a == b, "errors differ with \(size)-byte pieces")
            default:
                Issue.record("outcome differs with \(size)-byte pieces: \(whole.result) vs \(pieces.result)")
            }
        }
    }

    @Test("every split point of a progressive and a restart file gives the same image",
          arguments: ["valid/progressive_successive.jpg", "valid/restart_3block_odd.jpg"])
    func splits(_ file: String) throws {
        let bytes = try TestVectors.bytes("jpeg/" + file)
        let reference = try JPEGDecoder.decode(bytes)
        for split in stride(from: 1, to: bytes.count, by: 3) {
            var decoder = JPEGDecoder()
            _ = try decoder.append(bytes[0 ..< split])
            _ = try decoder.append(bytes[split...])
            #expect(try decoder.finish() == reference, "split at \(split)")
        }
    }

    @Test("rows events cover the image once, in order")
    func rowsEvents() throws {
        let bytes = try TestVectors.bytes("jpeg/valid/photo256_420_q90.jpg")
        let (events, result) = decodeInPieces(bytes, size: 100)
        let image = try result.get()
        var next = 0
        for case let .rows(r) in events {
            #expect(r.lowerBound == next)
            next = r.upperBound
        }
        #expect(next == image.height)
        #expect(events.first == .header(ImageHeader(fileFormat: .jpeg, width: 256, height: 256, pixelFormat: .rgb8)))
        #expect(events.last == .end)
    }
}
