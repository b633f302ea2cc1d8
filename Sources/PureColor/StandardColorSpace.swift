/// An RGB colour space defined in code (no profile needed): the destination of a ``ColorTransform``.
public enum StandardColorSpace: String, Sendable, Hashable, CaseIterable {
    /// sRGB (IEC 61966-2-1): BT.709 primaries, D65 white, the sRGB curve.
    case sRGB
    /// Display P3: DCI-P3 primaries, D65 white, the sRGB curve.
    case displayP3

    /// The primaries' chromaticities (x, y) for red, green and blue.
    public var primaries: [(x: Double, y: Double)] {
        switch self {
        case .sRGB: [(0.64, 0.33), (0.30, 0.60), (0.15, 0.06)]
        case .displayP3: [(0.680, 0.320), (0.265, 0.690), (0.150, 0.060)]
        }
    }

    /// The white point's chromaticity: D65 (0.3127, 0.3290) for both.
    public var whitePoint: (x: Double, y: Double) { (0.3127, 0.3290) }

    /// The transfer curve (device value to linear): the sRGB curve for both.
    public var curve: ToneCurve { .sRGB }

    /// Linear RGB to PCS XYZ (D50): the primaries scaled so RGB (1, 1, 1) is the white, then
    /// Bradford-adapted from D65 to D50, computed in double precision as lcms2 builds its
    /// sRGB profile (`cmsCreate_sRGBProfile`): for sRGB the first row is (0.436041, 0.385113,
    /// 0.143046). An ICC profile file stores them rounded to s15Fixed16, a change below 8e-6,
    /// far below one 16-bit code value after the curve.
    public var toXYZD50: Matrix3 {
        Matrix3.rgbToXYZD50(primaries: primaries, white: whitePoint) ?? .identity
    }
}
