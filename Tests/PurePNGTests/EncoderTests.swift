import Testing
import ImageCore
@testable import PurePNG

/// Encode -> decode round trips through ``PNGDecoder``, the stream encoder against the
/// one-shot encoder, the chunk layout, and every refusal.
@Suite struct EncoderTests {
    // MARK: Helpers

    /// A test image: gradients plus noise, so filters and compression have work to do.
    static func makeImage(_ width: Int, _ height: Int, _ format: PixelFormat, seed: UInt64 = 1) -> Image {
        var r = ForwardFilterTests.Bytes(state: seed)
        var image = Image(width: width, height: height, format: format)
        let n = width * height * format.channels
        image.pixels.withUnsafeMutableBytes { raw in
            for i in 0 ..< n {
                let x = (i / format.channels) % max(width, 1), y = i / format.channels / max(width, 1)
                let v = UInt16(truncatingIfNeeded: (x * 2000 + y * 1300 + (i % format.channels) * 9000))
                    &+ UInt16(r.next() & 0x1F) << 4
                if format.is16Bit {
                    raw.storeBytes(of: v, toByteOffset: 2 * i, as: UInt16.self)
                } else {
                    raw[i] = UInt8(truncatingIfNeeded: v >> 8)
                }
            }
        }
        return image
    }

    /// Chunks as (type, data), CRCs checked.
    static func chunks(_ png: [UInt8]) -> [(type: String, data: [UInt8])] {
        var out: [(String, [UInt8])] = []
        var i = 8
        while i + 12 <= png.count {
            let length = png[i ..< i + 4].reduce(0) { $0 << 8 | Int($1) }
            let type = String(decoding: png[i + 4 ..< i + 8], as: UTF8.self)
            guard i + 12 + length <= png.count else { break }
            let data = Array(png[i + 8 ..< i + 8 + length])
            let crc = png[i + 8 + length ..< i + 12 + length].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
            #expect(crc == CRC32.checksum(png[i + 4 ..< i + 8 + length]), "CRC of \(type)")
            out.append((type, data))
            i += 12 + length
        }
        return out
    }

    static func header(_ png: [UInt8]) -> (colorType: UInt8, bitDepth: UInt8, interlace: UInt8) {
        (png[25], png[24], png[28])
    }

    /// The pixels as RGBA16, for comparing images in different formats.
    static func rgba16(_ image: Image) -> [UInt8] { image.converted(to: .rgba16).pixels }

    static let sizes = [(1, 1), (1, 17), (17, 1), (13, 7), (33, 9)]

    // MARK: Round trips

    @Test(arguments: PixelFormat.allCases, [false, true])
    func everyFormatFilterAndSizeRoundTrips(format: PixelFormat, interlaced: Bool) throws {
        for (w, h) in Self.sizes {
            let image = Self.makeImage(w, h, format, seed: UInt64(w * 31 + h))
            for filter in PNGFilterStrategy.allCases {
                let png = try PNGEncoder.encode(image, options: .init(filter: filter, interlaced: interlaced))
                let decoded = try PNGDecoder.decode(png)
                #expect(decoded.format == format, "\(format) \(w)x\(h) \(filter)")
                #expect(decoded.width == w && decoded.height == h)
                #expect(decoded.pixels == image.pixels, "\(format) \(w)x\(h) \(filter) interlaced \(interlaced)")
                #expect(Self.header(png).interlace == (interlaced ? 1 : 0))
            }
        }
    }

    @Test(arguments: [0, 1, 9])
    func everyCompressionLevelRoundTrips(level: Int) throws {
        let image = Self.makeImage(40, 30, .rgba8)
        let png = try PNGEncoder.encode(image, options: .init(compressionLevel: level))
        #expect(try PNGDecoder.decode(png).pixels == image.pixels)
    }

    /// Big enough for several 64 KiB IDAT chunks.
    @Test func largeImageSpansSeveralIDATChunks() throws {
        let image = Self.makeImage(300, 200, .rgb16)
        let png = try PNGEncoder.encode(image, options: .init(compressionLevel: 1))
        #expect(Self.chunks(png).filter { $0.type == "IDAT" }.count > 1)
        #expect(try PNGDecoder.decode(png).pixels == image.pixels)
    }

    @Test(arguments: [1, 2, 4, 8, 16], [false, true])
    func grayAtEveryDepth(depth: Int, interlaced: Bool) throws {
        for (w, h) in Self.sizes {
            var image = Image(width: w, height: h, format: .gray8)
            let levels = (1 << min(depth, 8)) - 1
            for i in 0 ..< image.pixels.count { image.pixels[i] = UInt8((i * 7 % (levels + 1)) * (255 / levels)) }
            let png = try PNGEncoder.encode(image, options: .init(interlaced: interlaced, colorType: .gray, bitDepth: depth))
            #expect(Self.header(png) == (0, UInt8(depth), interlaced ? 1 : 0))
            let decoded = try PNGDecoder.decode(png)
            #expect(Self.rgba16(decoded) == Self.rgba16(image), "gray \(depth) bits, \(w)x\(h)")
        }
    }

    @Test(arguments: [1, 2, 4])
    func lowDepthGrayFrom16Bit(depth: Int) throws {
        var image = Image(width: 9, height: 3, format: .gray16)
        let levels = (1 << depth) - 1
        image.pixels.withUnsafeMutableBytes { raw in
            for i in 0 ..< 27 { raw.storeBytes(of: UInt16((i % (levels + 1)) * (65535 / levels)), toByteOffset: 2 * i, as: UInt16.self) }
        }
        let png = try PNGEncoder.encode(image, options: .init(bitDepth: depth))
        #expect(Self.rgba16(try PNGDecoder.decode(png)) == Self.rgba16(image))
    }

    @Test(arguments: [1, 2, 4, 8], [false, true])
    func paletteAtEveryDepth(depth: Int, interlaced: Bool) throws {
        let colors = min(1 << depth, 200)
        for (w, h) in Self.sizes {
            var image = Image(width: w, height: h, format: .rgba8)
            for p in 0 ..< w * h {
                let c = p * 5 % colors
                image.pixels[4 * p ..< 4 * p + 4] = [UInt8(c), UInt8(255 - c), UInt8(c * 3 & 255), c % 3 == 0 ? UInt8(c) : 255]
            }
            let png = try PNGEncoder.encode(image, options: .init(interlaced: interlaced, colorType: .palette, bitDepth: depth))
            #expect(Self.header(png) == (3, UInt8(depth), interlaced ? 1 : 0))
            let decoded = try PNGDecoder.decode(png)
            #expect(Self.rgba16(decoded) == Self.rgba16(image), "palette \(depth) bits, \(w)x\(h)")
        }
    }

    /// Transparent entries first, so tRNS holds exactly the non-opaque ones; the default
    /// depth is the smallest that fits.
    @Test func paletteOrderAndTransparency() throws {
        var image = Image(width: 6, height: 1, format: .rgba8)
        image.pixels = [9, 9, 9, 255, 1, 2, 3, 0, 200, 0, 0, 255, 1, 2, 3, 0, 5, 5, 5, 128, 9, 9, 9, 255]
        let png = try PNGEncoder.encode(image, options: .init(colorType: .palette))
        let chunks = Self.chunks(png)
        #expect(chunks.map(\.type) == ["IHDR", "PLTE", "tRNS", "IDAT", "IEND"])
        #expect(chunks[1].data == [1, 2, 3, 5, 5, 5, 9, 9, 9, 200, 0, 0])
        #expect(chunks[2].data == [0, 128])
        #expect(Self.header(png).bitDepth == 2)
        #expect(try PNGDecoder.decode(png).pixels == image.pixels)
        // Opaque palette: no tRNS, and an RGB result.
        let opaque = Self.makeImage(5, 5, .gray8).converted(to: .rgb8)
        let png2 = try PNGEncoder.encode(opaque, options: .init(colorType: .palette))
        #expect(!Self.chunks(png2).contains { $0.type == "tRNS" })
        #expect(Self.rgba16(try PNGDecoder.decode(png2)) == Self.rgba16(opaque))
    }

    @Test func conversionsThatLoseNothing() throws {
        // Gray from RGB with R == G == B, alpha dropped from an opaque image.
        let gray = Self.makeImage(11, 5, .gray8)
        let rgba = gray.converted(to: .rgba8)
        for (target, type) in [(PNGColorType.gray, UInt8(0)), (.grayAlpha, 4), (.rgb, 2)] {
            let png = try PNGEncoder.encode(rgba, options: .init(colorType: target))
            #expect(Self.header(png).colorType == type)
            #expect(Self.rgba16(try PNGDecoder.decode(png)) == Self.rgba16(rgba), "\(target)")
        }
        // Alpha added to gray and RGB.
        let rgb = Self.makeImage(11, 5, .rgb16)
        for target in [PNGColorType.rgba, .rgb] {
            let png = try PNGEncoder.encode(rgb, options: .init(colorType: target))
            #expect(Self.rgba16(try PNGDecoder.decode(png)) == Self.rgba16(rgb))
        }
        let png = try PNGEncoder.encode(gray, options: .init(colorType: .grayAlpha))
        #expect(try PNGDecoder.decode(png).format == .grayAlpha8)
    }

    @Test func depthChanges() throws {
        // 8 -> 16 widens by 257, exactly.
        let image8 = Self.makeImage(7, 6, .rgba8)
        let wide = try PNGEncoder.encode(image8, options: .init(bitDepth: 16))
        #expect(Self.header(wide).bitDepth == 16)
        let decoded = try PNGDecoder.decode(wide)
        #expect(decoded.format == .rgba16)
        #expect(decoded == image8.converted(to: .rgba16))
        // 16 -> 8 rounds as ImageCore does.
        let image16 = Self.makeImage(7, 6, .grayAlpha16)
        let narrow = try PNGEncoder.encode(image16, options: .init(bitDepth: 8))
        #expect(try PNGDecoder.decode(narrow) == image16.converted(to: .grayAlpha8))
    }

    /// 16-bit samples are big-endian in the file (PNG 7.1), whatever the host order.
    @Test func sixteenBitIsBigEndian() throws {
        var image = Image(width: 1, height: 1, format: .gray16)
        image.pixels.withUnsafeMutableBytes { $0.storeBytes(of: UInt16(0x1234), as: UInt16.self) }
        let png = try PNGEncoder.encode(image, options: .init(compressionLevel: 0, filter: .none))
        let idat = Self.chunks(png).first { $0.type == "IDAT" }?.data ?? []
        // zlib header (2), stored block header (5), then filter byte 0 and the sample.
        #expect(Array(idat[7 ..< 10]) == [0, 0x12, 0x34])
    }

    @Test func premultipliedImagesAreWrittenStraight() throws {
        var image = Image(width: 2, height: 1, format: .rgba8)
        image.pixels = [100, 50, 0, 255, 40, 20, 0, 128]
        let premultiplied = image.premultiplied()
        let png = try PNGEncoder.encode(premultiplied)
        #expect(try PNGDecoder.decode(png) == premultiplied.unpremultiplied())
    }

    // MARK: Metadata

    static let richMetadata = ImageMetadata(
        iccProfile: Array(repeating: 0x42, count: 16) + Array("RGB ".utf8) + Array(repeating: 0x42, count: 480) + [1, 2, 3],
        iccProfileName: "Test Profile",
        exif: [0x4D, 0x4D, 0, 0x2A, 0, 0, 0, 8, 0, 0],
        gamma: 0.45455,
        chromaticities: Chromaticities(whiteX: 0.3127, whiteY: 0.329, redX: 0.64, redY: 0.33,
                                       greenX: 0.3, greenY: 0.6, blueX: 0.15, blueY: 0.06),
        texts: [TextEntry(keyword: "Title", text: "Caf\u{E9} au lait"),
                TextEntry(keyword: "Comment", text: String(repeating: "squeeze me ", count: 40), kind: .compressed),
                TextEntry(keyword: "Author", text: "\u{65E5}\u{672C}", kind: .international, language: "ja",
                          translatedKeyword: "\u{8457}\u{8005}"),
                TextEntry(keyword: "Note", text: "UTF-8 \u{2713}", kind: .international, compressed: true)],
        density: Density(x: 2835, y: 3780, unit: .perMetre),
        modificationTime: Timestamp(year: 2025, month: 12, day: 31, hour: 23, minute: 59, second: 60),
        background: [10 * 257, 20 * 257, 30 * 257],
        significantBits: [5, 6, 5])

    @Test func metadataRoundTrips() throws {
        var image = Self.makeImage(9, 9, .rgb8)
        image.metadata = Self.richMetadata
        let png = try PNGEncoder.encode(image)
        let decoded = try PNGDecoder.decode(png)
        #expect(decoded.pixels == image.pixels)
        #expect(decoded.metadata == image.metadata)
        // PNG 5.6 order, iCCP instead of sRGB.
        #expect(Self.chunks(png).map(\.type) == ["IHDR", "cHRM", "gAMA", "iCCP", "sBIT", "bKGD", "pHYs", "eXIf",
                                                 "tIME", "tEXt", "zTXt", "iTXt", "iTXt", "IDAT", "IEND"])
        // Text Latin-1 cannot hold moves to iTXt.
        var unicode = image
        unicode.metadata = ImageMetadata(sRGBIntent: 1, texts: [TextEntry(keyword: "Title", text: "\u{263A}")])
        let png2 = try PNGEncoder.encode(unicode)
        #expect(Self.chunks(png2).map(\.type) == ["IHDR", "sRGB", "iTXt", "IDAT", "IEND"])
        #expect(try PNGDecoder.decode(png2).metadata.texts.map(\.text) == ["\u{263A}"])
        // writeMetadata: false writes none of it.
        let bare = try PNGEncoder.encode(image, options: .init(writeMetadata: false))
        #expect(Self.chunks(bare).map(\.type) == ["IHDR", "IDAT", "IEND"])
    }

    /// iCCP only where the profile's colour space is the image's (PNG 11.3.3.3): RGB on colour
    /// (palette included), GRAY on gray; a CMYK profile never.
    @Test func iccProfileMustMatchTheColourType() throws {
        func profile(_ space: String) -> [UInt8] {
            Array(repeating: 7, count: 16) + Array(space.utf8) + Array(repeating: 7, count: 300)
        }
        for (format, colorType, space, kept) in [(PixelFormat.rgb8, PNGColorType?.none, "RGB ", true),
                                                 (.rgb8, nil, "CMYK", false), (.rgb8, nil, "GRAY", false),
                                                 (.rgb8, .palette, "RGB ", true), (.gray8, nil, "GRAY", true),
                                                 (.gray8, nil, "RGB ", false), (.gray8, .rgb, "GRAY", false),
                                                 (.gray8, .rgb, "RGB ", true)] {
            var image = Self.makeImage(6, 5, format)
            image.metadata.iccProfile = profile(space)
            let png = try PNGEncoder.encode(image, options: .init(colorType: colorType))
            #expect(Self.chunks(png).contains { $0.type == "iCCP" } == kept, "\(format) \(String(describing: colorType)) \(space)")
        }
    }

    @Test func metadataFollowsTheOutputLayout() throws {
        var image = Self.makeImage(4, 4, .gray8)
        image.metadata.background = [0x8080, 0x8080, 0x8080]
        image.metadata.significantBits = [6]
        image.metadata.density = Density(x: 300, y: 300, unit: .perInch)
        let png = try PNGEncoder.encode(image, options: .init(colorType: .rgb))
        let chunks = Self.chunks(png)
        #expect(chunks.first { $0.type == "sBIT" }?.data == [6, 6, 6])
        #expect(chunks.first { $0.type == "bKGD" }?.data == [0, 0x80, 0, 0x80, 0, 0x80])
        // 300 dpi is 11811 per metre.
        #expect(chunks.first { $0.type == "pHYs" }?.data == [0, 0, 0x2E, 0x23, 0, 0, 0x2E, 0x23, 1])
        // A palette bKGD is the index of the colour.
        var pal = Image(width: 2, height: 1, format: .rgb8)
        pal.pixels = [0, 0, 0, 255, 255, 255]
        pal.metadata.background = [65535, 65535, 65535]
        let png2 = try PNGEncoder.encode(pal, options: .init(colorType: .palette))
        #expect(Self.chunks(png2).first { $0.type == "bKGD" }?.data == [1])
        // A colour background cannot be a gray one: left out.
        var gray = Self.makeImage(2, 2, .gray8)
        gray.metadata.background = [1, 2, 3]
        #expect(!Self.chunks(try PNGEncoder.encode(gray)).contains { $0.type == "bKGD" })
    }

    @Test func invalidMetadataIsRefused() {
        let image = Self.makeImage(2, 2, .gray8)
        let bad: [ImageMetadata] = [
            ImageMetadata(texts: [TextEntry(keyword: "", text: "x")]),
            ImageMetadata(texts: [TextEntry(keyword: String(repeating: "k", count: 80), text: "x")]),
            ImageMetadata(texts: [TextEntry(keyword: " lead", text: "x")]),
            ImageMetadata(texts: [TextEntry(keyword: "two  spaces", text: "x")]),
            ImageMetadata(gamma: -1),
            ImageMetadata(sRGBIntent: 4),
            ImageMetadata(modificationTime: Timestamp(year: 2020, month: 13, day: 1, hour: 0, minute: 0, second: 0)),
        ]
        for m in bad {
            var i = image
            i.metadata = m
            #expect(throws: PNGError.self) { try PNGEncoder.encode(i) }
        }
    }

    // MARK: Stream encoder

    @Test(arguments: PixelFormat.allCases)
    func streamEncoderMatchesOneShot(format: PixelFormat) throws {
        var image = Self.makeImage(23, 17, format)
        image.metadata = ImageMetadata(gamma: 0.5, texts: [TextEntry(keyword: "k", text: "v")])
        for filter in [PNGFilterStrategy.adaptive, .paeth, .none] {
            let options = PNGEncodingOptions(filter: filter)
            let expected = try PNGEncoder.encode(image, options: options)
            for band in [1, 3, 17] {
                var encoder = try PNGStreamEncoder(width: 23, height: 17, format: format,
                                                   metadata: image.metadata, options: options)
                var out: [UInt8] = []
                var y = 0
                while y < 17 {
                    let rows = min(band, 17 - y)
                    let slice = image.pixels[y * image.bytesPerRow ..< (y + rows) * image.bytesPerRow]
                    out += try slice.withUnsafeBytes { (raw) throws(PNGError) in try encoder.append(rows: raw) }
                    y += rows
                }
                #expect(encoder.remainingRows == 0)
                out += try encoder.finish()
                #expect(out == expected, "\(format) \(filter) bands of \(band)")
            }
        }
    }

    /// A copy taken mid-stream is an independent encoder (copy-on-write of the zlib state).
    @Test func streamEncoderCopiesAreIndependent() throws {
        let image = Self.makeImage(64, 40, .rgb8)
        let expected = try PNGEncoder.encode(image)
        let half = image.bytesPerRow * 20
        var a = try PNGStreamEncoder(width: 64, height: 40, format: .rgb8)
        var out = try image.pixels[..<half].withUnsafeBytes { (raw) throws(PNGError) in try a.append(rows: raw) }
        var b = a
        let rest = try image.pixels[half...].withUnsafeBytes { (raw) throws(PNGError) in try b.append(rows: raw) } + (try b.finish())
        // `a` is untouched by `b`'s progress: give it different rows, then the real ones to a third copy.
        var c = a
        let zeros = [UInt8](repeating: 0, count: half)
        _ = try zeros.withUnsafeBytes { (raw) throws(PNGError) in try a.append(rows: raw) }
        let restC = try image.pixels[half...].withUnsafeBytes { (raw) throws(PNGError) in try c.append(rows: raw) } + (try c.finish())
        #expect(out + rest == expected)
        #expect(out + restC == expected)
        out += try a.finish()
        #expect(try PNGDecoder.decode(out).pixels == image.pixels[..<half] + zeros)
    }

    @Test func streamEncoderMisuse() throws {
        let options: [PNGEncodingOptions] = [.init(interlaced: true), .init(colorType: .palette)]
        for o in options {
            #expect(throws: PNGError.self) { try PNGStreamEncoder(width: 4, height: 4, format: .rgb8, options: o) }
        }
        var encoder = try PNGStreamEncoder(width: 4, height: 2, format: .gray8)
        let row = [UInt8](repeating: 7, count: 4)
        _ = try row.withUnsafeBytes { (raw) throws(PNGError) in try encoder.append(rows: raw) }
        #expect(throws: PNGError.invalidParameter("only 1 of 2 rows were given")) { try encoder.finish() }
        // The error sticks.
        #expect(throws: PNGError.invalidParameter("only 1 of 2 rows were given")) {
            try row.withUnsafeBytes { (raw) throws(PNGError) in try encoder.append(rows: raw) }
        }
        var partial = try PNGStreamEncoder(width: 4, height: 2, format: .gray8)
        #expect(throws: PNGError.self) {
            try [UInt8](repeating: 0, count: 5).withUnsafeBytes { (raw) throws(PNGError) in try partial.append(rows: raw) }
        }
        var tooMany = try PNGStreamEncoder(width: 4, height: 1, format: .gray8)
        #expect(throws: PNGError.self) {
            try [UInt8](repeating: 0, count: 8).withUnsafeBytes { (raw) throws(PNGError) in try tooMany.append(rows: raw) }
        }
        // An unrepresentable row fails the stream too.
        var gray = try PNGStreamEncoder(width: 1, height: 1, format: .rgb8, options: .init(colorType: .gray))
        #expect(throws: PNGError.self) {
            try [UInt8]([1, 2, 3]).withUnsafeBytes { (raw) throws(PNGError) in try gray.append(rows: raw) }
        }
    }

    // MARK: Refusals

    static func isUnrepresentable(_ body: () throws -> [UInt8]) -> Bool {
        do { _ = try body(); return false } catch { return (error as? PNGError)?.code == "unrepresentable" }
    }

    static func isInvalidParameter(_ body: () throws -> [UInt8]) -> Bool {
        do { _ = try body(); return false } catch { return (error as? PNGError)?.code == "invalidParameter" }
    }

    static func three16(_ a: UInt16, _ b: UInt16, _ c: UInt16) -> Image {
        var image = Image(width: 3, height: 1, format: .gray16)
        image.pixels.withUnsafeMutableBytes { raw in
            for (i, v) in [a, b, c].enumerated() { raw.storeBytes(of: v, toByteOffset: 2 * i, as: UInt16.self) }
        }
        return image
    }

    @Test func unrepresentableRequestsThrow() {
        var rgb = Image(width: 3, height: 1, format: .rgb8)
        rgb.pixels = [5, 5, 5, 7, 7, 7, 1, 2, 1]
        #expect(Self.isUnrepresentable { try PNGEncoder.encode(rgb, options: .init(colorType: .gray)) })
        #expect(Self.isUnrepresentable { try PNGEncoder.encode(rgb, options: .init(colorType: .grayAlpha)) })
        var rgba = Image(width: 2, height: 1, format: .rgba8)
        rgba.pixels = [1, 2, 3, 255, 4, 5, 6, 254]
        #expect(Self.isUnrepresentable { try PNGEncoder.encode(rgba, options: .init(colorType: .rgb)) })
        var ga16 = Image(width: 1, height: 1, format: .grayAlpha16)
        ga16.pixels = [0, 0, 0xFF, 0xFE]
        #expect(Self.isUnrepresentable { try PNGEncoder.encode(ga16, options: .init(colorType: .gray)) })
        var gray = Image(width: 2, height: 1, format: .gray8)
        gray.pixels = [0, 17]
        #expect(Self.isUnrepresentable { try PNGEncoder.encode(gray, options: .init(bitDepth: 2)) })
        #expect(!Self.isUnrepresentable { try PNGEncoder.encode(gray, options: .init(bitDepth: 4)) })
        gray.pixels = [0, 128]
        #expect(Self.isUnrepresentable { try PNGEncoder.encode(gray, options: .init(bitDepth: 1)) })
        // 257 colours do not fit a palette; 3 do not fit 1 bit.
        var many = Image(width: 257, height: 1, format: .rgb8)
        for i in 0 ..< 257 { many.pixels[3 * i] = UInt8(i & 255); many.pixels[3 * i + 1] = UInt8(i >> 8) }
        #expect(Self.isUnrepresentable { try PNGEncoder.encode(many, options: .init(colorType: .palette)) })
        many.pixels[3 * 256 + 1] = 0
        #expect(!Self.isUnrepresentable { try PNGEncoder.encode(many, options: .init(colorType: .palette)) })
        // 16-bit colours go into the 8-bit palette only when exact (multiples of 257).
        let wide = Self.three16(0, 257, 65535)
        #expect(!Self.isUnrepresentable { try PNGEncoder.encode(wide, options: .init(colorType: .palette)) })
        #expect(Self.isUnrepresentable { try PNGEncoder.encode(Self.three16(0, 256, 65535), options: .init(colorType: .palette)) })
        var three = Image(width: 3, height: 1, format: .gray8)
        three.pixels = [0, 1, 2]
        #expect(Self.isUnrepresentable { try PNGEncoder.encode(three, options: .init(colorType: .palette, bitDepth: 1)) })
        #expect(!Self.isUnrepresentable { try PNGEncoder.encode(three, options: .init(colorType: .palette, bitDepth: 2)) })
    }

    @Test func invalidParametersThrow() {
        let image = Self.makeImage(2, 2, .rgb8)
        #expect(Self.isInvalidParameter { try PNGEncoder.encode(image, options: .init(compressionLevel: 10)) })
        #expect(Self.isInvalidParameter { try PNGEncoder.encode(image, options: .init(compressionLevel: -1)) })
        #expect(Self.isInvalidParameter { try PNGEncoder.encode(image, options: .init(bitDepth: 4)) })
        #expect(Self.isInvalidParameter { try PNGEncoder.encode(image, options: .init(colorType: .palette, bitDepth: 16)) })
        #expect(Self.isInvalidParameter { try PNGEncoder.encode(image, options: .init(colorType: .grayAlpha, bitDepth: 2)) })
        #expect(Self.isInvalidParameter { try PNGEncoder.encode(Image(width: 0, height: 3, format: .rgb8)) })
        var wrong = image
        wrong.pixels.removeLast()
        #expect(Self.isInvalidParameter { try PNGEncoder.encode(wrong) })
    }

    /// Palette and sub-8-bit images are not filtered under `.adaptive` (libpng's default);
    /// with zlib level 0 the filter bytes can be read straight out of the stored blocks.
    @Test func adaptiveMeansNoneForPaletteAndLowDepth() throws {
        var image = Image(width: 8, height: 4, format: .gray8)
        for i in 0 ..< 32 { image.pixels[i] = UInt8(i % 2 * 255) }
        for options in [PNGEncodingOptions(compressionLevel: 0, colorType: .palette),
                        PNGEncodingOptions(compressionLevel: 0, bitDepth: 1)] {
            let png = try PNGEncoder.encode(image, options: options)
            let idat = Self.chunks(png).first { $0.type == "IDAT" }?.data ?? []
            // One stored block: 2-byte zlib header, 5-byte block header, rows of 1 + 1 bytes.
            let rowBytes = 1 + (Self.header(png).bitDepth == 1 ? 1 : 8)
            let filterBytes = (0 ..< 4).map { idat[7 + $0 * rowBytes] }
            #expect(filterBytes == [0, 0, 0, 0])
        }
        // An 8-bit gradient does get filtered.
        let gradient = Self.makeImage(16, 4, .gray8)
        let png = try PNGEncoder.encode(gradient, options: .init(compressionLevel: 0))
        let idat = Self.chunks(png).first { $0.type == "IDAT" }?.data ?? []
        #expect((1 ..< 4).contains { idat[7 + $0 * 17] != 0 })
    }
}

/// Random images and random valid options: whatever the combination, a representable image
/// comes back from the decoder as it went in.
@Suite struct EncoderRandomRoundTripTests {
    static let targets: [(PNGColorType, Int)] = PNGColorType.allCases.flatMap { t in t.allowedBitDepths.map { (t, $0) } }

    /// An RGBA16 image every pixel of which the target can hold exactly.
    /// `gray`: the source format has no colour, so palette colours are gray too (luma of
    /// multiples of 257 need not be one, and a 16-bit palette source must be).
    static func truth(_ w: Int, _ h: Int, _ type: PNGColorType, _ depth: Int, gray: Bool,
                      _ r: inout ForwardFilterTests.Bytes) -> Image {
        var image = Image(width: w, height: h, format: .rgba16)
        let levels = type == .palette ? 255 : (1 << depth) - 1
        let colors = (0 ..< min(1 << min(depth, 8), 40)).map { _ in (0 ..< 4).map { _ in UInt16(r.next()) } }
        image.pixels.withUnsafeMutableBytes { raw in
            for p in 0 ..< w * h {
                var px: [UInt16]
                if type == .palette {
                    px = colors[Int(r.next()) % colors.count].map { $0 * 257 }
                    if gray { px[1] = px[0]; px[2] = px[0] }
                } else {
                    px = (0 ..< 4).map { _ in UInt16((Int(r.next()) << 8 | Int(r.next())) % (levels + 1) * (65535 / levels)) }
                    if type == .gray || type == .grayAlpha { px[1] = px[0]; px[2] = px[0] }
                    if type == .gray || type == .rgb { px[3] = 65535 }
                }
                for c in 0 ..< 4 { raw.storeBytes(of: px[c], toByteOffset: 8 * p + 2 * c, as: UInt16.self) }
            }
        }
        return image
    }

    @Test(arguments: 0 ..< 12)
    func randomCombinations(seed: Int) throws {
        var r = ForwardFilterTests.Bytes(state: UInt64(seed) &* 7919)
        for _ in 0 ..< 20 {
            let (type, depth) = Self.targets[Int(r.next()) % Self.targets.count]
            let format = PixelFormat.allCases[Int(r.next()) % PixelFormat.allCases.count]
            let w = 1 + Int(r.next()) % 19, h = 1 + Int(r.next()) % 19
            let source = Self.truth(w, h, type, depth, gray: !format.isColor, &r).converted(to: format)
            let options = PNGEncodingOptions(
                compressionLevel: Int(r.next()) % 10,
                filter: PNGFilterStrategy.allCases[Int(r.next()) % PNGFilterStrategy.allCases.count],
                interlaced: r.next() & 1 == 1, colorType: type, bitDepth: depth)
            let png = try PNGEncoder.encode(source, options: options)
            #expect(png[24] == UInt8(depth) && png[25] == type.rawValue)
            let decoded = try PNGDecoder.decode(png)
            // Only an 8-bit output of 16-bit samples loses anything, and it rounds like ImageCore.
            let expected = format.is16Bit && depth == 8 && type != .palette ? source.converted(to: format.eightBit) : source
            #expect(decoded.converted(to: .rgba16).pixels == expected.converted(to: .rgba16).pixels,
                    "\(format) -> \(type) \(depth) bits, \(w)x\(h), \(options)")
        }
    }
}
