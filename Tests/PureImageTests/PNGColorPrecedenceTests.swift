import Foundation
import PureImage
import Testing
import TestSupport

/// PNG colour chunks taken as browsers take them (cICP > iCCP > sRGB > cHRM + gAMA), converted
/// to sRGB within one code value of lcms2 (`Vectors/png-color/make_png_color.py`).
@Suite struct PNGColorPrecedenceTests {
    struct Case: Sendable, CustomStringConvertible {
        let name: String, gray: Bool, winner: String, warns: Bool
        var description: String { name }
    }

    static let cases: [Case] = {
        guard let text = try? String(contentsOf: TestVectors.url("png-color/manifest.tsv"), encoding: .utf8) else { return [] }
        return text.split(separator: "\n").filter { !$0.hasPrefix("#") }.map { line in
            let f = line.split(separator: "\t").map(String.init)
            return Case(name: f[0], gray: f[1] == "gray", winner: f[2], warns: f[3] == "1")
        }
    }()

    @Test("the manifest lists every case") func manifest() {
        #expect(Self.cases.count == 11)
    }

    @Test("sRGB pixels within 1 of lcms2, a warning only where a description is refused", arguments: cases)
    func matchesReference(_ c: Case) throws {
        let bytes = try TestVectors.bytes("png-color/\(c.name).png")
        let reference = try TestVectors.bytes("png-color/\(c.name).ref")
        let stored = try ImageSource.decode(bytes)
        #expect(stored.format == (c.gray ? .gray8 : .rgb8))
        let (image, warning) = stored.inColorSpace(.sRGB)
        #expect(image.format == stored.format)
        #expect((warning != nil) == c.warns, "\(warning ?? "no warning")")
        #expect(image.pixels.count == reference.count)
        var worst = 0
        for (a, b) in zip(image.pixels, reference) { worst = max(worst, abs(Int(a) - Int(b))) }
        #expect(worst <= 1, "max difference \(worst)")
        if c.winner == "sRGB" { #expect(image.pixels == stored.pixels) } else { #expect(image.pixels != stored.pixels) }
        let m = image.metadata
        #expect(m.iccProfile == nil && m.gamma == nil && m.chromaticities == nil && m.cicp == nil)
        // A colorSpace: .sRGB decode gives the same.
        let decoded = try ImageSource.decode(bytes, options: ImageSourceOptions(colorSpace: .sRGB))
        #expect(decoded.pixels == image.pixels)
    }

    @Test("cICP is read into the metadata; its P3 wins over the ICC profile") func cicpMetadata() throws {
        let stored = try ImageSource.decode(try TestVectors.bytes("png-color/cicp-p3-iccp.png"))
        #expect(stored.metadata.cicp == CICP(colorPrimaries: 12, transferCharacteristics: 13, matrixCoefficients: 0, fullRange: true))
        #expect(stored.metadata.iccProfile != nil)
        #expect(stored.metadata.keys.contains("cicp"))
    }

    @Test("16-bit pixels follow the same description (within 1 code of the 8-bit result)") func sixteenBit() throws {
        let stored = try ImageSource.decode(try TestVectors.bytes("png-color/chrm-gama.png"))
        let wide = stored.converted(to: .rgb16)
        let (image8, _) = stored.inColorSpace(.sRGB)
        let (image16, warning) = wide.inColorSpace(.sRGB)
        #expect(warning == nil)
        #expect(image16.format == .rgb16)
        let narrowed = image16.converted(to: .rgb8)
        var worst = 0
        for (a, b) in zip(narrowed.pixels, image8.pixels) { worst = max(worst, abs(Int(a) - Int(b))) }
        #expect(worst <= 1, "max difference \(worst)")
    }

    @Test("thumbnails convert gAMA-only PNGs, and count the conversion") func thumbnail() throws {
        let bytes = try TestVectors.bytes("png-color/gama-only.png")
        let thumbnail = try ImageSource.thumbnail(bytes, maxPixelSize: 400)
        let (expected, _) = try ImageSource.decode(bytes).inColorSpace(.sRGB)
        #expect(thumbnail.pixels == expected.pixels)
        #expect(thumbnail.metadata.gamma == nil)
    }
}
