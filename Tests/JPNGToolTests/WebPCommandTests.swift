import Foundation
import PureImage
import Testing

/// `jpng` reads WebP: decode, frames, info, convert (an animation stays one), folders,
/// thumbnail, tile, and one-line errors without output.
@Suite struct WebPCommandTests {
    static let animation = "webp/anim_img2webp_mixed.webp"
    static let lossy = "webp/meta_all_lossy_alpha.webp"

    @Test func decodeGivesTheDecodersPixels() throws {
        let dir = try CLI.scratchFolder()
        for name in [Self.lossy, "webp/ll_photo_alpha.webp", "webp/lossy/blocks40x24_q50_strong.webp"] {
            let out = dir.appendingPathComponent("o.pam").path
            let r = try CLI.run(["decode", TestVectors.url(name).path, "-o", out, "--force"])
            #expect(r.status == 0, "\(name): \(r.stderr)")
            let pam = FormatCommandTests.pamPixels([UInt8](try Data(contentsOf: URL(fileURLWithPath: out))))
            #expect(pam.pixels == (try WebPDecoder.decode(TestVectors.bytes(name))).pixels, "\(name)")
        }
    }

    @Test func animationFramesInfoAndConvert() throws {
        let path = TestVectors.url(Self.animation).path
        let animation = try WebPAnimation(bytes: TestVectors.bytes(Self.animation))
        let dir = try CLI.scratchFolder()
        let frames = try CLI.run(["decode", path, "--frames", dir.appendingPathComponent("f").path, "--format", "pam"])
        #expect(frames.status == 0, "\(frames.stderr)")
        let written = try FileManager.default.contentsOfDirectory(atPath: dir.appendingPathComponent("f").path).sorted()
        #expect(written.count == animation.frames.count && written.first == "0000.pam")
        let last = animation.frames.count - 1
        let lastFile = dir.appendingPathComponent("f/" + written[last])
        #expect(FormatCommandTests.pamPixels([UInt8](try Data(contentsOf: lastFile))).pixels == (try animation.frame(at: last)).pixels)

        let info = try CLI.run(["info", path, "--json"])
        let object = try JSONSerialization.jsonObject(with: Data(info.stdout)) as? [String: Any]
        #expect(object?["format"] as? String == "WebP")
        #expect(object?["frames"] as? Int == animation.frames.count)
        let list = object?["frameList"] as? [[String: Any]]
        #expect(list?.count == animation.frames.count)
        #expect(list?.last?["delayMilliseconds"] as? Int == animation.frames.last?.durationMilliseconds)
        #expect(list?.first?["disposal"] as? String == animation.frameInfo.first?.disposal.rawValue)
        let text = try CLI.run(["info", path])
        #expect(text.stdoutText.contains("frame 0:") && text.stdoutText.contains("blend"), "\(text.stdoutText)")

        let out = dir.appendingPathComponent("apng").path
        let converted = try CLI.run(["convert", path, "--to", "apng", "--out-dir", out])
        #expect(converted.status == 0, "\(converted.stderr)")
        // --to auto: the lossy WebP is smaller than any lossless form of it, so it is kept.
        let auto = try CLI.run(["convert", path, "--to", "auto", "--out-dir", dir.appendingPathComponent("auto").path])
        #expect(auto.status == 0 && auto.stdoutText.contains("kept as it is") && auto.stdoutText.contains("APNG would be"),
                "\(auto.stdoutText) \(auto.stderr)")
        #expect(try Data(contentsOf: dir.appendingPathComponent("auto/anim_img2webp_mixed.webp")) == Data(TestVectors.bytes(Self.animation)))
        let apng = try APNGAnimation(bytes: [UInt8](Data(contentsOf: URL(fileURLWithPath: out + "/anim_img2webp_mixed.png"))))
        #expect(apng.frames.count == animation.frames.count && apng.playCount == animation.playCount)
        #expect(apng.frameInfo.map(\.delayMilliseconds) == animation.frameInfo.map(\.delayMilliseconds))
        var webpFrames: [Image] = [], apngFrames: [Image] = []
        try animation.forEachFrame { webpFrames.append($1) }
        try apng.forEachFrame { apngFrames.append($1) }
        #expect(webpFrames.map(\.pixels) == apngFrames.map(\.pixels))
    }

    @Test func convertAFolderOfWebPFiles() throws {
        let dir = try CLI.scratchFolder()
        let input = dir.appendingPathComponent("in")
        let names = [Self.lossy, Self.animation, "webp/ll_photo_alpha.webp", "webp/ll_colors16.webp", "webp/alpha_q50.webp"]
        for (i, name) in names.enumerated() {
            _ = try FormatCommandTests.write(try TestVectors.bytes(name), "f\(i).webp", in: input)
        }
        _ = try FormatCommandTests.write(Array(try TestVectors.bytes(Self.lossy).prefix(200)), "broken.webp", in: input)
        let out = dir.appendingPathComponent("out")
        let r = try CLI.run(["convert", input.path, "--to", "auto", "--out-dir", out.path])
        #expect(r.status != 0, "one file is broken")
        #expect(r.stdoutText.contains("converted \(names.count) of \(names.count + 1) files, 1 failed"), "\(r.stdoutText)")
        let errorLines = r.stderr.split(separator: "\n").filter { $0.contains("broken.webp") }
        #expect(errorLines.count == 1, "\(r.stderr)")
        let produced = try FileManager.default.contentsOfDirectory(atPath: out.path)
        #expect(produced.count == names.count && !produced.contains { $0.hasPrefix("broken") || $0.contains(".tmp") }, "\(produced)")
    }

    @Test func thumbnailAndTile() throws {
        let dir = try CLI.scratchFolder()
        let thumb = dir.appendingPathComponent("t.png").path
        let r = try CLI.run(["thumbnail", TestVectors.url("webp/int_tall_lossy.webp").path, "-o", thumb, "--size", "64"])
        #expect(r.status == 0, "\(r.stderr)")
        let image = try ImageSource.decode([UInt8](Data(contentsOf: URL(fileURLWithPath: thumb))))
        #expect(image.height == 64)
        let tiles = dir.appendingPathComponent("tiles").path
        let t = try CLI.run(["tile", TestVectors.url("webp/int_tall_lossy.webp").path, "--out", tiles])
        #expect(t.status == 0, "\(t.stderr)")
        #expect(FileManager.default.fileExists(atPath: tiles + "/int_tall_lossy.dzi"))
    }

    @Test func brokenWebPIsOneLineAndNoOutput() throws {
        let dir = try CLI.scratchFolder()
        let bytes = try TestVectors.bytes("webp/int_tall_lossy.webp")
        let path = try FormatCommandTests.write(Array(bytes.prefix(bytes.count / 2)), "cut.webp", in: dir)
        for command in [["decode", path, "-o", dir.appendingPathComponent("cut.png").path],
                        ["thumbnail", path, "-o", dir.appendingPathComponent("cut-t.png").path, "--size", "16"],
                        ["info", path]] {
            let r = try CLI.run(command)
            #expect(r.status != 0 && r.exitedNormally, "\(command)")
            #expect(r.stderr.split(separator: "\n").count == 1 && r.stderr.contains("cut.webp"), "\(command): \(r.stderr)")
        }
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("cut.png").path))
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("cut-t.png").path))
    }
}
