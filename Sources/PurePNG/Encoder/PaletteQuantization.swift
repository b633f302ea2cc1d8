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
    /// pngquant's `--quality min`: when the palette rates below this (0...100, pngquant's
    /// scale over `QuantizationQuality.pngquantError(of:source:)` of the undithered remap),
    /// the image is written losslessly instead, as if no quantization had been asked for.
    public var minimumQuality: Int?
    /// pngquant's `--quality max`: fewer colours are used once the palette reaches it, and
    /// `dithering` is applied only when the palette's nearest-entry remap rates below it.
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
        guard q.minimumQuality != nil || q.targetQuality != nil else {
            do {
                let options = QuantizationOptions(maxColors: q.maxColors, dithering: q.dithering, threads: threads)
                var out = try Quantizer.quantize(image, options: options).rgbaImage()
                out.metadata = image.metadata
                return out
            } catch {
                throw .invalidParameter(error.description)
            }
        }
        // With a quality range, the palette is rated as pngquant rates it (libimagequant's
        // colour difference, alpha counted in every colour lane) on its nearest-entry remap:
        // the error of the palette itself, not of the dithering. Below the minimum the image
        // stays lossless. Error diffusion then serves only a palette that misses the target:
        // one that meets it alone gains nothing from the diffused error but noise, which SSIM
        // counts against it and deflate pays for.
        let options = QuantizationOptions(maxColors: q.maxColors, dithering: .none,
                                          targetQuality: q.targetQuality, threads: threads)
        var result: QuantizedImage
        do {
            result = try Quantizer.quantize(image, options: options)
            let rating = QuantizationQuality.quality(forError: try QuantizationQuality.pngquantError(of: result, source: image))
            if let floor = q.minimumQuality, rating < floor { return nil }
            if q.dithering != .none && rating < (q.targetQuality ?? 101) {
                result = try Quantizer.remap(image, palette: result.palette, dithering: q.dithering, threads: threads)
            }
        } catch {
            throw .invalidParameter(error.description)
        }
        var out = result.rgbaImage()
        out.metadata = image.metadata
        return out
    }
}
