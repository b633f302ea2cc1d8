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
