import Foundation
import TestSupport
import PureImage
import Testing
@testable import JPNGTool

/// The hand-read `decode` command line: it must take exactly what ``Decode`` would run on a
/// streaming path, with the same values, and give way on everything else.
@Suite struct QuickDecodeTests {
    @Test("streaming decode lines are read with their values")
    func accepted() {
        #expect(QuickDecode(arguments: ["decode", "a.jpg", "-o", "-", "--format", "ppm"])
            == QuickDecode(input: "a.jpg", output: "-", format: "ppm"))
        #expect(QuickDecode(arguments: ["decode", "-o", "b.jpg", "--quality", "90", "a.ppm", "--threads", "1", "--force"])
            == QuickDecode(input: "a.ppm", output: "b.jpg", quality: 90, threads: 1, force: true))
        #expect(QuickDecode(arguments: ["decode", "-", "--output=b.png", "--level=9", "--strict", "--format=png"])
            == QuickDecode(input: "-", output: "b.png", format: "png", level: 9, strict: true))
        let settings = QuickDecode(input: "a", output: "b.jpg", quality: 70, level: 3, threads: 2).settings
        #expect(settings.jpegQuality == 70 && settings.pngLevel == 3 && settings.threads == 2)
        #expect(!settings.progressive && !settings.optimize && !settings.arithmetic && settings.lossless == nil)
        #expect(settings.subsampling == .s420 && settings.precision == 8 && settings.restartInterval == 0 && settings.colors == nil)
    }

    @Test("every other line goes to ArgumentParser", arguments: [
        ["decode", "a.jpg"],                                        // no output
        ["decode", "a.jpg", "-o", "-"],                             // stdout without a format
        ["decode", "a.jpg", "b.jpg", "-o", "c.ppm"],                // two inputs
        ["decode", "a.jpg", "-o", "c.ppm", "-o", "d.ppm"],          // an option twice
        ["decode", "a.jpg", "-o", "c.ppm", "--force", "--force"],
        ["decode", "a.jpg", "-o", "c.ppm", "--quality", "0"],       // out of range
        ["decode", "a.jpg", "-o", "c.png", "--quality", "60-80"],   // a palette range
        ["decode", "a.jpg", "-o", "c.png", "--level", "10"],
        ["decode", "a.jpg", "-o", "c.ppm", "--threads", "0"],
        ["decode", "a.jpg", "-o", "c.ppm", "--threads", "two"],
        ["decode", "a.jpg", "-o", "c.ppm", "--scale", "1/2"],       // any other option
        ["decode", "a.jpg", "-o", "c.jpg", "--progressive"],
        ["decode", "a.jpg", "-o", "c.ppm", "-h"],
        ["decode", "a.jpg", "-o"],                                  // a value missing
        ["decode", "a.jpg", "-o", ""],
        ["decode", "a.jpg", "--", "-o", "c.ppm"],
        ["convert", "a.jpg", "-o", "c.ppm"],
        ["--version"],
        [],
    ])
    func declined(_ arguments: [String]) {
        #expect(QuickDecode(arguments: arguments) == nil)
    }

    @Test("routes follow Decode's streaming paths; others decline before doing anything")
    func routes() throws {
        let jpeg = TestVectors.url("jpeg/valid/photo256_420_q90.jpg").path
        #expect(QuickDecode(input: jpeg, output: "x.ppm").route == .netpbm(.ppm))
        #expect(QuickDecode(input: "-", output: "-", format: "pam").route == nil)   // stdin to PAM: held whole
        #expect(QuickDecode(input: jpeg, output: "x.pam").route == .netpbm(.pam))
        #expect(QuickDecode(input: jpeg, output: "x.jpg").route == .encoder(.jpeg))
        #expect(QuickDecode(input: jpeg, output: "x.png").route == .encoder(.png))
        #expect(QuickDecode(input: jpeg, output: "x.gif").route == nil)
        #expect(QuickDecode(input: jpeg, output: "x.unknown").route == nil)
        let dir = URL(fileURLWithPath: try Scratch.folder("quick"))
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent("x.gif").path
        #expect(QuickDecode(input: jpeg, output: out).run() == false)
        #expect(!FileManager.default.fileExists(atPath: out))
    }

    @Test("the tool's output and errors are those of the full parser's path")
    func sameAsFullParser() throws {
        let jpeg = TestVectors.url("jpeg/valid/photo256_420_q90.jpg").path
        // The quick path, and the same conversion through ArgumentParser (an option it declines).
        let quick = try CLI.run(["decode", jpeg, "-o", "-", "--format", "ppm"])
        let full = try CLI.run(["decode", jpeg, "-o", "-", "--format", "ppm", "--scale", "1"])
        #expect(quick.status == 0 && quick.stdout == full.stdout && !quick.stdout.isEmpty)
        let missing = try CLI.run(["decode", "/nonexistent/a.jpg", "-o", "-", "--format", "ppm"])
        let missingFull = try CLI.run(["decode", "/nonexistent/a.jpg", "-o", "-", "--format", "ppm", "--scale", "1"])
        #expect(missing.status == 1 && missing.stderr == missingFull.stderr && missing.stdout.isEmpty)
        #expect(missing.stderr.split(separator: "\n").count == 1)
    }

    @Test("--version alone prints the version, as ArgumentParser does")
    func version() throws {
        let run = try CLI.run(["--version"])
        #expect(run.status == 0 && run.stdoutText == PureImagePackage.version + "\n" && run.stderr.isEmpty)
    }
}
