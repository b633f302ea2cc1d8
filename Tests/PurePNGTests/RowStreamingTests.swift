import Foundation
import TestSupport
import ImageCore
import Testing
@testable import PurePNG

/// What a row-mode decode handed out (TestSupport's collector, PNG errors).
typealias PNGRowDecodeResult = RowCollection<PNGError>

func decodePNGRows(_ bytes: [UInt8], size: Int?, limits: DecodingLimits = .default) -> PNGRowDecodeResult {
    var decoder = PNGRowDecoder(limits: limits)
    return collectRows(&decoder, bytes, step: size, failure: PNGError.self, retained: \.retainedBytes, header: \.header)
}

@Suite("PNG row mode")
struct PNGRowStreamingTests {
    static let files: [String] = TestVectors.files(in: "png/valid", withExtension: "png").map { "png/valid/" + $0 }
        + TestVectors.files(in: "png/pngsuite", withExtension: "png").map { "png/pngsuite/" + $0 }

    @Test("rows equal decode()'s pixels, in order, once each")
    func wholeBuffer() throws {
        #expect(Self.files.count > 300)
        for file in Self.files {
            let bytes = try TestVectors.bytes(file)
            guard let reference = try? PNGDecoder.decode(bytes) else { continue }
            let rows = decodePNGRows(bytes, size: nil)
            #expect(rows.error == nil && rows.otherError == nil, "\(file): \(String(describing: rows.error))")
            #expect(rows.orderProblems.isEmpty, "\(file) \(rows.orderProblems)")
            #expect(rows.rows == reference.height, "\(file)")
            #expect(rows.pixels == reference.pixels, "\(file)")
        }
    }

    @Test("chunked feeding gives the same rows", arguments: [1, 7, 4096])
    func chunked(_ size: Int) throws {
        let sample = Self.files.enumerated().filter { $0.offset % 5 == 0 }.map(\.element)
        for file in sample {
            let bytes = try TestVectors.bytes(file)
            if size == 1 && bytes.count > 3000 { continue }
            guard let reference = try? PNGDecoder.decode(bytes) else { continue }
            let rows = decodePNGRows(bytes, size: size)
            #expect(rows.error == nil && rows.orderProblems.isEmpty, "\(file) in \(size)-byte pieces")
            #expect(rows.pixels == reference.pixels, "\(file) in \(size)-byte pieces")
        }
    }

    @Test("errors match decode()'s on the invalid files")
    func invalid() throws {
        let names = TestVectors.files(in: "png/invalid", withExtension: "png")
        #expect(names.count > 50)
        for name in names {
            let bytes = try TestVectors.bytes("png/invalid/" + name)
            let expected = Result { () throws(PNGError) in try PNGDecoder.decode(bytes) }
            let rows = decodePNGRows(bytes, size: nil)
            switch expected {
            case .success(let image):
                #expect(rows.error == nil && rows.pixels == image.pixels, "\(name)")
            case .failure(let error):
                // Row mode's truncation carries no partial image (but for an interlaced file); otherwise the same error.
                if case let .truncated(offset, partial) = error {
                    let interlaced = partial.map { _ in name.contains("adam7") } ?? false
                    guard case let .truncated(rowOffset, rowPartial)? = rows.error, (rowPartial == nil) != interlaced else {
                        Issue.record("\(name): \(String(describing: rows.error)) instead of .truncated")
                        continue
                    }
                    #expect(rowOffset == offset, "\(name)")
                } else {
                    #expect(rows.error == error, "\(name)")
                }
            }
        }
    }

    @Test("cut at 40 points or more: rows so far, then an error, never a trap")
    func cuts() throws {
        for file in ["png/valid/photo_rgb8_seq_64x48.png", "png/valid/photo_rgb16_seq_40x30.png", "png/valid/photo_rgb8_adam7_64x48.png"] {
            let bytes = try TestVectors.bytes(file)
            let reference = try PNGDecoder.decode(bytes)
            for cut in stride(from: 1, to: bytes.count, by: max(37, bytes.count / 40)) {
                let rows = decodePNGRows(Array(bytes.prefix(cut)), size: 512)
                #expect(rows.orderProblems.isEmpty && rows.otherError == nil, "\(file) cut at \(cut)")
                #expect(rows.error != nil, "\(file) cut at \(cut)")
                #expect(rows.pixels[...] == reference.pixels.prefix(rows.pixels.count), "\(file) cut at \(cut)")
            }
        }
    }

    /// A tall RGB image of smooth gradients, encoded without interlacing.
    static func tallPNG(width: Int, height: Int, interlaced: Bool = false) throws -> [UInt8] {
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
        return try PNGEncoder.encode(image, options: PNGEncodingOptions(interlaced: interlaced))
    }

    @Test("a truncated file hands out the rows decoded so far, then .truncated")
    func truncated() throws {
        let whole = try Self.tallPNG(width: 120, height: 400)
        let reference = try PNGDecoder.decode(whole)
        for cut in [whole.count / 3, whole.count / 2, whole.count - 20] {
            let bytes = Array(whole.prefix(cut))
            var decoder = PNGDecoder()
            _ = try decoder.append(bytes)
            let expectedRows = decoder.imageData?.rowsDecoded ?? 0
            for size in [nil, 7] as [Int?] {
                let rows = decodePNGRows(bytes, size: size)
                guard case .truncated(_, nil)? = rows.error else {
                    Issue.record("cut at \(cut): \(String(describing: rows.error))")
                    continue
                }
                #expect(rows.orderProblems.isEmpty)
                #expect(rows.rows == expectedRows && expectedRows > 0, "cut at \(cut)")
                #expect(rows.pixels[...] == reference.pixels.prefix(rows.rows * reference.bytesPerRow))
            }
        }
    }

    @Test("retained memory does not grow with the height")
    func memoryIndependentOfHeight() throws {
        var peaks: [Int] = []
        for height in [1024, 4096] {
            let bytes = try Self.tallPNG(width: 64, height: height)
            let rows = decodePNGRows(bytes, size: 4096)
            #expect(rows.error == nil && rows.rows == height)
            #expect(rows.pixels == (try PNGDecoder.decode(bytes)).pixels)
            peaks.append(rows.peakRetained)
        }
        #expect(peaks[0] == peaks[1], "retained bytes \(peaks)")
        #expect(peaks[1] > 0 && peaks[1] < 300_000)
    }

    @Test("interlaced files come whole at the end; limits count one block of rows otherwise")
    func interlacedAndLimits() throws {
        let interlaced = try Self.tallPNG(width: 64, height: 300, interlaced: true)
        let rows = decodePNGRows(interlaced, size: 4096)
        #expect(rows.error == nil && rows.rows == 300)
        #expect(rows.pixels == (try PNGDecoder.decode(interlaced)).pixels)

        let tall = try Self.tallPNG(width: 64, height: 4096)
        var limits = DecodingLimits()
        limits.maxBytes = 400_000     // the image alone is 786,432 bytes
        #expect(throws: PNGError.self) { _ = try PNGDecoder.decode(tall, limits: limits) }
        let streamed = decodePNGRows(tall, size: 4096, limits: limits)
        #expect(streamed.error == nil && streamed.rows == 4096)
    }
}

/// Interlaced images through the spilled store: every Adam7 vector (valid, PngSuite and the
/// damaged ones libpng decodes) in row mode with `spillAbove: 0`, so every image goes to a
/// temporary file, gives `decode()`'s pixels, whole and in pieces, and leaves nothing behind.
@Suite("PNG spilled interlaced image")
struct PNGSpillTests {
    static let files: [String] = (PNGRowStreamingTests.files
        + TestVectors.files(in: "png/damaged", withExtension: "png").map { "png/damaged/" + $0 })
        .filter { ((try? PNGDecoder.decode(TestVectors.bytes($0)))?.width ?? 0) > 0 && (try? TestVectors.bytes($0)).map(isInterlaced) == true }

    static func isInterlaced(_ bytes: [UInt8]) -> Bool { bytes.count > 28 && bytes[28] == 1 }

    @Test("rows through a spilled image equal decode()'s; the folder stays empty")
    func spilledEqualsWhole() throws {
        #expect(Self.files.count > 20)
        let dir = try Scratch.folder("png-spill")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var options = PNGDecodingOptions()
        options.spillAbove = 0
        options.spillDirectory = dir
        for file in Self.files {
            let bytes = try TestVectors.bytes(file)
            let reference = try PNGDecoder.decode(bytes)
            for size in [nil, 7] as [Int?] {
                var decoder = PNGRowDecoder(options: options)
                let rows = collectRows(&decoder, bytes, step: size, failure: PNGError.self, retained: \.retainedBytes, header: \.header)
                #expect(rows.error == nil && rows.otherError == nil, "\(file)")
                #expect(rows.pixels == reference.pixels, "\(file), pieces of \(size ?? bytes.count)")
                #expect(decoder.isSpilled, "\(file)")
            }
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir).isEmpty)
        options.spillDirectory = "/nonexistent/folder"
        var failing = PNGRowDecoder(options: options)
        let bytes = try TestVectors.bytes(Self.files[0])
        #expect(throws: PNGError.self) { try bytes.withUnsafeBytes { _ = try failing.append($0, rows: { _ in }) } }
    }
}
