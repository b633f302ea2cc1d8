import ImageCore

extension QuantizationQuality {
    /// The mean error of `quantized` against `image` as pngquant's quality scale measures it:
    /// libimagequant's colour difference, which blends each premultiplied colour lane on black
    /// and on white, `max(d², (d + Δα)²)` summed over r, g and b, so an alpha error counts in
    /// every colour lane (pngquant's `--quality` bounds are errors of this kind). For opaque
    /// pixels it equals the distance of ``QuantizedImage/meanSquaredError``. Every pixel counts
    /// once (libimagequant weighs its histogram by a noise map instead).
    ///
    /// ```swift
    /// let q = try Quantizer.quantize(image, options: QuantizationOptions(dithering: .none))
    /// let rating = QuantizationQuality.quality(forError: try QuantizationQuality.pngquantError(of: q, source: image))
    /// ```
    public static func pngquantError(of quantized: QuantizedImage, source image: Image) throws(QuantizationError) -> Double {
        guard image.width == quantized.width, image.height == quantized.height,
              quantized.indices.count == image.pixelCount else {
            throw .invalidParameter("a \(quantized.width)x\(quantized.height) result for a \(image.width)x\(image.height) image")
        }
        let pixels = try Quantizer.rgbaWords(image, mask: nil)
        let n = image.pixelCount
        if n == 0 { return 0 }
        return Perceptual.gammaTable.withUnsafeBufferPointer { table in
            // Perceptual's alpha lane is alpha times its weight (1): the alpha itself.
            let entries = quantized.palette.map { Perceptual.point($0.packed, table) / Point(1, 1, 1, Perceptual.weights[3]) }
            return entries.withUnsafeBufferPointer { pal in
                pixels.withUnsafeBufferPointer { px in
                    quantized.indices.withUnsafeBufferPointer { idx in
                        var sum = 0.0
                        for i in 0 ..< n {
                            let k = Int(idx[i])
                            let q = k < pal.count ? pal[k] : Point()
                            let p = Perceptual.point(UInt32(bigEndian: px[i]), table) / Point(1, 1, 1, Perceptual.weights[3])
                            let black = p - q
                            let white = black + Point(repeating: q[3] - p[3])
                            let d = pointwiseMax(black * black, white * white)
                            sum += Double(d[0] + d[1] + d[2])
                        }
                        return sum / Double(n)
                    }
                }
            }
        }
    }
}
