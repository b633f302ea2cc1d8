import ImageCore

/// One 8-bit straight-alpha colour.
public struct RGBAColor: Sendable, Hashable, Comparable, CustomStringConvertible {
    public var r: UInt8, g: UInt8, b: UInt8, a: UInt8

    public init(r: UInt8, g: UInt8, b: UInt8, a: UInt8 = 255) {
        self.r = r; self.g = g; self.b = b; self.a = a
    }

    /// From `r << 24 | g << 16 | b << 8 | a`.
    @inlinable public init(packed: UInt32) {
        r = UInt8(truncatingIfNeeded: packed &>> 24); g = UInt8(truncatingIfNeeded: packed &>> 16)
        b = UInt8(truncatingIfNeeded: packed &>> 8); a = UInt8(truncatingIfNeeded: packed)
    }

    /// `r << 24 | g << 16 | b << 8 | a`.
    @inlinable public var packed: UInt32 { UInt32(r) << 24 | UInt32(g) << 16 | UInt32(b) << 8 | UInt32(a) }

    public static func < (x: RGBAColor, y: RGBAColor) -> Bool { x.packed < y.packed }

    public var description: String { "rgba(\(r), \(g), \(b), \(a))" }
}

/// An image as palette indices: what ``Quantizer`` produces and the GIF and PNG8 encoders write.
///
/// ```swift
/// let q = try Quantizer.quantize(image, options: QuantizationOptions(maxColors: 16))
/// print(q.palette.count, q.meanSquaredError)
/// let preview = q.rgbaImage()          // what a decoder shows
/// ```
public struct QuantizedImage: Sendable, Equatable {
    public var width: Int
    public var height: Int
    /// At most 256 entries; non-opaque entries first (alpha ascending), then opaque ones.
    public var palette: [RGBAColor]
    /// `width * height` indices into `palette`, row by row.
    public var indices: [UInt8]
    /// Mean squared error of the mapped pixels against the input in the quantizer's
    /// perceptual space (see ``QuantizationQuality``); 0 when the mapping is exact.
    public var meanSquaredError: Double

    public init(width: Int, height: Int, palette: [RGBAColor], indices: [UInt8], meanSquaredError: Double) {
        self.width = width; self.height = height
        self.palette = palette; self.indices = indices
        self.meanSquaredError = meanSquaredError
    }

    /// pngquant's 0...100 quality of the result.
    public var quality: Int { QuantizationQuality.quality(forError: meanSquaredError) }

    /// How many leading palette entries are not opaque.
    public var transparentCount: Int { palette.prefix { $0.a != 255 }.count }

    /// The pixels as an RGBA8 image, as a decoder of the indexed file shows them.
    public func rgbaImage() -> Image {
        var pixels = [UInt8](repeating: 0, count: indices.count * 4)
        let table = palette.map { $0.packed.bigEndian }
        pixels.withUnsafeMutableBytes { raw in
            let out = raw.bindMemory(to: UInt32.self)
            for i in 0 ..< indices.count {
                let k = Int(indices[i])
                out[i] = k < table.count ? table[k] : 0
            }
        }
        return Image(width: width, height: height, format: .rgba8, pixels: pixels)
    }
}
