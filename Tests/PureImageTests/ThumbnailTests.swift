import Foundation
import PureImage
import Testing

/// `RowReducer` against a plain two-dimensional reference written from the definition (box
/// average, then Lanczos-3 per axis, in doubles, the whole image at once), and
/// `ThumbnailDecoder` against decoding whole and reducing.
@Suite struct ThumbnailTests {
    /// The reference: box average by k = max(1, floor(n / target / 2)) per axis (edge boxes
    /// average what exists; none without `box`), then Lanczos-3 stretched by the remaining
    /// factor, pixel centres aligned, taps outside the image dropped and the rest renormalised;
    /// alpha-weighted colour. With `cellAverages` each tap list is then convolved with
    /// [-1/24, 13/12, -1/24], the edge pixels repeated (averages corrected to centre values).
    static func reference(_ image: Image, width outW: Int, height outH: Int, box useBox: Bool = true,
                          cellAverages: Bool = false) -> [Double] {
        let c = image.format.channels, alpha = image.format.hasAlpha ? c - 1 : -1
        let maxValue = image.format.is16Bit ? 65535.0 : 255.0
        func sample(_ x: Int, _ y: Int, _ ch: Int) -> Double {
            let i = (y * image.width + x) * c + ch
            if image.format.is16Bit {
                return Double(image.pixels.withUnsafeBytes { $0.load(fromByteOffset: 2 * i, as: UInt16.self) })
            }
            return Double(image.pixels[i])
        }
        let kx = useBox ? max(1, image.width / outW / 2) : 1, ky = useBox ? max(1, image.height / outH / 2) : 1
        let bw = (image.width + kx - 1) / kx, bh = (image.height + ky - 1) / ky
        var box = [Double](repeating: 0, count: bw * bh * c)
        for by in 0 ..< bh {
            for bx in 0 ..< bw {
                var n = 0.0
                var sums = [Double](repeating: 0, count: c)
                for y in by * ky ..< min(by * ky + ky, image.height) {
                    for x in bx * kx ..< min(bx * kx + kx, image.width) {
                        let a = alpha >= 0 ? sample(x, y, alpha) / maxValue : 1
                        for ch in 0 ..< c { sums[ch] += ch == alpha ? sample(x, y, ch) : sample(x, y, ch) * a }
                        n += 1
                    }
                }
                for ch in 0 ..< c { box[(by * bw + bx) * c + ch] = sums[ch] / n }
            }
        }
        func lanczos(_ x: Double) -> Double {
            if x == 0 { return 1 }
            if abs(x) >= 3 { return 0 }
            return 3 * sin(.pi * x) * sin(.pi * x / 3) / (.pi * x * .pi * x)
        }
        func weights(_ n: Int, _ target: Int, _ i: Int) -> [(Int, Double)] {
            let f = Double(n) / Double(target), s = max(f, 1), centre = (Double(i) + 0.5) * f
            var taps: [(Int, Double)] = []
            for j in 0 ..< n {
                let w = lanczos((Double(j) + 0.5 - centre) / s)
                if w != 0 { taps.append((j, w)) }
            }
            let total = taps.reduce(0) { $0 + $1.1 }
            guard cellAverages && n > 1 else { return taps.map { ($0.0, $0.1 / total) } }
            var corrected = [Int: Double]()
            for (j, w) in taps {
                corrected[j, default: 0] += w / total * (1 + 2.0 / 24)
                corrected[max(j - 1, 0), default: 0] -= w / total / 24
                corrected[min(j + 1, n - 1), default: 0] -= w / total / 24
            }
            return corrected.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
        }
        var out = [Double](repeating: 0, count: outW * outH * c)
        for oy in 0 ..< outH {
            let wy = weights(bh, outH, oy)
            for ox in 0 ..< outW {
                let wx = weights(bw, outW, ox)
                var sums = [Double](repeating: 0, count: c)
                for (y, a) in wy {
                    for (x, b) in wx {
                        for ch in 0 ..< c { sums[ch] += a * b * box[(y * bw + x) * c + ch] }
                    }
                }
                let a = alpha >= 0 ? min(max(sums[alpha], 0), maxValue) / maxValue : 1
                for ch in 0 ..< c {
                    var v = sums[ch]
                    if alpha >= 0 && ch != alpha { v = a > 0 ? v / a : 0 }
                    out[(oy * outW + ox) * c + ch] = min(max(v, 0), maxValue)
                }
            }
        }
        return out
    }

    /// The largest difference between `image`'s samples and `expected`, sample by sample.
    static func largestDifference(_ image: Image, _ expected: [Double]) -> Double {
        var worst = 0.0
        for i in 0 ..< expected.count {
            let got = image.format.is16Bit
                ? Double(image.pixels.withUnsafeBytes { $0.load(fromByteOffset: 2 * i, as: UInt16.self) })
                : Double(image.pixels[i])
            worst = max(worst, abs(got - expected[i]))
        }
        return worst
    }

    static func pattern(width: Int, height: Int, format: PixelFormat, seed: UInt64) -> Image {
        var image = Image(width: width, height: height, format: format)
        var state = seed
        let samples = width * height * format.channels
        image.pixels.withUnsafeMutableBytes { raw in
            for i in 0 ..< samples {
                state = state &* 6364136223846793005 &+ 1442695040888963407
                let x = i / format.channels % width, y = i / format.channels / width
                // Smooth gradients with noise and a hard edge, so every filter stage matters.
                let base = (x * 7 + y * 3) % 256 + (x > width / 2 ? 40 : 0)
                let v = min(255, max(0, base + Int(state >> 60) - 8))
                if format.is16Bit {
                    raw.storeBytes(of: UInt16(min(65535, v * 257 + Int(state >> 58 & 255))), toByteOffset: 2 * i, as: UInt16.self)
                } else {
                    raw[i] = UInt8(v)
                }
            }
        }
        return image
    }

    @Test("the streamed reduction is the reference's, rounded, for every format and factor",
          arguments: [(PixelFormat.rgb8, 97, 61, 20, 13), (.gray8, 64, 64, 64, 20), (.rgba8, 50, 70, 7, 9),
                      (.grayAlpha8, 33, 17, 16, 8), (.rgb16, 40, 30, 13, 10), (.rgba16, 31, 45, 3, 4),
                      (.rgb8, 300, 20, 37, 3), (.gray8, 9, 200, 9, 11)])
    func matchesReference(format: PixelFormat, width: Int, height: Int, outW: Int, outH: Int) {
        let image = Self.pattern(width: width, height: height, format: format, seed: UInt64(width * height))
        let reduced = image.reduced(width: outW, height: outH)
        #expect(reduced.width == outW && reduced.height == outH && reduced.format == format)
        let worst = Self.largestDifference(reduced, Self.reference(image, width: outW, height: outH))
        // Float accumulation against doubles: within one step of rounding (a few at 16 bits).
        #expect(worst <= (format.is16Bit ? 4 : 1), "largest difference \(worst)")
    }

    @Test("cell averages: the streamed reduction is the corrected reference's, rounded",
          arguments: [(PixelFormat.rgb8, 97, 61, 20, 13), (.gray8, 64, 64, 40, 40), (.rgba8, 50, 70, 7, 9),
                      (.rgb16, 40, 30, 13, 10), (.gray8, 2, 200, 1, 11)])
    func cellAveragesMatchReference(format: PixelFormat, width: Int, height: Int, outW: Int, outH: Int) {
        let image = Self.pattern(width: width, height: height, format: format, seed: UInt64(width + height))
        var reducer = RowReducer(sourceWidth: width, sourceHeight: height, format: format, width: outW, height: outH,
                                 sourceIsCellAverages: true)
        image.withRowBand(0 ..< height) { reducer.add($0) }
        let reduced = reducer.finish()
        let worst = Self.largestDifference(reduced, Self.reference(image, width: outW, height: outH, cellAverages: true))
        #expect(worst <= (format.is16Bit ? 4 : 1), "largest difference \(worst)")
    }

    @Test("an image of 8x8 averages, filtered as averages, comes closer to the full image's reduction")
    func cellAveragesCloser() {
        // A smooth 16-bit picture (periods of 40 to 90 pixels), its 8x8 block averages (what a
        // JPEG at 1/8 holds), and the Lanczos-3 reduction of the full picture as the goal.
        let w = 512, h = 384, outW = 32, outH = 24
        func value(_ x: Double, _ y: Double) -> Double {
            32768 + 12000 * sin(x / 9) * cos(y / 13) + 9000 * sin((x + 2 * y) / 14) + 6000 * cos((3 * x - y) / 20)
        }
        var full = Image(width: w, height: h, format: .gray16)
        var averages = Image(width: w / 8, height: h / 8, format: .gray16)
        full.pixels.withUnsafeMutableBytes { raw in
            for y in 0 ..< h {
                for x in 0 ..< w { raw.storeBytes(of: UInt16(value(Double(x), Double(y)).rounded()), toByteOffset: 2 * (y * w + x), as: UInt16.self) }
            }
        }
        averages.pixels.withUnsafeMutableBytes { raw in
            for by in 0 ..< h / 8 {
                for bx in 0 ..< w / 8 {
                    var sum = 0.0
                    for y in 0 ..< 8 { for x in 0 ..< 8 { sum += value(Double(bx * 8 + x), Double(by * 8 + y)) } }
                    raw.storeBytes(of: UInt16((sum / 64).rounded()), toByteOffset: 2 * (by * (w / 8) + bx), as: UInt16.self)
                }
            }
        }
        let goal = Self.reference(full, width: outW, height: outH, box: false)
        func error(_ corrected: Bool) -> Double {
            var reducer = RowReducer(sourceWidth: w / 8, sourceHeight: h / 8, format: .gray16, width: outW, height: outH,
                                     sourceIsCellAverages: corrected)
            averages.withRowBand(0 ..< h / 8) { reducer.add($0) }
            let out = reducer.finish()
            var sum = 0.0
            for i in 0 ..< goal.count {
                let d = Double(out.pixels.withUnsafeBytes { $0.load(fromByteOffset: 2 * i, as: UInt16.self) }) - goal[i]
                sum += d * d
            }
            return (sum / Double(goal.count)).squareRoot()
        }
        let plain = error(false), corrected = error(true)
        #expect(corrected < 0.8 * plain, "RMS error \(corrected) corrected, \(plain) plain")
    }

    @Test("rows fed in bands of any size give the same result")
    func bandSizesAgree() {
        let image = Self.pattern(width: 120, height: 90, format: .rgb8, seed: 5)
        let whole = image.reduced(width: 31, height: 23)
        for bandRows in [1, 7, 16, 89] {
            var reducer = RowReducer(sourceWidth: 120, sourceHeight: 90, format: .rgb8, width: 31, height: 23)
            var y = 0
            while y < 90 {
                let end = min(90, y + bandRows)
                image.withRowBand(y ..< end) { reducer.add($0) }
                y = end
            }
            #expect(reducer.finish().pixels == whole.pixels, "bands of \(bandRows)")
        }
    }

    @Test("a flat image stays flat, and transparent colour does not bleed into opaque pixels")
    func flatAndAlpha() {
        var flat = Image(width: 50, height: 40, format: .rgba8)
        for i in stride(from: 0, to: flat.pixels.count, by: 4) { flat.pixels[i ..< i + 4] = [200, 100, 50, 255] }
        #expect(Set(flat.reduced(width: 13, height: 11).pixels.enumerated().map { [200, 100, 50, 255][$0.offset % 4] == $0.element }) == [true])
        // Left half opaque red, right half fully transparent green: no green anywhere.
        var half = Image(width: 40, height: 10, format: .rgba8)
        for y in 0 ..< 10 {
            for x in 0 ..< 40 {
                let i = (y * 40 + x) * 4
                half.pixels[i ..< i + 4] = x < 20 ? [255, 0, 0, 255] : [0, 255, 0, 0]
            }
        }
        let small = half.reduced(width: 10, height: 3)
        for i in stride(from: 0, to: small.pixels.count, by: 4) where small.pixels[i + 3] > 0 {
            #expect(small.pixels[i + 1] == 0 && small.pixels[i] == 255, "pixel \(i / 4): \(small.pixels[i ..< i + 4])")
        }
    }

    @Test func sizes() {
        #expect(RowReducer.size(width: 16000, height: 12000, maxPixelSize: 1024) == (1024, 768))
        #expect(RowReducer.size(width: 3000, height: 4000, maxPixelSize: 256) == (192, 256))
        #expect(RowReducer.size(width: 100, height: 50, maxPixelSize: 256) == (100, 50))
        #expect(RowReducer.size(width: 5000, height: 1, maxPixelSize: 100) == (100, 1))
    }

    static let inputs = ["jpeg-encoder/photo_64x48_q75_420.jpg", "jpeg-encoder/photo_64x48_q75_420_prog.jpg",
                         "jpeg/valid/exif_orientation6.jpg", "png/pngsuite/basn6a16.png", "png/pngsuite/basi2c08.png",
                         "gif/pillow_anim.gif", "netpbm/rgb_p6_maxval100.ppm"]

    @Test("a thumbnail is the decode (JPEG: at the DCT scale that covers the size) reduced, whole and in pieces",
          arguments: inputs, [7, 20, 40])
    func thumbnailIsReducedDecode(path: String, size: Int) throws {
        let bytes = try TestVectors.bytes(path)
        var decoded = try ImageSource.decode(bytes)
        var cellAverages = false
        if bytes.starts(with: [0xFF, 0xD8]) {
            // 1/8 (block averages) when it covers the size, else the scale that leaves 2x.
            let longer = max(decoded.width, decoded.height)
            cellAverages = (longer + 7) / 8 >= size
            let scale = cellAverages ? 1 : [1, 2, 4].first { (longer * $0 + 7) / 8 >= 2 * size } ?? 8
            decoded = try JPEGDecoder.decode(bytes, options: JPEGDecodingOptions(scale: scale))
        }
        let stored = RowReducer.size(width: decoded.width, height: decoded.height, maxPixelSize: size)
        var reducer = RowReducer(sourceWidth: decoded.width, sourceHeight: decoded.height, format: decoded.format,
                                 width: stored.width, height: stored.height, sourceIsCellAverages: cellAverages)
        decoded.withRowBand(0 ..< decoded.height) { reducer.add($0) }
        var expected = stored.width < decoded.width || stored.height < decoded.height ? reducer.finish() : decoded
        expected = expected.oriented(decoded.metadata.orientation)
        // Thumbnails are sRGB: the PNGs' gAMA chunk (PngSuite's 1.0) is applied after the reduction.
        expected.metadata = decoded.metadata
        expected = expected.inColorSpace(.sRGB).image
        let whole = try ImageSource.thumbnail(bytes, maxPixelSize: size)
        #expect(whole.width == expected.width && whole.height == expected.height && whole.pixels == expected.pixels)
        #expect(max(whole.width, whole.height) == min(size, max(decoded.width, decoded.height)))
        for piece in [1, 13, 4096] {
            var thumbnailer = ThumbnailDecoder(maxPixelSize: size)
            var i = 0
            while i < bytes.count {
                try thumbnailer.append(bytes[i ..< min(bytes.count, i + piece)])
                i += piece
            }
            #expect(try thumbnailer.finish().pixels == whole.pixels, "\(piece)-byte pieces")
        }
    }

    @Test("the EXIF orientation is applied unless turned off")
    func orientation() throws {
        let bytes = try TestVectors.bytes("jpeg/valid/exif_orientation6.jpg")
        let info = try ImageSource.decode(bytes)
        let upright = try ImageSource.thumbnail(bytes, maxPixelSize: 16)
        let stored = try ImageSource.thumbnail(bytes, maxPixelSize: 16, options: ImageSourceOptions())
        #expect(info.metadata.orientation == .right)
        #expect(upright.width == stored.height && upright.height == stored.width)
    }

    @Test("a JPNG thumbnail carries its mask, reduced to the same size")
    func jpng() throws {
        var image = Self.pattern(width: 64, height: 40, format: .rgba8, seed: 9)
        for i in stride(from: 3, to: image.pixels.count, by: 4) { image.pixels[i] = UInt8(i / 4 % 64 * 4) }
        let bytes = try JPNGEncoder.encode(image)
        let thumbnail = try ImageSource.thumbnail(bytes, maxPixelSize: 16)
        #expect(thumbnail.format == .rgba8 && thumbnail.width == 16 && thumbnail.height == 10)
        let mask = try JPNGDecoder.decodeMask(bytes).reduced(width: 16, height: 10)
        #expect((0 ..< 160).allSatisfy { thumbnail.pixels[4 * $0 + 3] == mask.pixels[$0] })
    }

    @Test("async: the same thumbnail from a sequence of pieces")
    func asyncPieces() async throws {
        let bytes = try TestVectors.bytes("jpeg-encoder/photo_64x48_q75_420.jpg")
        let stream = AsyncStream<[UInt8]> { continuation in
            for start in stride(from: 0, to: bytes.count, by: 100) {
                continuation.yield(Array(bytes[start ..< min(bytes.count, start + 100)]))
            }
            continuation.finish()
        }
        let fromStream = try await ImageSource.thumbnail(from: stream, maxPixelSize: 20)
        #expect(fromStream == (try ImageSource.thumbnail(bytes, maxPixelSize: 20)))
    }
}
