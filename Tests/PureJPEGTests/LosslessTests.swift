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
        #expect(image.metadata.sampleBits == (vector.precision > 8 && vector.precision < 16 ? vector.precision : nil))
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

    @Test("scaling a lossless file is refused; scale-to-fit gets the full size")
    func scaling() throws {
        let bytes = try TestVectors.bytes("jpeg-lossless/lj3_gray8_p1.jpg")
        #expect(throws: JPEGError.self) { try JPEGDecoder.decode(bytes, options: JPEGDecodingOptions(scale: 4)) }
        var options = JPEGDecodingOptions()
        options.scaleToFit = 10
        #expect(try JPEGDecoder.decode(bytes, options: options).width == 71)
    }
}
