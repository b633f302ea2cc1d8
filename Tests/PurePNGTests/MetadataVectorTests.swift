import Foundation
import ImageCore
import PurePNG
import Testing

/// The ancillary-chunk vectors (`valid/chunk_*`) carry values written by `generate.py`; the
/// decoder must report exactly those in ``ImageMetadata``, whatever the chunk's position.
@Suite struct MetadataVectorTests {
    static let gamma = ImageMetadata(gamma: Double(45455) / 100_000)
    static let chromaticities = ImageMetadata(chromaticities: Chromaticities(
        whiteX: Double(31270) / 100_000, whiteY: Double(32900) / 100_000, redX: Double(64000) / 100_000,
        redY: Double(33000) / 100_000, greenX: Double(30000) / 100_000, greenY: Double(60000) / 100_000,
        blueX: Double(15000) / 100_000, blueY: Double(6000) / 100_000))
    static let texts = [
        TextEntry(keyword: "Comment", text: "Plain Latin-1 text \u{e9}", kind: .plain),
        TextEntry(keyword: "Description", text: String(repeating: "Compressed Latin-1 text ", count: 4), kind: .compressed),
        TextEntry(keyword: "Title", text: "Unicode \u{e9}\u{4e16}\u{754c}", kind: .international, language: "fr",
                  translatedKeyword: "Titre", compressed: false),
        TextEntry(keyword: "Author", text: String(repeating: "Compressed UTF-8 \u{2603} ", count: 4), kind: .international,
                  language: "en-GB", translatedKeyword: "", compressed: true),
    ]
    /// Big-endian TIFF, one IFD entry: Orientation = 6.
    static let exif: [UInt8] = [0x4D, 0x4D, 0, 0x2A, 0, 0, 0, 8, 0, 1, 0x01, 0x12, 0, 3, 0, 0, 0, 1, 0, 6, 0, 0, 0, 0, 0, 0]
    static let density = Density(x: 3780, y: 3780, unit: .perMetre)
    static let time = Timestamp(year: 2026, month: 11, day: 22, hour: 3, minute: 4, second: 5)

    static let expected: [String: ImageMetadata] = [
        "chunk_gAMA_9x5": gamma,
        "chunk_cHRM_9x5": chromaticities,
        "chunk_sRGB_9x5": ImageMetadata(sRGBIntent: 0),
        "chunk_tEXt_9x5": ImageMetadata(texts: [texts[0]]),
        "chunk_zTXt_9x5": ImageMetadata(texts: [texts[1]]),
        "chunk_iTXt_9x5": ImageMetadata(texts: [texts[2]]),
        "chunk_iTXt_compressed_9x5": ImageMetadata(texts: [texts[3]]),
        "chunk_pHYs_9x5": ImageMetadata(density: density),
        "chunk_tIME_9x5": ImageMetadata(modificationTime: time),
        "chunk_eXIf_9x5": ImageMetadata(exif: exif, orientation: .right),
        "chunk_unknown_ancillary_9x5": ImageMetadata(),
        "chunk_unknown_ancillary_everywhere_9x5": ImageMetadata(),
        "chunk_hIST_9x5": ImageMetadata(),
        "chunk_sPLT_9x5": ImageMetadata(),
        "chunk_bKGD_gray8_9x5": ImageMetadata(background: [200 * 257, 200 * 257, 200 * 257]),
        "chunk_bKGD_gray16_9x5": ImageMetadata(background: [51234, 51234, 51234]),
        "chunk_bKGD_graya8_9x5": ImageMetadata(background: [77 * 257, 77 * 257, 77 * 257]),
        "chunk_bKGD_rgb8_9x5": ImageMetadata(background: [10 * 257, 20 * 257, 30 * 257]),
        "chunk_bKGD_rgba16_9x5": ImageMetadata(background: [1000, 40000, 65535]),
        "chunk_sBIT_gray8_9x5": ImageMetadata(significantBits: [5]),
        "chunk_sBIT_rgb16_9x5": ImageMetadata(significantBits: [10, 11, 12]),
        "chunk_sBIT_pal8_9x5": ImageMetadata(significantBits: [5, 6, 5]),
        "chunk_sBIT_graya16_9x5": ImageMetadata(significantBits: [9, 3]),
        "chunk_sBIT_rgba8_9x5": ImageMetadata(significantBits: [4, 5, 6, 7]),
    ]

    @Test(arguments: expected.keys.sorted())
    func ancillaryChunkReported(_ name: String) throws {
        let image = try PNGDecoder.decode(try TestVectors.bytes("png/valid/\(name).png"))
        #expect(image.metadata == Self.expected[name])
    }

    /// Every chunk at once, some before PLTE, some between PLTE and IDAT, some after IDAT.
    @Test func allChunksTogether() throws {
        let bytes = try TestVectors.bytes("png/valid/chunk_all_ancillary_12x8.png")
        let image = try PNGDecoder.decode(bytes)
        let plte = try #require(chunkData("PLTE", in: bytes))
        var want = ImageMetadata(exif: Self.exif, orientation: .right, gamma: Self.gamma.gamma, sRGBIntent: 0,
                                 chromaticities: Self.chromaticities.chromaticities, texts: Self.texts,
                                 density: Self.density, modificationTime: Self.time)
        want.background = (0 ..< 3).map { UInt16(plte[5 * 3 + $0]) * 257 }
        #expect(image.metadata == want)
    }

    @Test func paletteBackgroundIsTheEntryColour() throws {
        let bytes = try TestVectors.bytes("png/valid/chunk_bKGD_pal4_9x5.png")
        let plte = try #require(chunkData("PLTE", in: bytes))
        let image = try PNGDecoder.decode(bytes)
        #expect(image.metadata.background == (0 ..< 3).map { UInt16(plte[2 * 3 + $0]) * 257 })
    }

    @Test func iccProfileIsDecompressed() throws {
        let image = try PNGDecoder.decode(try TestVectors.bytes("png/valid/chunk_iCCP_9x5.png"))
        let profile = try #require(image.metadata.iccProfile)
        #expect(image.metadata.iccProfileName == "test profile")
        #expect(profile.count == 128 + 4 + 12 + 20)
        #expect(Array(profile[36 ..< 40]) == Array("acsp".utf8))
        #expect(Array(profile[0 ..< 4]) == [0, 0, 0, UInt8(profile.count)])
    }

    /// The data of the first chunk of `type` (the vectors are well formed, so a plain walk will do).
    private func chunkData(_ type: String, in bytes: [UInt8]) -> [UInt8]? {
        var pos = 8
        while pos + 12 <= bytes.count {
            let length = bytes[pos ..< pos + 4].reduce(0) { $0 << 8 | Int($1) }
            if String(decoding: bytes[pos + 4 ..< pos + 8], as: UTF8.self) == type {
                return Array(bytes[pos + 8 ..< min(bytes.count, pos + 8 + length)])
            }
            pos += 12 + length
        }
        return nil
    }
}
