import Testing
import ImageCore
@testable import PurePNG

/// The banded zlib stream (``ImageDataBands``): where bands end, the same bytes for every
/// thread count and from the stream encoder, valid zlib (the decoder checks the Adler-32),
/// and a size close to one stream's.
@Suite struct EncoderBandsTests {
    static func plan(_ image: Image, _ options: PNGEncodingOptions = .init()) throws -> EncodingPlan {
        try EncodingPlan(width: image.width, height: image.height, format: image.format, options: options, image: image)
    }

    @Test func bandsEndAtTheFirstRowReachingTheTarget() throws {
        let image = Image(width: 1000, height: 400, format: .rgb8)
        let rows = ImageDataRows(plan: try Self.plan(image))
        let bands = ImageDataBands(rows: rows)
        // 3,001 filtered bytes a row: 88 rows are the first to reach 256 KiB.
        #expect(bands.starts == [0, 88, 176, 264, 352, 400])
        // A target met exactly on the last row starts no empty band.
        let exact = ImageDataBands(rows: rows, targetBytes: 400 * 3001)
        #expect(exact.starts == [0, 400])
        let interlaced = ImageDataRows(plan: try Self.plan(image, PNGEncodingOptions(interlaced: true)))
        #expect(interlaced.passes.map(\.height) == [50, 50, 50, 100, 100, 200, 200])
        #expect(interlaced.count == 750)
        #expect(interlaced.locate(149).k == 49 && interlaced.locate(150).pass.firstRow == 150)
    }

    static let cases: [(String, Image, PNGEncodingOptions)] = [
        ("rgb8", EncoderTests.makeImage(700, 300, .rgb8), PNGEncodingOptions()),
        ("rgba16 Adam7", EncoderTests.makeImage(300, 300, .rgba16), PNGEncodingOptions(interlaced: true)),
        ("gray8 level 0", EncoderTests.makeImage(1200, 500, .gray8), PNGEncodingOptions(compressionLevel: 0)),
        ("gray8 Paeth level 9", EncoderTests.makeImage(1200, 500, .gray8, seed: 3),
         PNGEncodingOptions(compressionLevel: 9, filter: .paeth)),
        ("rgba8 unfiltered level 1", EncoderTests.makeImage(600, 400, .rgba8, seed: 5),
         PNGEncodingOptions(compressionLevel: 1, filter: .none)),
    ]

    @Test(arguments: 0 ..< cases.count)
    func everyThreadCountWritesTheSameBytes(_ index: Int) throws {
        let (name, image, base) = Self.cases[index]
        var options = base
        options.threads = 1
        let one = try PNGEncoder.encode(image, options: options)
        let bands = ImageDataBands(rows: ImageDataRows(plan: try Self.plan(image, options)))
        #expect(bands.count >= 3, "\(name) is banded")
        for threads in [2, 3, 8] {
            options.threads = threads
            #expect(try PNGEncoder.encode(image, options: options) == one, "\(name), \(threads) threads")
        }
        options.threads = nil
        #expect(try PNGEncoder.encode(image, options: options) == one, "\(name), default threads")
        let decoded = try PNGDecoder.decode(one)
        #expect(decoded.pixels == image.pixels, "\(name) round trip")
        // IDAT chunks of 64 KiB but the last, as one stream on one thread writes them.
        let idat = EncoderTests.chunks(one).filter { $0.type == "IDAT" }.map(\.data.count)
        #expect(idat.dropLast().allSatisfy { $0 == Deflater.defaultBlockSize }, "\(name) IDAT sizes")
        if !base.interlaced {
            var stream = try PNGStreamEncoder(width: image.width, height: image.height, format: image.format,
                                              metadata: image.metadata, options: base)
            var bytes: [UInt8] = []
            let stride = image.bytesPerRow
            // Bands of 37 rows: the encoder's own band ends fall inside them.
            for start in Swift.stride(from: 0, to: image.height, by: 37) {
                let end = min(image.height, start + 37)
                bytes += try image.pixels[start * stride ..< end * stride].withUnsafeBytes { try stream.append(rows: $0) }
            }
            bytes += try stream.finish()
            #expect(bytes == one, "\(name): the stream encoder writes the same bytes")
        }
    }

    @Test func bandsCostUnderHalfAPercent() throws {
        let image = EncoderTests.makeImage(1600, 1000, .rgb8, seed: 9)
        let plan = try Self.plan(image)
        let rows = ImageDataRows(plan: plan)
        var banded = ChunkWriter(), single = ChunkWriter()
        try PNGEncoder.encodeRows(image, plan: plan, rows: rows, bands: ImageDataBands(rows: rows), into: &banded)
        try PNGEncoder.encodeRows(image, plan: plan, rows: rows, bands: ImageDataBands(rows: rows, targetBytes: .max),
                                  into: &single)
        #expect(ImageDataBands(rows: rows).count == 19)
        let ratio = Double(banded.bytes.count) / Double(single.bytes.count)
        #expect(ratio < 1.005, "banded \(banded.bytes.count) bytes, one stream \(single.bytes.count)")
        #expect(ratio > 0.995)
    }

    @Test func aRefusalInALaterBandIsTheOneThreadRefusal() throws {
        // Gray output needs R == G == B: row 250 breaks it, in the second band.
        var image = Image(width: 1000, height: 400, format: .rgb8)
        image.pixels[250 * image.bytesPerRow + 30] = 7
        var errors: [String] = []
        for threads in [1, 2, 8] {
            do {
                _ = try PNGEncoder.encode(image, options: PNGEncodingOptions(colorType: .gray, threads: threads))
                Issue.record("\(threads) threads: encoded")
            } catch {
                errors.append("\(error)")
            }
        }
        #expect(Set(errors).count == 1, "\(errors)")
        #expect(throws: PNGError.self) { try PNGEncoder.encode(image, options: PNGEncodingOptions(threads: 0)) }
    }
}
