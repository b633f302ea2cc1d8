import Foundation
import Testing

/// One row of `Vectors/png/manifest.tsv` (written by `Vectors/png/generate.py`).
struct PNGVector: Sendable, CustomStringConvertible {
    /// Path relative to `Vectors/png`.
    let path: String
    let width: Int?
    let height: Int?
    /// `PixelFormat.rawValue`, empty when the table gives none.
    let format: String
    /// `Image.rgba16Checksum` as 8 lower-case hex digits (valid files).
    let checksum: String
    /// `PNGError.code`, empty for a valid file.
    let error: String
    let note: String

    var isValid: Bool { error.isEmpty }
    var description: String { path }

    func bytes() throws -> [UInt8] { try TestVectors.bytes("png/" + path) }
}

/// The PNG vector table, read once with plain string splitting (no CSV library: the
/// generator never writes tabs or newlines inside a field).
enum PNGManifest {
    static let relativePath = "png/manifest.tsv"

    static let all: [PNGVector] = load()
    static var valid: [PNGVector] { all.filter(\.isValid) }
    static var invalid: [PNGVector] { all.filter { !$0.isValid } }

    /// Column names of the header line, for the test that the table has the expected shape.
    static var header: [String] { lines().first ?? [] }

    private static func lines() -> [[String]] {
        guard let data = try? Data(contentsOf: TestVectors.url(relativePath)) else { return [] }
        return String(decoding: data, as: UTF8.self)
            .split(separator: "\n", omittingEmptySubsequences: true)
            .map { $0.split(separator: "\t", omittingEmptySubsequences: false).map(String.init) }
    }

    private static func load() -> [PNGVector] {
        lines().dropFirst().compactMap { f in
            guard f.count == 7 else { return nil }
            return PNGVector(path: f[0], width: Int(f[1]), height: Int(f[2]), format: f[3],
                             checksum: f[4], error: f[5], note: f[6])
        }
    }
}

/// Eight lower-case hex digits, as the table writes checksums.
func hex8(_ value: UInt32) -> String {
    let s = String(value, radix: 16)
    return String(repeating: "0", count: 8 - s.count) + s
}

extension PNGManifest {
    /// Vectors where the decoder differs from what the tests expect: either for a reason the
    /// PNG specification leaves room for (the table keeps the strict answer), or a decoder
    /// defect reported to its owner. The tests record each difference as a known issue and
    /// fail as soon as it stops happening, so that the entry is removed on purpose.
    /// Empty since png-decoder a84dfbc and c36cf6f fixed every entry it held (ancillary CRC,
    /// IHDR length, zlib error vs. filter byte ordering). Entries look like
    /// `"invalid/x.png": "decoder says y because z; table says w"`.
    static let knownDivergences: [String: String] = [:]
}

/// Runs `body`, expecting it to record issues when `vector` is a known divergence.
func checking(_ vector: PNGVector, _ body: () throws -> Void) rethrows {
    if let reason = PNGManifest.knownDivergences[vector.path] {
        withKnownIssue(Comment(rawValue: reason)) { try body() }
    } else {
        try body()
    }
}
