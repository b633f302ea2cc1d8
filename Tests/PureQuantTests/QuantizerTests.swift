import Testing
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import ImageCore
@testable import PureQuant

/// A deterministic test picture: smooth gradients, a noisy patch and (optionally) an alpha ramp
/// with a fully transparent corner.
func testPicture(width: Int = 96, height: Int = 64, alpha: Bool = false, seed: UInt32 = 1) -> Image {
    var image = Image(width: width, height: height, format: .rgba8)
    var state = seed
    for y in 0 ..< height {
        for x in 0 ..< width {
            state = state &* 1_664_525 &+ 1_013_904_223
            let noise = Int(state >> 27)
            let o = (y * width + x) * 4
            image.pixels[o] = UInt8(x * 255 / max(width - 1, 1))
            image.pixels[o + 1] = UInt8(y * 255 / max(height - 1, 1))
            image.pixels[o + 2] = UInt8(x > width / 2 && y > height / 2 ? (128 + noise * 3) & 255 : (x + y) & 255)
            var a = 255
            if alpha {
                if x < 8 && y < 8 { a = 0 } else if y < height / 4 { a = x * 255 / width }
            }
            image.pixels[o + 3] = UInt8(a)
        }
    }
    return image
}

func psnr(_ a: Image, _ b: Image) -> Double {
    var sum = 0.0
    for i in 0 ..< a.pixels.count {
        let d = Double(a.pixels[i]) - Double(b.pixels[i])
        sum += d * d
    }
    let mse = sum / Double(a.pixels.count)
    return mse == 0 ? .infinity : 10 * log10(65025 / mse)
}


@Suite struct QuantizerTests {
    @Test(arguments: [2, 3, 16, 100, 256])
    func paletteSizeWithinBounds(colors: Int) throws {
        let image = testPicture()
        for dithering in [Dithering.none, .floydSteinberg(strength: 1), .ordered(strength: 1)] {
            let q = try Quantizer.quantize(image, options: QuantizationOptions(maxColors: colors, dithering: dithering))
            #expect(q.palette.count <= colors)
            #expect(q.palette.count >= 2)
            #expect(q.indices.count == image.pixelCount)
            #expect(q.indices.allSatisfy { Int($0) < q.palette.count })
        }
    }

    @Test func rejectsBadOptions() {
        #expect(throws: QuantizationError.self) { try Quantizer.quantize(testPicture(), options: QuantizationOptions(maxColors: 1)) }
        #expect(throws: QuantizationError.self) { try Quantizer.quantize(testPicture(), options: QuantizationOptions(maxColors: 257)) }
        #expect(throws: QuantizationError.self) {
            try Quantizer.quantize(testPicture(), options: QuantizationOptions(dithering: .floydSteinberg(strength: 1.5)))
        }
    }

    @Test func exactWhenFewColours() throws {
        var image = Image(width: 40, height: 30, format: .rgba8)
        let colours: [[UInt8]] = [[255, 0, 0, 255], [0, 255, 0, 128], [0, 0, 0, 0], [10, 20, 30, 255], [10, 20, 31, 255]]
        for p in 0 ..< image.pixelCount {
            image.pixels.replaceSubrange(p * 4 ..< p * 4 + 4, with: colours[(p * 7 + p / 40) % colours.count])
        }
        for dithering in [Dithering.none, .floydSteinberg(strength: 1), .ordered(strength: 1)] {
            let q = try Quantizer.quantize(image, options: QuantizationOptions(maxColors: 5, dithering: dithering))
            #expect(q.rgbaImage().pixels == image.pixels)
            #expect(q.meanSquaredError == 0)
            #expect(q.palette.count == 5)
            #expect(q.transparentCount == 2)
            #expect(q.palette[0] == RGBAColor(r: 0, g: 0, b: 0, a: 0))
        }
    }

    /// Fuzz finding: the colour packed as 1 (black at alpha 1) was the "no previous colour"
    /// sentinel of the histogram and remap loops (index -1, a trap).
    @Test func blackAtAlphaOne() throws {
        let image = Image(width: 2, height: 1, format: .rgba8, pixels: [0, 0, 0, 1, 9, 9, 9, 255])
        for colors in [2, 256] {
            let q = try Quantizer.quantize(image, options: QuantizationOptions(maxColors: colors, dithering: .none))
            #expect(q.rgbaImage().pixels == image.pixels)
            let r = try Quantizer.remap(image, palette: [RGBAColor(r: 9, g: 9, b: 9), RGBAColor(r: 0, g: 0, b: 0, a: 1)])
            #expect(r.indices == [1, 0])
        }
    }

    @Test func alphaKept() throws {
        let image = testPicture(alpha: true)
        for dithering in [Dithering.none, .floydSteinberg(strength: 1)] {
            let q = try Quantizer.quantize(image, options: QuantizationOptions(maxColors: 32, dithering: dithering))
            let out = q.rgbaImage()
            #expect(q.palette.contains(RGBAColor(r: 0, g: 0, b: 0, a: 0)))
            for p in 0 ..< image.pixelCount {
                let a = image.pixels[p * 4 + 3], b = out.pixels[p * 4 + 3]
                if a == 0 { #expect(b == 0) }            // fully transparent stays so
                if a == 255 { #expect(b == 255) }        // opaque stays opaque
            }
            // Partly transparent pixels keep partly transparent colours.
            let partial = (0 ..< image.pixelCount).filter { image.pixels[$0 * 4 + 3] > 60 && image.pixels[$0 * 4 + 3] < 200 }
            #expect(!partial.isEmpty)
            #expect(partial.allSatisfy { out.pixels[$0 * 4 + 3] > 0 })
            #expect(partial.filter { out.pixels[$0 * 4 + 3] < 255 }.count * 20 >= partial.count * 19)
            // Non-opaque entries first.
            let t = q.transparentCount
            #expect(q.palette[t...].allSatisfy { $0.a == 255 })
        }
    }

    @Test func sameForEveryThreadCount() throws {
        let image = testPicture(width: 200, height: 150, alpha: true)
        for dithering in [Dithering.none, .floydSteinberg(strength: 0.7), .ordered(strength: 1)] {
            let one = try Quantizer.quantize(image, options: QuantizationOptions(maxColors: 64, dithering: dithering, threads: 1))
            for threads in [2, 3, 8] {
                let many = try Quantizer.quantize(image, options: QuantizationOptions(maxColors: 64, dithering: dithering, threads: threads))
                #expect(many == one)
            }
        }
    }

    @Test func remapIsStableAcrossImages() throws {
        let a = testPicture(seed: 1), b = testPicture(seed: 2)
        let palette = try Quantizer.palette(for: a, options: QuantizationOptions(maxColors: 40))
        let qa = try Quantizer.remap(a, palette: palette), qb = try Quantizer.remap(b, palette: palette)
        var indexOf: [UInt32: UInt8] = [:]
        a.pixels.withUnsafeBytes { ra in
            let pa = ra.bindMemory(to: UInt32.self)
            for i in 0 ..< a.pixelCount { indexOf[pa[i]] = qa.indices[i] }
        }
        var shared = 0
        b.pixels.withUnsafeBytes { rb in
            let pb = rb.bindMemory(to: UInt32.self)
            for i in 0 ..< b.pixelCount {
                if let k = indexOf[pb[i]] { shared += 1; #expect(qb.indices[i] == k) }
            }
        }
        #expect(shared > 1000)
    }

    /// A prepared palette remaps as the palette itself, in any entry order (the transparent
    /// entry first or last, as GIF palettes hold it), with and without a mask and dithering.
    @Test func preparedPaletteRemapsAsThePalette() throws {
        let a = testPicture(alpha: true, seed: 1), b = testPicture(alpha: true, seed: 3)
        var palette = try Quantizer.palette(for: a, options: QuantizationOptions(maxColors: 63))
        palette.removeAll { $0.a == 0 }
        let mask = (0 ..< b.pixelCount).map { UInt8($0 % 3 == 0 ? 0 : 1) }
        for order in [[RGBAColor(r: 0, g: 0, b: 0, a: 0)] + palette, palette + [RGBAColor(r: 0, g: 0, b: 0, a: 0)]] {
            let prepared = try PreparedPalette(order)
            for dithering in [Dithering.none, .floydSteinberg(strength: 1), .ordered(strength: 0.5)] {
                for m in [nil, mask] {
                    let plain = try Quantizer.remap(b, palette: order, mask: m, dithering: dithering)
                    let fast = try Quantizer.remap(b, prepared: prepared, mask: m, dithering: dithering)
                    #expect(plain == fast)
                }
            }
        }
        #expect(throws: QuantizationError.self) { try PreparedPalette([]) }
    }

    @Test func qualityImprovesWithColours() throws {
        let image = testPicture(width: 128, height: 96)
        var last = 0.0
        for colors in [4, 16, 64, 256] {
            let q = try Quantizer.quantize(image, options: QuantizationOptions(maxColors: colors, dithering: .none))
            let p = psnr(image, q.rgbaImage())
            #expect(p > last)
            last = p
        }
        #expect(last > 30)
    }

    @Test func nearestSearchMatchesBruteForce() {
        var state: UInt32 = 7
        func next() -> Float { state = state &* 1_664_525 &+ 1_013_904_223; return Float(state >> 8) / Float(1 << 24) }
        let palette = (0 ..< 200).map { _ in Point(next() * 0.5, next(), next() * 0.45, next() * 0.625) }
        let search = NearestSearch(palette: palette)
        for q in 0 ..< 2000 {
            let p = Point(next() * 0.5, next(), next() * 0.45, next() * 0.625)
            var best = 0
            for i in palette.indices where Perceptual.distance(p, palette[i]) < Perceptual.distance(p, palette[best]) { best = i }
            #expect(search.nearest(p, guess: q % 200).index == best)
        }
    }

    @Test func perceptualRoundTrip() {
        Perceptual.gammaTable.withUnsafeBufferPointer { gt in
            for c: UInt32 in [0xFF00_00FF, 0x0102_0380, 0x8040_20FF, 0xFFFF_FF01, 0x0000_0000, 0x7F7F_7F7F] {
                #expect(Perceptual.color(Perceptual.point(c, gt)) == c)
            }
        }
    }

    @Test func qualityScale() {
        #expect(QuantizationQuality.quality(forError: 0) == 100)
        #expect(QuantizationQuality.maximumError(forQuality: 80) < QuantizationQuality.maximumError(forQuality: 60))
        #expect(QuantizationQuality.quality(forError: QuantizationQuality.maximumError(forQuality: 70)) == 70)
    }
}
