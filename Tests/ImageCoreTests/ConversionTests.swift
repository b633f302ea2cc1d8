import Testing
@testable import ImageCore

@Suite struct ConversionTests {
    @Test func crcOfCheckString() {
        #expect(CRC32.checksum(Array("123456789".utf8)) == 0xCBF4_3926)
    }

    @Test(arguments: PixelFormat.allCases, PixelFormat.allCases)
    func eightBitRoundTripsThroughEveryFormat(from: PixelFormat, via: PixelFormat) {
        // Gray values survive any detour; colour survives any detour that keeps colour.
        let values: [UInt8] = [0, 1, 127, 128, 254, 255]
        var image = Image(width: values.count, height: 1, format: .rgba8)
        for (i, v) in values.enumerated() {
            image.pixels[4 * i ..< 4 * i + 4] = [v, v, v, 255 - v]
        }
        let start = image.converted(to: from.eightBit)
        let back = start.converted(to: via).converted(to: from.eightBit)
        if via.isColor || !from.isColor, via.hasAlpha || !from.hasAlpha {
            #expect(back == start)
        }
    }

    @Test func sixteenToEightRounds() {
        var image = Image(width: 4, height: 1, format: .gray16)
        image.pixels.withUnsafeMutableBytes { raw in
            let p = raw.bindMemory(to: UInt16.self)
            p[0] = 0; p[1] = 128; p[2] = 386; p[3] = 65535
        }
        #expect(image.converted(to: .gray8).pixels == [0, 0, 2, 255])
    }

    @Test func lumaFromRGB() {
        let image = Image(width: 1, height: 1, format: .rgb8, pixels: [255, 0, 0])
        #expect(image.converted(to: .gray8).pixels == [76])
    }

    @Test func premultiplyAndBack() {
        let image = Image(width: 2, height: 1, format: .rgba8, pixels: [200, 100, 50, 128, 10, 20, 30, 0])
        let pre = image.premultiplied()
        #expect(pre.pixels == [100, 50, 25, 128, 0, 0, 0, 0])
        #expect(pre.isPremultiplied)
        #expect(pre.unpremultiplied().pixels == [199, 100, 50, 128, 0, 0, 0, 0])
    }

    @Test func paletteExpansionWithOutOfRangeIndex() {
        let palette = Palette(rgb: [1, 2, 3, 4, 5, 6], alphas: [9])
        let indices: [UInt8] = [1, 0, 7]
        var out = [UInt8](repeating: 0, count: 12)
        indices.withUnsafeBufferPointer { i in
            out.withUnsafeMutableBufferPointer { palette.expand(i, into: $0, alpha: true) }
        }
        #expect(out == [4, 5, 6, 255, 1, 2, 3, 9, 0, 0, 0, 255])
    }

    @Test(arguments: Orientation.allCases)
    func orientationRoundTrip(orientation: Orientation) {
        // 3x2 image of distinct pixels; applying an orientation then its inverse gives it back.
        let image = Image(width: 3, height: 2, format: .gray8, pixels: [1, 2, 3, 4, 5, 6])
        let turned = image.oriented(orientation)
        #expect(turned.width == (orientation.swapsDimensions ? 2 : 3))
        let inverse: Orientation = switch orientation { case .right: .left; case .left: .right; default: orientation }
        #expect(turned.oriented(inverse).pixels == image.pixels)
    }

    @Test func orientationRightRotatesClockwise() {
        // Stored:  1 2 3      Displayed (turned 90° clockwise):  4 1
        //          4 5 6                                          5 2
        //                                                         6 3
        let image = Image(width: 3, height: 2, format: .gray8, pixels: [1, 2, 3, 4, 5, 6])
        #expect(image.oriented(.right).pixels == [4, 1, 5, 2, 6, 3])
    }
}

@Suite struct BufferTests {
    @Test func inputBufferCompactsAndKeepsOffsets() {
        var buffer = InputBuffer()
        buffer.append(contentsOf: [1, 2, 3, 4, 5])
        buffer.consume(3)
        #expect(buffer.offset() == 3 && buffer.count == 2 && buffer[0] == 4)
        buffer.append(contentsOf: [6, 7, 8, 9])
        #expect(buffer.uint32BE(at: 1) == 0x0506_0708)
        #expect(buffer.uint32BE(at: 3) == nil)
        buffer.consume(6)
        #expect(buffer.isEmpty && buffer.offset() == 9)
    }

    @Test func byteReaderLeavesPositionWhenShort() {
        var reader = ByteReader([0x12, 0x34, 0x56])
        #expect(reader.readUInt32BE() == nil && reader.position == 0)
        #expect(reader.readUInt16BE() == 0x1234 && reader.readUInt16LE() == nil && reader.readUInt8() == 0x56)
    }

    @Test func limitsCatchOverflow() {
        let limits = DecodingLimits()
        #expect(limits.check(width: 100_000, height: 100_000, bytesPerPixel: 4) == .pixels(requested: 10_000_000_000, limit: 256_000_000))
        #expect(limits.check(width: Int.max, height: 3, bytesPerPixel: 4) != nil)
        #expect(limits.check(width: 10_000, height: 10_000, bytesPerPixel: 16) == .memory(requested: 1_600_000_000, limit: 1 << 30))
        #expect(limits.check(width: 4000, height: 3000, bytesPerPixel: 4) == nil)
    }
}
