import Foundation
import PureImage
import Testing

/// `convert --to gif`, `--to png --colors N`, `--dither`, `--quality min-max`.
@Suite struct PaletteCommandTests {
    static func distinctColours(_ image: Image) -> Int {
        let rgba = image.converted(to: .rgba8)
        return rgba.pixels.withUnsafeBytes { Set($0.bindMemory(to: UInt32.self)).count }
    }

    static func read(_ path: String) throws -> [UInt8] { [UInt8](try Data(contentsOf: URL(fileURLWithPath: path))) }

    @Test func stillToGIF() throws {
        let dir = try CLI.scratchFolder()
        let source = sampleImage(width: 60, height: 40)
        let png = try FormatCommandTests.write(try PNGEncoder.encode(source), "photo.png", in: dir)
        let r = try CLI.run(["convert", png, "--to", "gif", "--colors", "16", "--dither", "0.5"])
        #expect(r.status == 0, "\(r.stderr)")
        let gif = try GIFAnimation(bytes: try Self.read(dir.appendingPathComponent("photo.gif").path))
        let frame = try gif.frame(at: 0)
        #expect(frame.width == 60 && frame.height == 40)
        #expect(Self.distinctColours(frame) <= 16)
        let bad = try CLI.run(["convert", png, "--to", "gif", "--colors", "300", "--force"])
        #expect(bad.status != 0)
        let badDither = try CLI.run(["convert", png, "--to", "gif", "--dither", "2", "--force"])
        #expect(badDither.status != 0)
    }

    @Test func animationToGIF() throws {
        let dir = try CLI.scratchFolder()
        let frames = (0 ..< 3).map { k in APNGFrame(image: sampleImage(width: 30, height: 20, seed: k + 1), delayMilliseconds: 50 * (k + 1)) }
        let apng = try APNGEncoder.encode(frames, options: APNGEncodingOptions(plays: 0))
        let path = try FormatCommandTests.write(apng, "anim.png", in: dir)
        let r = try CLI.run(["convert", path, "--to", "gif"])
        #expect(r.status == 0, "\(r.stderr)")
        let gif = try GIFAnimation(bytes: try Self.read(dir.appendingPathComponent("anim.gif").path))
        #expect(gif.frames.count == 3)
        #expect(gif.frames.map(\.delayCentiseconds) == [5, 10, 15])
        #expect(gif.loopCount == 0)
    }

    @Test func png8WithColoursAndQualityFloor() throws {
        let dir = try CLI.scratchFolder()
        let source = sampleImage(width: 64, height: 48)
        let png = try FormatCommandTests.write(try PNGEncoder.encode(source), "in/x.png", in: dir)
        let out = dir.appendingPathComponent("out").path
        let r = try CLI.run(["convert", png, "--to", "png", "--colors", "64", "--dither", "0", "--out-dir", out])
        #expect(r.status == 0, "\(r.stderr)")
        let bytes = try Self.read(out + "/x.png")
        #expect(bytes[25] == 3)                                   // IHDR colour type: palette
        #expect(Self.distinctColours(try PNGDecoder.decode(bytes)) <= 64)
        // A floor the 2-colour palette cannot reach keeps the image lossless.
        let floor = try CLI.run(["convert", png, "--to", "png", "--colors", "2", "--quality", "95-100", "--out-dir", out, "--force"])
        #expect(floor.status == 0, "\(floor.stderr)")
        let lossless = try Self.read(out + "/x.png")
        #expect(lossless[25] != 3)
        #expect(try PNGDecoder.decode(lossless).pixels == source.pixels)
        #expect(try CLI.run(["convert", png, "--to", "png", "--colors", "8", "--quality", "90-80", "--out-dir", out, "--force"]).status != 0)
    }

    @Test func autoNeverPicksGIF() throws {
        let dir = try CLI.scratchFolder()
        let png = try FormatCommandTests.write(try PNGEncoder.encode(sampleImage(width: 80, height: 60)), "photo.png", in: dir)
        let r = try CLI.run(["convert", png, "--to", "auto", "--out-dir", dir.appendingPathComponent("auto").path])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(!r.stdoutText.contains(".gif"))
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("auto/photo.gif").path))
    }
}
