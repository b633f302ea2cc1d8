extension ICCProfile {
    /// True when the profile describes sRGB closely enough that converting to sRGB would change
    /// no 8-bit value by more than about one code: an RGB matrix/TRC profile (no A2B table)
    /// whose colorants are within 0.001 of the built-in sRGB's (D50) and whose three curves,
    /// re-encoded with the sRGB curve, stay within half a code value of every 8-bit input. The
    /// colord and icc-profiles-free sRGB profiles (and camera "sRGB IEC61966-2.1" ones) pass;
    /// callers skip the transform for them, as they do for untagged images.
    public var isEquivalentToSRGB: Bool {
        guard header.colorSpace == .rgb, !hasDeviceToPCSLUT, let colorants, let curves = rgbCurves else { return false }
        let srgb = StandardColorSpace.sRGB.toXYZD50
        for (a, b) in [(colorants.row0, srgb.row0), (colorants.row1, srgb.row1), (colorants.row2, srgb.row2)] {
            let d = a - b
            guard max(abs(d.x), abs(d.y), abs(d.z)) <= 0.001 else { return false }
        }
        for curve in curves {
            for v in 0 ... 255 {
                let linear = curve.evaluate(code: UInt16(v * 257))
                guard abs(ToneCurve.sRGBEncode(min(max(linear, 0), 1)) * 255 - Double(v)) <= 0.5 else { return false }
            }
        }
        return true
    }
}
