import Foundation
import ImageCore
import PurePNG
import Testing

/// Every invalid vector of `Vectors/png/manifest.tsv` is rejected with exactly the error the
/// table names, at a byte offset inside the file; truncated files whose image data had begun
/// carry a partial image of the declared size and format.
@Suite struct InvalidFileTests {
    @Test(arguments: PNGManifest.invalid)
    func rejectedWithExactError(_ vector: PNGVector) throws {
        let bytes = try vector.bytes()
        checking(vector) { expectRejected(vector, bytes) }
    }

    private func expectRejected(_ vector: PNGVector, _ bytes: [UInt8]) {
        do throws(PNGError) {
            let image = try PNGDecoder.decode(bytes)
            Issue.record("decoded a \(image.width)x\(image.height) \(image.format) image; expected \(vector.error)")
        } catch {
            #expect(error.code == vector.error, "\(error)")
            if let offset = error.offset {
                #expect((0 ... bytes.count).contains(offset), "offset \(offset) outside a \(bytes.count)-byte file")
            } else {
                Issue.record("decoding error without a byte offset: \(error)")
            }
            if case let .truncated(_, partial) = error, let width = vector.width, let height = vector.height {
                guard let partial else {
                    Issue.record("truncated after the image data began, but no partial image")
                    return
                }
                #expect(partial.width == width && partial.height == height)
                #expect(partial.format.rawValue == vector.format)
            }
        }
    }

    /// After an error every later call throws the same error (the decoder is sticky).
    @Test(arguments: PNGManifest.invalid)
    func errorIsSticky(_ vector: PNGVector) throws {
        let bytes = try vector.bytes()
        expectSticky(vector, bytes)
    }

    private func expectSticky(_ vector: PNGVector, _ bytes: [UInt8]) {
        var decoder = PNGDecoder()
        var first: PNGError?
        do throws(PNGError) {
            _ = try decoder.append(bytes)
            _ = try decoder.finish()
        } catch {
            first = error
        }
        guard let first else {
            // Already reported by rejectedWithExactError (or a known divergence); nothing to check here.
            if PNGManifest.knownDivergences[vector.path] == nil { Issue.record("no error") }
            return
        }
        #expect(throws: first) { _ = try decoder.append([0, 0, 0, 0]) }
        #expect(throws: first) { _ = try decoder.finish() }
    }

    /// A truncated sequential file's partial image holds the rows reported final, and they
    /// equal the same rows of the uncut file (`valid/truncation_source_*`). (Cut after the last
    /// IDAT, the file decodes as libpng decodes it: see DamagedFileTests.)
    @Test(arguments: PNGManifest.invalid.filter { $0.error == "truncated" && $0.width != nil })
    func partialRowsMatchTheUncutFile(_ vector: PNGVector) throws {
        let source = vector.path.contains("adam7") ? "rgba8_adam7_19x17"
            : vector.path.contains("gray16") ? "gray16_9x9" : "pal8_20x12"
        let full = try PNGDecoder.decode(try TestVectors.bytes("png/valid/truncation_source_\(source).png"))
        var decoder = PNGDecoder()
        let events = try decoder.append(try vector.bytes())
        var partial: Image?
        do throws(PNGError) {
            _ = try decoder.finish()
            Issue.record("finish() succeeded on a truncated file")
        } catch {
            if case let .truncated(_, image) = error { partial = image } else { Issue.record("\(error)") }
        }
        let image = try #require(partial)
        #expect(image.width == full.width && image.height == full.height && image.format == full.format)
        if source.contains("adam7") { return }
        let rows = mergedRows(events)
        let done = rows.last?.upperBound ?? 0
        #expect(rows == (done > 0 ? [0 ..< done] : []))
        let bytes = done * full.bytesPerRow
        #expect(image.pixels[0 ..< bytes] == full.pixels[0 ..< bytes], "rows 0..<\(done) differ from the uncut file")
        if vector.path.contains("iend") {
            #expect(done == full.height)
        }
    }

    /// With CRC checking off, a file whose only fault is a stored CRC decodes normally.
    @Test(arguments: PNGManifest.invalid.filter { $0.error == "badCRC" })
    func badCRCIgnoredWhenNotChecked(_ vector: PNGVector) throws {
        let image = try PNGDecoder.decode(try vector.bytes(), options: PNGDecodingOptions(checkCRC: false))
        #expect(image.width > 0 && image.height > 0)
    }

    /// The table's expectations themselves: every decoding error code that is an error in the
    /// default mode appears, and truncated files cut after the image data began record the size
    /// their partial image must have. (The codes only strict decoding throws, such as
    /// chunkAfterEnd or tooMuchImageData, have their files in `Vectors/png/damaged`.)
    @Test func tableCoversTheErrorCases() {
        let codes = Set(PNGManifest.invalid.map(\.error))
        let expected: Set<String> = [
            "invalidSignature", "invalidChunkLength", "invalidChunkType", "badCRC", "missingHeader",
            "duplicateChunk", "unknownCriticalChunk",
            "nonContiguousImageData", "missingImageData", "invalidDimensions", "invalidColorTypeAndDepth",
            "invalidCompressionMethod", "invalidFilterMethod", "invalidInterlaceMethod", "invalidHeaderLength",
            "missingPalette", "invalidPalette", "invalidFilterType",
            "corruptImageData", "notEnoughImageData", "limitExceeded", "truncated",
        ]
        #expect(expected.subtracting(codes).isEmpty, "no vector for \(expected.subtracting(codes).sorted())")
        #expect(codes.subtracting(expected).isEmpty, "unknown codes \(codes.subtracting(expected).sorted())")
        let sized = PNGManifest.invalid.filter { $0.error == "truncated" && $0.width != nil }
        #expect(sized.count >= 5)
    }

    /// The 60-byte file claiming 100000 x 100000 pixels is refused from its header, before
    /// any allocation, and a file within tighter limits is refused by those limits.
    @Test func limitsAreCheckedFromTheHeader() throws {
        let huge = try TestVectors.bytes("png/invalid/limit_100000x100000.png")
        #expect(huge.count == 60)
        #expect(throws: PNGError.self) { _ = try PNGDecoder.decode(huge) }
        let small = try TestVectors.bytes("png/valid/photo_rgb8_seq_64x48.png")
        var limits = DecodingLimits()
        limits.maxPixels = 64 * 48 - 1
        do throws(PNGError) {
            _ = try PNGDecoder.decode(small, limits: limits)
            Issue.record("decoded past maxPixels")
        } catch {
            #expect(error.code == "limitExceeded")
        }
        limits.maxPixels = 64 * 48
        #expect(try PNGDecoder.decode(small, limits: limits).width == 64)
    }

    /// A metadata chunk declaring far more than `maxMetadataBytes` must be refused while it
    /// streams in, not after the decoder has buffered all of it ("honour DecodingLimits
    /// before allocating"): here a 64 MiB iCCP or tEXt with a 1 MiB limit, fed 4 MiB.
    @Test(arguments: ["iCCP", "tEXt", "zTXt", "eXIf"])
    func oversizedMetadataChunkRefusedWhileStreaming(_ type: String) {
        var limits = DecodingLimits()
        limits.maxMetadataBytes = 1 << 20
        var decoder = PNGDecoder(limits: limits)
        let ihdr: [UInt8] = [0, 0, 0, 13] + Array("IHDR".utf8) + [0, 0, 0, 1, 0, 0, 0, 1, 8, 2, 0, 0, 0]
        var head = pngSignature + ihdr + crc(ihdr[4...])
        head += [0x04, 0, 0, 0] + Array(type.utf8)   // 64 MiB declared
        let piece = [UInt8](repeating: 0x41, count: 64 << 10)
        var fed = 0
        var thrown: PNGError?
        do throws(PNGError) {
            _ = try decoder.append(head)
            while fed < 4 << 20 {
                _ = try decoder.append(piece)
                fed += piece.count
            }
        } catch {
            thrown = error
        }
        #expect(thrown?.code == "limitExceeded", "fed \(fed) bytes of a 64 MiB \(type) chunk without an error")
    }

    private func crc(_ bytes: ArraySlice<UInt8>) -> [UInt8] {
        let c = CRC32.checksum(bytes)
        return [UInt8(c >> 24), UInt8(c >> 16 & 0xFF), UInt8(c >> 8 & 0xFF), UInt8(c & 0xFF)]
    }
}
