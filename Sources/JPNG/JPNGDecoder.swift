import ImageCore
import PureJPEG
import PurePNG

/// Reads JPNG files: RGBA8 with straight alpha from the JPEG colour part and the PNG mask.
///
/// ```swift
/// let image = try JPNGDecoder.decode(bytes)                 // rgba8, straight alpha
/// let premultiplied = image.premultiplied()
/// let colourOnly = try JPNGDecoder.decodeColor(bytes)        // rgb8, the JPEG part alone
/// ```
public enum JPNGDecoder {
    /// The footer and the two parts of a whole JPNG file, checked as JPNG-FORMAT.md says.
    public static func parts(_ bytes: [UInt8]) throws(JPNGError) -> (footer: JPNGFooter, color: ArraySlice<UInt8>, mask: ArraySlice<UInt8>) {
        let footer = try JPNGFooter(file: bytes)
        let color = bytes[footer.colorRange]
        let mask = bytes[footer.maskRange]
        guard color.count >= 2, color[color.startIndex] == 0xFF, color[color.startIndex + 1] == 0xD8 else {
            throw .colorPartNotJPEG(offset: footer.colorRange.lowerBound)
        }
        guard mask.starts(with: pngSignature) else { throw .maskPartNotPNG(offset: footer.maskRange.lowerBound) }
        return (footer, color, mask)
    }

    /// Decodes a whole JPNG file: the RGBA8 image (straight alpha; `premultiplied()` on the
    /// result converts), with the colour part's metadata.
    ///
    /// ```swift
    /// let image = try JPNGDecoder.decode([UInt8](try Data(contentsOf: url)))
    /// ```
    ///
    /// - Throws: a container case of ``JPNGError`` (footer, sizes, part signatures),
    ///   ``JPNGError/colorPart(_:)`` or ``JPNGError/maskPart(_:maskOffset:)`` with the part
    ///   decoder's error, or ``JPNGError/sizeMismatch(colorWidth:colorHeight:maskWidth:maskHeight:)``.
    ///   For a file that may be a plain JPEG, PNG or GIF, use `ImageSource.decode` instead.
    public static func decode(_ bytes: [UInt8], limits: DecodingLimits = .default) throws(JPNGError) -> Image {
        let (footer, colorBytes, maskBytes) = try parts(bytes)
        let color = try decodeColorPart(Array(colorBytes), limits: limits)
        let mask = try decodeMaskPart(Array(maskBytes), maskOffset: footer.maskRange.lowerBound, limits: limits)
        return try combine(color: color, mask: mask)
    }

    /// Only the colour (the JPEG part), as RGB8.
    public static func decodeColor(_ bytes: [UInt8], limits: DecodingLimits = .default) throws(JPNGError) -> Image {
        let (_, colorBytes, _) = try parts(bytes)
        return try decodeColorPart(Array(colorBytes), limits: limits)
    }

    /// Only the alpha mask, as Gray8 (255 opaque).
    public static func decodeMask(_ bytes: [UInt8], limits: DecodingLimits = .default) throws(JPNGError) -> Image {
        let (footer, _, maskBytes) = try parts(bytes)
        return try decodeMaskPart(Array(maskBytes), maskOffset: footer.maskRange.lowerBound, limits: limits)
    }

    static func decodeColorPart(_ bytes: [UInt8], limits: DecodingLimits) throws(JPNGError) -> Image {
        do {
            return try JPEGDecoder.decode(bytes, limits: limits).converted(to: .rgb8)
        } catch {
            throw .colorPart(error)
        }
    }

    static func decodeMaskPart(_ bytes: [UInt8], maskOffset: Int, limits: DecodingLimits) throws(JPNGError) -> Image {
        do {
            return maskToGray8(try PNGDecoder.decode(bytes, limits: limits))
        } catch {
            throw .maskPart(error, maskOffset: maskOffset)
        }
    }

    /// Any PNG as the mask: its gray value (luminance for colour masks), 16-bit by the high byte
    /// (JPNG-FORMAT.md "The PNG part"). Public for readers that decode the parts themselves
    /// (the thumbnail reduces each part on its own).
    public static func maskToGray8(_ mask: Image) -> Image {
        var image = mask
        if image.format.is16Bit {
            var narrow = Image(width: image.width, height: image.height, format: image.format.eightBit)
            image.pixels.withUnsafeBytes { raw in
                let samples = raw.bindMemory(to: UInt16.self)
                narrow.pixels.withUnsafeMutableBufferPointer { out in
                    for i in 0 ..< samples.count { out[i] = UInt8(truncatingIfNeeded: samples[i] >> 8) }
                }
            }
            image = narrow
        }
        return image.converted(to: .gray8)
    }

    /// The RGBA8 image of a colour part (RGB8) and its Gray8 mask of the same size.
    public static func combine(color: Image, mask: Image) throws(JPNGError) -> Image {
        guard color.width == mask.width, color.height == mask.height else {
            throw .sizeMismatch(colorWidth: color.width, colorHeight: color.height, maskWidth: mask.width, maskHeight: mask.height)
        }
        var out = Image(width: color.width, height: color.height, format: .rgba8, metadata: color.metadata)
        let count = color.width * color.height
        color.pixels.withUnsafeBufferPointer { rgb in
            mask.pixels.withUnsafeBufferPointer { alpha in
                out.pixels.withUnsafeMutableBufferPointer { rgba in
                    for i in 0 ..< count {
                        rgba[4 &* i] = rgb[3 &* i]
                        rgba[4 &* i &+ 1] = rgb[3 &* i &+ 1]
                        rgba[4 &* i &+ 2] = rgb[3 &* i &+ 2]
                        rgba[4 &* i &+ 3] = alpha[i]
                    }
                }
            }
        }
        return out
    }
}
