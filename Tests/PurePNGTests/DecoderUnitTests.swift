import Foundation
import ImageCore
import Testing
@testable import PurePNG

/// The decoder over the hand-made files of Vectors/png/unit (see generate.py there).
@Suite struct DecoderUnitTests {
    struct Expected: CustomStringConvertible, Sendable {
        let name: String, width: Int, height: Int, format: String, checksum: UInt32
        var description: String { name }
    }

    static let expected: [Expected] = {
        guard let text = try? String(contentsOf: TestVectors.url("png/unit/expected.txt"), encoding: .utf8) else { return [] }
        return text.split(separator: "\n").compactMap { line in
            let f = line.split(separator: " ").map(String.init)
            guard f.count == 5, let w = Int(f[1]), let h = Int(f[2]), let c = UInt32(f[4], radix: 16) else { return nil }
            return Expected(name: f[0], width: w, height: h, format: f[3], checksum: c)
        }
    }()

    static func load(_ name: String) throws -> [UInt8] { try TestVectors.bytes("png/unit/" + name) }

    /// Feeds `bytes` in pieces of `size`, collecting events.
    static func decode(_ bytes: [UInt8], pieces size: Int, strict: Bool = false) throws -> (Image, [DecodingEvent]) {
        var decoder = PNGDecoder(options: PNGDecodingOptions(strict: strict))
        var events: [DecodingEvent] = []
        var i = 0
        while i < bytes.count {
            events += try decoder.append(bytes[i ..< min(i + size, bytes.count)])
            i += size
        }
        return (try decoder.finish(), events)
    }

    @Test func vectorsArePresent() {
        #expect(Self.expected.count >= 40)
    }

    @Test(arguments: expected)
    func decodesToExpectedPixels(_ e: Expected) throws {
        let image = try PNGDecoder.decode(try Self.load(e.name))
        #expect(image.width == e.width)
        #expect(image.height == e.height)
        #expect(image.format.rawValue == e.format)
        #expect(String(image.rgba16Checksum, radix: 16) == String(e.checksum, radix: 16))
    }

    @Test(arguments: expected)
    func everyChunkingGivesTheSameImage(_ e: Expected) throws {
        let bytes = try Self.load(e.name)
        let whole = try PNGDecoder.decode(bytes)
        for size in [1, 7, 13, 787, 4096] {
            let (image, events) = try Self.decode(bytes, pieces: size)
            #expect(image == whole, "pieces of \(size)")
            // Event order: header first, end last; rows contiguous from 0, or passes 0...6.
            guard case let .header(header)? = events.first(where: { if case .header = $0 { true } else { false } }) else {
                Issue.record("no header event"); continue
            }
            #expect(header.width == e.width && header.pixelFormat.rawValue == e.format)
            #expect(events.last == .end)
            let rows = events.compactMap { if case let .rows(r) = $0 { r } else { nil } }
            let passes = events.compactMap { if case let .passComplete(p) = $0 { p } else { nil } }
            if header.isInterlaced {
                #expect(passes == Array(0 ..< 7))
                #expect(rows.isEmpty)
            } else {
                var next = 0
                for r in rows { #expect(r.lowerBound == next); next = r.upperBound }
                #expect(next == e.height)
                if size == 1 { #expect(rows.count > 1) }
            }
        }
    }

    @Test func truncatedNonInterlacedKeepsDecodedRows() throws {
        let bytes = try Self.load("rgb8-split.png")
        let full = try PNGDecoder.decode(bytes)
        var decoder = PNGDecoder()
        let cut = bytes.count / 2
        let events = try decoder.append(bytes[0 ..< cut])
        let rows = events.compactMap { if case let .rows(r) = $0 { r } else { nil } }
        let decodedRows = rows.last?.upperBound ?? 0
        #expect(decodedRows > 0 && decodedRows < full.height)
        do {
            _ = try decoder.finish()
            Issue.record("finish succeeded on a truncated file")
        } catch {
            guard case let .truncated(offset, partial?) = error else { Issue.record("wrong error \(error)"); return }
            #expect(offset == cut)
            let rowBytes = full.bytesPerRow
            #expect(partial.pixels[0 ..< decodedRows * rowBytes] == full.pixels[0 ..< decodedRows * rowBytes])
            let rest = partial.pixels[(decodedRows * rowBytes)...]
            let restIsZero = rest.allSatisfy { $0 == 0 }
            #expect(restIsZero)
            // Sticky: the same error again.
            #expect(throws: error) { _ = try decoder.finish() }
            #expect(throws: error) { _ = try decoder.append([0, 1, 2]) }
        }
    }

    @Test func truncatedAdam7GivesReplicatedPreview() throws {
        let bytes = try Self.load("rgba8-adam7-split.png")
        let full = try PNGDecoder.decode(bytes)
        // Feed until the first pass is complete, then stop.
        var decoder = PNGDecoder()
        var i = 0
        var firstPassDone = false
        while i < bytes.count && !firstPassDone {
            let events = try decoder.append(bytes[i ..< i + 1])
            firstPassDone = events.contains(.passComplete(0))
            i += 1
        }
        #expect(firstPassDone)
        let preview = try #require(decoder.preview())
        var image = full
        image.pixels = preview.pixels
        // After pass 1 every pixel shows the pixel at the top left of its 8x8 block.
        for y in 0 ..< full.height {
            for x in 0 ..< full.width {
                for c in 0 ..< 4 {
                    #expect(image.sample(x: x, y: y, channel: c) == full.sample(x: x & ~7, y: y & ~7, channel: c))
                }
            }
        }
        #expect(throws: PNGError.self) { _ = try decoder.finish() }
    }

    @Test func copiesDecodeIndependently() throws {
        let bytes = try Self.load("rgba8-adam7-split.png")
        let full = try PNGDecoder.decode(bytes)
        var a = PNGDecoder()
        _ = try a.append(bytes[0 ..< bytes.count / 3])
        var b = a
        _ = try a.append(bytes[(bytes.count / 3)...])
        _ = try b.append(bytes[(bytes.count / 3) ..< bytes.count / 2])
        _ = try b.append(bytes[(bytes.count / 2)...])
        #expect(try a.finish() == full)
        #expect(try b.finish() == full)
    }

    @Test func hugeDimensionsFailAtTheHeader() throws {
        let bytes = try Self.load("huge-dimensions.png")
        #expect(bytes.count < 80)
        var decoder = PNGDecoder()
        // IHDR alone (8 + 25 bytes) is enough to refuse the image.
        #expect(throws: PNGError.limitExceeded(.pixels(requested: 10_000_000_000, limit: 256_000_000), offset: 8)) {
            _ = try decoder.append(bytes[0 ..< 33])
        }
        var small = DecodingLimits()
        small.maxBytes = 1000
        #expect(throws: PNGError.self) { _ = try PNGDecoder.decode(try Self.load("rgb8-split.png"), limits: small) }
    }

    @Test(arguments: [
        ("err-bad-filter.png", "invalidFilterType"),
        ("err-too-much-data.png", "tooMuchImageData"),
        ("err-not-enough-data.png", "notEnoughImageData"),
        ("err-no-idat.png", "missingImageData"),
        ("err-bad-crc.png", "badCRC"),
        ("err-bad-crc-text.png", "badCRC"),
        ("err-after-end.png", "chunkAfterEnd"),
        ("err-unknown-critical.png", "unknownCriticalChunk"),
        ("err-missing-palette.png", "missingPalette"),
        ("err-gray-palette.png", "unexpectedPalette"),
        ("err-corrupt-zlib.png", "corruptImageData"),
        ("err-split-idat.png", "nonContiguousImageData"),
        ("err-trns-alpha.png", "invalidTransparency"),
        ("err-bad-depth.png", "invalidColorTypeAndDepth"),
    ])
    func invalidFilesFailWithTheirError(name: String, code: String) throws {
        let bytes = try Self.load(name)
        // Strict: some of these (bad tEXt CRC, data after IEND, PLTE in gray, tRNS with alpha,
        // too much data) decode by default, as libpng decodes them (see DamagedFileTests).
        for size in [1, 13, bytes.count] {
            do {
                _ = try Self.decode(bytes, pieces: size, strict: true)
                Issue.record("\(name) decoded")
            } catch let error as PNGError {
                #expect(error.code == code, "\(name): \(error)")
                #expect(error.offset.map { $0 >= 0 && $0 <= bytes.count } == true)
            }
        }
    }

    @Test func badFilterReportsRow() throws {
        // The offset is where the compressed input stood: inside the IDAT data (bytes 41 to 59).
        for size in [1, 5, 100] {
            do {
                _ = try Self.decode(try Self.load("err-bad-filter.png"), pieces: size)
                Issue.record("decoded")
            } catch let error as PNGError {
                guard case let .invalidFilterType(9, 1, offset) = error else { Issue.record("\(error)"); continue }
                #expect((41 ... 59).contains(offset))
            }
        }
    }

    @Test(arguments: ["err-bad-crc.png", "err-bad-crc-text.png"])
    func crcCheckCanBeTurnedOff(_ name: String) throws {
        let bytes = try Self.load(name)
        let image = try PNGDecoder.decode(bytes, options: PNGDecodingOptions(checkCRC: false))
        #expect(image.pixels == [1, 2, 3, 4, 5, 6, 7, 8])
    }

    /// A bad filter byte followed by a zlib fault: the filter error comes first in the stream,
    /// so it is reported whatever the chunking (the rows inflated before a zlib error are
    /// unfiltered before the zlib error is reported).
    @Test func firstErrorInStreamOrderWhateverTheChunking() throws {
        let raw: [UInt8] = [0, 1, 2, 3, 4, 7, 5, 6, 7, 8]   // row 1 has filter type 7
        var z = PNGBuilder.zlibStored(raw)
        z[z.count - 1] ^= 0xFF                              // and a wrong Adler-32
        let file = PNGBuilder.file(PNGBuilder.header(), PNGBuilder.chunk("IDAT", z), PNGBuilder.chunk("IEND"))
        for size in [1, 3, 16, file.count] {
            do {
                _ = try Self.decode(file, pieces: size)
                Issue.record("decoded")
            } catch let error as PNGError {
                #expect(error.code == "invalidFilterType", "pieces of \(size): \(error)")
            }
        }
    }

    @Test func malformedAncillaryChunksAreWarnings() throws {
        var decoder = PNGDecoder()
        let events = try decoder.append(try Self.load("bad-ancillary.png"))
        let warnings = events.filter { if case .warning = $0 { true } else { false } }
        #expect(warnings.count == 2)
        #expect(decoder.metadata.gamma == nil)
        #expect(decoder.metadata.sRGBIntent == nil)
        _ = try decoder.finish()
    }

    @Test func metadataChunks() throws {
        let image = try PNGDecoder.decode(try Self.load("metadata.png"))
        let m = image.metadata
        #expect(m.gamma == 0.45455)
        #expect(m.chromaticities?.whiteX == 0.3127)
        #expect(m.chromaticities?.blueY == 0.06)
        #expect(m.iccProfileName == "test profile")
        #expect(m.iccProfile == Array((0 ... 255).map { UInt8($0) }) + Array((0 ... 255).map { UInt8($0) }))
        #expect(m.significantBits == [5, 6, 5])
        #expect(m.density == Density(x: 2835, y: 2835, unit: .perMetre))
        #expect(m.background == [255 * 257, 128 * 257, 0])
        #expect(m.orientation == .right)
        #expect(m.exif?.starts(with: [0x4D, 0x4D]) == true)
        #expect(m.modificationTime == Timestamp(year: 2024, month: 2, day: 29, hour: 12, minute: 30, second: 45))
        #expect(m.texts == [
            TextEntry(keyword: "Title", text: "Café", kind: .plain),
            TextEntry(keyword: "Comment", text: "compressed comment", kind: .compressed),
            TextEntry(keyword: "Author", text: "Jérôme", kind: .international, language: "en", translatedKeyword: "Auteur"),
            TextEntry(keyword: "Description", text: "été", kind: .international, language: "fr", compressed: true),
        ])
    }

    @Test func metadataLimit() throws {
        var limits = DecodingLimits()
        limits.maxMetadataBytes = 100
        #expect(throws: PNGError.self) { _ = try PNGDecoder.decode(try Self.load("metadata.png"), limits: limits) }
    }

    @Test func exifOrientationInBothByteOrders() {
        let big: [UInt8] = [0x4D, 0x4D, 0, 42, 0, 0, 0, 8, 0, 1, 0x01, 0x12, 0, 3, 0, 0, 0, 1, 0, 8, 0, 0, 0, 0, 0, 0]
        let little: [UInt8] = [0x49, 0x49, 42, 0, 8, 0, 0, 0, 1, 0, 0x12, 0x01, 3, 0, 1, 0, 0, 0, 3, 0, 0, 0, 0, 0, 0, 0]
        #expect(EXIF.orientation(big) == .left)
        #expect(EXIF.orientation(little) == .down)
        #expect(EXIF.orientation([1, 2, 3]) == nil)
        #expect(EXIF.orientation([0x49, 0x49, 42, 0, 200, 0, 0, 0]) == .up)
    }

    @Test func headerAndInfo() throws {
        var decoder = PNGDecoder()
        let bytes = try Self.load("palette8-trns.png")
        // The header waits for the first IDAT, when tRNS has settled the output format.
        var seenHeader = false
        for i in 0 ..< bytes.count {
            let events = try decoder.append(bytes[i ..< i + 1])
            if events.contains(where: { if case .header = $0 { true } else { false } }) {
                seenHeader = true
                #expect(decoder.header?.pixelFormat == .rgba8)
                #expect(decoder.info?.colorType == .palette)
                #expect(decoder.info?.transparency == .palette([0, 64, 128, 200]))
                #expect(decoder.info?.palette?.count == 256)
            }
            if !seenHeader { #expect(decoder.header == nil) }
        }
        #expect(seenHeader)
        #expect(try decoder.finish().format == .rgba8)
    }
}
