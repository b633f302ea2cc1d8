import Foundation
import TestSupport
import PureImage
import Testing

/// `decode` to PPM and PGM streams rows from the decoder to the output: the bytes must be those
/// of the whole image converted as `encodeImage` converts it, whatever the input format.
@Suite struct StreamDecodeTests {
    /// The whole-image reference: ImageSource's decode, alpha dropped, gray or RGB, 16-bit
    /// samples big-endian, behind the P5/P6 header.
    static func reference(_ bytes: [UInt8], gray: Bool) throws -> [UInt8] {
        let image = try ImageSource.decode(bytes)
        let target = PixelFormat(color: !gray, alpha: false, sixteenBit: image.format.is16Bit)
        var pixels = image.converted(to: target).pixels
        if target.is16Bit {
            for i in stride(from: 0, to: pixels.count - 1, by: 2) { pixels.swapAt(i, i + 1) }
        }
        let header = "\(gray ? "P5" : "P6")\n\(image.width) \(image.height)\n\(target.is16Bit ? 65535 : 255)\n"
        return Array(header.utf8) + pixels
    }

    /// `jpng decode` of the vector at `path` (`bytes`) to a `.ext` file in `dir` and through
    /// stdin to stdout: both must be `expected`. Returns the run to the file.
    static func expectDecoded(_ path: String, _ bytes: [UInt8], ext: String, in dir: URL, equal expected: [UInt8]) throws -> CLI.Result {
        let out = dir.appendingPathComponent("out.\(ext)").path
        let toFile = try CLI.run(["decode", TestVectors.url(path).path, "-o", out, "--force"])
        #expect(toFile.status == 0, "\(toFile.stderr)")
        #expect([UInt8](try Data(contentsOf: URL(fileURLWithPath: out))) == expected, "\(path) to .\(ext)")
        let piped = try CLI.run(["decode", "-", "-o", "-", "--format", ext], stdin: bytes)
        #expect(piped.status == 0 && piped.stdout == expected, "\(path) through stdin and stdout: \(piped.stderr)")
        return toFile
    }

    static let inputs: [String] = [
        "jpeg-encoder/photo_64x48_q75_420.jpg", "jpeg-encoder/photo_64x48_q75_420_prog.jpg",
        "jpeg-encoder/photo_37x29_q75_444.jpg", "png/pngsuite/basn6a16.png", "png/pngsuite/basn0g01.png",
        "png/pngsuite/basi2c08.png", "gif/pillow_anim.gif", "netpbm/rgba_16bit.pam", "netpbm/gray_p2.pgm",
        "regressions/imagesource-jpng-footer-sum.jpg",
    ].filter { FileManager.default.fileExists(atPath: TestVectors.url($0).path) }

    @Test("PPM and PGM output, to a file and to stdout, equal the whole image's", arguments: inputs)
    func streamedEqualsWhole(_ path: String) throws {
        let bytes = try TestVectors.bytes(path)
        let dir = try CLI.scratchFolder()
        for gray in [false, true] {
            let ext = gray ? "pgm" : "ppm"
            let toFile = try Self.expectDecoded(path, bytes, ext: ext, in: dir, equal: try Self.reference(bytes, gray: gray))
            #expect(!toFile.stderr.contains("data after EOI"), "\(toFile.stderr)")
        }
    }

    @Test func everyInputIsThere() { #expect(Self.inputs.count == 10) }

    @Test("PAM output streams too: every channel and depth as decoded", arguments: inputs.filter { !$0.hasPrefix("regressions/") })
    func pamEqualsWhole(_ path: String) throws {
        let bytes = try TestVectors.bytes(path)
        let image = try ImageSource.decode(bytes)
        var pixels = image.pixels
        if image.format.is16Bit {
            for i in stride(from: 0, to: pixels.count - 1, by: 2) { pixels.swapAt(i, i + 1) }
        }
        let tuple = ["GRAYSCALE", "GRAYSCALE_ALPHA", "RGB", "RGB_ALPHA"][image.format.channels - 1]
        let header = "P7\nWIDTH \(image.width)\nHEIGHT \(image.height)\nDEPTH \(image.format.channels)\n"
            + "MAXVAL \(image.format.is16Bit ? 65535 : 255)\nTUPLTYPE \(tuple)\nENDHDR\n"
        let expected = Array(header.utf8) + pixels
        let out = try CLI.scratchFolder().appendingPathComponent("out.pam").path
        let r = try CLI.run(["decode", TestVectors.url(path).path, "-o", out])
        #expect(r.status == 0, "\(r.stderr)")
        #expect([UInt8](try Data(contentsOf: URL(fileURLWithPath: out))) == expected, "\(path)")
    }

    @Test("12-bit and lossless JPEG: PPM, PGM and PAM hold the stored values with MAXVAL 2^P - 1, to a file and through stdin",
          arguments: ["jpeg-12bit/rgb12_q85_420.jpg", "jpeg-12bit/gray12_q85.jpg", "jpeg-lossless/lj3_rgb12_p6.jpg",
                      "jpeg-lossless/lj3_gray16_p1.jpg"])
    func wideJPEG(_ path: String) throws {
        let bytes = try TestVectors.bytes(path)
        let image = try ImageSource.decode(bytes)
        let bits = image.metadata.sampleBits ?? 16
        var pixels = image.pixels
        for i in stride(from: 0, to: pixels.count - 1, by: 2) { pixels.swapAt(i, i + 1) }
        let ext = image.format.isColor ? "ppm" : "pgm"
        let pnm = Array("\(image.format.isColor ? "P6" : "P5")\n\(image.width) \(image.height)\n\((1 << bits) - 1)\n".utf8) + pixels
        let dir = try CLI.scratchFolder()
        _ = try Self.expectDecoded(path, bytes, ext: ext, in: dir, equal: pnm)
        let pam = dir.appendingPathComponent("out.pam").path
        #expect(try CLI.run(["decode", TestVectors.url(path).path, "-o", pam]).status == 0)
        let written = [UInt8](try Data(contentsOf: URL(fileURLWithPath: pam)))
        #expect(String(decoding: written.prefix(80), as: UTF8.self).contains("MAXVAL \((1 << bits) - 1)\n"))
        #expect(Array(written.suffix(pixels.count)) == pixels, "\(path) to .pam")
    }

    @Test("a file cut short: one line on stderr, non-zero exit, no output file, no temporary file")
    func truncatedLeavesNothing() throws {
        let bytes = try TestVectors.bytes("png/pngsuite/basn2c16.png")
        let dir = try CLI.scratchFolder()
        let input = dir.appendingPathComponent("cut.png")
        try Data(bytes.prefix(bytes.count / 2)).write(to: input)
        let r = try CLI.run(["decode", input.path, "-o", dir.appendingPathComponent("out.ppm").path])
        #expect(r.status != 0 && r.stderr.split(separator: "\n").count == 1, "\(r.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["cut.png"])
    }

    @Test("a transparent alpha channel dropped in PPM output is noticed, an opaque one is not")
    func alphaNotice() throws {
        let dir = try CLI.scratchFolder()
        let transparent = try CLI.run(["decode", TestVectors.url("png/pngsuite/basn6a08.png").path, "-o",
                                       dir.appendingPathComponent("a.ppm").path])
        #expect(transparent.status == 0 && transparent.stderr.contains("alpha channel is dropped"), "\(transparent.stderr)")
        let opaque = try CLI.run(["decode", TestVectors.url("netpbm/rgb.pam").path, "-o", dir.appendingPathComponent("b.ppm").path])
        #expect(opaque.status == 0 && opaque.stderr.isEmpty, "\(opaque.stderr)")
    }
}

/// `jpng thumbnail`: the library's thumbnail, written in the format asked for; stdin and
/// stdout; errors as one line without an output file.
@Suite struct ThumbnailCommandTests {
    @Test func fileAndPipe() throws {
        let path = "jpeg/valid/exif_orientation6.jpg"
        let bytes = try TestVectors.bytes(path)
        let expected = try ImageSource.thumbnail(bytes, maxPixelSize: 24)
        let dir = try CLI.scratchFolder()
        let out = dir.appendingPathComponent("t.pam").path
        let r = try CLI.run(["thumbnail", TestVectors.url(path).path, "-o", out, "--size", "24"])
        #expect(r.status == 0, "\(r.stderr)")
        let written = try ImageSource.decode([UInt8](try Data(contentsOf: URL(fileURLWithPath: out))))
        #expect(written.width == expected.width && written.height == expected.height && written.pixels == expected.pixels)
        let piped = try CLI.run(["thumbnail", "-", "-o", "-", "--format", "pam", "--size", "24", "--no-rotate"], stdin: bytes)
        #expect(piped.status == 0, "\(piped.stderr)")
        let stored = try ImageSource.decode(piped.stdout)
        #expect(stored.width == expected.height && stored.height == expected.width)
    }

    @Test func damagedInputLeavesNothing() throws {
        let dir = try CLI.scratchFolder()
        let input = dir.appendingPathComponent("cut.png")
        let bytes = try TestVectors.bytes("png/pngsuite/basn2c16.png")
        try Data(bytes.prefix(bytes.count / 2)).write(to: input)
        let r = try CLI.run(["thumbnail", input.path, "-o", dir.appendingPathComponent("t.png").path, "--size", "8"])
        #expect(r.status != 0 && r.stderr.split(separator: "\n").count == 1, "\(r.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["cut.png"])
    }
}

/// `decode` to PNG and baseline JPEG streams rows into the stream encoders: the bytes must be
/// those of the whole image encoded as `encodeImage` encodes it.
@Suite struct StreamEncodeTests {
    static let inputs: [String] = StreamDecodeTests.inputs.filter { !$0.hasPrefix("regressions/") } + ["netpbm/rgb_p6.ppm"]

    static func wholeImage(_ bytes: [UInt8]) throws -> Image { try ImageSource.decode(bytes) }

    @Test("PNG and JPEG output, to a file and through stdin and stdout, equal the whole image's", arguments: inputs)
    func streamedEqualsWhole(_ path: String) throws {
        let bytes = try TestVectors.bytes(path)
        let image = try Self.wholeImage(bytes)
        let png = try PNGEncoder.encode(image)
        let opaque = image.format.hasAlpha && !JPNGEncoder.hasTransparency(image) ? image.converted(to: image.format.withoutAlpha) : image
        let jpeg = try JPEGEncoder.encode(opaque, options: JPEGEncodingOptions(quality: 85, subsampling: .s420))
        let dir = try CLI.scratchFolder()
        for (ext, expected) in [("png", png), ("jpg", jpeg)] {
            let out = dir.appendingPathComponent("out.\(ext)").path
            let toFile = try CLI.run(["decode", TestVectors.url(path).path, "-o", out, "--force"])
            #expect(toFile.status == 0, "\(toFile.stderr)")
            #expect([UInt8](try Data(contentsOf: URL(fileURLWithPath: out))) == expected, "\(path) to .\(ext)")
            let piped = try CLI.run(["decode", "-", "-o", "-", "--format", ext == "jpg" ? "jpeg" : "png"], stdin: bytes)
            #expect(piped.status == 0 && piped.stdout == expected, "\(path) through stdin and stdout: \(piped.stderr)")
        }
    }

    @Test("convert --to png and --to jpeg stream too, with the same bytes")
    func convertStreams() throws {
        let path = "png/pngsuite/basn6a16.png"
        let bytes = try TestVectors.bytes(path)
        let image = try Self.wholeImage(bytes)
        let dir = try CLI.scratchFolder()
        let r = try CLI.run(["convert", TestVectors.url(path).path, "--to", "png", "--out-dir", dir.path])
        #expect(r.status == 0, "\(r.stderr)")
        #expect([UInt8](try Data(contentsOf: dir.appendingPathComponent("basn6a16.png"))) == (try PNGEncoder.encode(image)))
        let j = try CLI.run(["convert", TestVectors.url(path).path, "--to", "jpeg", "--out-dir", dir.path])
        #expect(j.status == 0 && j.stderr.contains("alpha channel is dropped"), "\(j.stderr)")
        #expect([UInt8](try Data(contentsOf: dir.appendingPathComponent("basn6a16.jpg")))
            == (try JPEGEncoder.encode(image, options: JPEGEncodingOptions(quality: 85, subsampling: .s420))))
    }

    @Test("a file cut short: one line on stderr, non-zero exit, no output file")
    func truncatedLeavesNothing() throws {
        let bytes = try TestVectors.bytes("jpeg-encoder/photo_64x48_q75_420.jpg")
        let dir = try CLI.scratchFolder()
        let input = dir.appendingPathComponent("cut.ppm")
        try Data(Array("P6\n64 48\n255\n".utf8) + bytes.prefix(1000)).write(to: input)
        for ext in ["png", "jpg"] {
            let r = try CLI.run(["decode", input.path, "-o", dir.appendingPathComponent("out.\(ext)").path])
            #expect(r.status != 0 && r.stderr.split(separator: "\n").count == 1, "\(r.stderr)")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["cut.ppm"])
    }
}

/// The output sink hands 256 KB buffers to a writing thread: long outputs arrive whole and in
/// order, and a failed write is one line on stderr and a failing exit.
@Suite struct OutputSinkTests {
    @Test("a 3 MB PPM through stdout and to a file: every buffer, in order")
    func longOutput() throws {
        var image = Image(width: 1200, height: 900, format: .rgb8)
        for i in image.pixels.indices { image.pixels[i] = UInt8(truncatingIfNeeded: i &* 2654435761 >> 13) }
        let png = try PNGEncoder.encode(image)
        let expected = Array("P6\n1200 900\n255\n".utf8) + image.pixels
        let piped = try CLI.run(["decode", "-", "-o", "-", "--format", "ppm"], stdin: png)
        #expect(piped.status == 0, "\(piped.stderr)")
        #expect(piped.stdout == expected)
        let out = try CLI.scratchFolder().appendingPathComponent("long.ppm").path
        let toFile = try CLI.run(["decode", "-", "-o", out, "--format", "ppm"], stdin: png)
        #expect(toFile.status == 0, "\(toFile.stderr)")
        #expect([UInt8](try Data(contentsOf: URL(fileURLWithPath: out))) == expected)
    }

    @Test("JPEG output of a 1.1 MP image: --threads 1, 2 and the default write the encoder's bytes")
    func jpegThreads() throws {
        var image = Image(width: 1200, height: 900, format: .rgb8)
        for i in image.pixels.indices { image.pixels[i] = UInt8(truncatingIfNeeded: (i / 3 % 1200) ^ (i / 3600) &+ i % 3 &* 40) }
        let png = try PNGEncoder.encode(image)
        let expected = try JPEGEncoder.encode(image, options: JPEGEncodingOptions(quality: 85))
        for threads in [["--threads", "1"], ["--threads", "2"], []] {
            let piped = try CLI.run(["decode", "-", "-o", "-", "--format", "jpeg"] + threads, stdin: png)
            #expect(piped.status == 0 && piped.stdout == expected, "\(threads): \(piped.stderr)")
        }
    }

    @Test("-o on a pipe or device writes into it: no --force needed, and it stays what it was (never renamed over)")
    func specialFileOutput() throws {
        let dir = URL(fileURLWithPath: try Scratch.folder("fifo"))
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = TestVectors.url("jpeg/valid/photo256_progressive.jpg").path
        // The streaming decode's writer, and the whole-file one (`writeOutput`, a thumbnail).
        let cases: [(name: String, command: [String], stdout: [String])] = [
            ("out.ppm", ["decode", input, "-o"], ["decode", input, "-o", "-", "--format", "ppm"]),
            ("thumb.png", ["thumbnail", input, "--size", "64", "-o"], ["thumbnail", input, "--size", "64", "-o", "-", "--format", "png"]),
        ]
        for c in cases {
            let fifo = dir.appendingPathComponent(c.name).path
            #expect(mkfifo(fifo, 0o600) == 0)
            let expected = try CLI.run(c.stdout).stdout
            let box = DataBox()
            let group = DispatchGroup()
            group.enter()
            DispatchQueue.global().async {
                box.data = FileHandle(forReadingAtPath: fifo)?.readDataToEndOfFile() ?? Data()
                group.leave()
            }
            let result = try CLI.run(c.command + [fifo])
            // A tool that never opened the pipe would leave the reader waiting for a writer.
            let release = open(fifo, O_WRONLY | O_NONBLOCK)
            if release >= 0 { close(release) }
            _ = group.wait(timeout: .now() + 60)
            #expect(result.status == 0 && !expected.isEmpty, "\(c.name): \(result.stderr)")
            #expect([UInt8](box.data) == expected, "\(c.name): bytes through the pipe")
            var info = stat()
            #expect(stat(fifo, &info) == 0 && (info.st_mode & S_IFMT) == S_IFIFO, "\(c.name): still a pipe")
        }
        // /dev/null as the output (as `cjpeg -outfile /dev/null`): it stays the device.
        if FileManager.default.fileExists(atPath: "/dev/null") {
            let result = try CLI.run(["decode", input, "-o", "/dev/null", "--format", "ppm"])
            #expect(result.status == 0, "\(result.stderr)")
            var info = stat()
            #expect(stat("/dev/null", &info) == 0 && (info.st_mode & S_IFMT) == S_IFCHR, "/dev/null is still a device")
        }
    }

    @Test("a write that fails (stdout on /dev/full) ends the command with one line on stderr")
    func failedWrite() throws {
        guard FileManager.default.fileExists(atPath: "/dev/full") else { return }
        let process = Process()
        process.executableURL = CLI.binary
        process.arguments = ["decode", TestVectors.url("jpeg/valid/photo256_progressive.jpg").path, "-o", "-", "--format", "ppm"]
        process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: "/dev/full"))
        let err = Pipe()
        process.standardError = err
        try process.run()
        let message = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus != 0)
        #expect(message.contains("cannot write"), "\(message)")
        #expect(message.split(separator: "\n").count == 1, "\(message)")
    }
}
