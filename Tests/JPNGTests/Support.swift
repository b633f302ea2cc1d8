import Foundation

/// Locates the committed test vectors: `<package root>/Vectors/...`, found from this file's path,
/// so the tests need no bundle resources and run the same in debug and release.
enum TestVectors {
    static let root: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Vectors")

    static func url(_ relativePath: String) -> URL { root.appendingPathComponent(relativePath) }

    static func bytes(_ relativePath: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: url(relativePath)))
    }

    /// File names (not paths) in a folder of `Vectors/`, sorted; empty when the folder is missing.
    static func files(in folder: String, withExtension ext: String? = nil) -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: url(folder).path)) ?? []
        return names.filter { ext == nil || $0.hasSuffix("." + ext!) }.sorted()
    }
}
