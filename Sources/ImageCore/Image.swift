/// A decoded raster image: `height` rows of `width` pixels in ``PixelFormat`` layout, packed
/// tightly (no row padding) in one contiguous buffer, top row first.
///
/// Alpha is straight (not premultiplied) unless ``isPremultiplied`` says otherwise; 16-bit
/// samples are stored in host byte order.
///
/// ```swift
/// var image = Image(width: 2, height: 1, format: .rgba8)
/// image.pixels = [255, 0, 0, 255,  0, 0, 255, 128]
/// let rgb = image.converted(to: .rgb8)     // alpha dropped
/// ```
public struct Image: Sendable, Equatable {
    /// Width in pixels.
    public var width: Int
    /// Height in pixels (the number of rows).
    public var height: Int
    /// The layout of each pixel: channels and bits per sample.
    public var format: PixelFormat
    /// Row-major samples, `height * bytesPerRow` bytes.
    public var pixels: [UInt8]
    /// ICC profile, EXIF, orientation, text and the rest of the file's non-pixel data.
    public var metadata: ImageMetadata
    /// True when colour samples have been multiplied by alpha (see ``premultiplied()``).
    public var isPremultiplied: Bool

    /// An image of the given size with every byte zero (transparent black where there is alpha).
    public init(width: Int, height: Int, format: PixelFormat, metadata: ImageMetadata = ImageMetadata()) {
        precondition(width >= 0 && height >= 0, "negative image size")
        self.width = width
        self.height = height
        self.format = format
        self.pixels = [UInt8](repeating: 0, count: width * height * format.bytesPerPixel)
        self.metadata = metadata
        self.isPremultiplied = false
    }

    /// An image over existing pixel bytes; `pixels.count` must be `width * height * bytesPerPixel`.
    public init(width: Int, height: Int, format: PixelFormat, pixels: [UInt8],
                metadata: ImageMetadata = ImageMetadata(), isPremultiplied: Bool = false) {
        precondition(width >= 0 && height >= 0 && pixels.count == width * height * format.bytesPerPixel,
                     "pixel buffer does not match the image size")
        self.width = width
        self.height = height
        self.format = format
        self.pixels = pixels
        self.metadata = metadata
        self.isPremultiplied = isPremultiplied
    }

    /// Bytes in one row: `width * format.bytesPerPixel` (rows are not padded).
    @inlinable public var bytesPerRow: Int { width * format.bytesPerPixel }
    /// `width * height`.
    @inlinable public var pixelCount: Int { width * height }

    /// The bytes of row `y`.
    public func row(_ y: Int) -> ArraySlice<UInt8> {
        let start = y * bytesPerRow
        return pixels[start ..< start + bytesPerRow]
    }

    /// Sample `channel` of the pixel at (`x`, `y`), widened to 16 bits (8-bit samples as is).
    public func sample(x: Int, y: Int, channel: Int) -> UInt16 {
        let bpp = format.bytesPerPixel
        let offset = y * bytesPerRow + x * bpp + channel * format.bytesPerSample
        if format.is16Bit {
            return pixels.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: offset, as: UInt16.self) }
        }
        return UInt16(pixels[offset])
    }
}
