import ImageCore
import Testing
@testable import PureWebP

/// Where libwebp 1.2.4's one-shot decoder ends a still's VP8 token partitions (diff-webp's
/// classes "libwebp decodes, PureWebP truncated (VP8 token partition 0)" and "libwebp rejects
/// (SUSPENDED), PureWebP decodes"): the VP8 decoder gets every byte from the payload to the end
/// of the input, not the chunk. Vectors and dwebp references: Vectors/regressions/make_webp_partitions.py.
@Suite("WebP token partitions as libwebp ends them")
struct PartitionRuleTests {
    static func isWarning(_ event: DecodingEvent) -> Bool { if case .warning = event { true } else { false } }

    /// The RGBA rows a WebPRowDecoder hands out for `bytes` fed in `piece`-byte pieces.
    static func streamedRows(_ bytes: [UInt8], piece: Int) throws -> [UInt8] {
        var decoder = WebPRowDecoder()
        var out: [UInt8] = []
        func take(_ band: RowBand) {
            for i in 0 ..< band.count {
                let row = band.row(i)
                if band.format == .rgba8 { out += row } else {
                    for x in 0 ..< band.width { out += [row[3 * x], row[3 * x + 1], row[3 * x + 2], 255] }
                }
            }
        }
        var i = 0
        while i < bytes.count {
            let end = min(bytes.count, i + piece)
            try decoder.append(bytes[i ..< end]) { take($0) }
            i = end
        }
        try decoder.finish { take($0) }
        return out
    }

    /// The last 24 bytes of the only token partition (of the VP8L stream) lie after the chunk
    /// and the RIFF end: dwebp reads them and decodes the picture; so does the decoder, with a
    /// warning, whole, in pieces and row by row. `strict` refuses it; without those bytes the
    /// file is truncated for both.
    @Test(arguments: [("webp-lossy-partition-past-chunk", "VP8 token partition 0"),
                      ("webp-lossless-past-chunk", "VP8L bitstream")])
    func streamReadsOnPastItsChunk(_ name: String, _ truncation: String) throws {
        let bytes = try TestVectors.bytes("regressions/\(name).webp")
        let reference = try PAM.rgba(TestVectors.bytes("regressions/\(name).pam"))
        for piece in [Int.max, 1, 7, 100] {
            let run = Run(bytes, chunk: piece)
            #expect(run.error == nil, "\(piece): \(String(describing: run.error))")
            #expect(run.image?.rgba == reference, "pieces of \(piece)")
            #expect(run.events.contains(where: Self.isWarning))
            #expect(try Self.streamedRows(bytes, piece: piece) == reference, "rows, pieces of \(piece)")
        }
        // The two-thread pipeline: the row that runs out is rolled back on the worker and
        // finished from the bytes after the chunk.
        for piece in [Int.max, 7] {
            let run = Run(bytes, chunk: piece, options: WebPDecodingOptions(useThreads: true))
            #expect(run.image?.rgba == reference, "threads, pieces of \(piece)")
        }
        // A still read through WebPAnimation ends its input there too.
        #expect(try WebPAnimation(bytes: bytes).frame(at: 0).pixels == reference)
        let strict = Run(bytes, options: WebPDecodingOptions(strict: true))
        #expect(strict.error?.code == "truncated")
        let riffSize = Int(bytes[4]) | Int(bytes[5]) << 8 | Int(bytes[6]) << 16
        let cut = Array(bytes.prefix(8 + riffSize))   // the file without what follows the RIFF
        for piece in [Int.max, 1, 7] {
            let run = Run(cut, chunk: piece)
            guard case let .truncated(what, _)? = run.error else { Issue.record("\(String(describing: run.error))"); continue }
            #expect(what == truncation)
        }
        #expect(throws: WebPError.self) { try Self.streamedRows(cut, piece: 7) }
    }

    /// Files whose VP8 data ends inside its chunk never read past it: no warning, whole or in
    /// pieces (a chunk that arrives in pieces must not look short when its last byte comes).
    @Test func encodedFilesStayInTheirChunk() throws {
        for v in WebPVector.stills where v.isLossy {
            let bytes = try v.bytes()
            for piece in [Int.max, 1, 7] {
                let run = Run(bytes, chunk: piece)
                #expect(run.image != nil && !run.events.contains(where: Self.isWarning), "\(v.name), pieces of \(piece)")
            }
        }
    }

    /// Two token partitions; partition 0's size reaches the end of the file, so partition 1
    /// starts there: libwebp's ParsePartitions says SUSPENDED and dwebp refuses the file,
    /// though only partition 0 is read (one macroblock row). One byte more and partition 1
    /// starts inside the data: dwebp decodes it, and so does the decoder.
    @Test func lastPartitionStartingAtTheEndIsRefused() throws {
        let bytes = try TestVectors.bytes("regressions/webp-lossy-last-partition-at-end.webp")
        for piece in [Int.max, 1, 7] {
            let run = Run(bytes, chunk: piece)
            guard case let .truncated(what, offset)? = run.error else {
                Issue.record("pieces of \(piece): \(String(describing: run.error))"); continue
            }
            #expect(what.hasPrefix("VP8 token partitions (partition 1 starts at or past the end"))
            #expect(offset == bytes.count)
            #expect(run.events.allSatisfy { if case .rows = $0 { false } else { true } })
        }
        #expect(throws: WebPError.self) { try Self.streamedRows(bytes, piece: 5) }
        #expect(Run(bytes, options: WebPDecodingOptions(strict: true)).error?.code == "truncated")
        let reference = try PAM.rgba(TestVectors.bytes("regressions/webp-lossy-last-partition-at-end.pam"))
        for piece in [Int.max, 1, 7] {
            #expect(Run(bytes + [0], chunk: piece).image?.rgba == reference, "pieces of \(piece)")
        }
    }

    /// Four token partitions, partition 1 declared empty, every macroblock skipped (no token
    /// read): libwebp's bit reader on no bytes is at its end from the start, so row 1's first
    /// macroblock fails and dwebp says NOT_ENOUGH_DATA. With partition 1's two bytes back, the
    /// file decodes.
    @Test func emptyPartitionFailsItsFirstMacroblock() throws {
        let bytes = try TestVectors.bytes("regressions/webp-lossy-empty-partition.webp")
        for piece in [Int.max, 1, 7] {
            let run = Run(bytes, chunk: piece)
            guard case let .truncated(what, _)? = run.error else {
                Issue.record("pieces of \(piece): \(String(describing: run.error))"); continue
            }
            #expect(what == "VP8 token partition 1")
        }
        // Frame tag (10 bytes), first partition, then the 3-byte sizes of partitions 0, 1, 2.
        let firstPartition = (Int(bytes[20]) | Int(bytes[21]) << 8 | Int(bytes[22]) << 16) >> 5
        var restored = bytes
        restored[20 + 10 + firstPartition + 3] = 2
        let image = try WebPDecoder.decode(restored)
        #expect(image.width == 32 && image.height == 48)
    }
}
