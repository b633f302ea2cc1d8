import Foundation
import ImageCore
import Testing
@testable import PureJPEG

/// One row of Vectors/jpeg/manifest.tsv.
struct JPEGVector: Sendable, CustomStringConvertible {
    var file: String
    var width: Int
    var height: Int
    var expected: String
    var error: String
    var note: String
    var description: String { file }

    static let all: [JPEGVector] = {
        guard let text = try? String(contentsOf: TestVectors.url("jpeg/manifest.tsv"), encoding: .utf8) else { return [] }
        return text.split(separator: "\n").dropFirst().compactMap { line in
            let f = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard f.count >= 8 else { return nil }
            return JPEGVector(file: f[0], width: Int(f[1]) ?? 0, height: Int(f[2]) ?? 0, expected: f[6], error: f[7],
                              note: f.count > 8 ? f[8] : "")
        }
    }()
    static var valid: [JPEGVector] { all.filter { $0.error == "-" } }
    static var invalid: [JPEGVector] { all.filter { $0.error != "-" } }

    func bytes() throws -> [UInt8] { try TestVectors.bytes("jpeg/" + file) }
}

/// A binary PPM (P6) or PGM (P5) as djpeg writes it.
func readPNM(_ bytes: [UInt8]) -> Image? {
    var fields: [String] = []
    var i = 0
    while fields.count < 4 && i < bytes.count {
        while i < bytes.count && (bytes[i] == 0x20 || bytes[i] == 0x0A || bytes[i] == 0x0D || bytes[i] == 0x09) { i += 1 }
        if i < bytes.count && bytes[i] == 0x23 { while i < bytes.count && bytes[i] != 0x0A { i += 1 }; continue }
        var token = ""
        while i < bytes.count && !(bytes[i] == 0x20 || bytes[i] == 0x0A || bytes[i] == 0x0D || bytes[i] == 0x09) {
            token.append(Character(UnicodeScalar(bytes[i]))); i += 1
        }
        fields.append(token)
    }
    i += 1
    guard fields.count == 4, let w = Int(fields[1]), let h = Int(fields[2]), fields[3] == "255" else { return nil }
    let format: PixelFormat = fields[0] == "P6" ? .rgb8 : .gray8
    let n = w * h * format.bytesPerPixel
    guard bytes.count >= i + n else { return nil }
    return Image(width: w, height: h, format: format, pixels: Array(bytes[i ..< i + n]))
}

/// Largest per-sample difference and PSNR (dB, infinity when identical).
func compare(_ a: Image, _ b: Image) -> (maxDiff: Int, psnr: Double) {
    guard a.width == b.width, a.height == b.height, a.format == b.format else { return (255, 0) }
    var maxDiff = 0, sse = 0.0
    for k in 0 ..< a.pixels.count {
        let d = abs(Int(a.pixels[k]) - Int(b.pixels[k]))
        maxDiff = max(maxDiff, d)
        sse += Double(d * d)
    }
    if sse == 0 { return (0, .infinity) }
    return (maxDiff, 10 * log10(255.0 * 255.0 / (sse / Double(a.pixels.count))))
}

@Suite("JPEG conformance against libjpeg-turbo (djpeg)")
struct ConformanceTests {
    @Test("manifest is present and lists valid and invalid files")
    func manifestPresent() {
        #expect(JPEGVector.valid.count > 50)
        #expect(JPEGVector.invalid.count > 20)
    }

    @Test("valid files decode like djpeg", arguments: JPEGVector.valid)
    func valid(_ vector: JPEGVector) throws {
        let image = try JPEGDecoder.decode(try vector.bytes())
        #expect(image.width == vector.width && image.height == vector.height)
        let reference = try #require(readPNM(try TestVectors.bytes("jpeg/" + vector.expected)))
        let (maxDiff, psnr) = compare(image, reference)
        // The kernels are libjpeg-turbo's integer arithmetic, so every file must match exactly.
        #expect(maxDiff == 0, "max difference \(maxDiff), PSNR \(psnr) dB")
    }

    @Test("bit-exact count is reported")
    func bitExactSummary() throws {
        var exact = 0, total = 0, worst: (String, Int, Double) = ("", 0, .infinity)
        for vector in JPEGVector.valid {
            total += 1
            guard let image = try? JPEGDecoder.decode(try vector.bytes()),
                  let reference = readPNM(try TestVectors.bytes("jpeg/" + vector.expected)) else { continue }
            let (d, p) = compare(image, reference)
            if d == 0 { exact += 1 } else if d > worst.1 { worst = (vector.file, d, p) }
        }
        print("JPEG conformance: \(exact) of \(total) valid files bit-exact with djpeg; worst: \(worst)")
        #expect(exact == total)
    }

    /// Damaged files that libjpeg-turbo decodes (with or without a warning) are in
    /// Vectors/jpeg-damaged, tested by DamagedFileTests. djpeg rejects these too, but for
    /// arithmetic coding (not implemented here) and too_many_scans (over our scan limit).
    @Test("invalid files fail with their error code", arguments: JPEGVector.invalid)
    func invalid(_ vector: JPEGVector) throws {
        let bytes = try vector.bytes()
        do {
            let image = try JPEGDecoder.decode(bytes)
            Issue.record("decoded \(image.width)x\(image.height), expected \(vector.error)")
        } catch {
            #expect(error.code == vector.error, "\(error)")
        }
    }
}

/// One row of Vectors/jpeg-extra/manifest.tsv: layouts and options (scaling, box upsampling,
/// multi-scan sequential) with djpeg references.
struct ExtraVector: Sendable, CustomStringConvertible {
    var file: String
    var scale: Int
    var fancy: Bool
    var expected: String
    var description: String { "\(file) scale \(scale)/8\(fancy ? "" : " box")" }

    static let all: [ExtraVector] = {
        guard let text = try? String(contentsOf: TestVectors.url("jpeg-extra/manifest.tsv"), encoding: .utf8) else { return [] }
        return text.split(separator: "\n").dropFirst().compactMap { line in
            let f = line.split(separator: "\t").map(String.init)
            guard f.count >= 4, let scale = Int(f[1]) else { return nil }
            return ExtraVector(file: f[0], scale: scale, fancy: f[2] == "1", expected: f[3])
        }
    }()
}

@Suite("JPEG decoder options and layouts against djpeg")
struct ExtraConformanceTests {
    @Test("extra manifest is present")
    func present() { #expect(ExtraVector.all.count >= 20) }

    @Test("bit-exact with djpeg -scale / -nosmooth", arguments: ExtraVector.all)
    func exact(_ vector: ExtraVector) throws {
        let bytes = try TestVectors.bytes("jpeg-extra/" + vector.file)
        let options = JPEGDecodingOptions(scale: vector.scale, fancyUpsampling: vector.fancy)
        let image = try JPEGDecoder.decode(bytes, options: options)
        let reference = try #require(readPNM(try TestVectors.bytes("jpeg-extra/" + vector.expected)))
        let (maxDiff, psnr) = compare(image, reference)
        #expect(maxDiff == 0, "max difference \(maxDiff), PSNR \(psnr) dB")
        // Chunked input gives the same pixels (multi-scan sequential files use coefficient mode).
        #expect(try decodeInPieces(bytes, size: 61, options: options).result.get() == image)
    }

    @Test("16-bit quantization tables make an extended (SOF1) file")
    func extended() throws {
        var decoder = JPEGDecoder()
        _ = try decoder.append(try TestVectors.bytes("jpeg-extra/dqt16_sof1.jpg"))
        #expect(decoder.info?.process == .extended)
        #expect(decoder.info?.estimatedQuality == 2)
    }

    @Test("a fractional sampling ratio is unsupported, not a wrong image")
    func fractional() throws {
        var bytes = try TestVectors.bytes("jpeg-extra/samp_3x1.jpg")
        // Cb 1x1 -> 2x1: Hmax 3 / 2 is not whole (libjpeg's JERR_FRACT_SAMPLE_NOTIMPL).
        var i = 0
        while i + 1 < bytes.count && !(bytes[i] == 0xFF && bytes[i + 1] == 0xC0) { i += 1 }
        bytes[i + 10 + 3 + 1] = 0x21
        do {
            _ = try JPEGDecoder.decode(bytes)
            Issue.record("decoded")
        } catch {
            #expect(error.code == "unsupported")
        }
    }
}

/// One row of Vectors/jpeg/manifest_scaled.tsv (djpeg -scale 1/N references).
struct ScaledVector: Sendable, CustomStringConvertible {
    var file: String
    var denominator: Int
    var width: Int
    var height: Int
    var expected: String
    var description: String { "\(file) 1/\(denominator)" }

    static let all: [ScaledVector] = {
        guard let text = try? String(contentsOf: TestVectors.url("jpeg/manifest_scaled.tsv"), encoding: .utf8) else { return [] }
        return text.split(separator: "\n").dropFirst().compactMap { line in
            let f = line.split(separator: "\t").map(String.init)
            guard f.count >= 5, let d = Int(f[1]), let w = Int(f[2]), let h = Int(f[3]) else { return nil }
            return ScaledVector(file: f[0], denominator: d, width: w, height: h, expected: f[4])
        }
    }()
}

@Suite("JPEG scaled decoding against djpeg -scale")
struct ScaledConformanceTests {
    @Test("scaled manifest is present")
    func present() { #expect(ScaledVector.all.count >= 30) }

    @Test("bit-exact at 1/2, 1/4, 1/8", arguments: ScaledVector.all)
    func exact(_ vector: ScaledVector) throws {
        let options = JPEGDecodingOptions(scale: 8 / vector.denominator)
        let image = try JPEGDecoder.decode(try TestVectors.bytes("jpeg/" + vector.file), options: options)
        #expect(image.width == vector.width && image.height == vector.height)
        let reference = try #require(readPNM(try TestVectors.bytes("jpeg/" + vector.expected)))
        let (maxDiff, psnr) = compare(image, reference)
        #expect(maxDiff == 0, "max difference \(maxDiff), PSNR \(psnr) dB")
    }
}
