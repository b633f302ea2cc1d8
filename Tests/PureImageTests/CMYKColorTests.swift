import PureImage
import Testing
import TestSupport

/// CMYK JPEGs in sRGB: through the embedded CMYK profile when there is one (as browsers do),
/// else R = C * K / 255 on the stored (Adobe-inverted) samples, as before.
@Suite struct CMYKColorTests {
    /// The committed Pillow CMYK JPEG (Adobe marker) with `profile` inserted as APP2
    /// ICC_PROFILE segments (chunks of 65,000 bytes) after SOI.
    static func cmykJPEG(profile: String?) throws -> [UInt8] {
        let jpeg = try TestVectors.bytes("jpeg-extra/cmyk_adobe_pillow.jpg")
        guard let profile else { return jpeg }
        let icc = try TestVectors.bytes("icc/profiles/" + profile)
        let chunks = stride(from: 0, to: icc.count, by: 65000).map { Array(icc[$0 ..< min($0 + 65000, icc.count)]) }
        var segments: [UInt8] = []
        for (i, chunk) in chunks.enumerated() {
            let payload = Array("ICC_PROFILE".utf8) + [0, UInt8(i + 1), UInt8(chunks.count)] + chunk
            let length = payload.count + 2
            segments += [0xFF, 0xE2, UInt8(length >> 8), UInt8(length & 255)] + payload
        }
        return Array(jpeg[0 ..< 2]) + segments + Array(jpeg[2...])
    }

    static func stored(_ bytes: [UInt8]) throws -> Image {
        var options = JPEGDecodingOptions()
        options.outputCMYK = true
        return try JPEGDecoder.decode(bytes, options: options)
    }

    @Test(arguments: ["ps_cmyk.icc", "default_cmyk.icc", "ISOcoated_v2_300_bas.icc"])
    func sRGBDecodeUsesTheProfile(profile: String) throws {
        let bytes = try Self.cmykJPEG(profile: profile)
        let image = try ImageSource.decode(bytes, options: ImageSourceOptions(colorSpace: .sRGB))
        #expect(image.format == .rgb8)
        #expect(image.metadata.iccProfile == nil)
        // The same as the stored CMYK samples through PureColor's transform, inverted as stored.
        let cmyk = try Self.stored(bytes)
        let transform = try ColorTransform(iccProfile: try TestVectors.bytes("icc/profiles/" + profile))
        let expected = transform.convertCMYK(cmyk.pixels, inverted: true)
        #expect(image.pixels == expected)
        // And not the formula: the profile moves colours by many code values.
        let formula = try ImageSource.decode(bytes)
        let diff = zip(image.pixels, formula.pixels).map { abs(Int($0) - Int($1)) }.max() ?? 0
        #expect(diff > 10)
        #expect(formula.format == .rgb8)
    }

    @Test func withoutAProfileTheFormulaStays() throws {
        let bytes = try Self.cmykJPEG(profile: nil)
        let srgb = try ImageSource.decode(bytes, options: ImageSourceOptions(colorSpace: .sRGB))
        let plain = try ImageSource.decode(bytes)
        #expect(srgb.format == .rgb8)
        #expect(srgb.pixels == plain.pixels)
        // ... which is djpeg's output (the committed reference).
        let ppm = try TestVectors.bytes("jpeg-extra/cmyk_adobe_pillow_s8.ppm")
        #expect(Array(ppm.suffix(srgb.pixels.count)) == srgb.pixels)
    }

    @Test func inColorSpaceConvertsStoredCMYK() throws {
        let bytes = try Self.cmykJPEG(profile: "ps_cmyk.icc")
        let cmyk = try Self.stored(bytes)
        #expect(cmyk.format == .rgba8)
        let (image, warning) = cmyk.inColorSpace(.sRGB)
        #expect(warning == nil)
        #expect(image.format == .rgb8)
        let decoded = try ImageSource.decode(bytes, options: ImageSourceOptions(colorSpace: .sRGB))
        #expect(image.pixels == decoded.pixels)
    }

    @Test func unusableProfileFallsBackToTheFormulaWithAWarning() throws {
        var cmyk = try Self.stored(try Self.cmykJPEG(profile: nil))
        let plain = try ImageSource.decode(try Self.cmykJPEG(profile: nil))
        cmyk.metadata.iccProfile = try TestVectors.bytes("icc/profiles/AdobeRGB1998.icc")
        let (rgb, warning) = cmyk.cmykInSRGB()
        #expect(warning != nil)
        #expect(rgb.pixels == plain.pixels)
        var damaged = try TestVectors.bytes("icc/profiles/ps_cmyk.icc")
        damaged[36] = 0
        cmyk.metadata.iccProfile = damaged
        let (rgb2, warning2) = cmyk.cmykInSRGB()
        #expect(warning2 != nil)
        #expect(rgb2.pixels == plain.pixels)
        #expect(rgb2.metadata.iccProfile == nil)
    }
}
