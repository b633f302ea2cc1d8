import Foundation
import PureImage
import Testing

/// One file in `Vectors/regressions/` (a minimised fuzzer finding) and what it must decode to,
/// from `Vectors/regressions/expected.tsv`: `file<TAB>codec<TAB>outcome`, where outcome is
/// `image` or the error case's name (`truncated`, `limitExceeded`, ...).
struct Regression: Sendable, CustomStringConvertible {
    var file: String
    var codec: HostileCodec
    var outcome: String
    var description: String { file }
    var outcomes: [String] { outcome.split(separator: "|").map(String.init) }

    static let all: [Regression] = {
        guard let text = try? String(contentsOf: TestVectors.url("regressions/expected.tsv"), encoding: .utf8) else {
            return []
        }
        return text.split(separator: "\n").compactMap { line in
            let fields = line.split(separator: "\t").map(String.init)
            guard fields.count == 3, !line.hasPrefix("#"), let codec = HostileCodec(rawValue: fields[1]) else { return nil }
            return Regression(file: fields[0], codec: codec, outcome: fields[2])
        }
    }()
}

/// The name of an error enum's case (`truncated` for `.truncated(offset:partial:)`).
func caseName(_ error: any Error) -> String {
    if let label = Mirror(reflecting: error).children.first?.label { return label }
    return String(describing: error).split(separator: "(").first.map(String.init) ?? ""
}

@Suite("Fuzzer regressions")
struct RegressionTests {
    @Test("the manifest lists every file in Vectors/regressions")
    func manifestComplete() {
        let listed = Set(Regression.all.map(\.file))
        let present = Set(TestVectors.files(in: "regressions").filter { $0 != "expected.tsv" && !$0.hasSuffix(".py") && !$0.hasSuffix(".pam") })
        #expect(listed == present)
    }

    @Test("each finding decodes to its typed error or an image, quickly", arguments: Regression.all)
    func decodesToTypedOutcome(regression: Regression) throws {
        let bytes = try TestVectors.bytes("regressions/" + regression.file)
        let start = HostileInput.threadCPUSeconds()
        let results = HostileInput.decode(bytes, with: regression.codec)
        let elapsed = HostileInput.threadCPUSeconds() - start
        #expect(elapsed < 5, "took \(elapsed) s")
        for result in results {
            #expect(HostileInput.verdict(result) == nil)
            switch result {
            // `a|b`: either outcome (GIF decodes twice, once through GIFAnimation).
            case .success: #expect(regression.outcomes.contains("image"))
            case let .failure(error): #expect(regression.outcomes.contains(caseName(error)), "\(error)")
            }
        }
    }

    @Test("a JPEG finding decodes the same whole and in pieces (FUZZING.md JPEG-1)",
          arguments: Regression.all.filter { $0.codec == .jpeg })
    func jpegChunkingInvariant(regression: Regression) throws {
        let bytes = try TestVectors.bytes("regressions/" + regression.file)
        func decode(pieces size: Int) -> Result<Image, JPEGError> {
            var decoder = JPEGDecoder()
            var i = 0
            do {
                while i < bytes.count {
                    let end = min(bytes.count, i + size)
                    _ = try decoder.append(bytes[i ..< end])
                    i = end
                }
                return .success(try decoder.finish())
            } catch {
                return .failure(error)
            }
        }
        let whole = decode(pieces: max(bytes.count, 1))
        for size in [1, 7, 64, 512] {
            switch (whole, decode(pieces: size)) {
            case let (.success(a), .success(b)):
                let same = a == b
                #expect(same, "pixels differ with \(size)-byte pieces")
            case let (.failure(a), .failure(b)):
                #expect(a.code == b.code, "errors differ with \(size)-byte pieces")
            default:
                Issue.record("outcome differs with \(size)-byte pieces")
            }
        }
    }
}

extension RegressionTests {
    /// The bytes without the APP14 (Adobe) segments that come after the first SOS: in entropy-coded
    /// data FF is followed by 00 or RSTn, so an FF EE there is a marker.
    static func withoutLateAdobe(_ bytes: [UInt8]) -> [UInt8] {
        var out: [UInt8] = [], i = 0, sawScan = false
        while i < bytes.count {
            if i + 3 < bytes.count && bytes[i] == 0xFF && bytes[i + 1] == 0xDA { sawScan = true }
            if sawScan && i + 3 < bytes.count && bytes[i] == 0xFF && bytes[i + 1] == 0xEE {
                i += 2 + (Int(bytes[i + 2]) << 8 | Int(bytes[i + 3]))
                continue
            }
            out.append(bytes[i])
            i += 1
        }
        return out
    }

    @Test("CMYK: an Adobe marker after the image data changes nothing (FUZZING.md DJ-2)",
          arguments: ["jpeg-cmyk-adobe-after-scan-baseline.jpg", "jpeg-cmyk-adobe-after-scans-progressive.jpg"])
    func lateAdobeMarker(file: String) throws {
        let bytes = try TestVectors.bytes("regressions/" + file)
        let stripped = Self.withoutLateAdobe(bytes)
        #expect(stripped.count < bytes.count)
        let image = try JPEGDecoder.decode(bytes)
        #expect(image.pixels == (try JPEGDecoder.decode(stripped)).pixels)
        var decoder = JPEGDecoder()
        for start in stride(from: 0, to: bytes.count, by: 7) { _ = try decoder.append(bytes[start ..< min(bytes.count, start + 7)]) }
        #expect(try decoder.finish().pixels == image.pixels)
    }
}

@Suite("Fuzzer regressions: APNG")
struct APNGRegressionTests {
    /// The events and the canvas at each `.frameComplete`, feeding `size`-byte pieces to a
    /// decoder that pauses after each frame; the error, if any, by case name.
    static func frames(_ bytes: [UInt8], pieces size: Int) -> (events: [String], canvases: [[UInt8]], error: String?) {
        var decoder = APNGDecoder()
        decoder.pausesAfterEachFrame = true
        var events: [String] = [], canvases: [[UInt8]] = []
        func note(_ new: [DecodingEvent]) {
            for event in new {
                if case .rows = event { continue }
                events.append("\(event)")
                if case .frameComplete = event { canvases.append(decoder.preview()?.pixels ?? []) }
            }
        }
        do throws(PNGError) {
            var i = 0
            while i < bytes.count {
                let end = min(bytes.count, i + size)
                note(try decoder.append(bytes[i ..< end]))
                while decoder.isPaused { note(try decoder.resume()) }
                i = end
            }
            _ = try decoder.finish()
            return (events, canvases, nil)
        } catch {
            return (events, canvases, caseName(error))
        }
    }

    @Test("an APNG finding gives the same frames and events whole and in pieces (FUZZING.md)",
          arguments: Regression.all.filter { $0.file.hasPrefix("apng-") })
    func apngChunkingInvariant(regression: Regression) throws {
        let bytes = try TestVectors.bytes("regressions/" + regression.file)
        let whole = Self.frames(bytes, pieces: bytes.count)
        #expect(!whole.canvases.isEmpty)
        for size in [1, 7, 64, 512] {
            let pieces = Self.frames(bytes, pieces: size)
            #expect(pieces.events == whole.events, "events differ with \(size)-byte pieces")
            let sameCanvases = pieces.canvases == whole.canvases
            #expect(sameCanvases, "canvases differ with \(size)-byte pieces")
            #expect(pieces.error == whole.error)
        }
    }

    /// A file cut inside its SOS header, like a fuzzer input: 97 bytes declaring 65500x5 pixels
    /// in three components, the first scanned alone. libjpeg decodes it from the EOI markers its
    /// source manager supplies (djpeg: the first block from zero bits, the rest mid-gray).
    /// PureJPEG does too when told to (no plausibility check, no ratio), but by default refuses
    /// it: 97 bytes cannot hold 61,000 blocks (and the first scan would ask for the whole
    /// coefficient buffer, over the decompression ratio). Reported as the limit, not as the
    /// truncation that led there.
    @Test("a limit reached on the supplied EOI markers is reported as the limit")
    func limitOnSuppliedEOI() throws {
        var bytes: [UInt8] = [0xFF, 0xD8, 0xFF, 0xDB, 0x00, 0x43, 0x00] + [UInt8](repeating: 1, count: 64)
        bytes += [0xFF, 0xC0, 0x00, 0x11, 8, 0x00, 5, 0xFF, 0xDC, 3, 1, 0x11, 0, 2, 0x11, 0, 3, 0x11, 0]
        bytes += [0xFF, 0xDA, 0x00, 0x08, 1, 1, 0x00]
        do {
            _ = try JPEGDecoder.decode(bytes)
            Issue.record("decoded past the ratio limit")
        } catch {
            #expect(error.code == "limitExceeded", "\(error)")
        }
        do {
            _ = try JPEGDecoder.decode(bytes, limits: DecodingLimits(requiresPlausibleInput: false))
            Issue.record("decoded past the ratio limit")
        } catch {
            guard case let .limitExceeded(violation, _) = error, case .decompressionRatio = violation else {
                Issue.record("\(error)"); return
            }
        }
        let image = try JPEGDecoder.decode(bytes, limits: DecodingLimits(maxDecompressionRatio: .max, requiresPlausibleInput: false))
        #expect(image.width == 65500 && image.height == 5)
        let gray = (0 ..< 5).allSatisfy { y in image.pixels[(y * 65500 + 8) * 3 ..< (y + 1) * 65500 * 3].allSatisfy { $0 == 128 } }
        #expect(gray)
    }
}
