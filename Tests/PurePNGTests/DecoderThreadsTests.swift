import ImageCore
@testable import PurePNG
import Testing

/// Unfiltering on a second thread (``ImageDataDecoder``'s pipeline, `threads` above 1) gives
/// the one-thread decode: pixels, events, previews and errors (offsets included), whole and in
/// pieces, on every vector and on large images damaged where a block is in flight.
@Suite struct DecoderThreadsTests {
    static let threadCounts = [2, 3, 8]
    static let pieces: [[Int]?] = [nil, [1], [7], [4096]]

    /// Each thread count gives one thread's outcome for the same pieces (an error's offset
    /// and the events before it depend on the pieces, not on the threads).
    static func sameOutcome(_ bytes: [UInt8], _ name: String, strict: Bool = false, pieces: [[Int]?] = pieces) {
        for sizes in pieces {
            let one = ChunkingTests.decode(bytes, pieces: sizes, options: PNGDecodingOptions(strict: strict, threads: 1))
            for threads in threadCounts {
                let outcome = ChunkingTests.decode(bytes, pieces: sizes, options: PNGDecodingOptions(strict: strict, threads: threads))
                let label = "\(name), \(threads) threads, pieces \(sizes.map { "\($0)" } ?? "whole")"
                #expect(outcome.image == one.image, "\(label): image")
                #expect(outcome.error == one.error,
                        "\(label): \(outcome.error.map { "\($0)" } ?? "no error") against \(one.error.map { "\($0)" } ?? "no error")")
                #expect(outcome.events == one.events, "\(label): events")
                #expect(outcome.previewSizes == one.previewSizes, "\(label): previews")
            }
        }
    }

    @Test(arguments: PNGManifest.all)
    func everyVector(_ vector: PNGVector) throws {
        Self.sameOutcome(try vector.bytes(), vector.path, strict: true)
    }

    @Test(arguments: DamagedVector.all)
    func everyDamagedFile(_ vector: DamagedVector) throws {
        let bytes = try vector.bytes()
        Self.sameOutcome(bytes, vector.file)
        Self.sameOutcome(bytes, vector.file + " strict", strict: true, pieces: [nil, [7]])
    }

    /// A PNG of `width` x `height` RGB8 whose filtered rows are `filtered` (filter bytes
    /// included), in IDAT chunks of `idat` bytes.
    static func png(width: Int, height: Int, colorType: UInt8 = 2, palette: [UInt8] = [], interlaced: Bool = false,
                    filtered: [UInt8], idat: Int) throws -> [UInt8] {
        var w = ChunkWriter()
        w.writeSignature()
        var ihdr: [UInt8] = []
        ihdr.appendBigEndian32(UInt32(width))
        ihdr.appendBigEndian32(UInt32(height))
        ihdr += [8, colorType, 0, 0, interlaced ? 1 : 0]
        try w.write(.IHDR, ihdr)
        if !palette.isEmpty { try w.write(.PLTE, palette) }
        let z = try Deflater.compress(filtered, level: 6)
        for start in stride(from: 0, to: z.count, by: idat) {
            try w.write(.IDAT, Array(z[start ..< min(z.count, start + idat)]))
        }
        try w.write(.IEND, [])
        return w.bytes
    }

    /// Rows of a gradient with noise, each with a filter type cycling through 0-4.
    static func filteredRows(rows: Int, rowBytes: Int) -> [UInt8] {
        var out: [UInt8] = []
        var state: UInt32 = 12345
        for y in 0 ..< rows {
            out.append(UInt8(y % 5))
            for x in 0 ..< rowBytes {
                state = state &* 1_103_515_245 &+ 12345
                out.append(UInt8(truncatingIfNeeded: x / 7 + y / 3) &+ UInt8(truncatingIfNeeded: state >> 28))
            }
        }
        return out
    }

    @Test(arguments: [8192, 65536, 1 << 20])
    func largeImagesAndFaultsInFlight(idat: Int) throws {
        let width = 700, height = 600, rowBytes = width * 3
        let rows = Self.filteredRows(rows: height, rowBytes: rowBytes)
        let clean = try Self.png(width: width, height: height, filtered: rows, idat: idat)
        // Default threads pipeline this image (1.2 MB filtered): the same pixels as one thread.
        #expect(try PNGDecoder.decode(clean) == PNGDecoder.decode(clean, options: PNGDecodingOptions(threads: 1)))
        Self.sameOutcome(clean, "clean, IDAT \(idat)", pieces: [nil, [4096], [65_537]])
        // A filter type of 7 on row 450, far past the first blocks.
        var bad = rows
        bad[450 * (rowBytes + 1)] = 7
        let badFilter = try Self.png(width: width, height: height, filtered: bad, idat: idat)
        let outcome = ChunkingTests.decode(badFilter, pieces: nil, options: PNGDecodingOptions(threads: 2))
        #expect(outcome.error?.code == "invalidFilterType", "\(outcome.error.map { "\($0)" } ?? "no error")")
        Self.sameOutcome(badFilter, "bad filter, IDAT \(idat)", pieces: [nil, [4096], [65_537]])
        // The stream cut short after 400 rows: the rows before are kept in the partial image.
        let short = try Self.png(width: width, height: height, filtered: Array(rows[..<(400 * (rowBytes + 1) + 77)]), idat: idat)
        Self.sameOutcome(short, "short stream, IDAT \(idat)", pieces: [nil, [4096]])
    }

    @Test func interlacedAndPaletteIndicesPastThePalette() throws {
        // Adam7 RGB8: passes cross blocks and blocks cross passes.
        let width = 640, height = 480
        var filtered: [UInt8] = []
        for pass in 0 ..< 7 {
            let (w, h) = Adam7.size(pass: pass, width: width, height: height)
            if w > 0 && h > 0 { filtered += Self.filteredRows(rows: h, rowBytes: w * 3) }
        }
        let adam7 = try Self.png(width: width, height: height, interlaced: true, filtered: filtered, idat: 8192)
        Self.sameOutcome(adam7, "Adam7", pieces: [nil, [4096]])
        // A palette of 4 entries, index 9 on row 300: a warning by default, an error strict.
        var indexed: [UInt8] = []
        for y in 0 ..< 700 {
            indexed.append(0)
            for x in 0 ..< 1500 { indexed.append(y == 300 && x == 20 ? 9 : UInt8((x + y) % 4)) }
        }
        let palette: [UInt8] = [0, 0, 0, 255, 0, 0, 0, 255, 0, 0, 0, 255]
        let png = try Self.png(width: 1500, height: 700, colorType: 3, palette: palette, filtered: indexed, idat: 8192)
        Self.sameOutcome(png, "palette", pieces: [nil, [4096]])
        Self.sameOutcome(png, "palette strict", strict: true, pieces: [nil, [4096]])
        let strict = ChunkingTests.decode(png, pieces: nil, options: PNGDecodingOptions(strict: true, threads: 2))
        #expect(strict.error?.code == "paletteIndexOutOfRange")
    }
}
