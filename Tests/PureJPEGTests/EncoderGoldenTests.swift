import Foundation
import Testing
import ImageCore
@testable import PureJPEG

/// Netpbm P5/P6 (maxval 255) reader for the committed encoder inputs.
enum NetpbmReader {
    static func read(_ bytes: [UInt8]) -> Image? {
        var i = 0
        func token() -> Int? {
            while i < bytes.count {
                if bytes[i] == UInt8(ascii: "#") {
                    while i < bytes.count && bytes[i] != 10 { i += 1 }
                } else if bytes[i] == 32 || bytes[i] == 10 || bytes[i] == 13 || bytes[i] == 9 {
                    i += 1
                } else { break }
            }
            var v = 0, digits = 0
            while i < bytes.count, bytes[i] >= 48, bytes[i] <= 57 { v = v * 10 + Int(bytes[i] - 48); i += 1; digits += 1 }
            return digits > 0 ? v : nil
        }
        guard bytes.count > 2, bytes[0] == UInt8(ascii: "P") else { return nil }
        let kind = bytes[1]
        i = 2
        guard let w = token(), let h = token(), let maxval = token(), maxval == 255 else { return nil }
        i += 1
        let format: PixelFormat = kind == UInt8(ascii: "6") ? .rgb8 : .gray8
        let n = w * h * format.bytesPerPixel
        guard bytes.count - i >= n else { return nil }
        return Image(width: w, height: h, format: format, pixels: Array(bytes[i ..< i + n]))
    }
}

struct GoldenCase: CustomTestStringConvertible, Sendable {
    var output: String, input: String, quality: Int, subsampling: ChromaSubsampling
    var progressive: Bool, optimize: Bool, restart: Int, grayscale: Bool
    var testDescription: String { output }

    var options: JPEGEncodingOptions {
        JPEGEncodingOptions(quality: quality, subsampling: subsampling, progressive: progressive,
                            optimizeHuffman: optimize ? true : nil, restartInterval: restart, grayscale: grayscale)
    }

    static let all: [GoldenCase] = {
        guard let text = try? String(contentsOf: TestVectors.url("jpeg-encoder/manifest.tsv"), encoding: .utf8) else { return [] }
        return text.split(separator: "\n").compactMap { line in
            let f = line.split(separator: "\t").map(String.init)
            guard f.count == 8, let q = Int(f[2]), let sub = ChromaSubsampling(rawValue: f[3]),
                  let r = Int(f[6]) else { return nil }
            return GoldenCase(output: f[0], input: f[1], quality: q, subsampling: sub, progressive: f[4] == "1",
                              optimize: f[5] == "1", restart: r, grayscale: f[7] == "1")
        }
    }()
}

@Suite("Encoder golden files (cjpeg byte for byte)")
struct EncoderGoldenTests {
    @Test func manifestIsComplete() {
        #expect(GoldenCase.all.count == 44)
    }

    @Test(arguments: GoldenCase.all)
    func matchesCjpeg(_ c: GoldenCase) throws {
        let image = try #require(NetpbmReader.read(try TestVectors.bytes("jpeg-encoder/" + c.input)))
        let expected = try TestVectors.bytes("jpeg-encoder/" + c.output)
        let actual = try JPEGEncoder.encode(image, options: c.options)
        let firstDifference = (0 ..< min(actual.count, expected.count)).first { actual[$0] != expected[$0] } ?? min(actual.count, expected.count)
        #expect(actual.count == expected.count && firstDifference == actual.count, "sizes \(actual.count) vs \(expected.count), first difference at \(firstDifference)")
    }
}
