/// The colour type byte of IHDR (PNG 11.2.2) and the bit depths each allows.
public enum PNGColorType: UInt8, Sendable, Hashable, CaseIterable {
    /// Gray samples, 1, 2, 4, 8 or 16 bits.
    case gray = 0
    /// Red, green, blue, 8 or 16 bits a sample ("truecolour").
    case rgb = 2
    /// Indices of 1, 2, 4 or 8 bits into a PLTE palette ("indexed-colour").
    case palette = 3
    /// Gray and alpha, 8 or 16 bits a sample.
    case grayAlpha = 4
    /// Red, green, blue and alpha, 8 or 16 bits a sample.
    case rgba = 6

    /// Samples per pixel in the encoded data (a palette index is one sample).
    public var channels: Int {
        switch self {
        case .gray, .palette: 1
        case .grayAlpha: 2
        case .rgb: 3
        case .rgba: 4
        }
    }

    /// The bit depths PNG allows for this colour type.
    public var allowedBitDepths: [Int] {
        switch self {
        case .gray: [1, 2, 4, 8, 16]
        case .palette: [1, 2, 4, 8]
        case .rgb, .grayAlpha, .rgba: [8, 16]
        }
    }
}
