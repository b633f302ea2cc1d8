import ImageCore
import Testing
@testable import PureJPEG

/// What a row-mode decode handed out (TestSupport's collector, JPEG errors).
typealias RowDecodeResult = RowCollection<JPEGError>

func decodeRows(_ bytes: [UInt8], size: Int?, limits: DecodingLimits = .default,
                options: JPEGDecodingOptions = .init()) -> RowDecodeResult {
    var decoder = JPEGRowDecoder(limits: limits, options: options)
    return collectRows(&decoder, bytes, step: size, failure: JPEGError.self, retained: \.retainedBytes, header: \.header)
}

/// The events of the ordinary decoder, for comparison.
func decodeEvents(_ bytes: [UInt8], options: JPEGDecodingOptions = .init()) -> [DecodingEvent] {
    var decoder = JPEGDecoder(options: options)
    return (try? decoder.append(bytes)) ?? []
}

@Suite("JPEG row mode")
struct JPEGRowStreamingTests {
    static let files: [String] = TestVectors.files(in: "jpeg/valid", withExtension: "jpg").map { "jpeg/valid/" + $0 }
        + TestVectors.files(in: "jpeg-extra", withExtension: "jpg").map { "jpeg-extra/" + $0 }

    @Test("rows equal decode()'s pixels, in order, once each, same events", arguments: files)
    func wholeBuffer(_ file: String) throws {
        #expect(Self.files.count > 100)
        let bytes = try TestVectors.bytes(file)
        let reference = try JPEGDecoder.decode(bytes)
        let rows = decodeRows(bytes, size: nil)
        #expect(rows.error == nil && rows.otherError == nil)
        #expect(rows.orderProblems.isEmpty, "\(rows.orderProblems)")
        #expect(rows.rows == reference.height)
        #expect(rows.pixels == reference.pixels)
        #expect(rows.events == decodeEvents(bytes))
    }

    @Test("chunked feeding gives the same rows", arguments: [1, 7, 4096])
    func chunked(_ size: Int) throws {
        // A sample: small files byte by byte, bigger ones in 7- and 4096-byte pieces.
        let sample = Self.files.enumerated().filter { $0.offset % 4 == 0 }.map(\.element)
        for file in sample {
            let bytes = try TestVectors.bytes(file)
            if size == 1 && bytes.count > 6000 { continue }
            let reference = try JPEGDecoder.decode(bytes)
            let rows = decodeRows(bytes, size: size)
            #expect(rows.error == nil && rows.otherError == nil, "\(file)")
            #expect(rows.orderProblems.isEmpty, "\(file) \(rows.orderProblems)")
            #expect(rows.pixels == reference.pixels, "\(file) in \(size)-byte pieces")
        }
    }

    @Test("DCT scaling, CMYK and replicated chroma give decode()'s pixels",
          arguments: ["jpeg/valid/s420_q75.jpg", "jpeg/valid/cmyk_adobe.jpg", "jpeg-extra/base_420.jpg",
                      "jpeg-extra/samp_1x4_restart.jpg", "jpeg-extra/samp_4x1_2x1_1x2.jpg", "jpeg-extra/prog_420.jpg",
                      "jpeg-extra/seq_2scans_422.jpg", "jpeg/valid/photo256_420_q90.jpg"])
    func options(_ file: String) throws {
        let bytes = try TestVectors.bytes(file)
        var variants: [JPEGDecodingOptions] = [1, 2, 4].map { JPEGDecodingOptions(scale: $0) }
        variants.append(JPEGDecodingOptions(outputCMYK: true))
        variants.append(JPEGDecodingOptions(fancyUpsampling: false))
        for options in variants {
            let reference = try JPEGDecoder.decode(bytes, options: options)
            for size in [nil, 97] as [Int?] {
                let rows = decodeRows(bytes, size: size, options: options)
                #expect(rows.error == nil && rows.orderProblems.isEmpty, "\(file) \(options)")
                #expect(rows.pixels == reference.pixels, "\(file) \(options) pieces \(String(describing: size))")
            }
        }
    }

    /// Strict: by default a cut-short file decodes as djpeg decodes it (DamagedFileTests).
    @Test("strict: a truncated file hands out the rows decoded so far, then .truncated",
          arguments: ["jpeg-damaged/truncated_00628.jpg", "jpeg-damaged/truncated_01666.jpg",
                      "jpeg/invalid/truncated_progressive_half.jpg", "jpeg-damaged/truncated_01576.jpg",
                      "jpeg-damaged/truncated_progressive_scan2.jpg"])
    func truncated(_ file: String) throws {
        let bytes = try TestVectors.bytes(file)
        let strict = JPEGDecodingOptions(strict: true)
        var decoder = JPEGDecoder(options: strict)
        _ = try? decoder.append(bytes)
        let outcome = Result(catching: { () throws(JPEGError) in try decoder.finish() })
        guard case let .truncated(_, partial?)? = outcome.failure else {
            Issue.record("\(file) is expected to be truncated after its header: \(outcome)")
            return
        }
        // Rows final when the input ended; the partial image is mid-gray below them.
        let reportedRows = decoder.mode == .coefficients ? 0 : decoder.rowsDone
        for size in [nil, 7] as [Int?] {
            let rows = decodeRows(bytes, size: size, options: strict)
            guard case let .truncated(_, rowPartial)? = rows.error else {
                Issue.record("\(file): \(String(describing: rows.error)) instead of .truncated")
                continue
            }
            #expect(rowPartial == nil)
            #expect(rows.orderProblems.isEmpty)
            #expect(rows.rows == reportedRows, "\(file): \(rows.rows) rows handed out, \(reportedRows) reported")
            #expect(rows.pixels[...] == partial.pixels.prefix(rows.rows * partial.bytesPerRow))
        }
    }

    @Test("invalid files give decode()'s error (truncation without a partial image), whole and in pieces")
    func invalid() throws {
        let names = TestVectors.files(in: "jpeg/invalid", withExtension: "jpg")
        #expect(names.count > 20)
        for name in names {
            let bytes = try TestVectors.bytes("jpeg/invalid/" + name)
            let expected = Result { () throws(JPEGError) in try JPEGDecoder.decode(bytes) }
            for size in [nil, 61] as [Int?] {
                let rows = decodeRows(bytes, size: size)
                #expect(rows.orderProblems.isEmpty && rows.otherError == nil, "\(name)")
                switch expected {
                case .success(let image):
                    #expect(rows.error == nil && rows.pixels == image.pixels, "\(name)")
                case .failure(.truncated(let offset, _)):
                    guard case let .truncated(rowOffset, nil)? = rows.error else {
                        Issue.record("\(name): \(String(describing: rows.error)) instead of .truncated")
                        continue
                    }
                    #expect(rowOffset == offset, "\(name)")
                case .failure(let error):
                    #expect(rows.error == error, "\(name)")
                }
            }
        }
    }

    @Test("strict: cut at 40 points or more: rows so far, then an error, never a trap")
    func cuts() throws {
        for file in ["jpeg/valid/photo256_420_q90.jpg", "jpeg-extra/samp_1x4_restart.jpg", "jpeg-extra/prog_420.jpg"] {
            let bytes = try TestVectors.bytes(file)
            let reference = try JPEGDecoder.decode(bytes)
            for cut in stride(from: 1, to: bytes.count, by: max(97, bytes.count / 40)) {
                let rows = decodeRows(Array(bytes.prefix(cut)), size: 512, options: JPEGDecodingOptions(strict: true))
                #expect(rows.orderProblems.isEmpty, "\(file) cut at \(cut)")
                #expect(rows.error != nil || rows.rows == reference.height, "\(file) cut at \(cut)")
                // Rows handed out before the cut are final: the same as the whole file's.
                #expect(rows.pixels[...] == reference.pixels.prefix(rows.pixels.count), "\(file) cut at \(cut)")
            }
        }
    }

    @Test("the error repeats on later calls")
    func errorRepeats() throws {
        let bytes = try TestVectors.bytes("jpeg-damaged/truncated_00628.jpg")
        var decoder = JPEGRowDecoder(options: JPEGDecodingOptions(strict: true))
        try decoder.append(bytes) { _ in }
        #expect(throws: JPEGError.self) { try decoder.finish { _ in } }
        #expect(throws: JPEGError.self) { try decoder.finish { _ in } }
    }

    /// A tall baseline image made with the encoder: smooth gradients, 4:2:0, restart markers.
    static func tallJPEG(width: Int, height: Int, restartInterval: Int = 0) throws -> [UInt8] {
        var image = Image(width: width, height: height, format: .rgb8)
        image.pixels.withUnsafeMutableBufferPointer { p in
            for y in 0 ..< height {
                for x in 0 ..< width {
                    let i = 3 * (y * width + x)
                    p[i] = UInt8(truncatingIfNeeded: x * 4)
                    p[i + 1] = UInt8(truncatingIfNeeded: y)
                    p[i + 2] = UInt8(truncatingIfNeeded: (x ^ y) & 0xFF)
                }
            }
        }
        return try JPEGEncoder.encode(image, options: JPEGEncodingOptions(quality: 85, restartInterval: restartInterval))
    }

    @Test("retained memory does not grow with the height")
    func memoryIndependentOfHeight() throws {
        var peaks: [Int] = []
        var one = JPEGDecodingOptions()
        one.threads = 1
        for height in [1024, 8192] {
            let bytes = try Self.tallJPEG(width: 64, height: height, restartInterval: 3)
            let rows = decodeRows(bytes, size: 4096, options: one)
            #expect(rows.error == nil && rows.rows == height)
            #expect(rows.pixels == (try JPEGDecoder.decode(bytes)).pixels)
            peaks.append(rows.peakRetained)
        }
        #expect(peaks[0] == peaks[1], "retained bytes \(peaks)")
        // Rings, upsampled chroma and two bands of output: nowhere near the 1.5 MB of the image.
        #expect(peaks[1] > 0 && peaks[1] < 64 * 16 * 3 * 12)
        // Two threads add the worker's two batches (at most 16 MCU rows each) of coefficient
        // records (reserved for the worst case, 256 bytes a block) and two slots of output
        // rows: more, and again independent of the height.
        var two = JPEGDecodingOptions()
        two.threads = 2
        var twoPeaks: [Int] = []
        for height in [8192, 16384] {
            let bytes = try Self.tallJPEG(width: 64, height: height, restartInterval: 3)
            let rows = decodeRows(bytes, size: 4096, options: two)
            let whole = try JPEGDecoder.decode(bytes)
            #expect(rows.error == nil && rows.pixels == whole.pixels)
            twoPeaks.append(rows.peakRetained)
        }
        #expect(twoPeaks[0] == twoPeaks[1] && twoPeaks[0] > peaks[1], "two threads: retained bytes \(twoPeaks)")
        #expect(twoPeaks[1] < 64 * 16 * 3 * 120, "two threads: \(twoPeaks[1]) bytes")
    }

    @Test("limits count the band buffer, not the image, for streamable files")
    func limits() throws {
        let bytes = try Self.tallJPEG(width: 64, height: 4096)
        var limits = DecodingLimits()
        limits.maxBytes = 200_000     // the image alone is 786,432 bytes
        #expect(throws: JPEGError.self) { _ = try JPEGDecoder.decode(bytes, limits: limits) }
        let rows = decodeRows(bytes, size: 4096, limits: limits)
        #expect(rows.error == nil && rows.rows == 4096)
        limits.maxBytes = 1000
        let refused = decodeRows(bytes, size: nil, limits: limits)
        guard case .limitExceeded? = refused.error else {
            Issue.record("expected limitExceeded, got \(String(describing: refused.error))")
            return
        }
    }

    @Test("an EOI before the last row hands out the rest mid-gray, as decode() fills it")
    func earlyEOI() throws {
        let bytes = try Self.tallJPEG(width: 64, height: 256)
        // Cut the entropy data in half and end the file there.
        let cut = Array(bytes.prefix(bytes.count / 2)) + [0xFF, 0xD9]
        let reference = try JPEGDecoder.decode(cut)
        let rows = decodeRows(cut, size: 301)
        #expect(rows.error == nil && rows.orderProblems.isEmpty)
        #expect(rows.rows == 256)
        #expect(rows.pixels == reference.pixels)
    }
}

extension Result {
    var failure: Failure? {
        if case let .failure(error) = self { return error }
        return nil
    }
}
