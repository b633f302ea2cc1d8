import Foundation
import PureImage
import Testing

/// Damaged files on the command line: decoded as djpeg decodes them, the warnings on stderr and
/// exit status 0; `--strict` refuses them with one line and no output file.
@Suite struct DamagedInputTests {
    @Test func truncatedJPEGDecodesWithWarningsAndStrictRefuses() throws {
        let dir = try CLI.scratchFolder()
        let whole = try JPEGEncoder.encode(sampleImage(width: 64, height: 48))
        let cut = try FormatCommandTests.write(Array(whole.prefix(whole.count * 2 / 3)), "cut.jpg", in: dir)
        let out = dir.appendingPathComponent("cut.ppm").path

        let lenient = try CLI.run(["decode", cut, "-o", out])
        #expect(lenient.status == 0, "\(lenient.stderr)")
        #expect(lenient.stderr.contains("warning: premature end of JPEG file"), "\(lenient.stderr)")
        #expect(FileManager.default.fileExists(atPath: out))
        // The pixels are the library's default decode of the same bytes.
        let expected = try JPEGDecoder.decode(Array(whole.prefix(whole.count * 2 / 3)))
        let ppm = [UInt8](try Data(contentsOf: URL(fileURLWithPath: out)))
        #expect(Array(ppm.suffix(expected.pixels.count)) == expected.pixels)

        let strictOut = dir.appendingPathComponent("strict.ppm").path
        let strict = try CLI.run(["decode", cut, "-o", strictOut, "--strict"])
        #expect(strict.status != 0)
        #expect(strict.stderr.split(separator: "\n").count == 1, "\(strict.stderr)")
        #expect(strict.stderr.contains("truncated"), "\(strict.stderr)")
        #expect(!FileManager.default.fileExists(atPath: strictOut))
    }

    @Test func convertStrictCountsTheDamagedFileAsFailed() throws {
        let dir = try CLI.scratchFolder()
        var bytes = try JPEGEncoder.encode(sampleImage(width: 32, height: 32))
        // A comment of length 1 (libjpeg skips nothing and reads on) right after SOI.
        bytes.insert(contentsOf: [0xFF, 0xFE, 0x00, 0x01], at: 2)
        let input = try FormatCommandTests.write(bytes, "in/c.jpg", in: dir)
        let outDir = dir.appendingPathComponent("out").path
        let lenient = try CLI.run(["convert", input, "--to", "png", "--out-dir", outDir])
        #expect(lenient.status == 0, "\(lenient.stderr)")
        #expect(lenient.stderr.contains("warning"), "\(lenient.stderr)")
        let strictDir = dir.appendingPathComponent("strict").path
        let strict = try CLI.run(["convert", input, "--to", "png", "--out-dir", strictDir, "--strict"])
        #expect(strict.status != 0)
        #expect(!FileManager.default.fileExists(atPath: strictDir + "/c.png"))
    }
}
