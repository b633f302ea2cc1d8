import Foundation
import PureImage
import Testing

@Suite struct TileCommandTests {
    static func listing(_ dir: URL) -> [String] {
        var files: [String] = []
        let walker = FileManager.default.enumerator(atPath: dir.path)
        while let relative = walker?.nextObject() as? String { files.append(relative) }
        return files.sorted()
    }

    @Test func tilesAFileAndStdinAlike() throws {
        let dir = try CLI.scratchFolder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let image = sampleImage(width: 150, height: 90, seed: 5)
        let png = try FormatCommandTests.write(try PNGEncoder.encode(image), "photo.png", in: dir)
        let out = dir.appendingPathComponent("out")
        let r = try CLI.run(["tile", png, "--out", out.path, "--tile-size", "64", "--format", "png", "--stats"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdoutText.contains("150x90") && r.stdoutText.contains("9 levels"))
        #expect(r.stderr.contains("from the last input byte to done"))
        let pyramid = try TilePyramid(directory: out.path, name: "photo")
        #expect(pyramid.levels == 9 && pyramid.tileCount(ofLevel: 8) == (3, 2))
        let corner = try pyramid.tile(level: 8, column: 2, row: 1)
        #expect(corner.width == 150 - 127 && corner.height == 90 - 63 && corner.format == .rgba8)

        let stdinOut = dir.appendingPathComponent("stdin")
        let s = try CLI.run(["tile", "-", "--out", stdinOut.path, "--tile-size", "64", "--format", "png"],
                            stdin: try PNGEncoder.encode(image))
        #expect(s.status == 0, "\(s.stderr)")
        #expect(Self.listing(stdinOut).map { $0.replacingOccurrences(of: "image", with: "photo") } == Self.listing(out))
        for level in 0 ..< pyramid.levels {
            let a = try TilePyramid(directory: stdinOut.path, name: "image")
            #expect(try a.tile(level: level, column: 0, row: 0) == pyramid.tile(level: level, column: 0, row: 0))
        }

        let jpegOut = dir.appendingPathComponent("jpeg")
        let j = try CLI.run(["tile", png, "--out", jpegOut.path, "--name", "x", "--overlap", "0", "--quality", "0.5"])
        #expect(j.status == 0, "\(j.stderr)")
        let dzi = String(decoding: try Data(contentsOf: jpegOut.appendingPathComponent("x.dzi")), as: UTF8.self)
        #expect(dzi.contains("Format=\"jpg\"") && dzi.contains("Overlap=\"0\"") && dzi.contains("TileSize=\"256\""))
        #expect(try TilePyramid(directory: jpegOut.path, name: "x").tile(level: 8, column: 0, row: 0).format == .rgb8)
    }

    @Test func failureLeavesNothingAndSaysSoOnOneLine() throws {
        let dir = try CLI.scratchFolder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let jpeg = try JPEGEncoder.encode(sampleImage(width: 300, height: 200))
        let out = dir.appendingPathComponent("out")
        // A file cut short is refused with --strict; by default it is tiled as djpeg decodes it.
        let r = try CLI.run(["tile", "-", "--out", out.path, "--tile-size", "32", "--strict"],
                            stdin: Array(jpeg[0 ..< jpeg.count / 2]))
        #expect(r.status != 0 && r.exitedNormally)
        #expect(r.stderr.hasPrefix("jpng: ") && r.stderr.split(separator: "\n").count == 1, "\(r.stderr)")
        #expect(Self.listing(out).isEmpty)
        let lenientOut = dir.appendingPathComponent("lenient")
        let lenient = try CLI.run(["tile", "-", "--out", lenientOut.path, "--tile-size", "32"], stdin: Array(jpeg[0 ..< jpeg.count / 2]))
        #expect(lenient.status == 0, "\(lenient.stderr)")
        #expect(lenient.stderr.contains("warning: premature end of JPEG file"), "\(lenient.stderr)")
        #expect(Self.listing(lenientOut).contains("image.dzi"))
        let missing = try CLI.run(["tile", dir.appendingPathComponent("nope.jpg").path, "--out", out.path])
        #expect(missing.status != 0 && missing.stderr.split(separator: "\n").count == 1)
        let bad = try CLI.run(["tile", "-", "--out", out.path, "--format", "gif"], stdin: jpeg)
        #expect(bad.status != 0)
        #expect(Self.listing(out).isEmpty)
    }
}
