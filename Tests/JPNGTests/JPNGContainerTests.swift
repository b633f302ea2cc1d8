import ImageCore
@testable import JPNG
import PureJPEG
import PurePNG
import Testing

func le32(_ b: [UInt8], _ i: Int) -> Int { Int(b[i]) | Int(b[i + 1]) << 8 | Int(b[i + 2]) << 16 | Int(b[i + 3]) << 24 }

@Suite struct JPNGContainerTests {
    /// The DCT scale for a size target: the smallest that keeps the longer side at or above it.
    @Test func dctScaleKeepsTheTarget() {
        #expect(JPNGStreamDecoder.dctScale(width: 160, height: 96, maxPixelSize: 40) == 2)   // 1/4 gives 40x24
        #expect(JPNGStreamDecoder.dctScale(width: 160, height: 96, maxPixelSize: 41) == 4)
    }

    /// Reads a file exactly as JPNG-FORMAT.md describes, field by field, independent of our reader.
    @Test func writtenFileFollowsTheFormatLiterally() throws {
        let image = sampleRGBA()
        let file = try JPNGEncoder.encode(image)
        let footer = Array(file.suffix(16))
        let imageSize = le32(footer, 0), maskSize = le32(footer, 4)
        #expect(Int(footer[8]) | Int(footer[9]) << 8 == 16)              // footerSize
        #expect(footer[10] == 1 && footer[11] == 0)                        // version 1.0
        #expect(Array(footer[12 ..< 16]) == [0x47, 0x4E, 0x50, 0x4A])      // "GNPJ"
        #expect(imageSize + maskSize + 16 == file.count)
        let jpeg = Array(file[0 ..< imageSize]), png = Array(file[imageSize ..< imageSize + maskSize])
        #expect(jpeg.starts(with: [0xFF, 0xD8]) && jpeg.suffix(2) == [0xFF, 0xD9])
        #expect(png.starts(with: pngSignature))
        // IHDR: width, height, bit depth 8, colour type 0 (gray), no interlace.
        #expect(png.readUInt32BE(at: 16) == 48 && png.readUInt32BE(at: 20) == 40)
        #expect(png[24] == 8 && png[25] == 0 && png[28] == 0)
        // The mask is the alpha channel exactly; the JPEG is the colour.
        let mask = try PNGDecoder.decode(png)
        #expect(mask.format == .gray8)
        #expect(mask.pixels == stride(from: 3, to: image.pixels.count, by: 4).map { image.pixels[$0] })
        let color = try JPEGDecoder.decode(jpeg)
        #expect(color.width == 48 && color.height == 40 && color.format == .rgb8)
    }

    @Test func roundTripKeepsAlphaExactlyAndColourClose() throws {
        let image = sampleRGBA()
        let decoded = try JPNGDecoder.decode(try JPNGEncoder.encode(image, options: JPNGEncodingOptions(quality: 0.9)))
        #expect(decoded.format == .rgba8 && decoded.width == 48 && decoded.height == 40)
        var worst = 0
        for i in stride(from: 0, to: image.pixels.count, by: 4) {
            #expect(decoded.pixels[i + 3] == image.pixels[i + 3])
            if image.pixels[i + 3] == 255 {
                for c in 0 ..< 3 { worst = max(worst, abs(Int(decoded.pixels[i + c]) - Int(image.pixels[i + c]))) }
            }
        }
        #expect(worst <= 24, "largest colour error in opaque pixels: \(worst)")
    }

    @Test func plainJPEGReadersSeeTheColour() throws {
        let file = try JPNGEncoder.encode(sampleRGBA())
        let asJPEG = try JPEGDecoder.decode(file)
        #expect(asJPEG == (try JPNGDecoder.decodeColor(file)))
        #expect(try JPNGDecoder.decodeMask(file).format == .gray8)
    }

    @Test func documentedFooterExampleParses() throws {
        // The 13,043-byte example of JPNG-FORMAT.md: only the footer matters here.
        var file = [UInt8](repeating: 0, count: 13_043 - 16)
        file[0] = 0xFF; file[1] = 0xD8
        file.replaceSubrange(9659 ..< 9667, with: pngSignature)
        file += [0xBB, 0x25, 0, 0, 0x28, 0x0D, 0, 0, 0x10, 0, 0x01, 0, 0x47, 0x4E, 0x50, 0x4A]
        let (footer, color, mask) = try JPNGDecoder.parts(file)
        #expect(footer.imageSize == 9659 && footer.maskSize == 3368 && footer.footerSize == 16)
        #expect(color.count == 9659 && mask.count == 3368)
    }

    @Test func legacyIdentifierIsAccepted() throws {
        var file = try JPNGEncoder.encode(sampleRGBA())
        file.replaceSubrange(file.count - 4 ..< file.count, with: [0x47, 0x45, 0x50, 0x4A])   // "GEPJ"
        #expect(try JPNGDecoder.decode(file).width == 48)
    }

    @Test func largerFooterOfANewerMinorVersionIsAccepted() throws {
        let image = sampleRGBA()
        let original = try JPNGEncoder.encode(image)
        let footer = try JPNGFooter(file: original)
        // Four bytes of a future field before the known 16.
        let newer = JPNGFooter(imageSize: footer.imageSize, maskSize: footer.maskSize, footerSize: 20, minorVersion: 3)
        let file = Array(original.dropLast(16)) + [9, 9, 9, 9] + newer.bytes
        #expect(try JPNGDecoder.decode(file) == (try JPNGDecoder.decode(original)))
    }

    @Test func eachBrokenFooterHasItsOwnError() throws {
        let good = try JPNGEncoder.encode(sampleRGBA())
        let footer = try JPNGFooter(file: good)
        func withFooter(_ f: JPNGFooter, body: [UInt8]? = nil) -> [UInt8] { (body ?? Array(good.dropLast(16))) + f.bytes }
        func code(_ bytes: [UInt8]) -> String? {
            do { _ = try JPNGDecoder.decode(bytes); return nil } catch { return error.code }
        }
        #expect(code(Array(good.suffix(16))) == "tooShort")
        var badID = good; badID[badID.count - 1] = 0x00
        #expect(code(badID) == "badIdentifier")
        var v2 = footer; v2.majorVersion = 2
        #expect(code(withFooter(v2)) == "unsupportedVersion")
        var small = footer; small.footerSize = 15
        #expect(code(withFooter(small)) == "invalidFooterSize")
        var long = footer; long.maskSize += 1000
        #expect(code(withFooter(long)) == "partsExceedFile")
        var notJPEG = Array(good.dropLast(16)); notJPEG[0] = 0
        #expect(code(withFooter(footer, body: notJPEG)) == "colorPartNotJPEG")
        var notPNG = Array(good.dropLast(16)); notPNG[Int(footer.imageSize) + 1] = 0
        #expect(code(withFooter(footer, body: notPNG)) == "maskPartNotPNG")
        // A mask of another size.
        let otherMask = try PNGEncoder.encode(Image(width: 3, height: 3, format: .gray8))
        let jpeg = Array(good[0 ..< Int(footer.imageSize)])
        let mismatched = jpeg + otherMask + JPNGFooter(imageSize: footer.imageSize, maskSize: UInt32(otherMask.count)).bytes
        #expect(code(mismatched) == "sizeMismatch")
        // A corrupt JPEG part reports the colour part's own error.
        var corrupt = good
        if let sof = (0 ..< Int(footer.imageSize) - 1).first(where: { good[$0] == 0xFF && good[$0 + 1] == 0xC0 }) {
            corrupt[sof + 1] = 0xC3   // lossless: unsupported
        }
        #expect(code(corrupt) == "colorPart")
    }

    @Test func anyMaskPNGIsAccepted() throws {
        let image = sampleRGBA(width: 8, height: 8)
        let good = try JPNGEncoder.encode(image)
        let footer = try JPNGFooter(file: good)
        let alpha = stride(from: 3, to: image.pixels.count, by: 4).map { image.pixels[$0] }
        // A 16-bit gray mask (high byte is the alpha) and an RGB mask (its gray value).
        var mask16 = Image(width: 8, height: 8, format: .gray16)
        mask16.pixels.withUnsafeMutableBytes { raw in
            let s = raw.bindMemory(to: UInt16.self)
            for i in 0 ..< 64 { s[i] = UInt16(alpha[i]) << 8 | 0x7F }
        }
        let maskRGB = Image(width: 8, height: 8, format: .rgb8, pixels: alpha.flatMap { [$0, $0, $0] })
        for mask in [mask16, maskRGB] {
            let png = try PNGEncoder.encode(mask)
            let file = Array(good[0 ..< Int(footer.imageSize)]) + png
                + JPNGFooter(imageSize: footer.imageSize, maskSize: UInt32(png.count)).bytes
            let decoded = try JPNGDecoder.decode(file)
            #expect(stride(from: 3, to: decoded.pixels.count, by: 4).map { decoded.pixels[$0] } == alpha)
        }
    }

    /// A red shape on transparent white: without filling, JPEG blocks on the edge mix in the
    /// white and the visible edge turns pink; with filling, it stays red.
    @Test(arguments: [true, false])
    func noHaloAtTransparentEdges(fill: Bool) throws {
        let size = 64
        var image = Image(width: size, height: size, format: .rgba8)
        for y in 0 ..< size {
            for x in 0 ..< size {
                let inside = (x - 32) * (x - 32) + (y - 32) * (y - 32) < 20 * 20
                let i = 4 * (y * size + x)
                image.pixels[i ..< i + 4] = inside ? [220, 0, 0, 255] : [255, 255, 255, 0]
            }
        }
        let options = JPNGEncodingOptions(quality: 0.8, fillTransparentPixels: fill)
        let decoded = try JPNGDecoder.decode(try JPNGEncoder.encode(image, options: options))
        var worstFringe = 0
        for i in stride(from: 0, to: decoded.pixels.count, by: 4) where decoded.pixels[i + 3] == 255 {
            worstFringe = max(worstFringe, Int(decoded.pixels[i + 1]), Int(decoded.pixels[i + 2]))
        }
        if fill {
            #expect(worstFringe < 20, "light fringe: green/blue up to \(worstFringe) in visible pixels")
        } else {
            #expect(worstFringe > 40, "expected the unfilled encoding to show the halo the fill prevents")
        }
    }

    @Test func imageWithoutAlphaGetsAnOpaqueMask() throws {
        let rgb = sampleRGBA().converted(to: .rgb8)
        #expect(!JPNGEncoder.hasTransparency(rgb))
        let decoded = try JPNGDecoder.decode(try JPNGEncoder.encode(rgb))
        #expect(stride(from: 3, to: decoded.pixels.count, by: 4).allSatisfy { decoded.pixels[$0] == 255 })
    }

    @Test func sixteenBitInputAndPremultipliedOutput() throws {
        let image = sampleRGBA().converted(to: .rgba16)
        let decoded = try JPNGDecoder.decode(try JPNGEncoder.encode(image))
        #expect(decoded.format == .rgba8)
        let pre = decoded.premultiplied()
        #expect(pre.isPremultiplied)
        for i in stride(from: 0, to: pre.pixels.count, by: 4) where decoded.pixels[i + 3] == 0 {
            #expect(pre.pixels[i] == 0 && pre.pixels[i + 1] == 0 && pre.pixels[i + 2] == 0)
        }
    }

    @Test func invalidQualityIsRejected() {
        #expect(throws: JPNGError.self) { try JPNGEncoder.encode(sampleRGBA(), options: JPNGEncodingOptions(quality: 0)) }
        #expect(throws: JPNGError.self) { try JPNGEncoder.encode(sampleRGBA(), options: JPNGEncodingOptions(quality: 1.5)) }
    }
}
