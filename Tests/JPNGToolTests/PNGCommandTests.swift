import Foundation
import PureImage
import Testing

@Suite struct PNGCommandTests {
    /// A small RGBA image with varied pixels, written by our encoder.
    static func samplePNG(format: PixelFormat = .rgba8, width: Int = 13, height: Int = 7) throws -> (Image, [UInt8]) {
        var image = Image(width: width, height: height, format: format)
        for i in image.pixels.indices { image.pixels[i] = UInt8(truncatingIfNeeded: i &* 37 &+ i / 5) }
        return (image, try PNGEncoder.encode(image))
    }

    @Test func decodeToPAMKeepsChannelsAndDepth() throws {
        for format in [PixelFormat.rgba8, .gray8, .grayAlpha16, .rgb16] {
            let dir = try CLI.scratchFolder()
            let (image, png) = try Self.samplePNG(format: format)
            let input = dir.appendingPathComponent("in.png"), output = dir.appendingPathComponent("out.pam")
            try Data(png).write(to: input)
            let r = try CLI.run(["decode", input.path, "-o", output.path])
            #expect(r.status == 0, "\(r.stderr)")
            let pam = [UInt8](try Data(contentsOf: output))
            let tuple = ["GRAYSCALE", "GRAYSCALE_ALPHA", "RGB", "RGB_ALPHA"][format.channels - 1]
            let header = "P7\nWIDTH 13\nHEIGHT 7\nDEPTH \(format.channels)\nMAXVAL \(format.is16Bit ? 65535 : 255)\nTUPLTYPE \(tuple)\nENDHDR\n"
            #expect(pam.starts(with: Array(header.utf8)))
            var expected = image.pixels
            if format.is16Bit {
                // PAM samples are big-endian.
                expected = stride(from: 0, to: expected.count, by: 2).flatMap { [image.pixels[$0 + 1], image.pixels[$0]] }
            }
            #expect(Array(pam.dropFirst(header.utf8.count)) == expected)
        }
    }

    @Test func decodeToPNGRoundTrips() throws {
        let dir = try CLI.scratchFolder()
        let (image, png) = try Self.samplePNG()
        let input = dir.appendingPathComponent("in.png"), output = dir.appendingPathComponent("sub/out.png")
        try Data(png).write(to: input)
        let r = try CLI.run(["decode", input.path, "-o", output.path, "--level", "9"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(try PNGDecoder.decode([UInt8](Data(contentsOf: output))) == image)
    }

    @Test func stdoutNeedsFormatAndWritesPPM() throws {
        let dir = try CLI.scratchFolder()
        let (_, png) = try Self.samplePNG(format: .rgb8, width: 2, height: 1)
        let input = dir.appendingPathComponent("in.png")
        try Data(png).write(to: input)
        let bad = try CLI.run(["decode", input.path, "-o", "-"])
        #expect(bad.status != 0)
        let good = try CLI.run(["decode", "-", "-o", "-", "--format", "ppm"], stdin: png)
        #expect(good.status == 0)
        #expect(good.stdout.starts(with: Array("P6\n2 1\n255\n".utf8)) && good.stdout.count == 11 + 6)
    }

    @Test func corruptInputFailsWithOneLineAndNoOutput() throws {
        let dir = try CLI.scratchFolder()
        var (_, png) = try Self.samplePNG()
        png[40] ^= 0xFF   // inside IDAT: CRC mismatch
        let input = dir.appendingPathComponent("bad.png"), output = dir.appendingPathComponent("out.png")
        try Data(png).write(to: input)
        let r = try CLI.run(["decode", input.path, "-o", output.path])
        #expect(r.status != 0 && r.exitedNormally)
        #expect(r.stderr.hasPrefix("jpng: ") && r.stderr.filter { $0 == "\n" }.count == 1, "\(r.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["bad.png"])
    }

    @Test func existingOutputNeedsForce() throws {
        let dir = try CLI.scratchFolder()
        let (_, png) = try Self.samplePNG()
        let input = dir.appendingPathComponent("in.png"), output = dir.appendingPathComponent("out.pam")
        try Data(png).write(to: input)
        try Data("keep".utf8).write(to: output)
        let refused = try CLI.run(["decode", input.path, "-o", output.path])
        #expect(refused.status != 0 && refused.stderr.contains("--force"))
        #expect(try Data(contentsOf: output) == Data("keep".utf8))
        let forced = try CLI.run(["decode", input.path, "-o", output.path, "--force"])
        #expect(forced.status == 0)
        #expect(try Data(contentsOf: output).starts(with: Data("P7".utf8)))
    }

    @Test func missingFileAndUnknownFormat() throws {
        let dir = try CLI.scratchFolder()
        let missing = try CLI.run(["decode", dir.appendingPathComponent("nope.png").path, "-o", dir.appendingPathComponent("x.pam").path])
        #expect(missing.status != 0 && missing.stderr.contains("no such file"))
        let text = dir.appendingPathComponent("notes.txt")
        try Data("hello".utf8).write(to: text)
        let unknown = try CLI.run(["info", text.path])
        #expect(unknown.status != 0 && unknown.stderr.contains("not a recognised image"))
    }

    @Test func infoJSONHasStableKeys() throws {
        let dir = try CLI.scratchFolder()
        var (image, _) = try Self.samplePNG(format: .grayAlpha8)
        image.metadata.texts = [TextEntry(keyword: "Title", text: "Hello")]
        image.metadata.gamma = 0.45455
        let input = dir.appendingPathComponent("in.png")
        try Data(PNGEncoder.encode(image)).write(to: input)
        let r = try CLI.run(["info", input.path, "--json"])
        #expect(r.status == 0, "\(r.stderr)")
        let object = try JSONSerialization.jsonObject(with: Data(r.stdout)) as? [String: Any]
        #expect(object?["format"] as? String == "PNG")
        #expect(object?["width"] as? Int == 13 && object?["height"] as? Int == 7)
        #expect(object?["channels"] as? Int == 2 && object?["bitDepth"] as? Int == 8)
        #expect(object?["frames"] as? Int == 1 && object?["progressive"] as? Bool == false)
        #expect((object?["metadata"] as? [String])?.contains("text") == true)
        #expect((object?["metadata"] as? [String])?.contains("gamma") == true)
        let text = try CLI.run(["info", input.path])
        #expect(text.status == 0 && text.stdoutText.contains("PNG 13x7") && text.stdoutText.contains("Title: Hello"))
    }

    @Test func benchPrintsOneMeasurementLine() throws {
        let dir = try CLI.scratchFolder()
        let (_, png) = try Self.samplePNG(width: 64, height: 48)
        let input = dir.appendingPathComponent("in.png")
        try Data(png).write(to: input)
        let decode = try CLI.run(["bench", input.path, "-n", "3"])
        #expect(decode.status == 0)
        #expect(decode.stdoutText.range(of: #"^decode PNG 64x48 [0-9]+\.[0-9] MP/s\n$"#, options: .regularExpression) != nil, "\(decode.stdoutText)")
        let encode = try CLI.run(["bench", input.path, "-n", "3", "--encode", "--to", "png"])
        #expect(encode.stdoutText.range(of: #"^encode PNG 64x48 [0-9]+\.[0-9] MP/s [0-9]+ bytes\n$"#, options: .regularExpression) != nil, "\(encode.stdoutText)")
    }

    /// Every PNG vector, valid or not, through `decode` and `info`: a result or one error line,
    /// never a crash or hang.
    @Test func everyVectorDecodesOrFailsCleanly() throws {
        let dir = try CLI.scratchFolder()
        let files = TestVectors.files(in: "png/valid", withExtension: "png").map { "png/valid/" + $0 }
            + TestVectors.files(in: "png/invalid", withExtension: "png").map { "png/invalid/" + $0 }
        #expect(files.count > 50)
        for (i, file) in files.enumerated() {
            let output = dir.appendingPathComponent("\(i).pam")
            let r = try CLI.run(["decode", TestVectors.url(file).path, "-o", output.path], timeout: 20)
            #expect(r.exitedNormally, "\(file) crashed")
            if r.status == 0 {
                #expect(FileManager.default.fileExists(atPath: output.path))
            } else {
                #expect(!FileManager.default.fileExists(atPath: output.path), "\(file) left an output")
                #expect(r.stderr.filter { $0 == "\n" }.count == 1, "\(file): \(r.stderr)")
            }
        }
    }
}
