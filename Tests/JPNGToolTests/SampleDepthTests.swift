import Foundation
import PureImage
import Testing

/// Lossless JPEG below 8 bits (2-7) keeps its samples as libjpeg-turbo 3 returns them
/// (0...2^P - 1): Netpbm output says so with MAXVAL 2^P - 1, as djpeg 3 writes it, and every
/// conversion scales them to the full range first (a PNG gets them x255/(2^P-1) with sBIT P).
@Suite struct SampleDepthTests {
    /// The samples of a committed PGM reference (libjpeg-turbo 3.1.3 via imagecodecs).
    static func referenceSamples(_ name: String) throws -> (width: Int, height: Int, samples: [UInt8]) {
        let bytes = try TestVectors.bytes("jpeg-lossless/" + name)
        let text = String(decoding: bytes.prefix(32), as: UTF8.self).split(whereSeparator: { $0 == "\n" || $0 == " " })
        let width = Int(text[1])!, height = Int(text[2])!
        return (width, height, Array(bytes.suffix(width * height)))
    }

    @Test("2-bit lossless to PAM and PGM: MAXVAL 3 and libjpeg-turbo 3's samples, whole and streamed",
          arguments: ["lj3_gray2_p1", "pt_gray2_p5"])
    func netpbm(name: String) throws {
        let dir = try CLI.scratchFolder()
        let input = TestVectors.url("jpeg-lossless/\(name).jpg").path
        let reference = try Self.referenceSamples(name + ".pgm")
        for (ext, header) in [("pam", "P7\nWIDTH \(reference.width)\nHEIGHT \(reference.height)\nDEPTH 1\nMAXVAL 3\nTUPLTYPE GRAYSCALE\nENDHDR\n"),
                              ("pgm", "P5\n\(reference.width) \(reference.height)\n3\n")] {
            for target in [dir.appendingPathComponent("out.\(ext)").path, "-"] {
                let result = try CLI.run(["decode", input, "-o", target, "--format", ext, "--force"])
                #expect(result.status == 0, "\(result.stderr)")
                #expect(result.stderr.isEmpty, "\(result.stderr)")
                let written = target == "-" ? result.stdout : [UInt8](try Data(contentsOf: URL(fileURLWithPath: target)))
                #expect(written == Array(header.utf8) + reference.samples, "\(ext) to \(target)")
            }
        }
    }

    @Test("2-bit lossless to PNG: the full range with sBIT 2, and the library's conversions agree")
    func png() throws {
        let dir = try CLI.scratchFolder()
        let input = TestVectors.url("jpeg-lossless/lj3_gray2_p1.jpg").path
        let reference = try Self.referenceSamples("lj3_gray2_p1.pgm")
        let output = dir.appendingPathComponent("out.png").path
        let result = try CLI.run(["decode", input, "-o", output])
        #expect(result.status == 0, "\(result.stderr)")
        let png = try PNGDecoder.decode([UInt8](try Data(contentsOf: URL(fileURLWithPath: output))))
        #expect(png.format == .gray8)
        #expect(png.pixels == reference.samples.map { $0 * 85 })
        #expect(png.metadata.significantBits == [2])

        let decoded = try ImageSource.decode(try TestVectors.bytes("jpeg-lossless/lj3_gray2_p1.jpg"))
        #expect(decoded.pixels == reference.samples && decoded.metadata.sampleBits == 2)
        #expect(decoded.converted(to: .rgb8).pixels == reference.samples.flatMap { [$0 * 85, $0 * 85, $0 * 85] })
        #expect(decoded.fullRange().pixels == png.pixels)
    }
}
