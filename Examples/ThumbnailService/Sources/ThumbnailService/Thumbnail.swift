import PureImage

/// An encoded thumbnail and its media type.
struct EncodedThumbnail {
    var bytes: [UInt8]
    var contentType: String
}

/// Encodes a decoded (already reduced and upright) image for the response: a PNG when some pixel
/// is not opaque, a JPEG (quality 85) otherwise, 8 bits a sample either way.
func encodeThumbnail(_ decoded: Image) throws -> EncodedThumbnail {
    var image = decoded.format.is16Bit ? decoded.converted(to: decoded.format.eightBit) : decoded
    image.metadata = colourMetadata(of: image)
    if image.hasTransparentPixel {
        let png = try PNGEncoder.encode(image.converted(to: image.format.isColor ? .rgba8 : .grayAlpha8))
        return EncodedThumbnail(bytes: png, contentType: "image/png")
    }
    let opaque = image.converted(to: image.format.isColor ? .rgb8 : .gray8)
    let jpeg = try JPEGEncoder.encode(opaque, options: JPEGEncodingOptions(quality: 85))
    return EncodedThumbnail(bytes: jpeg, contentType: "image/jpeg")
}

/// What of the source's metadata a thumbnail keeps: how to show its colours, nothing else. EXIF
/// would carry an orientation the pixels no longer need (they are already turned upright) and,
/// like text chunks, private details (camera, place, comments); PNG's bKGD and sBIT describe
/// the source's samples, not the 8-bit ones written.
private func colourMetadata(of image: Image) -> ImageMetadata {
    let source = image.metadata
    var kept = ImageMetadata(gamma: source.gamma, sRGBIntent: source.sRGBIntent,
                             chromaticities: source.chromaticities)
    // An ICC profile is only right for pixels of its colour space: a CMYK JPEG decodes to RGB
    // but carries a CMYK profile, which must not be attached to the RGB thumbnail.
    if let icc = source.iccProfile, icc.count >= 20 {
        let space = String(decoding: icc[16 ..< 20], as: UTF8.self)
        if space == (image.format.isColor ? "RGB " : "GRAY") {
            kept.iccProfile = icc
            kept.iccProfileName = source.iccProfileName
        }
    }
    return kept
}

extension Image {
    /// Whether any pixel of an 8-bit image is less than fully opaque (a format with an alpha
    /// channel whose alpha is 255 everywhere encodes as well, and smaller, as a JPEG).
    fileprivate var hasTransparentPixel: Bool {
        guard format.hasAlpha, !format.is16Bit else { return false }
        let channels = format.channels
        return pixels.withUnsafeBufferPointer { samples in
            stride(from: channels - 1, to: samples.count, by: channels).contains { samples[$0] != 255 }
        }
    }
}
