import Foundation
import TestSupport

/// Runs the built `jpng` binary (built beside the test bundle by `swift test`).
struct CLI {
    struct Result {
        var status: Int32
        var stdout: [UInt8]
        var stderr: String
        var stdoutText: String { String(decoding: stdout, as: UTF8.self) }
        /// True when the process ended by itself (no signal such as a trap).
        var exitedNormally: Bool
    }

    static let binary: URL = {
        let fm = FileManager.default
        var candidates: [URL] = []
        // The test bundle lives in the build products folder, beside the jpng executable.
        let argv0 = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        candidates.append(argv0.deletingLastPathComponent().appendingPathComponent("jpng"))
        candidates.append(argv0.deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("jpng"))
        for bundle in Bundle.allBundles {
            candidates.append(bundle.bundleURL.deletingLastPathComponent().appendingPathComponent("jpng"))
        }
        let root = TestVectors.root.deletingLastPathComponent()
        for config in ["debug", "release"] {
            candidates.append(root.appendingPathComponent(".build/\(config)/jpng"))
        }
        return candidates.first { fm.isExecutableFile(atPath: $0.path) } ?? candidates[0]
    }()

    static func run(_ arguments: [String], stdin: [UInt8]? = nil, timeout: TimeInterval = 60) throws -> Result {
        let process = Process()
        process.executableURL = binary
        process.arguments = arguments
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        let input = Pipe()
        process.standardInput = input
        try process.run()
        if let stdin { input.fileHandleForWriting.write(Data(stdin)) }
        try input.fileHandleForWriting.close()
        // Read both pipes to the end before waiting, so a large output cannot block the child.
        let outBox = DataBox()
        let group = DispatchGroup()
        group.enter()
        DispatchQueue.global().async { outBox.data = out.fileHandleForReading.readDataToEndOfFile(); group.leave() }
        let errData = err.fileHandleForReading.readDataToEndOfFile()
        if group.wait(timeout: .now() + timeout) == .timedOut { process.terminate() }
        process.waitUntilExit()
        return Result(status: process.terminationStatus, stdout: [UInt8](outBox.data),
                      stderr: String(decoding: errData, as: UTF8.self),
                      exitedNormally: process.terminationReason == .exit)
    }

    /// Whether the binary is built with a sanitizer, whose shadow memory needs more address
    /// space than any `ulimit -v` leaves (``runLimited(_:addressSpaceKB:)`` is then not run).
    static var isSanitized: Bool { binary.path.contains("-asan") || binary.path.contains("-tsan") }

    /// Runs `jpng` under an address-space limit (`ulimit -v`, in KiB): an allocation the limit
    /// refuses must give an error, never an abort.
    static func runLimited(_ arguments: [String], addressSpaceKB: Int = 2_097_152) throws -> Result {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", "ulimit -v \(addressSpaceKB) && exec \"$0\" \"$@\"", binary.path] + arguments
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let outBox = DataBox()
        let group = DispatchGroup()
        group.enter()
        DispatchQueue.global().async { outBox.data = out.fileHandleForReading.readDataToEndOfFile(); group.leave() }
        let errData = err.fileHandleForReading.readDataToEndOfFile()
        if group.wait(timeout: .now() + 120) == .timedOut { process.terminate() }
        process.waitUntilExit()
        // The shell execs jpng, so a signal shows as the process's own termination reason.
        return Result(status: process.terminationStatus, stdout: [UInt8](outBox.data),
                      stderr: String(decoding: errData, as: UTF8.self),
                      exitedNormally: process.terminationReason == .exit)
    }

    /// A fresh empty folder for one test's outputs.
    static func scratchFolder() throws -> URL {
        URL(fileURLWithPath: try Scratch.folder("jpng"))
    }
}

/// Written by the reader thread before `group.leave()`, read after `group.wait()`: the group orders the accesses.
final class DataBox: @unchecked Sendable {
    var data = Data()
}
