import Foundation
import PureImage
import Testing
import TestSupport

/// Every clean vector decodes without a single warning, whole and in pieces: warnings are for
/// damage, so `ImageSource.warnings`, the service's logs and the CLI's stderr stay quiet on what
/// the reference encoders and common tools write.
@Suite("Clean vectors decode without warnings")
struct CleanVectorTests {
    /// The folders of clean files, and in each the files that are damaged or odd on purpose.
    static let folders: [(folder: String, damaged: @Sendable (String) -> Bool)] = [
        ("jpeg/valid", { _ in false }),
        ("jpeg-extra", { _ in false }),
        ("jpeg-12bit", { _ in false }),
        ("jpeg-arithmetic", { _ in false }),
        ("jpeg-lossless", { _ in false }),
        ("jpeg-encoder", { _ in false }),
        ("jpeg-encoder-arithmetic", { _ in false }),
        ("jpeg-idct-overflow", { _ in false }),
        ("netpbm", { _ in false }),
        ("examples", { _ in false }),
        // benign_*: an ancillary chunk broken on purpose; an index past PLTE is libpng's warning.
        ("png/valid", { $0.hasPrefix("benign_") || $0.contains("index_beyond_plte") }),
        // PngSuite's x* files are its corrupt ones.
        ("png/pngsuite", { $0.hasPrefix("x") }),
        // broken_*: animations that break a rule; a tRNS key over the depth is libpng's warning.
        ("apng", { $0.hasPrefix("broken_") || $0 == "gray8_trns_highbits.png" }),
        ("apng-chunk-order", { _ in true }),
        ("gif", { ["invalid_", "truncated_", "lenient_"].contains(where: $0.hasPrefix) }),
    ]

    static let files: [String] = folders.flatMap { entry in
        TestVectors.files(in: entry.folder).filter { name in
            [".jpg", ".png", ".gif", ".jpng"].contains { name.hasSuffix($0) } && !entry.damaged(name)
        }.map { entry.folder + "/" + $0 }
    }

    static func warnings(_ bytes: [UInt8], pieces: Int) -> [String] {
        var source = ImageSource()
        var i = 0
        do {
            while i < bytes.count {
                let end = min(bytes.count, i + pieces)
                _ = try source.append(bytes[i ..< end])
                i = end
            }
            _ = try source.finish()
        } catch {
            return ["error: \(error)"]
        }
        return source.warnings
    }

    @Test("no warning whole or in 1,000- and 7-byte pieces", arguments: files)
    func quiet(file: String) throws {
        let bytes = try TestVectors.bytes(file)
        for pieces in [bytes.count, 1000, 7] {
            let found = Self.warnings(bytes, pieces: max(pieces, 1))
            #expect(found.isEmpty, "\(pieces)-byte pieces: \(found)")
        }
    }
}
