import Foundation
import ImageCore
import PurePNG
import Testing

/// One row of `Vectors/png/damaged/manifest.tsv` (written by `Vectors/png/damaged/generate.py`).
struct DamagedVector: Sendable, CustomStringConvertible {
    /// File name in `Vectors/png/damaged`.
    let file: String
    /// What libpng 1.6 did with it: "ok", "warn" (decoded, with warnings) or "error".
    let libpng: String
    /// libpng's decoding as a PAM (RGBA, 8 or 16 bits), nil when libpng failed.
    let reference: String?
    /// The `PNGError.code` of strict decoding.
    let strict: String
    let warnings: String
    let note: String

    var description: String { file }
    var decodes: Bool { libpng != "error" }

    func bytes() throws -> [UInt8] { try TestVectors.bytes("png/damaged/" + file) }

    static let all: [DamagedVector] = {
        guard let data = try? Data(contentsOf: TestVectors.url("png/damaged/manifest.tsv")) else { return [] }
        return String(decoding: data, as: UTF8.self).split(separator: "\n").dropFirst().compactMap { line in
            let f = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard f.count == 6 else { return nil }
            return DamagedVector(file: f[0], libpng: f[1], reference: f[2] == "-" ? nil : f[2], strict: f[3],
                                 warnings: f[4], note: f[5])
        }
    }()
}

/// A decode's outcome: the image and warnings, or the error.
struct DamagedOutcome: Equatable {
    var image: Image?
    var error: PNGError?
    var warnings: [String] = []

    /// Same image or same error code, and the same number of warnings (their byte offsets may
    /// name where a piece ended, so their text is not compared).
    func agrees(with other: DamagedOutcome) -> Bool {
        image == other.image && error?.code == other.error?.code && warnings.count == other.warnings.count
    }

    var summary: String {
        if let error { return "error \(error.code): \(error)" }
        return "image, \(warnings.count) warnings"
    }
}

/// The damaged files decode as libpng 1.6 decodes them by default (same RGBA pixels, a
/// warning where libpng warned, an error where libpng failed), and each throws its typed error
/// with `strict: true`; whatever the chunking.
@Suite struct DamagedFileTests {
    static func decode(_ bytes: [UInt8], strict: Bool = false, pieces: Int? = nil) -> DamagedOutcome {
        var decoder = PNGDecoder(options: PNGDecodingOptions(strict: strict))
        do throws(PNGError) {
            let size = pieces ?? max(bytes.count, 1)
            var i = 0
            repeat {
                _ = try decoder.append(bytes[i ..< min(bytes.count, i + size)])
                i += size
            } while i < bytes.count
            let image = try decoder.finish()
            return DamagedOutcome(image: image, warnings: decoder.warnings)
        } catch {
            return DamagedOutcome(error: error, warnings: decoder.warnings)
        }
    }

    /// The PAM's header fields and samples.
    static func readPAM(_ bytes: [UInt8]) -> (width: Int, height: Int, maxval: Int, samples: ArraySlice<UInt8>)? {
        let marker = Array("ENDHDR\n".utf8)
        guard let end = (0 ... max(0, bytes.count - marker.count)).first(where: { bytes[$0 ..< $0 + marker.count].elementsEqual(marker) })
        else { return nil }
        var fields: [String: Int] = [:]
        for line in String(decoding: bytes[..<end], as: UTF8.self).split(separator: "\n") {
            let parts = line.split(separator: " ")
            if parts.count == 2, let v = Int(parts[1]) { fields[String(parts[0])] = v }
        }
        guard let w = fields["WIDTH"], let h = fields["HEIGHT"], let m = fields["MAXVAL"], fields["DEPTH"] == 4 else { return nil }
        return (w, h, m, bytes[(end + marker.count)...])
    }

    /// `image` as RGBA of the given depth, 16-bit samples big-endian (the PAM layout).
    static func rgbaBigEndian(_ image: Image, sixteen: Bool) -> [UInt8] {
        let converted = image.converted(to: sixteen ? .rgba16 : .rgba8)
        guard sixteen else { return converted.pixels }
        var out = [UInt8](repeating: 0, count: converted.pixels.count)
        converted.pixels.withUnsafeBytes { raw in
            for i in 0 ..< raw.count / 2 {
                let v = raw.loadUnaligned(fromByteOffset: 2 * i, as: UInt16.self)
                out[2 * i] = UInt8(v >> 8)
                out[2 * i + 1] = UInt8(v & 0xFF)
            }
        }
        return out
    }

    @Test func tableIsThere() {
        let all = DamagedVector.all
        #expect(all.count >= 60)
        #expect(all.filter { $0.libpng == "warn" }.count >= 40)
        #expect(all.filter { $0.libpng == "error" }.count >= 8)
        #expect(all.allSatisfy { $0.decodes == ($0.reference != nil) })
    }

    /// Default options: libpng's pixels, a warning where libpng warned, an error where it failed.
    @Test(arguments: DamagedVector.all)
    func decodesAsLibpng(_ vector: DamagedVector) throws {
        let bytes = try vector.bytes()
        let outcome = Self.decode(bytes)
        guard let referenceName = vector.reference else {
            #expect(outcome.error != nil, "libpng fails (\(vector.warnings)); PurePNG gave \(outcome.summary)")
            return
        }
        guard let image = outcome.image else {
            Issue.record("libpng decodes (\(vector.warnings)); PurePNG threw \(outcome.summary)")
            return
        }
        let pam = try #require(Self.readPAM(try TestVectors.bytes("png/damaged/" + referenceName)))
        #expect(image.width == pam.width && image.height == pam.height)
        let mine = Self.rgbaBigEndian(image, sixteen: pam.maxval == 65535)
        #expect(mine.elementsEqual(pam.samples), "pixels differ from libpng's")
        if vector.libpng == "warn" {
            #expect(!outcome.warnings.isEmpty, "libpng warned (\(vector.warnings)); PurePNG did not")
        }
        for warning in outcome.warnings {
            #expect(warning.contains("at offset ") || warning.contains("before offset "), "no offset in \"\(warning)\"")
        }
    }

    /// `rows_in_zlib_then_iend.png` with the rest of its Adler-32 in a third IDAT instead of the
    /// IEND: the rows zlib held when the first IDAT ended come once the next IDAT is read, and the
    /// file decodes in both modes, whole and in pieces, through the row decoder too.
    @Test func rowsHeldByZlibWaitForTheNextIDAT() throws {
        let damaged = try TestVectors.bytes("png/damaged/rows_in_zlib_then_iend.png")
        let bytes = Array(damaged.dropLast(12)) + PNGBuilder.chunk("IDAT", [0x00, 0x01]) + PNGBuilder.chunk("IEND")
        for strict in [false, true] {
            for size in [bytes.count, 1, 7] {
                let outcome = Self.decode(bytes, strict: strict, pieces: size)
                let image = try #require(outcome.image, "strict \(strict), pieces of \(size): \(outcome.summary)")
                #expect(image.width == 1 && image.height == 190 && image.pixels.allSatisfy { $0 == 0 })
                #expect(outcome.warnings.isEmpty, "\(outcome.warnings)")
            }
        }
        var rows = 0
        var decoder = PNGRowDecoder()
        try decoder.append(bytes[...]) { band in rows += band.count }
        try decoder.finish { band in rows += band.count }
        #expect(rows == 190)
    }

    /// `strict: true`: each file throws the error the table names.
    @Test(arguments: DamagedVector.all)
    func strictThrows(_ vector: DamagedVector) throws {
        let bytes = try vector.bytes()
        let outcome = Self.decode(bytes, strict: true)
        #expect(outcome.error?.code == vector.strict, "strict: \(outcome.summary); expected \(vector.strict)")
        if let offset = outcome.error?.offset {
            #expect(offset >= 0 && offset <= bytes.count)
        }
    }

    /// Whole, and in pieces of 1, 7 and 4096 bytes: the same image (or error) and warnings,
    /// in both modes.
    @Test(arguments: DamagedVector.all)
    func sameInAnyPieces(_ vector: DamagedVector) throws {
        let bytes = try vector.bytes()
        for strict in [false, true] {
            let whole = Self.decode(bytes, strict: strict)
            for size in [1, 7, 4096] {
                let outcome = Self.decode(bytes, strict: strict, pieces: size)
                #expect(outcome.agrees(with: whole),
                        "strict \(strict), pieces of \(size): \(outcome.summary); whole: \(whole.summary)")
            }
        }
    }

    /// The row decoder hands out the same rows (or fails the same way) in the default mode.
    @Test(arguments: DamagedVector.all)
    func rowDecoderAgrees(_ vector: DamagedVector) throws {
        let bytes = try vector.bytes()
        let whole = Self.decode(bytes)
        for size in [bytes.count, 7] {
            var decoder = PNGRowDecoder()
            var pixels: [UInt8] = []
            var failed: (any Error)?
            let collect: (RowBand) throws -> Void = { band in
                for i in 0 ..< band.count { pixels += band.row(i) }
            }
            do {
                var i = 0
                while i < bytes.count {
                    try decoder.append(bytes[i ..< min(bytes.count, i + size)], rows: collect)
                    i += size
                }
                try decoder.finish(rows: collect)
            } catch {
                failed = error
            }
            if let image = whole.image {
                #expect(failed == nil, "pieces of \(size): row decoder failed: \(failed.map { "\($0)" } ?? "")")
                #expect(pixels == image.pixels, "pieces of \(size): rows differ")
            } else {
                #expect((failed as? PNGError)?.code == whole.error?.code,
                        "pieces of \(size): row decoder \(failed.map { "\($0)" } ?? "succeeded"); decoder \(whole.summary)")
            }
        }
    }
}
