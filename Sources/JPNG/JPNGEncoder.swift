import ImageCore
import PureJPEG
import PurePNG

/// Options for writing JPNG files: the colour part's JPEG quality, progression and
/// subsampling, the mask's compression level, and whether hidden pixels are recoloured.
///
/// ```swift
/// var options = JPNGEncodingOptions()      // quality 0.8, baseline 4:2:0
/// options.quality = 0.9
/// options.subsampling = .s444              // sharper colour edges, larger file
/// let jpng = try JPNGEncoder.encode(image, options: options)
/// ```
public struct JPNGEncodingOptions: Sendable, Equatable {
    /// JPEG quality in (0, 1] (JPNG's scale; 0.8 is JPEG quality 80).
    public var quality: Double
    /// Write the colour part as a progressive JPEG.
    public var progressive: Bool
    /// Chroma subsampling of the colour part; 4:2:0 (the default) as the original library wrote.
    public var subsampling: ChromaSubsampling
    /// zlib level 0-9 of the PNG mask.
    public var maskCompressionLevel: Int
    /// Recolour fully transparent pixels from their visible neighbours before JPEG encoding
    /// (no halo at edges; nothing visible changes).
    public var fillTransparentPixels: Bool

    /// Options with the original library's defaults: quality 0.8, baseline 4:2:0, mask at zlib
    /// level 9, transparent pixels filled. Checked when encoding: a quality outside (0, 1] or a
    /// level outside 0-9 throws ``JPNGError/invalidParameter(_:)``.
    ///
    /// ```swift
    /// let options = JPNGEncodingOptions(quality: 0.9, progressive: true)
    /// ```
    public init(quality: Double = 0.8, progressive: Bool = false, subsampling: ChromaSubsampling = .s420,
                maskCompressionLevel: Int = 9, fillTransparentPixels: Bool = true) {
        self.quality = quality
        self.progressive = progressive
        self.subsampling = subsampling
        self.maskCompressionLevel = maskCompressionLevel
        self.fillTransparentPixels = fillTransparentPixels
    }
}

/// Writes JPNG files: a baseline (or progressive) JPEG of the straight RGB, an 8-bit gray PNG
/// of the alpha, and the 16-byte footer, byte-compatible with the original Objective-C library.
///
/// ```swift
/// let jpng = try JPNGEncoder.encode(rgbaImage, options: JPNGEncodingOptions(quality: 0.8))
/// try Data(jpng).write(to: url)          // any JPEG viewer shows the colour part
/// ```
public enum JPNGEncoder {
    /// Encodes any image as a JPNG file. Without an alpha channel the mask is all opaque (see
    /// ``hasTransparency(_:)`` to choose a plain JPEG instead).
    ///
    /// The colour is encoded as straight RGB (premultiplied input is unpremultiplied; 16-bit
    /// samples are rounded to 8 bits), with the image's EXIF and ICC profile; the alpha becomes
    /// an 8-bit gray PNG.
    ///
    /// ```swift
    /// let rgba = try PNGDecoder.decode(pngBytes)
    /// let jpng = try JPNGEncoder.encode(rgba, options: JPNGEncodingOptions(quality: 0.8))
    /// ```
    ///
    /// - Throws: ``JPNGError/invalidParameter(_:)`` for a quality outside (0, 1], a mask level
    ///   outside 0-9 or an empty image; ``JPNGError/encodingFailed(_:)`` when a part cannot be
    ///   encoded (e.g. a side over 65535 pixels, JPEG's limit).
    public static func encode(_ image: Image, options: JPNGEncodingOptions = .init()) throws(JPNGError) -> [UInt8] {
        guard options.quality > 0, options.quality <= 1 else {
            throw .invalidParameter("quality \(options.quality) is not in (0, 1]")
        }
        guard (0 ... 9).contains(options.maskCompressionLevel) else {
            throw .invalidParameter("mask compression level \(options.maskCompressionLevel) is not 0-9")
        }
        guard image.width > 0, image.height > 0 else { throw .invalidParameter("empty image") }
        var rgba = image.unpremultiplied().converted(to: .rgba8)
        if options.fillTransparentPixels { AlphaBleed.fillTransparent(&rgba) }

        var color = rgba.converted(to: .rgb8)
        color.metadata = image.metadata
        let jpegOptions = JPEGEncodingOptions(unitQuality: options.quality, subsampling: options.subsampling,
                                              progressive: options.progressive)
        let jpeg: [UInt8]
        do { jpeg = try JPEGEncoder.encode(color, options: jpegOptions) } catch {
            throw .encodingFailed("colour part: \(error)")
        }

        var mask = Image(width: rgba.width, height: rgba.height, format: .gray8)
        rgba.pixels.withUnsafeBufferPointer { src in
            mask.pixels.withUnsafeMutableBufferPointer { dst in
                for i in 0 ..< dst.count { dst[i] = src[4 &* i &+ 3] }
            }
        }
        var pngOptions = PNGEncodingOptions()
        pngOptions.compressionLevel = options.maskCompressionLevel
        pngOptions.writeMetadata = false
        let png: [UInt8]
        do { png = try PNGEncoder.encode(mask, options: pngOptions) } catch {
            throw .encodingFailed("mask: \(error)")
        }
        guard jpeg.count <= Int(UInt32.max), png.count <= Int(UInt32.max) else {
            throw .encodingFailed("a part exceeds 4 GiB")
        }
        let footer = JPNGFooter(imageSize: UInt32(jpeg.count), maskSize: UInt32(png.count))
        return jpeg + png + footer.bytes
    }

    /// True when some pixel is not fully opaque (an image without alpha never is).
    public static func hasTransparency(_ image: Image) -> Bool {
        guard image.format.hasAlpha else { return false }
        let channels = image.format.channels
        if image.format.is16Bit {
            return image.pixels.withUnsafeBytes { raw in
                let s = raw.bindMemory(to: UInt16.self)
                return stride(from: channels - 1, to: s.count, by: channels).contains { s[$0] != 0xFFFF }
            }
        }
        return stride(from: channels - 1, to: image.pixels.count, by: channels).contains { image.pixels[$0] != 255 }
    }
}
