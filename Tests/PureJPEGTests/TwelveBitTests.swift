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
    func present() { #expect(TwelveBitVector.all.count == 10) }

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

    @Test("row mode and conversions see the full range")
    func fullRange() throws {
        let bytes = try TestVectors.bytes("jpeg-12bit/gray12_q85.jpg")
        let image = try JPEGDecoder.decode(bytes)
        let wide = image.fullRange()
        #expect(wide.metadata.sampleBits == nil && wide.metadata.significantBits == [12])
        #expect(image.converted(to: .gray8) == wide.converted(to: .gray8))
    }
}
