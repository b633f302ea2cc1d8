import ImageCore
import Testing
import TestSupport
@testable import PureJPEG

/// One row of Vectors/jpeg-arithmetic/manifest.tsv: arithmetic-coded files (cjpeg and jpegtran
/// -arithmetic, libjpeg-turbo 2.1) and djpeg's pixels for them.
struct ArithmeticVector: Sendable, CustomStringConvertible {
    var file: String
    var scale: Int
    var fancy: Bool
    var expected: String
    var description: String { "\(file) scale \(scale)/8\(fancy ? "" : " box")" }

    static let all: [ArithmeticVector] = {
        guard let text = try? String(contentsOf: TestVectors.url("jpeg-arithmetic/manifest.tsv"), encoding: .utf8) else { return [] }
        return text.split(separator: "\n").dropFirst().compactMap { line in
            let f = line.split(separator: "\t").map(String.init)
            guard f.count >= 4, let scale = Int(f[1]) else { return nil }
            return ArithmeticVector(file: f[0], scale: scale, fancy: f[2] == "1", expected: f[3])
        }
    }()

    static let fullSize = all.filter { $0.scale == 8 && $0.fancy }
}

@Suite("Arithmetic-coded JPEG (SOF9, SOF10) against djpeg")
struct ArithmeticDecodingTests {
    @Test("manifest is present")
    func present() { #expect(ArithmeticVector.all.count >= 30) }

    @Test("bit-exact with djpeg", arguments: ArithmeticVector.all)
    func exact(_ vector: ArithmeticVector) throws {
        let bytes = try TestVectors.bytes("jpeg-arithmetic/" + vector.file)
        let options = JPEGDecodingOptions(scale: vector.scale, fancyUpsampling: vector.fancy)
        let whole = decodeInPieces(bytes, size: nil, options: options)
        let image = try whole.result.get()
        let reference = try #require(readPNM(try TestVectors.bytes("jpeg-arithmetic/" + vector.expected)))
        let (maxDiff, psnr) = compare(image, reference)
        #expect(maxDiff == 0, "max difference \(maxDiff), PSNR \(psnr) dB")
        #expect(!whole.events.contains { if case .warning = $0 { true } else { false } }, "\(whole.events)")
    }

    @Test("same pixels and events in 1-, 7- and 4096-byte pieces, on 1, 2, 3 and 8 threads",
          arguments: ArithmeticVector.fullSize)
    func pieces(_ vector: ArithmeticVector) throws {
        let bytes = try TestVectors.bytes("jpeg-arithmetic/" + vector.file)
        let whole = decodeInPieces(bytes, size: nil)
        _ = try whole.result.get()
        for size in [1, 7, 4096] {
            let pieces = decodeInPieces(bytes, size: size)
            #expect(pieces.events == whole.events, "events differ with \(size)-byte pieces")
            #expect(try pieces.result.get() == whole.result.get(), "pixels differ with \(size)-byte pieces")
        }
        for threads in [1, 2, 3, 8] {
            for size in [nil, 7] as [Int?] {
                let run = decodeInPieces(bytes, size: size, options: JPEGDecodingOptions(threads: threads))
                #expect(try run.result.get() == whole.result.get(), "\(threads) threads, pieces \(size ?? 0)")
            }
        }
    }

    @Test("the process is reported")
    func process() throws {
        var decoder = JPEGDecoder()
        _ = try decoder.append(try TestVectors.bytes("jpeg-arithmetic/a_420.jpg"))
        #expect(decoder.info?.process == .arithmetic)
        var progressive = JPEGDecoder()
        _ = try progressive.append(try TestVectors.bytes("jpeg-arithmetic/a_prog_420.jpg"))
        #expect(progressive.info?.process == .arithmeticProgressive)
        #expect(progressive.header?.isProgressive == true)
    }

    @Test("previews of a progressive file are its completed scans")
    func previews() throws {
        let bytes = try TestVectors.bytes("jpeg-arithmetic/a_prog_420.jpg")
        var decoder = JPEGDecoder()
        var scans = 0
        var last: Image?
        for start in stride(from: 0, to: bytes.count, by: 97) {
            for event in try decoder.append(bytes[start ..< min(bytes.count, start + 97)]) {
                if case .scanComplete = event {
                    scans += 1
                    last = decoder.preview()
                }
            }
        }
        let final = try decoder.finish()
        #expect(scans >= 5)
        #expect(last == final)
    }
}

/// One row of Vectors/jpeg-encoder-arithmetic/manifest.tsv: `cjpeg -arithmetic` of an input
/// in Vectors/jpeg-encoder.
struct ArithmeticGoldenCase: CustomTestStringConvertible, Sendable {
    var output: String, input: String, quality: Int, subsampling: ChromaSubsampling
    var progressive: Bool, restart: Int, grayscale: Bool
    var testDescription: String { output }

    var options: JPEGEncodingOptions {
        var options = JPEGEncodingOptions(quality: quality, subsampling: subsampling, progressive: progressive,
                                          restartInterval: restart, grayscale: grayscale)
        options.arithmetic = true
        return options
    }

    static let all: [ArithmeticGoldenCase] = {
        guard let text = try? String(contentsOf: TestVectors.url("jpeg-encoder-arithmetic/manifest.tsv"), encoding: .utf8) else { return [] }
        return text.split(separator: "\n").compactMap { line in
            let f = line.split(separator: "\t").map(String.init)
            guard f.count == 7, let q = Int(f[2]), let sub = ChromaSubsampling(rawValue: f[3]), let r = Int(f[5]) else { return nil }
            return ArithmeticGoldenCase(output: f[0], input: f[1], quality: q, subsampling: sub, progressive: f[4] == "1",
                                        restart: r, grayscale: f[6] == "1")
        }
    }()
}

@Suite("Arithmetic-coding encoder (cjpeg -arithmetic byte for byte)")
struct ArithmeticEncoderTests {
    @Test func manifestIsComplete() { #expect(ArithmeticGoldenCase.all.count == 37) }

    @Test(arguments: ArithmeticGoldenCase.all)
    func matchesCjpeg(_ c: ArithmeticGoldenCase) throws {
        let image = try #require(NetpbmReader.read(try TestVectors.bytes("jpeg-encoder/" + c.input)))
        let expected = try TestVectors.bytes("jpeg-encoder-arithmetic/" + c.output)
        let actual = try JPEGEncoder.encode(image, options: c.options)
        let firstDifference = (0 ..< min(actual.count, expected.count)).first { actual[$0] != expected[$0] } ?? min(actual.count, expected.count)
        #expect(actual.count == expected.count && firstDifference == actual.count,
                "sizes \(actual.count) vs \(expected.count), first difference at \(firstDifference)")
        // And the decoder reads it back as it reads cjpeg's.
        #expect(try JPEGDecoder.decode(actual) == JPEGDecoder.decode(expected))
    }

    @Test("optimizeHuffman with arithmetic coding is refused, as cjpeg refuses it")
    func optimizeRefused() throws {
        var options = JPEGEncodingOptions(optimizeHuffman: true)
        options.arithmetic = true
        let image = Image(width: 8, height: 8, format: .gray8, pixels: [UInt8](repeating: 9, count: 64))
        #expect(throws: JPEGEncoderError.self) { try JPEGEncoder.encode(image, options: options) }
        #expect(throws: JPEGEncoderError.self) { try JPEGStreamEncoder(width: 8, height: 8, format: .gray8, options: options) }
    }
}
