import ImageCore
import Testing
import TestSupport
@testable import PureJPEG

/// One row of Vectors/jpeg-lossless/manifest.tsv: a lossless JPEG and libjpeg-turbo 3's samples.
struct LosslessVector: Sendable, CustomStringConvertible {
    var file: String
    var precision: Int
    var predictor: Int
    var pointTransform: Int
    var channels: Int
    var expected: String
    var description: String { file }

    static let all: [LosslessVector] = {
        guard let text = try? String(contentsOf: TestVectors.url("jpeg-lossless/manifest.tsv"), encoding: .utf8) else { return [] }
        return text.split(separator: "\n").dropFirst().compactMap { line in
            let f = line.split(separator: "\t").map(String.init)
            guard f.count >= 7, let p = Int(f[1]), let psv = Int(f[2]), let pt = Int(f[3]), let c = Int(f[5]) else { return nil }
            return LosslessVector(file: f[0], precision: p, predictor: psv, pointTransform: pt, channels: c, expected: f[6])
        }
    }()

    /// The raw samples of a P5/P6 file with maxval 255 (bytes) or 65535 (big-endian pairs).
    static func samples(_ bytes: [UInt8]) -> (width: Int, height: Int, values: [Int])? {
        var i = 2, fields: [Int] = []
        while fields.count < 3 && i < bytes.count {
            while i < bytes.count && (bytes[i] == 10 || bytes[i] == 32) { i += 1 }
            var v = 0
            while i < bytes.count, bytes[i] >= 48, bytes[i] <= 57 { v = v * 10 + Int(bytes[i] - 48); i += 1 }
            fields.append(v)
        }
        i += 1
        guard fields.count == 3 else { return nil }
        let wide = fields[2] > 255
        let body = Array(bytes[i...])
        let values = wide ? stride(from: 0, to: body.count - 1, by: 2).map { Int(body[$0]) << 8 | Int(body[$0 + 1]) } : body.map(Int.init)
        return (fields[0], fields[1], values)
    }

    /// The decoded image's samples in the same order.
    static func samples(of image: Image) -> [Int] {
        guard image.format.is16Bit else { return image.pixels.map(Int.init) }
        return image.pixels.withUnsafeBytes { raw in raw.bindMemory(to: UInt16.self).map(Int.init) }
    }
}

@Suite("Lossless JPEG (SOF3) against libjpeg-turbo 3")
struct LosslessDecodingTests {
    @Test("manifest is present")
    func present() { #expect(LosslessVector.all.count >= 36) }

    @Test("exact samples; whole, in 1-, 7- and 4096-byte pieces", arguments: LosslessVector.all)
    func exact(_ vector: LosslessVector) throws {
        let bytes = try TestVectors.bytes("jpeg-lossless/" + vector.file)
        let whole = decodeInPieces(bytes, size: nil)
        let image = try whole.result.get()
        let reference = try #require(LosslessVector.samples(try TestVectors.bytes("jpeg-lossless/" + vector.expected)))
        #expect(image.width == reference.width && image.height == reference.height)
        #expect(image.format.channels == vector.channels)
        #expect(image.format.is16Bit == (vector.precision > 8))
        #expect(image.metadata.sampleBits == (vector.precision != 8 && vector.precision < 16 ? vector.precision : nil))
        let got = LosslessVector.samples(of: image)
        let firstDifference = zip(got, reference.values).enumerated().first { $0.element.0 != $0.element.1 }?.offset
        #expect(got.count == reference.values.count && firstDifference == nil,
                "first difference at sample \(firstDifference ?? -1) of \(got.count)")
        #expect(!whole.events.contains { if case .warning = $0 { true } else { false } }, "\(whole.events)")
        for size in [1, 7, 4096] where size == 4096 || bytes.count < 40_000 {
            let pieces = decodeInPieces(bytes, size: size)
            #expect(pieces.events == whole.events, "events differ with \(size)-byte pieces")
            #expect(try pieces.result.get() == image, "pixels differ with \(size)-byte pieces")
        }
    }

    @Test("the process and precision are reported; a preview shows the rows so far")
    func info() throws {
        let bytes = try TestVectors.bytes("jpeg-lossless/lj3_gray12_p1.jpg")
        var decoder = JPEGDecoder()
        let events = try decoder.append(bytes[0 ..< bytes.count / 2])
        #expect(decoder.info?.process == .lossless)
        #expect(decoder.header?.pixelFormat == .gray16)
        #expect(events.contains { if case .rows = $0 { true } else { false } })
        let preview = try #require(decoder.preview())
        #expect(preview.width == 71 && preview.height == 53)
        _ = try decoder.append(bytes[(bytes.count / 2)...])
        let image = try decoder.finish()
        #expect(image.metadata.sampleBits == 12)
        // Full range for display and encoders: 4095 becomes 65535.
        let wide = image.fullRange()
        #expect(wide.metadata.sampleBits == nil && wide.metadata.significantBits == [12])
        #expect(image.converted(to: .gray8).pixels.count == 71 * 53)
    }

    @Test("row mode hands out the full 16-bit range (the image's fullRange()), its metadata saying from how many bits",
          arguments: ["lj3_rgb12_p6.jpg", "lj3_gray12_p1.jpg", "lj3_gray16_p1.jpg", "lj3_gray8_p1.jpg"])
    func rowModeFullRange(_ file: String) throws {
        let bytes = try TestVectors.bytes("jpeg-lossless/" + file)
        let whole = try JPEGDecoder.decode(bytes).fullRange()
        for size in [nil, 7] as [Int?] {
            let rows = decodeRows(bytes, size: size)
            #expect(rows.error == nil && rows.pixels == whole.pixels, "\(file), pieces of \(size ?? 0)")
        }
        var decoder = JPEGRowDecoder()
        try bytes.withUnsafeBytes { raw in _ = try decoder.append(raw) { _ in } }
        let bits: [UInt8]? = file.contains("12") ? [UInt8](repeating: 12, count: file.contains("rgb") ? 3 : 1) : nil
        #expect(decoder.metadata.significantBits == bits)
    }

    @Test("a lossless file decodes at full size whatever the scale (as libjpeg-turbo 3)")
    func scaling() throws {
        let bytes = try TestVectors.bytes("jpeg-lossless/lj3_gray8_p1.jpg")
        var decoder = JPEGDecoder(options: JPEGDecodingOptions(scale: 4))
        _ = try decoder.append(bytes[...])
        #expect(try decoder.finish() == JPEGDecoder.decode(bytes))
        #expect(decoder.options.scale == 8)
        var options = JPEGDecodingOptions()
        options.scaleToFit = 10
        #expect(try JPEGDecoder.decode(bytes, options: options).width == 71)
    }
}

@Suite("Lossless JPEG encoder (libjpeg-turbo 3 byte for byte)")
struct LosslessEncoderTests {
    /// The files libjpeg-turbo 3 wrote (through imagecodecs); their decoded samples are the input.
    static let references = LosslessVector.all.filter { $0.file.hasPrefix("lj3_") }

    /// The samples of a reference as an image: 8-bit formats up to 8 bits, 16-bit above.
    static func image(_ vector: LosslessVector) throws -> Image {
        let reference = try #require(LosslessVector.samples(try TestVectors.bytes("jpeg-lossless/" + vector.expected)))
        let format = PixelFormat(color: vector.channels == 3, alpha: false, sixteenBit: vector.precision > 8)
        var image = Image(width: reference.width, height: reference.height, format: format)
        image.pixels.withUnsafeMutableBytes { raw in
            if format.is16Bit {
                let p = raw.bindMemory(to: UInt16.self)
                for (i, v) in reference.values.enumerated() { p[i] = UInt16(v) }
            } else {
                for (i, v) in reference.values.enumerated() { raw[i] = UInt8(v) }
            }
        }
        if format.is16Bit && vector.precision < 16 { image.metadata.sampleBits = vector.precision }
        return image
    }

    @Test func present() { #expect(Self.references.count == 29) }

    @Test("byte-identical with libjpeg-turbo 3", arguments: references)
    func matches(_ vector: LosslessVector) throws {
        let expected = try TestVectors.bytes("jpeg-lossless/" + vector.file)
        var options = JPEGEncodingOptions()
        options.lossless = JPEGLossless(predictor: vector.predictor, precision: vector.precision)
        let actual = try JPEGEncoder.encode(try Self.image(vector), options: options)
        let firstDifference = (0 ..< min(actual.count, expected.count)).first { actual[$0] != expected[$0] } ?? min(actual.count, expected.count)
        #expect(actual.count == expected.count && firstDifference == actual.count,
                "sizes \(actual.count) vs \(expected.count), first difference at \(firstDifference)")
    }

    @Test("point transforms and restart intervals round-trip through the decoder",
          arguments: [(1, 0, 0), (4, 2, 0), (7, 3, 2), (5, 1, 1), (2, 0, 3)])
    func roundTrip(_ settings: (predictor: Int, pt: Int, restartRows: Int)) throws {
        for vector in Self.references where vector.predictor == 1 || vector.file.contains("rgb12") {
            let image = try Self.image(vector)
            var options = JPEGEncodingOptions(restartInterval: settings.restartRows * image.width)
            options.lossless = JPEGLossless(predictor: settings.predictor, pointTransform: min(settings.pt, vector.precision - 1),
                                            precision: vector.precision)
            let bytes = try JPEGEncoder.encode(image, options: options)
            let decoded = try JPEGDecoder.decode(bytes)
            let pt = min(settings.pt, vector.precision - 1)
            let expected = LosslessVector.samples(of: image).map { ($0 >> pt) << pt }
            #expect(LosslessVector.samples(of: decoded) == expected, "\(vector.file)")
            #expect(try decodeInPieces(bytes, size: 7).result.get() == decoded)
        }
    }

    @Test("out-of-range settings are refused")
    func refused() throws {
        let image = Image(width: 4, height: 4, format: .gray8)
        for bad in [JPEGLossless(predictor: 0), JPEGLossless(predictor: 8), JPEGLossless(pointTransform: 8),
                    JPEGLossless(precision: 1), JPEGLossless(precision: 17)] {
            var options = JPEGEncodingOptions()
            options.lossless = bad
            #expect(throws: JPEGEncoderError.self) { try JPEGEncoder.encode(image, options: options) }
        }
    }
}
