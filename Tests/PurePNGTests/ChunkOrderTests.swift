import ImageCore
import Testing
@testable import PurePNG

/// Builds small PNGs in memory: chunks with real CRCs, image data in stored deflate blocks.
enum PNGBuilder {
    static func chunk(_ type: String, _ data: [UInt8] = []) -> [UInt8] {
        var out: [UInt8] = []
        out.appendUInt32BE(UInt32(data.count))
        let body = Array(type.utf8) + data
        out += body
        out.appendUInt32BE(CRC32.checksum(body))
        return out
    }

    static func header(width: UInt32 = 4, height: UInt32 = 2, depth: UInt8 = 8, colorType: UInt8 = 0,
                       interlace: UInt8 = 0) -> [UInt8] {
        var d: [UInt8] = []
        d.appendUInt32BE(width)
        d.appendUInt32BE(height)
        d += [depth, colorType, 0, 0, interlace]
        return chunk("IHDR", d)
    }

    /// A zlib stream of one stored block (RFC 1950/1951) holding `raw`.
    static func zlibStored(_ raw: [UInt8]) -> [UInt8] {
        var out: [UInt8] = [0x78, 0x01, 0x01]
        let n = UInt16(raw.count)
        out += [UInt8(n & 0xFF), UInt8(n >> 8), UInt8(~n & 0xFF), UInt8(~n >> 8)]
        out += raw
        var a: UInt32 = 1, b: UInt32 = 0
        for x in raw { a = (a + UInt32(x)) % 65521; b = (b + a) % 65521 }
        out.appendUInt32BE(b << 16 | a)
        return out
    }

    /// Gray 8-bit 4x2, unfiltered rows 1 2 3 4 / 5 6 7 8.
    static let grayRows: [UInt8] = [0, 1, 2, 3, 4, 0, 5, 6, 7, 8]

    static func file(_ chunks: [UInt8]...) -> [UInt8] { pngSignature + chunks.joined() }
}

@Suite struct ChunkOrderTests {
    typealias B = PNGBuilder

    func code(_ bytes: [UInt8], strict: Bool = false) -> String {
        do {
            _ = try PNGDecoder.decode(bytes, options: PNGDecodingOptions(strict: strict))
            return "ok"
        } catch {
            return error.code
        }
    }

    /// The error strict decoding throws (by default these files decode as libpng decodes them).
    func strictCode(_ bytes: [UInt8]) -> String { code(bytes, strict: true) }

    @Test func wellFormedMinimalFile() throws {
        let image = try PNGDecoder.decode(B.file(B.header(), B.chunk("IDAT", B.zlibStored(B.grayRows)), B.chunk("IEND")))
        #expect(image.format == .gray8)
        #expect(image.pixels == [1, 2, 3, 4, 5, 6, 7, 8])
    }

    @Test func criticalOrderingErrors() {
        let idat = B.chunk("IDAT", B.zlibStored(B.grayRows)), end = B.chunk("IEND")
        let plte = B.chunk("PLTE", [1, 2, 3, 4, 5, 6])
        #expect(code(B.file(idat, B.header(), end)) == "missingHeader")
        #expect(code(B.file(B.header(), B.header(), idat, end)) == "duplicateChunk")
        #expect(code(B.file(B.header(colorType: 2), plte, plte, idat, end)) == "duplicateChunk")
        #expect(code(B.file(B.header(colorType: 3), idat, plte, end)) == "missingPalette")
        let rgbData = B.chunk("IDAT", B.zlibStored([UInt8](repeating: 0, count: 26)))
        #expect(strictCode(B.file(B.header(colorType: 2), rgbData, plte, end)) == "chunkOutOfOrder")
        #expect(code(B.file(B.header(colorType: 2), rgbData, plte, end)) == "ok")   // libpng: "out of place", ignored
        #expect(strictCode(B.file(B.header(colorType: 0), plte, idat, end)) == "unexpectedPalette")
        #expect(code(B.file(B.header(colorType: 0), plte, idat, end)) == "ok")      // libpng: ignored in grayscale
        #expect(code(B.file(B.header(), end)) == "missingImageData")
        #expect(code([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x00]) == "invalidSignature")
        #expect(code(B.file(B.header(), B.chunk("ID@T", [1]), end)) == "invalidChunkType")
        #expect(code(B.file(B.header(), [0x80, 0, 0, 0] + Array("IDAT".utf8))) == "invalidChunkLength")
        #expect(code(B.file(B.chunk("IHDR", [0, 0, 0, 1]), idat, end)) == "invalidHeaderLength")
        #expect(code(B.file(B.header(width: 0), idat, end)) == "invalidDimensions")
        #expect(code(B.file(B.header(width: 0x8000_0000), idat, end)) == "invalidDimensions")
        #expect(code(B.file(B.header(colorType: 2, interlace: 2), idat, end)) == "invalidInterlaceMethod")
        #expect(code(B.file(B.header(depth: 16, colorType: 3), idat, end)) == "invalidColorTypeAndDepth")
    }

    @Test func paletteAndTransparencyErrors() {
        let end = B.chunk("IEND")
        let idat = B.chunk("IDAT", B.zlibStored([0, 0, 1, 2, 0, 0, 1, 2, 0, 1]))  // 8-bit 4x2, indices 0...2
        func pal(_ n: Int) -> [UInt8] { B.chunk("PLTE", [UInt8](repeating: 9, count: n)) }
        #expect(code(B.file(B.header(colorType: 3), pal(9), idat, end)) == "ok")
        #expect(code(B.file(B.header(colorType: 3), pal(10), idat, end)) == "invalidPalette")
        #expect(code(B.file(B.header(colorType: 3), pal(0), idat, end)) == "invalidPalette")
        #expect(code(B.file(B.header(colorType: 3), pal(257 * 3), idat, end)) == "invalidPalette")
        #expect(strictCode(B.file(B.header(depth: 1, colorType: 3), pal(9), idat, end)) == "invalidPalette")
        #expect(strictCode(B.file(B.header(colorType: 3), pal(9), B.chunk("tRNS", [1, 2, 3, 4]), idat, end)) == "invalidTransparency")
        #expect(strictCode(B.file(B.header(), B.chunk("tRNS", [1]), idat, end)) == "invalidTransparency")
        #expect(strictCode(B.file(B.header(colorType: 2), B.chunk("tRNS", [0, 1]), idat, end)) == "invalidTransparency")
        // By default libpng's leniency: a palette longer than the depth allows is cut to 2^depth
        // entries, an invalid tRNS is ignored (no alpha channel).
        #expect(code(B.file(B.header(depth: 1, colorType: 3), pal(9), B.chunk("IDAT", B.zlibStored([0, 0x50, 0, 0x90])), end)) == "ok")
        #expect((try? PNGDecoder.decode(B.file(B.header(colorType: 3), pal(9), B.chunk("tRNS", [1, 2, 3, 4]), idat, end)))?.format
            == .rgb8)
        // An empty palette tRNS is ignored (as libpng does): the output stays RGB.
        let empty = B.file(B.header(colorType: 3), pal(9), B.chunk("tRNS"), idat, end)
        #expect((try? PNGDecoder.decode(empty))?.format == .rgb8)
    }

    @Test func oversizedChunksFailBeforeTheirDataArrives() {
        var decoder = PNGDecoder()
        // IHDR declaring 1000 bytes: refused from its 8-byte header.
        let header: [UInt8] = pngSignature + [0, 0, 3, 0xE8] + Array("IHDR".utf8)
        #expect(throws: PNGError.invalidHeaderLength(length: 1000, offset: 8)) { _ = try decoder.append(header) }
        var limits = DecodingLimits()
        limits.maxMetadataBytes = 1000
        var small = PNGDecoder(limits: limits)
        let text: [UInt8] = B.file(B.header()) + [0, 0x10, 0, 0] + Array("tEXt".utf8)
        #expect(throws: PNGError.limitExceeded(.metadata(limit: 1000), offset: 33)) { _ = try small.append(text) }
    }

    @Test func misplacedAncillaryChunksAreSkippedWithWarnings() throws {
        var gama: [UInt8] = []
        gama.appendUInt32BE(45455)
        let bytes = B.file(B.header(width: 1, height: 2, colorType: 2), B.chunk("PLTE", [1, 2, 3]), B.chunk("gAMA", gama),
                           B.chunk("IDAT", B.zlibStored([0, 1, 2, 3, 0, 4, 5, 6])), B.chunk("pHYs", [0, 0, 0, 1, 0, 0, 0, 1, 0]),
                           B.chunk("gAMA", gama), B.chunk("prIv", [1, 2]), B.chunk("IEND"))
        var decoder = PNGDecoder()
        let events = try decoder.append(bytes)
        let warnings = events.compactMap { if case let .warning(w) = $0 { w } else { nil } }
        #expect(warnings.count == 3, "\(warnings)")
        #expect(decoder.metadata.gamma == nil)
        #expect(decoder.metadata.density == nil)
        #expect(events.last == .end)
        #expect(try decoder.finish().pixels == [1, 2, 3, 4, 5, 6])
    }

    @Test func eventsComeInStreamOrder() throws {
        let bytes = B.file(B.header(), B.chunk("IDAT", B.zlibStored(B.grayRows)), B.chunk("gAMA", [0, 0, 0, 1]),
                           B.chunk("IEND"))
        var decoder = PNGDecoder()
        let events = try decoder.append(bytes)
        guard events.count == 4, case .header = events[0], case .warning = events[2] else {
            Issue.record("\(events)"); return
        }
        #expect(events[1] == .rows(0 ..< 2))
        #expect(events[3] == .end)
    }

    @Test func duplicateAncillaryKeepsTheFirst() throws {
        var g1: [UInt8] = [], g2: [UInt8] = []
        g1.appendUInt32BE(100_000)
        g2.appendUInt32BE(50_000)
        let bytes = B.file(B.header(), B.chunk("gAMA", g1), B.chunk("gAMA", g2),
                           B.chunk("IDAT", B.zlibStored(B.grayRows)), B.chunk("IEND"))
        #expect(try PNGDecoder.decode(bytes).metadata.gamma == 1.0)
    }

    @Test func emptyIDATChunksAndTrailingChecksum() throws {
        let z = B.zlibStored(B.grayRows)
        // The stream split so that the last IDAT holds only the Adler-32, plus empty IDATs.
        let bytes = B.file(B.header(), B.chunk("IDAT"), B.chunk("IDAT", Array(z[0 ..< z.count - 4])), B.chunk("IDAT"),
                           B.chunk("IDAT", Array(z[(z.count - 4)...])), B.chunk("IEND"))
        #expect(try PNGDecoder.decode(bytes).pixels == [1, 2, 3, 4, 5, 6, 7, 8])
        // Bytes after the zlib stream's end are too much image data (strict), ignored with a
        // warning by default (libpng: "Extra compressed data").
        let extra = B.file(B.header(), B.chunk("IDAT", z + [0]), B.chunk("IEND"))
        #expect(strictCode(extra) == "tooMuchImageData")
        var decoder = PNGDecoder()
        let events = try decoder.append(extra)
        #expect(events.contains { if case .warning = $0 { true } else { false } })
        #expect(try decoder.finish().pixels == [1, 2, 3, 4, 5, 6, 7, 8])
    }

    @Test func nothingAfterIEND() throws {
        let good = B.file(B.header(), B.chunk("IDAT", B.zlibStored(B.grayRows)), B.chunk("IEND"))
        var decoder = PNGDecoder(options: PNGDecodingOptions(strict: true))
        #expect(try decoder.append(good).last == .end)
        #expect(throws: PNGError.chunkAfterEnd(offset: good.count)) { _ = try decoder.append([0]) }
        #expect(throws: PNGError.chunkAfterEnd(offset: good.count)) { _ = try decoder.finish() }
        // By default libpng's reading stops at IEND: what follows is ignored, with one warning.
        var lenient = PNGDecoder()
        _ = try lenient.append(good)
        #expect(try lenient.append([0]).count == 1)
        #expect(try lenient.append([0, 1, 2]).isEmpty)
        #expect(try lenient.finish().pixels == [1, 2, 3, 4, 5, 6, 7, 8])
    }

    @Test func zlibVersionIsReported() {
        #expect(PurePNG.zlibVersion.first?.isNumber == true)
    }
}
