import ImageCore
import Testing
import TestSupport
@testable import PureJPEG

/// One row of Vectors/jpeg-12bit/manifest.tsv: a 12-bit DCT file (libjpeg-turbo 3) and its samples.
struct TwelveBitVector: Sendable, CustomStringConvertible {
    var file: String
    var channels: Int
    var expected: String
    var description: String { file }

    static let all: [TwelveBitVector] = {
        guard let text = try? String(contentsOf: TestVectors.url("jpeg-12bit/manifest.tsv"), encoding: .utf8) else { return [] }
        return text.split(separator: "\n").dropFirst().compactMap { line in
            let f = line.split(separator: "\t").map(String.init)
            guard f.count >= 3, let c = Int(f[1]) else { return nil }
            return TwelveBitVector(file: f[0], channels: c, expected: f[2])
        }
    }()
}

@Suite("12-bit DCT JPEG against libjpeg-turbo 3")
struct TwelveBitDecodingTests {
    @Test("manifest is present")
    func present() { #expect(TwelveBitVector.all.count == 15) }

    @Test("exact samples; whole, in 1-, 7- and 4096-byte pieces", arguments: TwelveBitVector.all)
    func exact(_ vector: TwelveBitVector) throws {
        let bytes = try TestVectors.bytes("jpeg-12bit/" + vector.file)
        let whole = decodeInPieces(bytes, size: nil)
        let image = try whole.result.get()
        let reference = try #require(LosslessVector.samples(try TestVectors.bytes("jpeg-12bit/" + vector.expected)))
        #expect(image.format == (vector.channels == 1 ? .gray16 : .rgb16))
        #expect(image.metadata.sampleBits == 12)
        let got = LosslessVector.samples(of: image)
        let differences = zip(got, reference.values).filter { $0 != $1 }.count
        let worst = zip(got, reference.values).map { abs($0 - $1) }.max() ?? 0
        #expect(got.count == reference.values.count && differences == 0, "\(differences) samples differ, by up to \(worst)")
        for size in [1, 7, 4096] {
            let pieces = decodeInPieces(bytes, size: size)
            #expect(pieces.events == whole.events, "events differ with \(size)-byte pieces")
            #expect(try pieces.result.get() == image, "pixels differ with \(size)-byte pieces")
        }
    }

    /// Vectors/jpeg-12bit/scaled/manifest.tsv: file, scale in eighths, fancy, expected.
    static let scaled: [[String]] = {
        guard let text = try? String(contentsOf: TestVectors.url("jpeg-12bit/scaled/manifest.tsv"), encoding: .utf8) else { return [] }
        return text.split(separator: "\n").dropFirst().map { $0.split(separator: "\t").map(String.init) }.filter { $0.count == 4 }
    }()

    @Test("scaled (1/2, 1/4, 1/8), box-upsampled and block-smoothed decodes exact; whole and in 7-byte pieces")
    func scaledExact() throws {
        #expect(Self.scaled.count == 112)
        for row in Self.scaled {
            let bytes = try TestVectors.bytes("jpeg-12bit/" + row[0])
            var options = JPEGDecodingOptions(scale: Int(row[1]) ?? 8, fancyUpsampling: row[2] == "1")
            let whole = decodeInPieces(bytes, size: nil, options: options)
            let image = try whole.result.get()
            let reference = try #require(LosslessVector.samples(try TestVectors.bytes("jpeg-12bit/scaled/" + row[3])))
            #expect(image.width == reference.width && image.height == reference.height, "\(row)")
            let got = LosslessVector.samples(of: image)
            let differences = zip(got, reference.values).filter { $0 != $1 }.count
            #expect(got.count == reference.values.count && differences == 0, "\(row): \(differences) samples differ")
            #expect(try decodeInPieces(bytes, size: 7, options: options).result.get() == image, "\(row) in pieces")
            if row[0].hasPrefix("rgb12_q85_420") {
                // The same size chosen by a size-to-fit request.
                options.scale = 8
                options.scaleToFit = (max(image.width, image.height))
                #expect(try JPEGDecoder.decode(bytes, options: options) == image, "\(row) by scaleToFit")
            }
        }
    }

    @Test("progressive files cut short are block-smoothed (the vectors test something)")
    func smoothed() throws {
        let cuts = Set(Self.scaled.map { $0[0] }.filter { $0.hasPrefix("scaled/cut") })
        #expect(cuts.count == 12)
        var smoothed = 0
        for file in cuts.sorted() {
            var decoder = JPEGDecoder()
            _ = try decoder.append(try TestVectors.bytes("jpeg-12bit/" + file)[...])
            let final = try decoder.finish()
            // The same coefficients rendered without smoothing (as a preview is).
            let frame = try #require(decoder.frame)
            guard decoder.blockSmoothingPlan(frame: frame) != nil else { continue }
            let plain = try #require(decoder.renderTwelveBit(frame))
            if final != plain { smoothed += 1 }
        }
        #expect(smoothed >= 10, "\(smoothed) of 12 cut files smoothed")
    }

    @Test("row mode and conversions see the full range")
    func fullRange() throws {
        let bytes = try TestVectors.bytes("jpeg-12bit/gray12_q85.jpg")
        let image = try JPEGDecoder.decode(bytes)
        let wide = image.fullRange()
        #expect(wide.metadata.sampleBits == nil && wide.metadata.significantBits == [12])
        #expect(image.converted(to: .gray8) == wide.converted(to: .gray8))
    }
}

@Suite("12-bit JPEG encoder (libjpeg-turbo 3 byte for byte)")
struct TwelveBitEncoderTests {
    /// A committed 12-bit source (maxval 4095) as a 16-bit image with sampleBits 12.
    static func source(_ name: String) throws -> Image {
        let bytes = try TestVectors.bytes("jpeg-12bit/" + name)
        let samples = try #require(LosslessVector.samples(bytes))
        let color = bytes[1] == UInt8(ascii: "6")
        var image = Image(width: samples.width, height: samples.height, format: color ? .rgb16 : .gray16)
        image.pixels.withUnsafeMutableBytes { raw in
            let p = raw.bindMemory(to: UInt16.self)
            for (i, v) in samples.values.enumerated() { p[i] = UInt16(v) }
        }
        image.metadata.sampleBits = 12
        return image
    }

    /// The manifest's files in a subsampling this encoder writes (4:4:4, 4:2:2, 4:2:0, gray).
    static let cases: [(file: String, quality: Int, subsampling: ChromaSubsampling?)] = {
        guard let text = try? String(contentsOf: TestVectors.url("jpeg-12bit/manifest.tsv"), encoding: .utf8) else { return [] }
        return text.split(separator: "\n").dropFirst().compactMap { line in
            let f = line.split(separator: "\t").map(String.init)
            guard f.count >= 6, let q = Int(f[4]) else { return nil }
            if f[5] == "-" { return (f[0], q, nil) }
            guard let s = ChromaSubsampling(rawValue: f[5]) else { return nil }
            return (f[0], q, s)
        }
    }()

    @Test func present() { #expect(Self.cases.count == 8) }

    @Test("byte-identical with libjpeg-turbo 3", arguments: cases)
    func matches(_ c: (file: String, quality: Int, subsampling: ChromaSubsampling?)) throws {
        let image = try Self.source(c.subsampling == nil ? "source_gray12.pgm" : "source_rgb12.ppm")
        var options = JPEGEncodingOptions(quality: c.quality, subsampling: c.subsampling ?? .s420)
        options.precision = 12
        let actual = try JPEGEncoder.encode(image, options: options)
        let expected = try TestVectors.bytes("jpeg-12bit/" + c.file)
        let firstDifference = (0 ..< min(actual.count, expected.count)).first { actual[$0] != expected[$0] } ?? min(actual.count, expected.count)
        #expect(actual.count == expected.count && firstDifference == actual.count,
                "sizes \(actual.count) vs \(expected.count), first difference at \(firstDifference)")
    }

    @Test("progressive, arithmetic and restart intervals at 12 bits decode back to the same samples as sequential")
    func processes() throws {
        let image = try Self.source("source_rgb12.ppm")
        var options = JPEGEncodingOptions(quality: 90, subsampling: .s420)
        options.precision = 12
        let reference = try JPEGDecoder.decode(try JPEGEncoder.encode(image, options: options))
        for (progressive, arithmetic, restart) in [(true, false, 0), (false, true, 0), (true, true, 3), (false, false, 2), (false, true, 5)] {
            var o = options
            o.progressive = progressive
            o.arithmetic = arithmetic
            o.restartInterval = restart
            let bytes = try JPEGEncoder.encode(image, options: o)
            #expect(try JPEGDecoder.decode(bytes) == reference, "progressive \(progressive) arithmetic \(arithmetic) restart \(restart)")
            #expect(try decodeInPieces(bytes, size: 7).result.get() == reference)
        }
    }
}
