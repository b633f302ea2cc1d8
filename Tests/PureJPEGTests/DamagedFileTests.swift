import Foundation
import ImageCore
import Testing
@testable import PureJPEG

/// One row of Vectors/jpeg-damaged/manifest.tsv: a damaged file and what djpeg 2.1.5 made of it.
struct DamagedVector: Sendable, CustomStringConvertible {
    /// djpeg's verdict: `ok` (exit 0), `warn` (exit 2: warnings, image written), `error` (exit 1).
    enum Outcome: String, Sendable { case ok, warn, error }

    var file: String
    var djpeg: Outcome
    /// The .ppm/.pgm djpeg wrote, nil when it failed.
    var reference: String?
    var leniency: String
    /// False when the damage may be undetectable (entropy data djpeg decoded without a word), so
    /// strict decoding may succeed instead of throwing.
    var strictMustThrow: Bool
    var djpegMessages: String
    var note: String
    var description: String { file }

    var decodes: Bool { djpeg != .error }

    static let all: [DamagedVector] = rows(of: "jpeg-damaged/manifest.tsv").compactMap { row in
        guard let file = row["file"], let outcome = row["djpeg"].flatMap(Outcome.init(rawValue:)) else { return nil }
        return DamagedVector(file: file, djpeg: outcome, reference: row["reference"].flatMap { $0 == "-" ? nil : $0 },
                             leniency: row["leniency"] ?? "", strictMustThrow: row["strict"] != "any",
                             djpegMessages: row["djpeg_stderr"] ?? "", note: row["note"] ?? "")
    }

    /// Files djpeg decodes (with or without warnings).
    static var decodable: [DamagedVector] { all.filter(\.decodes) }

    func bytes() throws -> [UInt8] { try TestVectors.bytes("jpeg-damaged/" + file) }

    func referenceImage(_ path: String? = nil) throws -> Image {
        let name = try #require(path ?? reference, "\(file): djpeg wrote no image")
        return try #require(readPNM(try TestVectors.bytes("jpeg-damaged/" + name)), "\(name) is not a PNM")
    }

    /// The rows of a tab-separated manifest, by column name (the header row).
    static func rows(of path: String) -> [[String: String]] {
        guard let text = try? String(contentsOf: TestVectors.url(path), encoding: .utf8) else { return [] }
        let lines = text.split(separator: "\n").map { $0.split(separator: "\t", omittingEmptySubsequences: false).map(String.init) }
        guard let header = lines.first else { return [] }
        return lines.dropFirst().map { Dictionary(zip(header, $0), uniquingKeysWith: { a, _ in a }) }
    }
}

/// One row of Vectors/jpeg-damaged/manifest_scaled.tsv: djpeg -scale 1/N of a damaged file.
struct DamagedScaledVector: Sendable, CustomStringConvertible {
    var file: String
    var denominator: Int
    var expected: String?
    var description: String { "\(file) 1/\(denominator)" }

    static let all: [DamagedScaledVector] = DamagedVector.rows(of: "jpeg-damaged/manifest_scaled.tsv").compactMap { row in
        guard let file = row["file"], let d = row["scale_denominator"].flatMap({ Int($0) }) else { return nil }
        return DamagedScaledVector(file: file, denominator: d, expected: row["expected"].flatMap { $0 == "-" ? nil : $0 })
    }
}

/// Decodes with the incremental API (one `append`, then `finish`), keeping every event.
func decodeCollectingEvents(_ bytes: [UInt8], options: JPEGDecodingOptions = .init())
    -> (events: [DecodingEvent], result: Result<Image, JPEGError>) {
    var decoder = JPEGDecoder(options: options)
    var events: [DecodingEvent] = []
    let result = Result { () throws(JPEGError) -> Image in
        events += try decoder.append(bytes)
        return try decoder.finish()
    }
    // finish() returns no events: its warnings (a file cut short) are in `warnings`.
    events += decoder.warnings.dropFirst(events.warnings.count).map { .warning($0) }
    return (events, result)
}

extension [DecodingEvent] {
    var warnings: [String] { compactMap { if case let .warning(text) = $0 { text } else { nil } } }
}

extension Result<Image, JPEGError> {
    /// "image WxH" or the error's code: what two decodes of the same file must agree on.
    var outcome: String {
        switch self {
        case let .success(image): "image \(image.width)x\(image.height)"
        case let .failure(error): error.code
        }
    }
}

/// By default PureJPEG decodes damaged files as libjpeg-turbo's djpeg does (same pixels, a
/// `.warning` event where djpeg warns, an error where djpeg fails); strict decoding rejects them.
@Suite("JPEG damaged files against djpeg")
struct DamagedFileTests {
    @Test("the manifest lists damaged files of every kind and outcome")
    func manifestPresent() {
        let all = DamagedVector.all
        #expect(all.count >= 60)
        for outcome in [DamagedVector.Outcome.ok, .warn, .error] {
            #expect(all.contains { $0.djpeg == outcome }, "no file djpeg rates \(outcome)")
        }
        #expect(all.allSatisfy { $0.decodes == ($0.reference != nil) })
        #expect(DamagedScaledVector.all.count >= 5)
    }

    @Test("default options: djpeg's pixels, a warning where djpeg warned, an error where it failed",
          arguments: DamagedVector.all)
    func lenient(_ vector: DamagedVector) throws {
        let bytes = try vector.bytes()
        let (events, result) = decodeCollectingEvents(bytes)
        for warning in events.warnings {
            #expect(warning.contains("at offset "), "warning without its offset: \(warning)")
        }
        guard vector.decodes else {
            if case let .success(image) = result {
                Issue.record("decoded \(image.width)x\(image.height); djpeg fails: \(vector.djpegMessages)")
            }
            return
        }
        let image: Image
        switch result {
        case let .success(decoded): image = decoded
        case let .failure(error):
            Issue.record("\(error) [\(error.code)]; djpeg decodes (\(vector.djpegMessages)): \(vector.note)")
            return
        }
        let reference = try vector.referenceImage()
        #expect(image.width == reference.width && image.height == reference.height && image.format == reference.format,
                "\(image.width)x\(image.height) \(image.format), djpeg \(reference.width)x\(reference.height) \(reference.format)")
        let (maxDiff, psnr) = compare(image, reference)
        #expect(maxDiff == 0, "max difference \(maxDiff), PSNR \(psnr) dB (\(vector.note))")
        if vector.djpeg == .warn {
            #expect(!events.warnings.isEmpty, "no warning; djpeg: \(vector.djpegMessages)")
        }
        // The one-shot entry point agrees with the incremental one.
        let oneShot = Result { () throws(JPEGError) in try JPEGDecoder.decode(bytes) }
        let agrees = oneShot == result
        #expect(agrees, "JPEGDecoder.decode: \(oneShot.outcome)")
    }

    @Test("strict: every damaged file throws", arguments: DamagedVector.all)
    func strict(_ vector: DamagedVector) throws {
        let bytes = try vector.bytes()
        let strict = JPEGDecodingOptions(strict: true)
        let (events, result) = decodeCollectingEvents(bytes, options: strict)
        // Metadata notes (an unknown JFIF revision) are not damage; every leniency throws.
        let warnings = events.warnings.filter { !$0.hasPrefix("unknown JFIF revision") }
        #expect(warnings.isEmpty, "strict decoding warned instead of throwing: \(warnings)")
        guard case let .success(image) = result else { return }
        if vector.strictMustThrow {
            Issue.record("strict decoding succeeded (\(image.width)x\(image.height)): \(vector.leniency), \(vector.note)")
        } else {
            // Damage no decoder can see (other valid codes): then the pixels are djpeg's.
            #expect(compare(image, try vector.referenceImage()).maxDiff == 0)
        }
    }

    @Test("whole and in 1-, 7- and 4096-byte pieces: same pixels or the same error, same warnings",
          arguments: DamagedVector.all)
    func chunked(_ vector: DamagedVector) throws {
        let bytes = try vector.bytes()
        for options in [JPEGDecodingOptions(), JPEGDecodingOptions(strict: true)] {
            let whole = decodeInPieces(bytes, size: nil, options: options)
            for size in [1, 7, 4096] {
                let pieces = decodeInPieces(bytes, size: size, options: options)
                let mode = options.strict ? "strict" : "default"
                #expect(pieces.result.outcome == whole.result.outcome, "\(mode), \(size)-byte pieces")
                if case let .success(a) = whole.result, case let .success(b) = pieces.result {
                    let same = a.pixels == b.pixels
                    #expect(same, "\(mode): pixels differ with \(size)-byte pieces")
                }
                #expect(pieces.events.warnings == whole.events.warnings, "\(mode): warnings differ with \(size)-byte pieces")
            }
        }
    }

    @Test("row mode hands out djpeg's rows, whole and in 7-byte pieces", arguments: DamagedVector.decodable)
    func rows(_ vector: DamagedVector) throws {
        let bytes = try vector.bytes()
        let reference = try vector.referenceImage()
        for size in [nil, 7] as [Int?] {
            let rows = decodeRows(bytes, size: size)
            let pieces = size.map { "\($0)-byte pieces" } ?? "whole"
            #expect(rows.error == nil && rows.otherError == nil,
                    "\(pieces): \(String(describing: rows.error)) \(String(describing: rows.otherError))")
            #expect(rows.orderProblems.isEmpty, "\(pieces): \(rows.orderProblems)")
            #expect(rows.rows == reference.height, "\(pieces): \(rows.rows) of \(reference.height) rows")
            // Compared outside #expect, which would print both arrays on failure (slowly).
            let same = rows.pixels == reference.pixels
            #expect(same, "\(pieces): rows differ from djpeg's")
            if vector.djpeg == .warn {
                // Row mode's finish(rows:) returns no events: a file cut short warns in `warnings`.
                var decoder = JPEGRowDecoder()
                _ = try? decoder.append(bytes) { _ in }
                try? decoder.finish { _ in }
                #expect(!rows.events.warnings.isEmpty || !decoder.warnings.isEmpty, "\(pieces): no warning")
            }
        }
    }

    @Test("scaled decoding matches djpeg -scale 1/N", arguments: DamagedScaledVector.all)
    func scaled(_ vector: DamagedScaledVector) throws {
        let bytes = try TestVectors.bytes("jpeg-damaged/" + vector.file)
        let result = Result { () throws(JPEGError) in
            try JPEGDecoder.decode(bytes, options: JPEGDecodingOptions(scale: 8 / vector.denominator))
        }
        guard let expected = vector.expected else {
            #expect(throws: JPEGError.self) { try result.get() }
            return
        }
        let image = try result.get()
        let reference = try #require(readPNM(try TestVectors.bytes("jpeg-damaged/" + expected)))
        #expect(image.width == reference.width && image.height == reference.height)
        let (maxDiff, psnr) = compare(image, reference)
        #expect(maxDiff == 0, "max difference \(maxDiff), PSNR \(psnr) dB")
    }
}
