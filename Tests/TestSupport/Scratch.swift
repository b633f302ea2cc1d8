import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Folders for tests' outputs. Each is a fresh folder under one root per test process, and the
/// root is removed when the process exits, so a test that fails or throws midway leaves nothing
/// behind in the temporary directory.
public enum Scratch {
    static let root: String = {
        let path = FileManager.default.temporaryDirectory
            .appendingPathComponent("pureimage-tests-\(getpid())-\(UUID().uuidString.prefix(8))").path
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        atexit { try? FileManager.default.removeItem(atPath: Scratch.root) }
        return path
    }()

    /// A new empty folder whose name starts with `prefix`.
    public static func folder(_ prefix: String) throws -> String {
        let path = root + "/" + prefix + "-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }
}
