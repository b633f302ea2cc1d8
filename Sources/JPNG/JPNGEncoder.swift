import ImageCore
import PureJPEG
import PurePNG

/// Options for writing JPNG files.
public struct JPNGEncodingOptions: Sendable, Equatable {
    /// JPEG quality in (0, 1] (JPNG's scale; 0.8 is JPEG quality 80).
    public var quality: Double
    /// Write the colour part as a progressive JPEG.
    public var progressive: Bool
    public var subsampling: ChromaSubsampling
    /// zlib level 0-9 of the PNG mask.
    public var maskCompressionLevel: Int
    /// Recolour fully transparent pixels from their visible neighbours before JPEG encoding
    /// (no halo at edges; nothing visible changes).
    public var fillTransparentPixels: Bool

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
    /// Encodes any image. Without an alpha channel the mask is all opaque (see ``hasTransparency(_:)``).
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
