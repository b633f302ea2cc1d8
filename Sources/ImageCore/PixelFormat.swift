/// The layout of one pixel in an ``Image``: its channels and the size of each sample.
///
/// Samples are interleaved in the order the name gives (`rgba8` is R, G, B, A), 8-bit
/// samples one byte each, 16-bit samples two bytes in host byte order.
///
/// ```swift
/// let format = PixelFormat.rgba16
/// format.channels        // 4
/// format.bytesPerPixel   // 8
/// ```
public enum PixelFormat: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// 8-bit formats: gray; gray and alpha; red, green, blue; red, green, blue, alpha (1 byte a sample).
    case gray8, grayAlpha8, rgb8, rgba8
    /// 16-bit formats with the channels of their 8-bit namesakes (2 bytes a sample, host byte order).
    case gray16, grayAlpha16, rgb16, rgba16

    /// Samples per pixel (1 to 4).
    @inlinable public var channels: Int {
        switch self {
        case .gray8, .gray16: 1
        case .grayAlpha8, .grayAlpha16: 2
        case .rgb8, .rgb16: 3
        case .rgba8, .rgba16: 4
        }
    }

    /// Bits in one sample: 8 or 16.
    @inlinable public var bitsPerSample: Int { is16Bit ? 16 : 8 }

    /// Bytes in one sample: 1 or 2.
    @inlinable public var bytesPerSample: Int { is16Bit ? 2 : 1 }

    /// Bytes in one pixel: ``channels`` times ``bytesPerSample`` (1 to 8).
    @inlinable public var bytesPerPixel: Int { channels * bytesPerSample }

    /// True for the four 16-bit formats.
    @inlinable public var is16Bit: Bool {
        switch self {
        case .gray16, .grayAlpha16, .rgb16, .rgba16: true
        default: false
        }
    }

    /// True when the last channel is alpha (`grayAlpha*`, `rgba*`).
    @inlinable public var hasAlpha: Bool { channels == 2 || channels == 4 }

    /// True for RGB and RGBA, false for gray.
    @inlinable public var isColor: Bool { channels >= 3 }

    /// The format with the given colour, alpha and depth.
    @inlinable public init(color: Bool, alpha: Bool, sixteenBit: Bool) {
        switch (color, alpha, sixteenBit) {
        case (false, false, false): self = .gray8
        case (false, true, false): self = .grayAlpha8
        case (true, false, false): self = .rgb8
        case (true, true, false): self = .rgba8
        case (false, false, true): self = .gray16
        case (false, true, true): self = .grayAlpha16
        case (true, false, true): self = .rgb16
        case (true, true, true): self = .rgba16
        }
    }

    /// This format with an alpha channel added (or kept).
    @inlinable public var withAlpha: PixelFormat { PixelFormat(color: isColor, alpha: true, sixteenBit: is16Bit) }
    /// This format without its alpha channel.
    @inlinable public var withoutAlpha: PixelFormat { PixelFormat(color: isColor, alpha: false, sixteenBit: is16Bit) }
    /// The 8-bit format with the same channels.
    @inlinable public var eightBit: PixelFormat { PixelFormat(color: isColor, alpha: hasAlpha, sixteenBit: false) }
    /// The 16-bit format with the same channels.
    @inlinable public var sixteenBit: PixelFormat { PixelFormat(color: isColor, alpha: hasAlpha, sixteenBit: true) }

    /// The case name, such as "rgba8".
    public var description: String { rawValue }
}
