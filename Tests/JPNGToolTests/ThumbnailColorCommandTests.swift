import Foundation
import PureImage
import Testing

/// `jpng thumbnail` of a tagged, rotated photo: sRGB with no profile, upright, no EXIF; with
/// `--keep-profile` the profile and its pixels; with `--metadata all` EXIF saying Orientation 1.
@Suite struct ThumbnailColorCommandTests {
    @Test func taggedRotatedPhoto() throws {
        let dir = try CLI.scratchFolder()
        var image = sampleImage(width: 96, height: 64)
        image.metadata.iccProfile = try TestVectors.bytes("icc/profiles/ProPhotoRGB.icc")
        image.metadata.orientation = .right          // the encoder writes it as EXIF orientation 6
        let input = try FormatCommandTests.write(try JPEGEncoder.encode(image.converted(to: .rgb8)), "photo.jpg", in: dir)
        func thumbnail(_ name: String, _ extra: [String]) throws -> Image {
            let output = dir.appendingPathComponent(name).path
            let result = try CLI.run(["thumbnail", input, "-o", output, "--size", "48"] + extra)
            #expect(result.status == 0 && result.stderr.isEmpty, "\(result.stderr)")
            return try PNGDecoder.decode([UInt8](try Data(contentsOf: URL(fileURLWithPath: output))))
        }
        let converted = try thumbnail("t.png", [])
        #expect(converted.width == 32 && converted.height == 48)
        #expect(converted.metadata.iccProfile == nil && converted.metadata.exif == nil)
        let kept = try thumbnail("kept.png", ["--keep-profile"])
        #expect(kept.metadata.iccProfile != nil)
        let expected = try ColorTransform(iccProfile: try #require(kept.metadata.iccProfile)).apply(to: kept.converted(to: .rgb8))
        #expect(converted.converted(to: .rgb8).pixels == expected.pixels)
        let all = try thumbnail("all.png", ["--metadata", "all"])
        #expect(all.metadata.exif.flatMap(EXIF.orientation) == .up)
    }
}

/// `jpng thumbnail` of the committed photos of `Vectors/color-photos` (Adobe RGB, ProPhoto,
/// Display P3, and CMYK with Ghostscript's default_cmyk profile; EXIF Orientation 6 and a GPS
/// IFD) against lcms2's float conversion of Pillow's Lanczos reduction (`make_photos.py`).
@Suite struct ThumbnailProfileAccuracyTests {
    static func meanDifference(_ a: [UInt8], _ b: [UInt8]) -> Double {
        Double(zip(a, b).reduce(0) { $0 + abs(Int($1.0) - Int($1.1)) }) / Double(max(a.count, 1))
    }

    @Test(arguments: ["adobergb", "prophoto", "p3", "cmyk"])
    func thumbnailMatchesLcms2(photo: String) throws {
        let dir = try CLI.scratchFolder()
        let input = TestVectors.url("color-photos/photo-\(photo).jpg").path
        let output = dir.appendingPathComponent("\(photo).png").path
        let result = try CLI.run(["thumbnail", input, "-o", output, "--size", "160"])
        #expect(result.status == 0 && result.stderr.isEmpty, "\(result.stderr)")
        let thumbnail = try PNGDecoder.decode([UInt8](try Data(contentsOf: URL(fileURLWithPath: output)))).converted(to: .rgb8)
        let reference = try PNGDecoder.decode(try TestVectors.bytes("color-photos/photo-\(photo).ref.png")).converted(to: .rgb8)
        // Upright (Orientation 6 applied), no profile, no EXIF (so no GPS).
        #expect(thumbnail.width == 120 && thumbnail.height == 160)
        #expect(thumbnail.width == reference.width && thumbnail.height == reference.height)
        #expect(thumbnail.metadata.iccProfile == nil && thumbnail.metadata.exif == nil)
        let mean = Self.meanDifference(thumbnail.pixels, reference.pixels)
        #expect(mean <= 1.5, "mean difference \(mean)")
        // Without the profile the colours are far off: the test can tell.
        let stored = try CLI.run(["thumbnail", input, "-o", output + ".kept.png", "--size", "160", "--keep-profile"])
        #expect(stored.status == 0)
        let kept = try PNGDecoder.decode([UInt8](try Data(contentsOf: URL(fileURLWithPath: output + ".kept.png")))).converted(to: .rgb8)
        #expect(Self.meanDifference(kept.pixels, reference.pixels) > 3)
        // With all metadata kept, EXIF says Orientation 1.
        let all = try CLI.run(["thumbnail", input, "-o", output + ".all.png", "--size", "160", "--metadata", "all"])
        #expect(all.status == 0)
        let withExif = try PNGDecoder.decode([UInt8](try Data(contentsOf: URL(fileURLWithPath: output + ".all.png"))))
        #expect(withExif.metadata.exif.flatMap(EXIF.orientation) == .up)
    }
}

/// `jpng decode` / `jpng convert`: `--profile srgb` converts and writes no profile; by default an
/// RGB profile stays with its pixels and a CMYK JPEG is converted through its profile.
@Suite struct ProfileOptionCommandTests {
    static func png(_ path: String) throws -> Image {
        try PNGDecoder.decode([UInt8](try Data(contentsOf: URL(fileURLWithPath: path))))
    }

    @Test func decodeAndConvertProfiles() throws {
        let dir = try CLI.scratchFolder()
        let adobe = TestVectors.url("color-photos/photo-adobergb.jpg").path
        let cmyk = TestVectors.url("color-photos/photo-cmyk.jpg").path
        let adobeBytes = try TestVectors.bytes("color-photos/photo-adobergb.jpg")
        let cmykBytes = try TestVectors.bytes("color-photos/photo-cmyk.jpg")
        func run(_ arguments: [String]) throws {
            let result = try CLI.run(arguments)
            #expect(result.status == 0 && result.stderr.isEmpty, "\(arguments): \(result.stderr)")
        }
        // --profile srgb: converted, no profile.
        try run(["decode", adobe, "-o", dir.appendingPathComponent("a-srgb.png").path, "--profile", "srgb"])
        let converted = try Self.png(dir.appendingPathComponent("a-srgb.png").path)
        #expect(converted.metadata.iccProfile == nil)
        let expected = try ImageSource.decode(adobeBytes, options: ImageSourceOptions(colorSpace: .sRGB))
        #expect(converted.pixels == expected.pixels)
        // Default: the Adobe RGB profile stays with its pixels.
        try run(["decode", adobe, "-o", dir.appendingPathComponent("a.png").path])
        let kept = try Self.png(dir.appendingPathComponent("a.png").path)
        #expect(kept.metadata.iccProfile == (try TestVectors.bytes("icc/profiles/AdobeRGB1998.icc")))
        #expect(kept.pixels == (try ImageSource.decode(adobeBytes)).pixels)
        // CMYK written as RGB: always through its profile, and no CMYK profile on the RGB output.
        let throughProfile = try ImageSource.decode(cmykBytes, options: ImageSourceOptions(colorSpace: .sRGB))
        let formula = try ImageSource.decode(cmykBytes)
        #expect(zip(throughProfile.pixels, formula.pixels).map { abs(Int($0) - Int($1)) }.max() ?? 0 > 10)
        for (name, extra) in [("c.png", [String]()), ("c-srgb.png", ["--profile", "srgb"])] {
            try run(["decode", cmyk, "-o", dir.appendingPathComponent(name).path] + extra)
            let image = try Self.png(dir.appendingPathComponent(name).path)
            #expect(image.format == .rgb8 && image.metadata.iccProfile == nil)
            #expect(image.pixels == throughProfile.pixels, "\(name)")
        }
        // An untagged CMYK JPEG: the formula's RGB, as djpeg and Pillow give it.
        let untagged = TestVectors.url("jpeg/valid/cmyk_adobe.jpg").path
        try run(["decode", untagged, "-o", dir.appendingPathComponent("u.png").path])
        let untaggedImage = try Self.png(dir.appendingPathComponent("u.png").path)
        #expect(untaggedImage.format == .rgb8)
        #expect(untaggedImage.pixels == (try ImageSource.decode(TestVectors.bytes("jpeg/valid/cmyk_adobe.jpg"))).pixels)
        // convert: the same rules.
        let out = dir.appendingPathComponent("out").path
        try run(["convert", cmyk, adobe, "--to", "png", "--out-dir", out])
        let convertedCMYK = try Self.png(out + "/photo-cmyk.png")
        #expect(convertedCMYK.metadata.iccProfile == nil && convertedCMYK.pixels == throughProfile.pixels)
        #expect(try Self.png(out + "/photo-adobergb.png").metadata.iccProfile != nil)
        let outSRGB = dir.appendingPathComponent("out-srgb").path
        try run(["convert", adobe, "--to", "png", "--out-dir", outSRGB, "--profile", "srgb"])
        let convertedAdobe = try Self.png(outSRGB + "/photo-adobergb.png")
        #expect(convertedAdobe.metadata.iccProfile == nil && convertedAdobe.pixels == expected.pixels)
    }
}
