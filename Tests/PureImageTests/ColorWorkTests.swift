@testable import PureImage
import Testing
import TestSupport

/// sRGB and untagged sources cost no colour work in a thumbnail: no transform is built.
@Suite struct ColorWorkTests {
    static func jpeg(profile: String?) throws -> [UInt8] {
        var image = Image(width: 96, height: 64, format: .rgb8)
        for y in 0 ..< 64 {
            for x in 0 ..< 96 {
                let i = (y * 96 + x) * 3
                image.pixels[i] = UInt8(x * 255 / 95); image.pixels[i + 1] = UInt8(y * 255 / 63); image.pixels[i + 2] = UInt8((x + y) % 256)
            }
        }
        if let profile { image.metadata.iccProfile = try TestVectors.bytes("icc/profiles/" + profile) }
        return try JPEGEncoder.encode(image, options: JPEGEncodingOptions(quality: 95))
    }

    static func thumbnail(_ bytes: [UInt8]) throws -> (image: Image, conversions: Int) {
        var thumbnailer = ThumbnailDecoder(maxPixelSize: 48)
        try thumbnailer.append(bytes)
        let image = try thumbnailer.finish()
        return (image, thumbnailer.colorConversions)
    }

    @Test(arguments: [nil, "sRGB.icc", "sRGB-colord.icc"])
    func noTransformForSRGB(profile: String?) throws {
        let bytes = try Self.jpeg(profile: profile)
        let (image, conversions) = try Self.thumbnail(bytes)
        #expect(conversions == 0)
        #expect(image.metadata.iccProfile == nil)
        // The pixels as stored: nothing was converted.
        let stored = try ImageSource.thumbnail(bytes, maxPixelSize: 48, options: ImageSourceOptions(applyOrientation: true, colorSpace: .asStored))
        #expect(image.pixels == stored.pixels)
    }

    @Test(arguments: ["AdobeRGB1998.icc", "Rec709.icc"])
    func otherProfilesAreConverted(profile: String) throws {
        let (image, conversions) = try Self.thumbnail(try Self.jpeg(profile: profile))
        #expect(conversions == 1)
        #expect(image.metadata.iccProfile == nil)
    }

    @Test func sRGBEquivalence() throws {
        for name in ["sRGB.icc", "sRGB-colord.icc"] {
            let profile = try ICCProfile(try TestVectors.bytes("icc/profiles/" + name))
            #expect(profile.isEquivalentToSRGB, "\(name)")
            // Skipping costs at most one code value: the transform is identity within 1.
            var image = Image(width: 256, height: 64, format: .rgb8)
            var rng = SplitMix64(seed: 7)
            for i in image.pixels.indices { image.pixels[i] = UInt8(truncatingIfNeeded: rng.next()) }
            let converted = try ColorTransform(iccProfile: profile.data).apply(to: image)
            let diff = zip(converted.pixels, image.pixels).map { abs(Int($0) - Int($1)) }.max() ?? 0
            #expect(diff <= 1, "\(name): \(diff)")
        }
        for name in ["AdobeRGB1998.icc", "Rec709.icc", "ProPhotoRGB.icc", "Gray.icc", "default_cmyk.icc"] {
            #expect(!(try ICCProfile(try TestVectors.bytes("icc/profiles/" + name))).isEquivalentToSRGB, "\(name)")
        }
    }
    /// A 16-bit image with a LUT-based RGB profile is converted (through the device link), not
    /// only stripped of its profile; its 8-bit twin reduces to the same codes.
    @Test func sixteenBitImageWithALUTProfileIsConverted() throws {
        let profile = try TestVectors.bytes("icc/profiles/synth-rgb-mft2-lab.icc")
        var image8 = Image(width: 64, height: 16, format: .rgb8)
        for k in image8.pixels.indices { image8.pixels[k] = UInt8(truncatingIfNeeded: k &* 37 &+ k / 3) }
        image8.metadata.iccProfile = profile
        var image16 = Image(width: 64, height: 16, format: .rgb16)
        image16.pixels = image8.pixels.map { UInt16($0) * 257 }.withUnsafeBytes { Array($0) }
        image16.metadata.iccProfile = profile
        let (converted8, warning8) = image8.inColorSpace(.sRGB)
        let (converted16, warning16) = image16.inColorSpace(.sRGB)
        #expect(warning8 == nil && warning16 == nil)
        #expect(converted16.format == .rgb16 && converted16.metadata.iccProfile == nil)
        #expect(converted8.pixels != image8.pixels)
        let samples = converted16.pixels.withUnsafeBytes { Array($0.bindMemory(to: UInt16.self)) }
        #expect(samples.map { UInt8((UInt32($0) * 65281 + 8_388_608) >> 24) } == converted8.pixels)
    }
}
