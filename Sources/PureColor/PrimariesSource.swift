/// Sources described by primaries, a white point and a curve rather than an ICC profile (PNG
/// cHRM + gAMA, cICP code points): the colorants built as lcms2's `cmsCreateRGBProfile` builds
/// them, then the same tables as a matrix/TRC profile.
extension Matrix3 {
    /// Linear RGB to PCS XYZ (D50) for primaries `primaries` (red, green, blue chromaticities)
    /// and white `white`: the primaries scaled so RGB (1, 1, 1) is the white (Y = 1), then
    /// Bradford-adapted from that white to D50 (lcms2's `_cmsBuildRGB2XYZtransferMatrix` and
    /// `_cmsAdaptationMatrix`). nil when the primaries are collinear or a y is zero.
    public static func rgbToXYZD50(primaries p: [(x: Double, y: Double)], white: (x: Double, y: Double)) -> Matrix3? {
        guard p.count == 3, white.y > 0, p.allSatisfy({ $0.y > 0 && $0.x.isFinite && $0.y.isFinite }) else { return nil }
        let m = Matrix3(SIMD3(p[0].x, p[1].x, p[2].x), SIMD3(p[0].y, p[1].y, p[2].y),
                        SIMD3(1 - p[0].x - p[0].y, 1 - p[1].x - p[1].y, 1 - p[2].x - p[2].y))
        let whiteXYZ = XYZ(chromaticityX: white.x, y: white.y)
        guard abs(m.determinant) > 1e-9, let inverse = m.inverse else { return nil }
        let k = inverse * whiteXYZ.vector
        let scale = Matrix3(SIMD3(k.x, 0, 0), SIMD3(0, k.y, 0), SIMD3(0, 0, k.z))
        let result = Matrix3.bradfordAdaptation(from: whiteXYZ, to: .d50) * (m * scale)
        return result.isFinite ? result : nil
    }
}

extension ToneCurve {
    /// The BT.709 (and BT.601, BT.2020) curve, device to linear: the inverse of
    /// `V = 1.099 L^0.45 - 0.099` (`4.5 L` below L = 0.018), as ICC parametric function 3.
    public static var rec709: ToneCurve {
        .parametric(functionType: 3, parameters: [1 / 0.45, 1 / 1.099, 0.099 / 1.099, 1 / 4.5, 0.081])
    }
}

extension ColorTransform {
    /// A transform from RGB (or gray) pixels described by their primaries, white point and
    /// decoding curve (device value to linear) to `destination`, as a matrix/TRC profile of
    /// those colorants would give (lcms2's `cmsCreateRGBProfile`: the white adapted to D50
    /// with Bradford). With `gray`, the pixels are one gray channel: only the curve counts
    /// (Y = curve(v), encoded with the destination curve; the output stays gray).
    ///
    /// ```swift
    /// // PNG cHRM + gAMA: gAMA g means sample = linear^g, so the decoding curve is x^(1/g).
    /// let adobeLike = try ColorTransform(primaries: [(0.64, 0.33), (0.21, 0.71), (0.15, 0.06)],
    ///                                    whitePoint: (0.3127, 0.3290), curve: .gamma(1 / 0.45455))
    /// ```
    /// - Throws: ``ICCError/invalidValue(offset:reason:)`` for primaries that span no colour
    ///   space (collinear, a y of zero), or a curve that is not finite.
    public init(primaries: [(x: Double, y: Double)], whitePoint: (x: Double, y: Double), curve: ToneCurve,
                destination: StandardColorSpace = .sRGB, gray: Bool = false, sixteenBit: Bool = false) throws(ICCError) {
        guard curve.evaluate(0.5).isFinite else { throw .invalidValue(offset: 0, reason: "curve not finite") }
        self.destination = destination
        intent = .relativeColorimetric
        link = nil
        grayLab = false
        if gray {
            sourceModel = .grayTRC
            matrix = .identity
            curves = [curve]
        } else {
            guard let colorants = Matrix3.rgbToXYZD50(primaries: primaries, white: whitePoint),
                  let inverse = destination.toXYZD50.inverse else {
                throw .invalidValue(offset: 0, reason: "primaries \(primaries), white \(whitePoint) span no colour space")
            }
            sourceModel = .matrixShaper
            matrix = inverse * colorants
            curves = [curve, curve, curve]
        }
        tables8 = Tables8(curves: curves, matrix: matrix, grayLab: false)
        tables16 = sixteenBit ? Tables16(curves: curves, matrix: matrix, grayLab: false) : nil
    }
}
