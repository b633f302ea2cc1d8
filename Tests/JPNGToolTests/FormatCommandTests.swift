import Foundation
import PureImage
import Testing

@Suite struct FormatCommandTests {
    static func write(_ bytes: [UInt8], _ name: String, in dir: URL) throws -> String {
        let url = dir.appendingPathComponent(name)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(bytes).write(to: url)
        return url.path
    }

    static func pamPixels(_ bytes: [UInt8]) -> (header: String, pixels: [UInt8]) {
        let marker = Array("ENDHDR\n".utf8)
        var end = 0
        while end + marker.count <= bytes.count && Array(bytes[end ..< end + marker.count]) != marker { end += 1 }
        return (String(decoding: bytes[0 ..< end], as: UTF8.self), Array(bytes[(end + marker.count)...]))
    }

    @Test func jpegDecodeAndScale() throws {
        let dir = try CLI.scratchFolder()
        let source = sampleImage(width: 40, height: 24)
        let jpeg = try Self.write(try JPEGEncoder.encode(source), "a.jpg", in: dir)
        let r = try CLI.run(["decode", jpeg, "-o", dir.appendingPathComponent("a.pam").path])
        #expect(r.status == 0, "\(r.stderr)")
        let pam = Self.pamPixels([UInt8](try Data(contentsOf: dir.appendingPathComponent("a.pam"))))
        #expect(pam.header.contains("WIDTH 40") && pam.header.contains("TUPLTYPE RGB"))
        #expect(pam.pixels == (try JPEGDecoder.decode([UInt8](Data(contentsOf: URL(fileURLWithPath: jpeg))))).pixels)
        let half = try CLI.run(["decode", jpeg, "-o", dir.appendingPathComponent("half.pam").path, "--scale", "1/4"])
        #expect(half.status == 0)
        let small = Self.pamPixels([UInt8](try Data(contentsOf: dir.appendingPathComponent("half.pam"))))
        #expect(small.header.contains("WIDTH 10") && small.header.contains("HEIGHT 6"))
        let bad = try CLI.run(["decode", jpeg, "-o", dir.appendingPathComponent("x.pam").path, "--scale", "1/3"])
        #expect(bad.status != 0)
    }

    @Test func convertSkipsExistingOutputs() throws {
        let dir = try CLI.scratchFolder()
        let a = try Self.write(try PNGEncoder.encode(sampleImage(width: 20, height: 10)), "in/a.png", in: dir)
        let b = try Self.write(try PNGEncoder.encode(sampleImage(width: 30, height: 10)), "in/b.png", in: dir)
        let out = dir.appendingPathComponent("out").path
        #expect(try CLI.run(["convert", a, "--to", "jpeg", "--out-dir", out]).status == 0)
        let first = try Data(contentsOf: URL(fileURLWithPath: out + "/a.jpg"))
        let again = try CLI.run(["convert", a, b, "--to", "jpeg", "--out-dir", out, "--skip-existing"])
        #expect(again.status == 0 && again.stdoutText.contains("converted 1 of 2 files, 1 skipped"), "\(again.stdoutText)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: out + "/a.jpg")) == first)
        #expect(FileManager.default.fileExists(atPath: out + "/b.jpg"))
        let refused = try CLI.run(["convert", a, "--to", "jpeg", "--out-dir", out])
        #expect(refused.status != 0 && refused.stderr.contains("already exists"))
    }

    @Test func versionAndFactsOnce() throws {
        let version = try CLI.run(["--version"])
        #expect(version.status == 0 && version.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines) == PureImagePackage.version)
        let dir = try CLI.scratchFolder()
        let jpeg = try Self.write(try JPEGEncoder.encode(sampleImage(width: 40, height: 24), options: JPEGEncodingOptions(progressive: true)),
                                  "p.jpg", in: dir)
        let info = try CLI.run(["info", jpeg])
        let lines = info.stdoutText.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        #expect(lines.filter { $0.contains("progressive") } == ["process: progressive"], "\(info.stdoutText)")
        // Help paragraphs are wrapped by the parser only: no sentence broken by a hard newline.
        let help = try CLI.run(["decode", "--help"])
        #expect(help.stdoutText.contains("(keeps channels and 16-bit") && !help.stdoutText.contains("depth),\n.ppm/.pgm"))
    }

    /// GIF to APNG keeps every composited frame, the delays and the loop count; frames, info and
    /// --frame read the APNG as they read the GIF.
    @Test func gifToAPNG() throws {
        let dir = try CLI.scratchFolder()
        let out = dir.appendingPathComponent("out").path
        for name in TestVectors.files(in: "gif", withExtension: "gif").filter({ $0.hasPrefix("anim") || $0.hasPrefix("pillow_anim") }) {
            let gif = TestVectors.url("gif/" + name).path
            let converted = try CLI.run(["convert", gif, "--to", "apng", "--out-dir", out, "--force"])
            #expect(converted.status == 0, "\(converted.stderr)")
            let apng = out + "/" + name.replacingOccurrences(of: ".gif", with: ".png")
            let gifAnimation = try GIFAnimation(bytes: TestVectors.bytes("gif/" + name))
            let apngAnimation = try APNGAnimation(bytes: [UInt8](Data(contentsOf: URL(fileURLWithPath: apng))))
            #expect(apngAnimation.isAnimated && apngAnimation.frames.count == gifAnimation.frames.count)
            #expect(apngAnimation.frameInfo.map(\.delayMilliseconds) == gifAnimation.frameInfo.map(\.delayMilliseconds))
            #expect(apngAnimation.playCount == gifAnimation.playCount)
            var gifFrames: [Image] = [], apngFrames: [Image] = []
            try gifAnimation.forEachFrame { gifFrames.append($1) }
            try apngAnimation.forEachFrame { apngFrames.append($1) }
            #expect(gifFrames == apngFrames, "\(name)")
            let info = try CLI.run(["info", apng, "--json"])
            let object = try JSONSerialization.jsonObject(with: Data(info.stdout)) as? [String: Any]
            #expect((object?["frameList"] as? [[String: Any]])?.count == gifFrames.count)
            #expect(object?["frames"] as? Int == gifFrames.count)
            let last = gifFrames.count - 1
            let one = try CLI.run(["decode", apng, "-o", dir.appendingPathComponent("last.pam").path, "--frame", "\(last)", "--force"])
            #expect(one.status == 0)
            let pam = Self.pamPixels([UInt8](try Data(contentsOf: dir.appendingPathComponent("last.pam"))))
            #expect(pam.pixels == gifFrames[last].pixels)
        }
        // The thread count changes nothing in the output.
        let gif = TestVectors.url("gif/pillow_anim.gif").path
        var outputs: [Data] = []
        for threads in ["1", "3"] {
            let folder = dir.appendingPathComponent("t\(threads)").path
            #expect(try CLI.run(["convert", gif, "--to", "apng", "--out-dir", folder, "--threads", threads]).status == 0)
            outputs.append(try Data(contentsOf: URL(fileURLWithPath: folder + "/pillow_anim.png")))
        }
        #expect(outputs[0] == outputs[1])
        // --to auto keeps an animation animated.
        let auto = try CLI.run(["convert", TestVectors.url("gif/pillow_anim.gif").path, "--to", "auto", "--out-dir",
                                dir.appendingPathComponent("auto").path])
        #expect(auto.status == 0 && auto.stdoutText.contains("APNG"))
    }

    @Test func gifFramesAndInfo() throws {
        guard let name = TestVectors.files(in: "gif", withExtension: "gif").first(where: { $0.hasPrefix("anim") }) else {
            Issue.record("no animated GIF vector")
            return
        }
        let path = TestVectors.url("gif/" + name).path
        let animation = try GIFAnimation(bytes: try TestVectors.bytes("gif/" + name))
        #expect(animation.frames.count > 1)
        let dir = try CLI.scratchFolder()
        let frames = try CLI.run(["decode", path, "--frames", dir.appendingPathComponent("f").path, "--format", "pam"])
        #expect(frames.status == 0, "\(frames.stderr)")
        let written = try FileManager.default.contentsOfDirectory(atPath: dir.appendingPathComponent("f").path).sorted()
        #expect(written.count == animation.frames.count && written.first == "0000.pam")
        let last = animation.frames.count - 1
        let one = try CLI.run(["decode", path, "-o", dir.appendingPathComponent("last.pam").path, "--frame", "\(last)"])
        #expect(one.status == 0)
        #expect(Self.pamPixels([UInt8](try Data(contentsOf: dir.appendingPathComponent("last.pam")))).pixels == (try animation.frame(at: last)).pixels)
        let beyond = try CLI.run(["decode", path, "-o", dir.appendingPathComponent("x.pam").path, "--frame", "9999"])
        #expect(beyond.status != 0 && !FileManager.default.fileExists(atPath: dir.appendingPathComponent("x.pam").path))
        let info = try CLI.run(["info", path, "--json"])
        let object = try JSONSerialization.jsonObject(with: Data(info.stdout)) as? [String: Any]
        #expect(object?["frames"] as? Int == animation.frames.count)
        #expect((object?["frameList"] as? [[String: Any]])?.count == animation.frames.count)
        #expect(object?.keys.contains("loopCount") == true)
        let text = try CLI.run(["info", path])
        #expect(text.stdoutText.contains("loop count") && text.stdoutText.contains("frame 0:"))
    }

    @Test func encodeTakesTheOriginalPositionalForm() throws {
        let dir = try CLI.scratchFolder()
        let input = try Self.write(try PNGEncoder.encode(sampleImage(width: 20, height: 10)), "sprite.png", in: dir)
        let r = try CLI.run(["encode", input])
        #expect(r.status == 0, "\(r.stderr)")
        let jpng = [UInt8](try Data(contentsOf: dir.appendingPathComponent("sprite.jpng")))
        #expect(Array(jpng.suffix(4)) == [0x47, 0x4E, 0x50, 0x4A])
        #expect(try JPNGDecoder.decode(jpng).width == 20)
        let explicit = try CLI.run(["encode", input, dir.appendingPathComponent("new/dir/s.jpng").path, "0.5"])
        #expect(explicit.status == 0)
        for bad in ["0", "1.5", "-1"] {
            let r = try CLI.run(["encode", input, dir.appendingPathComponent("q.jpng").path, bad])
            #expect(r.status != 0, "quality \(bad)")
        }
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("q.jpng").path))
        let opaque = try Self.write(try PNGEncoder.encode(sampleImage(width: 8, height: 8).converted(to: .rgb8)), "opaque.png", in: dir)
        let notice = try CLI.run(["encode", opaque])
        #expect(notice.status == 0 && notice.stderr.contains("opaque"))
        let plain = try CLI.run(["encode", opaque, dir.appendingPathComponent("plain.jpng").path, "--plain-jpeg-if-opaque"])
        #expect(plain.status == 0)
        #expect(!JPNGFooter.looksLikeJPNG([UInt8](try Data(contentsOf: dir.appendingPathComponent("plain.jpng")))))
    }

    @Test func jpngDecodesToRGBA() throws {
        let dir = try CLI.scratchFolder()
        let image = sampleImage(width: 16, height: 12)
        let path = try Self.write(try JPNGEncoder.encode(image), "a.jpng", in: dir)
        let r = try CLI.run(["decode", path, "-o", dir.appendingPathComponent("a.pam").path])
        #expect(r.status == 0, "\(r.stderr)")
        let pam = Self.pamPixels([UInt8](try Data(contentsOf: dir.appendingPathComponent("a.pam"))))
        #expect(pam.header.contains("TUPLTYPE RGB_ALPHA"))
        #expect(pam.pixels == (try JPNGDecoder.decode([UInt8](Data(contentsOf: URL(fileURLWithPath: path))))).pixels)
        let info = try CLI.run(["info", path, "--json"])
        let object = try JSONSerialization.jsonObject(with: Data(info.stdout)) as? [String: Any]
        #expect(object?["format"] as? String == "JPNG" && object?["channels"] as? Int == 4)
    }

    /// The issue's acceptance check: a folder of 200 mixed images, one of them broken.
    @Test func convertAFolderOf200MixedImages() throws {
        let dir = try CLI.scratchFolder()
        let input = dir.appendingPathComponent("in")
        var expectedOK = 0
        for i in 0 ..< 200 {
            let image = sampleImage(width: 8 + i % 13, height: 6 + i % 7, seed: i)
            let bytes: [UInt8]
            let name: String
            switch i % 5 {
            case 0: (bytes, name) = (try PNGEncoder.encode(image), "sub/img\(i).png")
            case 1: (bytes, name) = (try PNGEncoder.encode(image.converted(to: .rgb8)), "img\(i).png")
            case 2: (bytes, name) = (try JPEGEncoder.encode(image), "img\(i).jpg")
            case 3: (bytes, name) = (try JPNGEncoder.encode(image), "sub/deeper/img\(i).jpng")
            default: (bytes, name) = (try PNGEncoder.encode(image.converted(to: .gray8)), "img\(i).png")
            }
            _ = try Self.write(i == 77 ? Array(bytes.prefix(30)) : bytes, name, in: input)
            if i != 77 { expectedOK += 1 }
        }
        let out = dir.appendingPathComponent("out")
        let r = try CLI.run(["convert", input.path, "--to", "auto", "--out-dir", out.path, "--recursive", "--jobs", "2"], timeout: 300)
        #expect(r.status != 0, "one file is broken: the exit status says so")
        #expect(r.stdoutText.contains("converted \(expectedOK) of 200 files, 1 failed"), "\(r.stdoutText.suffix(300))")
        #expect(r.stderr.contains("img77"))
        let produced = FileManager.default.enumerator(atPath: out.path)?.compactMap { $0 as? String }
            .filter { !$0.hasSuffix("/") && ["png", "jpg", "jpng"].contains(URL(fileURLWithPath: $0).pathExtension) } ?? []
        #expect(produced.count == expectedOK)
        #expect(!produced.contains { $0.contains(".tmp") })
        // Every output reads back.
        for file in produced.prefix(40) {
            let bytes = [UInt8](try Data(contentsOf: out.appendingPathComponent(file)))
            #expect((try? ImageSource.decode(bytes)) != nil, "\(file)")
        }
        // A second run refuses to overwrite without --force, converting nothing.
        let again = try CLI.run(["convert", input.path, "--to", "png", "--out-dir", out.path, "--recursive"], timeout: 300)
        #expect(again.status != 0)
    }

    @Test func benchCoversJPEGAndGIF() throws {
        let dir = try CLI.scratchFolder()
        let jpeg = try Self.write(try JPEGEncoder.encode(sampleImage(width: 32, height: 16)), "a.jpg", in: dir)
        let d = try CLI.run(["bench", jpeg, "-n", "2"])
        #expect(d.stdoutText.range(of: #"^decode JPEG 32x16 [0-9.]+ MP/s\n$"#, options: .regularExpression) != nil, "\(d.stdoutText)")
        let e = try CLI.run(["bench", jpeg, "-n", "2", "--encode", "--to", "jpeg", "--quality", "85"])
        #expect(e.stdoutText.range(of: #"^encode JPEG 32x16 [0-9.]+ MP/s [0-9]+ bytes\n$"#, options: .regularExpression) != nil, "\(e.stdoutText)")
        if let gif = TestVectors.files(in: "gif", withExtension: "gif").first(where: { $0.hasPrefix("anim") }) {
            let g = try CLI.run(["bench", TestVectors.url("gif/" + gif).path, "-n", "2"])
            #expect(g.stdoutText.range(of: #"^decode GIF [0-9]+x[0-9]+x[0-9]+ [0-9.]+ MP/s\n$"#, options: .regularExpression) != nil, "\(g.stdoutText)")
        }
    }
}

/// Deterministic RGBA content with soft alpha.
func sampleImage(width: Int, height: Int, seed: Int = 0) -> Image {
    var image = Image(width: width, height: height, format: .rgba8)
    for y in 0 ..< height {
        for x in 0 ..< width {
            let i = 4 * (y * width + x)
            image.pixels[i] = UInt8(truncatingIfNeeded: x * 255 / max(1, width - 1) + seed)
            image.pixels[i + 1] = UInt8(truncatingIfNeeded: y * 255 / max(1, height - 1) + seed * 7)
            image.pixels[i + 2] = UInt8(truncatingIfNeeded: (x * y + seed * 13) & 0xFF)
            image.pixels[i + 3] = UInt8(truncatingIfNeeded: (x + y) * 255 / max(1, width + height - 2))
        }
    }
    return image
}
