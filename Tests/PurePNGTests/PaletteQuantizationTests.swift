import Testing
import ImageCore
import PureQuant
@testable import PurePNG

/// PNG8: quantize, write PLTE + tRNS at the smallest depth, decode back to the remapped pixels.
@Suite struct PaletteQuantizationTests {
    static func picture(alpha: Bool) -> Image {
        var image = Image(width: 64, height: 48, format: .rgba8)
        for y in 0 ..< 48 {
            for x in 0 ..< 64 {
                let o = (y * 64 + x) * 4
                image.pixels[o] = UInt8(x * 4); image.pixels[o + 1] = UInt8(y * 5); image.pixels[o + 2] = UInt8((x ^ y) * 3)
                image.pixels[o + 3] = alpha ? (x < 4 ? 0 : y < 8 ? UInt8(x * 4) : 255) : 255
            }
        }
        return image
    }

    @Test(arguments: [false, true])
    func decodesToTheRemappedPixels(alpha: Bool) throws {
        let image = Self.picture(alpha: alpha)
        for dithering in [Dithering.none, .floydSteinberg(strength: 0.5)] {
            var options = PNGEncodingOptions()
            options.quantization = PNGQuantization(maxColors: 64, dithering: dithering)
            let png = try PNGEncoder.encode(image, options: options)
            let chunks = EncoderTests.chunks(png)
            #expect(chunks[0].data[9] == 3)                    // colour type 3
            #expect(chunks[0].data[8] == 8)                    // 64 entries: 8 bits
            let plte = try #require(chunks.first { $0.type == "PLTE" })
            #expect(plte.data.count <= 64 * 3)
            #expect(chunks.contains { $0.type == "tRNS" } == alpha)
            let decoded = try PNGDecoder.decode(png).converted(to: .rgba8)
            let expected = try Quantizer.quantize(image, options: QuantizationOptions(maxColors: 64, dithering: dithering)).rgbaImage()
            #expect(decoded.pixels == expected.pixels)
        }
    }

    @Test func smallestBitDepth() throws {
        let image = Self.picture(alpha: false)
        for (colors, depth) in [(2, 1), (4, 2), (16, 4), (17, 8)] {
            var options = PNGEncodingOptions()
            options.quantization = PNGQuantization(maxColors: colors, dithering: .none)
            let png = try PNGEncoder.encode(image, options: options)
            #expect(EncoderTests.chunks(png)[0].data[8] == UInt8(depth), "\(colors) colours")
        }
    }

    @Test func qualityFloorKeepsLossless() throws {
        let image = Self.picture(alpha: false)
        var options = PNGEncodingOptions()
        options.quantization = PNGQuantization(maxColors: 2, dithering: .none, minimumQuality: 90)
        let png = try PNGEncoder.encode(image, options: options)
        #expect(EncoderTests.chunks(png)[0].data[9] == 6)    // RGBA as given: the palette fell below 90
        #expect(try PNGDecoder.decode(png).pixels == image.pixels)
        options.quantization = PNGQuantization(maxColors: 256, dithering: .none, minimumQuality: 30)
        #expect(EncoderTests.chunks(try PNGEncoder.encode(image, options: options))[0].data[9] == 3)
        options.quantization = PNGQuantization(minimumQuality: 90, targetQuality: 80)
        #expect(throws: PNGError.self) { try PNGEncoder.encode(image, options: options) }
    }

    /// With a target quality, a palette whose nearest-entry remap meets it (rated as pngquant
    /// rates it) is written without error diffusion; one that misses it is dithered as asked.
    @Test func dithersOnlyBelowTheTarget() throws {
        let image = Self.picture(alpha: true)
        var branches = Set<Bool>()
        for (colors, target) in [(64, 1), (4, 100)] {
            var options = PNGEncodingOptions()
            options.quantization = PNGQuantization(maxColors: colors, dithering: .floydSteinberg(strength: 1),
                                                   targetQuality: target)
            let decoded = try PNGDecoder.decode(try PNGEncoder.encode(image, options: options)).converted(to: .rgba8)
            let plain = try Quantizer.quantize(image, options: QuantizationOptions(maxColors: colors, dithering: .none,
                                                                                 targetQuality: target))
            let dithered = try Quantizer.remap(image, palette: plain.palette, dithering: .floydSteinberg(strength: 1))
            #expect(plain.rgbaImage().pixels != dithered.rgbaImage().pixels)
            let meets = QuantizationQuality.quality(forError: try QuantizationQuality.pngquantError(of: plain, source: image)) >= target
            branches.insert(meets)
            #expect(decoded.pixels == (meets ? plain : dithered).rgbaImage().pixels)
        }
        #expect(branches == [true, false])
    }

    /// The floor rates the undithered palette: a 2-colour palette rates low, dithered or not.
    @Test func floorRatesTheUnditheredPalette() throws {
        let image = Self.picture(alpha: false)
        let plain = try Quantizer.quantize(image, options: QuantizationOptions(maxColors: 2, dithering: .none))
        let rating = QuantizationQuality.quality(forError: try QuantizationQuality.pngquantError(of: plain, source: image))
        var options = PNGEncodingOptions()
        options.quantization = PNGQuantization(maxColors: 2, minimumQuality: rating + 1)
        #expect(EncoderTests.chunks(try PNGEncoder.encode(image, options: options))[0].data[9] == 6)
        options.quantization = PNGQuantization(maxColors: 2, minimumQuality: rating)
        #expect(EncoderTests.chunks(try PNGEncoder.encode(image, options: options))[0].data[9] == 3)
    }

    @Test func exactWhenFewColours() throws {
        var image = Image(width: 10, height: 10, format: .rgba8)
        for p in 0 ..< 100 { image.pixels.replaceSubrange(p * 4 ..< p * 4 + 4, with: p % 3 == 0 ? [9, 8, 7, 255] : [1, 2, 3, 0]) }
        var options = PNGEncodingOptions()
        options.quantization = PNGQuantization(maxColors: 256)
        let png = try PNGEncoder.encode(image, options: options)
        #expect(EncoderTests.chunks(png)[0].data[8] == 1)
        let decoded = try PNGDecoder.decode(png).converted(to: .rgba8)
        for p in 0 ..< 100 {
            #expect(decoded.pixels[p * 4 + 3] == image.pixels[p * 4 + 3])
            if image.pixels[p * 4 + 3] == 255 { #expect(decoded.pixels[p * 4 ..< p * 4 + 3] == image.pixels[p * 4 ..< p * 4 + 3]) }
        }
    }
}
