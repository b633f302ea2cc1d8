import ImageCore
import PureQuant

/// PNG8 output: the image reduced to a palette by `PureQuant.Quantizer` before encoding
/// (pngquant's job), written as colour type 3 with tRNS for non-opaque entries (listed
/// first, so tRNS is short) at the smallest bit depth that indexes the palette.
///
/// ```swift
/// var options = PNGEncodingOptions(compressionLevel: 9)
/// options.quantization = PNGQuantization(maxColors: 256, minimumQuality: 65, targetQuality: 80)
/// let png8 = try PNGEncoder.encode(photo, options: options)
/// ```
public struct PNGQuantization: Sendable, Equatable {
    /// At most this many palette entries, 2...256.
    public var maxColors: Int
    /// How pixels map to the palette.
    public var dithering: Dithering
    /// pngquant's `--quality min`: when the palette rates below this (0...100), the image is
    /// written losslessly instead, as if no quantization had been asked for.
    public var minimumQuality: Int?
    /// pngquant's `--quality max`: fewer colours are used once the palette reaches it.
    public var targetQuality: Int?

    public init(maxColors: Int = 256, dithering: Dithering = .floydSteinberg(strength: 1),
                minimumQuality: Int? = nil, targetQuality: Int? = nil) {
        self.maxColors = maxColors
        self.dithering = dithering
        self.minimumQuality = minimumQuality
        self.targetQuality = targetQuality
    }
}

extension PNGEncoder {
    /// The image as the palette encoder should write it: its remapped pixels (at most
    /// `maxColors` exact colours, which the palette path indexes), or nil when the result
    /// falls below the quality floor.
    static func quantized(_ image: Image, _ q: PNGQuantization, threads: Int?) throws(PNGError) -> Image? {
        if let m = q.minimumQuality, let t = q.targetQuality, m > t {
            throw .invalidParameter("quality range \(m)-\(t): the minimum is above the target")
        }
        let options = QuantizationOptions(maxColors: q.maxColors, dithering: q.dithering,
                                          targetQuality: q.targetQuality, threads: threads)
        let result: QuantizedImage
        do { result = try Quantizer.quantize(image, options: options) } catch {
            throw .invalidParameter(error.description)
        }
        if let floor = q.minimumQuality, result.quality < floor { return nil }
        var out = result.rgbaImage()
        out.metadata = image.metadata
        return out
    }
}
