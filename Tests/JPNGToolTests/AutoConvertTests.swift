import Foundation
import PureImage
import Testing

/// `convert --to auto` never writes a file larger than its input, keeps a JPEG's data, picks
/// the smaller lossless form of an animation and names what it skips.
@Suite struct AutoConvertTests {
    static func read(_ path: String) throws -> [UInt8] { [UInt8](try Data(contentsOf: URL(fileURLWithPath: path))) }

    /// A photograph-like opaque image (well over 256 colours, no flat areas): auto picks JPEG.
    static func photo(width: Int = 64, height: Int = 48) -> Image {
        sampleImage(width: width, height: height, seed: 5).converted(to: .rgb8)
    }

    /// Fully transparent pixels compared as one colour (their RGB is not kept by GIF).
    static func canonical(_ image: Image) -> [UInt8] {
        var p = image.converted(to: .rgba8).pixels
        for i in stride(from: 0, to: p.count, by: 4) where p[i + 3] == 0 { p[i] = 0; p[i + 1] = 0; p[i + 2] = 0 }
        return p
    }

    static func frames(_ bytes: [UInt8]) throws -> [Image] {
        guard let animation = try ImageSource.animation(bytes) else { return [try ImageSource.decode(bytes)] }
        var frames: [Image] = []
        try animation.forEachFrame { frames.append($1) }
        return frames
    }

    @Test func jpegKeepsItsBytes() throws {
        let dir = try CLI.scratchFolder()
        var image = Self.photo()
        // A big-endian TIFF of one IFD entry: orientation 6, padded with a camera-like maker string.
        image.metadata.exif = Array("MM".utf8) + [0, 42, 0, 0, 0, 8, 0, 1, 0x01, 0x12, 0, 3, 0, 0, 0, 1, 0, 6, 0, 0, 0, 0, 0, 0]
            + [UInt8](repeating: 0x41, count: 200)
        let source = try JPEGEncoder.encode(image, options: JPEGEncodingOptions(quality: 70))
        let input = try FormatCommandTests.write(source, "in/photo.jpg", in: dir)
        let out = dir.appendingPathComponent("out").path
        let r = try CLI.run(["convert", input, "--to", "auto", "--out-dir", out])
        #expect(r.status == 0, "\(r.stderr)")
        let written = try Self.read(out + "/photo.jpg")
        let identical = written == source
        #expect(identical, "the default metadata policy keeps every byte (\(written.count) and \(source.count) bytes)")
        #expect(written.count <= source.count)
        #expect(r.stdoutText.contains("JPEG data kept, not encoded again"), "\(r.stdoutText)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: out) == ["photo.jpg"])

        // In place: the file stays as it is and nothing else is written.
        let inPlace = try CLI.run(["convert", input, "--to", "auto"])
        #expect(inPlace.status == 0 && inPlace.stdoutText.contains("left in place"), "\(inPlace.stdoutText)")
        #expect(try Self.read(input) == source)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.appendingPathComponent("in").path) == ["photo.jpg"])

        // --metadata none rewrites the marker segments only: same pixels, no EXIF, smaller.
        let bare = dir.appendingPathComponent("bare").path
        let none = try CLI.run(["convert", input, "--to", "auto", "--out-dir", bare, "--metadata", "none"])
        #expect(none.status == 0, "\(none.stderr)")
        let stripped = try Self.read(bare + "/photo.jpg")
        #expect(stripped.count < source.count && stripped != source)
        #expect(try JPEGDecoder.decode(stripped).pixels == (try JPEGDecoder.decode(source)).pixels)
        #expect(try ImageSource.describe(stripped).metadata.exif == nil)
        #expect(try ImageSource.describe(source).metadata.exif != nil)
        // --metadata color keeps the orientation only.
        let colour = dir.appendingPathComponent("colour").path
        #expect(try CLI.run(["convert", input, "--to", "auto", "--out-dir", colour, "--metadata", "color"]).status == 0)
        let oriented = try Self.read(colour + "/photo.jpg")
        #expect(try ImageSource.decode(oriented).metadata.orientation == .right)
        #expect(try JPEGDecoder.decode(oriented).pixels == (try JPEGDecoder.decode(source)).pixels)
    }

    @Test func largerOutputKeepsTheInput() throws {
        let dir = try CLI.scratchFolder()
        // A JPNG at low quality: auto picks JPNG, at the default quality 0.85 it would be larger.
        let source = try JPNGEncoder.encode(sampleImage(width: 64, height: 48, seed: 9), options: JPNGEncodingOptions(quality: 0.2))
        let input = try FormatCommandTests.write(source, "in/soft.jpng", in: dir)
        let out = dir.appendingPathComponent("out").path
        let r = try CLI.run(["convert", input, "--to", "auto", "--out-dir", out])
        #expect(r.status == 0, "\(r.stderr)")
        let identical = try Self.read(out + "/soft.jpng") == source
        #expect(identical, "the input's bytes")
        let line = r.stdoutText.split(separator: "\n").first { $0.contains("soft.jpng") } ?? ""
        #expect(line.contains("kept as it is, copied") && line.contains("JPNG would be") && line.contains("not smaller"), "\(line)")
        #expect(r.stdoutText.contains("1 kept as it was"), "\(r.stdoutText)")

        let inPlace = try CLI.run(["convert", input, "--to", "auto"])
        #expect(inPlace.status == 0 && inPlace.stdoutText.contains("soft.jpng: kept as it is, left in place"), "\(inPlace.stdoutText)")
        let unchanged = try Self.read(input) == source
        #expect(unchanged)

        // A JPEG auto would write as a larger PNG stays JPEG; --metadata none still applies, to
        // its marker segments (the ICC profile and EXIF go, the scan data stays).
        let photo = TestVectors.url("color-photos/photo-adobergb.jpg").path
        let original = try Self.read(photo)
        let bare = dir.appendingPathComponent("bare").path
        let none = try CLI.run(["convert", photo, "--to", "auto", "--out-dir", bare, "--metadata", "none"])
        #expect(none.status == 0, "\(none.stderr)")
        #expect(none.stdoutText.contains("PNG would be") && none.stdoutText.contains("metadata segments rewritten"), "\(none.stdoutText)")
        let stripped = try Self.read(bare + "/photo-adobergb.jpg")
        #expect(stripped.count < original.count)
        let facts = try ImageSource.describe(stripped).metadata
        #expect(facts.iccProfile == nil && facts.exif == nil)
        #expect(try ImageSource.describe(original).metadata.iccProfile != nil)
        let samePixels = try JPEGDecoder.decode(stripped).pixels == (try JPEGDecoder.decode(original)).pixels
        #expect(samePixels)
    }

    /// A GIF whose frames are 255-colour horizontal gradients: LZW codes them poorly, PNG's
    /// Sub filter well, so its APNG is the smaller.
    static func gradientGIF() throws -> [UInt8] {
        var encoder = try GIFAnimationEncoder(width: 255, height: 48, options: GIFEncodingOptions(dithering: .none))
        var gif: [UInt8] = []
        for t in 0 ..< 3 {
            var frame = Image(width: 255, height: 48, format: .rgb8)
            for y in 0 ..< 48 {
                for x in 0 ..< 255 {
                    let v = UInt8((x + (y < 16 * (t + 1) ? 0 : 7)) % 255)
                    frame.pixels.replaceSubrange((y * 255 + x) * 3 ..< (y * 255 + x) * 3 + 3, with: [v, 255 - v, v / 2])
                }
            }
            gif += try encoder.add(frame, delayMilliseconds: 100)
        }
        return gif + (try encoder.finish())
    }

    @Test func gifAnimationBecomesTheSmallerOfGIFAndAPNG() throws {
        let made = try CLI.scratchFolder()
        let gradient = try FormatCommandTests.write(try Self.gradientGIF(), "gradient.gif", in: made)
        var outcomes: Set<String> = []
        for gif in [TestVectors.url("gif/pillow_anim.gif").path, TestVectors.url("gif/anim_local_tables_interlaced.gif").path, gradient] {
            let dir = try CLI.scratchFolder()
            let source = try Self.read(gif)
            let name = URL(fileURLWithPath: gif).lastPathComponent
            let stem = String(name.dropLast(4))
            let apngDir = dir.appendingPathComponent("apng").path
            #expect(try CLI.run(["convert", gif, "--to", "apng", "--out-dir", apngDir]).status == 0)
            let apng = try Self.read(apngDir + "/" + stem + ".png")
            // The GIF auto writes: every frame through exact palettes, undithered.
            let animation = try GIFAnimation(bytes: source)
            var encoder = try GIFAnimationEncoder(width: animation.canvasWidth, height: animation.canvasHeight,
                                                  options: GIFEncodingOptions(maxColors: 256, dithering: .none,
                                                                              loopCount: animation.loopCount))
            var reencoded: [UInt8] = []
            var index = 0
            try animation.forEachFrame { _, frame in
                reencoded += try encoder.add(frame, delayMilliseconds: animation.frameInfo[index].delayMilliseconds)
                index += 1
            }
            reencoded += try encoder.finish()
            #expect(encoder.isExact, "a GIF source's frames fit its palettes")

            let out = dir.appendingPathComponent("out").path
            let r = try CLI.run(["convert", gif, "--to", "auto", "--out-dir", out])
            #expect(r.status == 0, "\(r.stderr)")
            let produced = try FileManager.default.contentsOfDirectory(atPath: out)
            #expect(produced.count == 1, "\(produced)")
            let smallest = min(apng.count, reencoded.count, source.count)
            let written = try Self.read(out + "/" + produced[0])
            if smallest == source.count {
                #expect(written == source && r.stdoutText.contains("kept as it is"), "\(name): \(r.stdoutText)")
                outcomes.insert("kept")
            } else if reencoded.count < apng.count {
                #expect(produced[0] == stem + ".gif" && written == reencoded, "\(name): \(r.stdoutText)")
                outcomes.insert("gif")
            } else {
                #expect(produced[0] == stem + ".png" && written == apng, "\(name): \(r.stdoutText)")
                outcomes.insert("apng")
            }
            #expect(written.count <= source.count)
            let expected = try Self.frames(source).map(Self.canonical)
            let got = try Self.frames(written).map(Self.canonical)
            #expect(got == expected, "\(name): composited frames")
            // Both candidates show the source's frames.
            #expect(try Self.frames(reencoded).map(Self.canonical) == expected, "\(name): GIF candidate")
        }
        #expect(outcomes == ["kept", "gif", "apng"], "each outcome met once: \(outcomes)")

        // Beside its input a GIF output would replace it: the smaller GIF gives way to APNG.
        let beside = try FormatCommandTests.write(try TestVectors.bytes("gif/pillow_anim.gif"), "pillow_anim.gif", in: made)
        let r = try CLI.run(["convert", beside, "--to", "auto"])
        #expect(r.status == 0 && r.stdoutText.contains("a GIF would overwrite the input"), "\(r.stdoutText) \(r.stderr)")
        #expect(try Self.read(beside) == (try TestVectors.bytes("gif/pillow_anim.gif")))
        let apng = try Self.read(made.appendingPathComponent("pillow_anim.png").path)
        #expect(try Self.frames(apng).map(Self.canonical) == (try Self.frames(try TestVectors.bytes("gif/pillow_anim.gif")).map(Self.canonical)))
    }

    @Test func batchNamesWhatItSkips() throws {
        let dir = try CLI.scratchFolder()
        let input = dir.appendingPathComponent("in")
        _ = try FormatCommandTests.write(try TestVectors.bytes("webp/ll_photo_alpha.webp"), "a.webp", in: input)
        _ = try FormatCommandTests.write(try JPEGEncoder.encode(Self.photo()), "b.jpg", in: input)
        _ = try FormatCommandTests.write(Array("shopping list\nmilk\n".utf8), "notes.txt", in: input)
        let out = dir.appendingPathComponent("out")
        let r = try CLI.run(["convert", input.path, "--to", "auto", "--out-dir", out.path])
        #expect(r.status != 0, "an input was skipped: the exit status says so, as for a failure")
        #expect(r.stdoutText.contains("converted 2 of 3 files, 1 skipped ("), "\(r.stdoutText)")
        #expect(r.stdoutText.contains("notes.txt: not an image"), "\(r.stdoutText)")
        #expect(r.stderr.contains("notes.txt: skipped: not an image"), "\(r.stderr)")
        let webpLine = r.stdoutText.split(separator: "\n").first { $0.contains("a.webp") } ?? ""
        #expect(webpLine.contains("->"), "\(r.stdoutText)")
        let produced = try FileManager.default.contentsOfDirectory(atPath: out.path).sorted()
        #expect(produced.count == 2 && produced.contains("b.jpg") && produced.contains { $0.hasPrefix("a.") }, "\(produced)")
        #expect(!produced.contains { $0.hasPrefix("notes") })
        // The WebP's output: smaller than it and of its size, or the WebP itself, kept.
        let name = produced.first { $0.hasPrefix("a.") } ?? ""
        let a = try Self.read(out.appendingPathComponent(name).path)
        let webp = try TestVectors.bytes("webp/ll_photo_alpha.webp")
        if name == "a.webp" {
            #expect(a == webp && webpLine.contains("kept as it is"))
        } else {
            let (decoded, original) = (try ImageSource.decode(a), try ImageSource.decode(webp))
            #expect(a.count < webp.count && decoded.width == original.width && decoded.height == original.height)
        }
    }
}
