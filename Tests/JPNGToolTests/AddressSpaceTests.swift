import Foundation
import PureImage
import Testing

/// The commands under a 2 GiB address-space limit (`ulimit -v 2097152`), as a service or a
/// batch job runs them: files whose headers declare more than their bytes can hold are refused
/// at the header with one line and status 1, and no file makes a command die of a signal.
/// `Tools/address-space-check.sh` runs the same over every file in `Vectors/`.
@Suite struct AddressSpaceTests {
    static let hostile = ["limits-jpeg-gray-40000.jpg", "limits-jpeg-rgb-40000.jpg", "limits-png-interlaced-65535.png"]

    /// The commands that stream (and `info`), with an output in `dir` where they write one.
    static func commands(_ input: String, in dir: URL) -> [(name: String, arguments: [String], output: String?)] {
        let pam = dir.appendingPathComponent("out.pam").path
        let thumb = dir.appendingPathComponent("thumb.jpg").path
        let converted = dir.appendingPathComponent("convert")
        let tiles = dir.appendingPathComponent("tiles")
        let stem = URL(fileURLWithPath: input).deletingPathExtension().lastPathComponent
        return [
            ("decode", ["decode", input, "-o", pam, "--force"], pam),
            ("convert", ["convert", input, "--to", "png", "--out-dir", converted.path, "--force"],
             converted.appendingPathComponent(stem + ".png").path),
            ("thumbnail", ["thumbnail", input, "-o", thumb, "--size", "200", "--force"], thumb),
            ("tile", ["tile", input, "--out", tiles.path], tiles.appendingPathComponent(stem + ".dzi").path),
            ("info", ["info", input], nil),
        ]
    }

    @Test("a header its bytes cannot hold: one line, status 1, no output", arguments: hostile)
    func hostileHeaders(file: String) throws {
        guard !CLI.isSanitized else { return }
        let dir = try CLI.scratchFolder()
        let input = TestVectors.url("regressions/" + file).path
        for command in Self.commands(input, in: dir) {
            let result = try CLI.runLimited(command.arguments)
            #expect(result.exitedNormally && result.status == 1, "\(command.name): status \(result.status) \(result.stderr)")
            let lines = result.stderr.split(separator: "\n")
            #expect(lines.count == 1, "\(command.name): \(result.stderr)")
            // info meets the pixel limit first; the streaming commands the input-size check.
            let reason = command.name == "info" ? "exceeds the limit" : "the image the header declares needs at least"
            #expect(result.stderr.contains(reason), "\(command.name): \(result.stderr)")
            if let output = command.output { #expect(!FileManager.default.fileExists(atPath: output), "\(command.name)") }
        }
    }

    @Test("every regression vector and lossless vector: no command dies")
    func noSignal() throws {
        guard !CLI.isSanitized else { return }
        let dir = try CLI.scratchFolder()
        let files = TestVectors.files(in: "regressions").filter { !$0.hasSuffix(".tsv") && !$0.hasSuffix(".py") }
            .map { TestVectors.url("regressions/" + $0).path }
            + TestVectors.files(in: "jpeg-lossless", withExtension: "jpg").prefix(6).map { TestVectors.url("jpeg-lossless/" + $0).path }
        for file in files {
            for command in Self.commands(file, in: dir) {
                let result = try CLI.runLimited(command.arguments)
                #expect(result.exitedNormally && result.status <= 1, "\(file) \(command.name): \(result.status) \(result.stderr)")
            }
        }
    }
}
