#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A LUT-based source profile's whole chain to a destination, evaluated in double for one
/// device colour: the A2B pipeline (``ICCLut``), the PCS decoded to XYZ (D50), black-point
/// compensation where lcms2 forces it, the destination's inverse matrix, clipping and the
/// destination curve. ``DeviceLink`` samples it into a grid.
struct LUTSource: Sendable {
    /// How the LUT's outputs encode the PCS.
    enum PCSEncoding: Sendable {
        /// XYZ as u1Fixed15: 1.0 is 32768 / 65535 of the range (lcms2 multiplies by 1 + 32767/32768).
        case xyz
        /// L* a* b*, version 4: L = 100 v, a = 255 v - 128.
        case labV4
        /// L* a* b*, version 2 (`mft2`): 0xFF00 is L = 100, so values are first scaled by 65535 / 65280.
        case labV2
    }

    let lut: ICCLut
    let encoding: PCSEncoding
    /// XYZ -> a * XYZ + b per component (black-point compensation), or nil.
    var blackPoint: (scale: SIMD3<Double>, offset: SIMD3<Double>)?
    /// PCS XYZ (D50) to destination linear RGB.
    let toDestination: Matrix3

    /// lcms2's fixed perceptual black of v4 profiles (`cmsPERCEPTUAL_BLACK_X/Y/Z`).
    static let perceptualBlack = SIMD3(0.00336, 0.0034731, 0.00287)
    /// lcms2's D50 (`cmsD50_XYZ`).
    static let d50 = SIMD3(0.9642, 1.0, 0.8249)

    /// The tag lcms2 reads for `intent` (`_cmsReadInputLUT`): the intent's own `A2Bn`, else `A2B0`;
    /// nil when neither exists (lcms2 then falls back to the matrix/TRC or gray tags).
    static func tagSignature(in profile: ICCProfile, intent: RenderingIntent) -> String? {
        let own = intent == .relativeColorimetric ? "A2B1" : intent == .saturation ? "A2B2" : "A2B0"
        if profile.tag(own) != nil { return own }
        return profile.tag("A2B0") != nil ? "A2B0" : nil
    }

    init(profile: ICCProfile, signature: String, intent: RenderingIntent,
         destination: StandardColorSpace) throws(ICCError) {
        let entryOffset = profile.tag(signature)?.offset ?? 128
        for float in ["D2B0", "D2B1", "D2B2"] where profile.tag(float) != nil {
            throw .unsupported(offset: profile.tag(float)?.offset ?? 128, reason: "floating-point LUT (\(float))")
        }
        let reader = ICCReader(data: profile.data, tags: profile.tags)
        guard let lut = try reader.lutTag(signature) else { throw .missingTag(offset: 128, signature: signature) }
        guard lut.type == .lut8 || lut.type == .lut16 || lut.type == .aToB else {
            throw .unexpectedTagType(offset: entryOffset, signature: signature, type: lut.type.rawValue)
        }
        guard lut.inputChannels == 3 || lut.inputChannels == 4, lut.outputChannels == 3, lut.isEvaluable else {
            throw .unsupported(offset: entryOffset,
                               reason: "LUT with \(lut.inputChannels) inputs and \(lut.outputChannels) outputs")
        }
        let expected = profile.header.colorSpace == .cmyk ? 4 : profile.header.colorSpace == .rgb ? 3 : 0
        guard expected == lut.inputChannels else {
            throw .unsupported(offset: 16, reason: "\(profile.header.colorSpace) profile with a \(lut.inputChannels)-input LUT")
        }
        switch profile.header.pcs {
        case .xyz: encoding = .xyz
        case .lab: encoding = lut.type == .lut16 ? .labV2 : .labV4
        default: throw .unsupported(offset: 20, reason: "PCS \(profile.header.pcs)")
        }
        self.lut = lut
        guard let inverse = destination.toXYZD50.inverse else {
            throw .invalidValue(offset: 0, reason: "singular destination matrix")
        }
        toDestination = inverse
        blackPoint = nil
        // lcms2 forces black-point compensation in perceptual and saturation intents when a
        // profile of the link is v4 (`_cmsLinkProfiles`): its sRGB (`cmsCreate_sRGBProfile`) is
        // v4.3, so always here. The destination's black (a matrix/TRC RGB space) is 0; the
        // source's is `cmsDetectBlackPoint`'s.
        if intent == .perceptual || intent == .saturation {
            var black = Self.perceptualBlack
            let matrixShaper = profile.colorants != nil && profile.rgbCurves != nil
            if profile.header.versionMajor < 4 || matrixShaper {
                // v2, or a v4 matrix/TRC profile (relative intent): the darkest colorant's L*.
                let darkIntent: RenderingIntent = profile.header.versionMajor < 4 ? intent : .relativeColorimetric
                let tag = Self.tagSignature(in: profile, intent: darkIntent) ?? signature
                var source = self
                source.blackPoint = nil
                if tag != signature {
                    source = try LUTSource(profile: profile, signature: tag, intent: .relativeColorimetric,
                                           destination: destination)
                }
                black = source.darkestColorant()
            }
            let t = black - Self.d50
            if t.x != 0, t.y != 0, t.z != 0, black != .zero {
                blackPoint = (scale: (SIMD3<Double>.zero - Self.d50) / t, offset: -Self.d50 * (SIMD3<Double>.zero - black) / t)
            }
        }
    }

    /// lcms2's `BlackPointAsDarkerColorant`: the device's darkest colour (RGB 0, CMYK 100 %)
    /// to L*a*b*, made neutral with L* at most 50, back to XYZ.
    func darkestColorant() -> SIMD3<Double> {
        let input = [Double](repeating: lut.inputChannels == 4 ? 1 : 0, count: lut.inputChannels)
        let xyz = pcs(lut.evaluate(input))
        // lcms2 2.19 clips L* (above 95: 0, a negative profile; below 0: 0; above 50: 50) and keeps
        // a* and b*. A black at L* = 0 compensates nothing in its references (measured:
        // ISOcoated's perceptual black is L* 0 with a* 0.4, b* 1.3, and lcms2 leaves it alone).
        let lab = Self.lab(xyz)
        let l = lab.x > 95 ? 0 : lab.x < 0 ? 0 : min(lab.x, 50)
        return l == 0 ? .zero : Self.xyz(fromLab: SIMD3(l, lab.y, lab.z))
    }

    /// The PCS XYZ (D50-relative) the LUT's outputs encode.
    func pcs(_ values: [Double]) -> SIMD3<Double> {
        let v = SIMD3(values[0], values[1], values[2])
        switch encoding {
        case .xyz: return v * (65535.0 / 32768.0)
        case .labV4: return Self.xyz(fromLab: SIMD3(v.x * 100, v.y * 255 - 128, v.z * 255 - 128))
        case .labV2:
            let w = v * (65535.0 / 65280.0)
            return Self.xyz(fromLab: SIMD3(w.x * 100, w.y * 255 - 128, w.z * 255 - 128))
        }
    }

    /// lcms2's `cmsLab2XYZ` with the D50 white.
    static func xyz(fromLab lab: SIMD3<Double>) -> SIMD3<Double> {
        let fy = (lab.x + 16) / 116, fx = fy + 0.002 * lab.y, fz = fy - 0.005 * lab.z
        func inverse(_ t: Double) -> Double { t <= 24.0 / 116 ? 108.0 / 841 * (t - 16.0 / 116) : t * t * t }
        return SIMD3(inverse(fx), inverse(fy), inverse(fz)) * d50
    }

    /// lcms2's `cmsXYZ2Lab` with the D50 white.
    static func lab(_ xyz: SIMD3<Double>) -> SIMD3<Double> {
        func f(_ t: Double) -> Double { t <= 24.0 / 116 * 24 / 116 * 24 / 116 ? 841.0 / 108 * t + 16.0 / 116 : cbrt(t) }
        let r = xyz / d50
        let fx = f(r.x), fy = f(r.y), fz = f(r.z)
        return SIMD3(116 * fy - 16, 500 * (fx - fy), 200 * (fy - fz))
    }

    /// The destination's encoded values (the destination curve's inverse, 1 = full scale) for
    /// device values `input` in [0, 1], not clipped: the curve's linear toe continues below 0
    /// and its power segment above 1, so the result is smooth across the gamut boundary and a
    /// grid of it interpolates without the kink clipping would put there.
    func destination(_ input: [Double], encoded: Bool = true, from first: Int = 0) -> SIMD3<Double> {
        var xyz = pcs(lut.evaluate(input, from: first))
        if let blackPoint { xyz = xyz * blackPoint.scale + blackPoint.offset }
        let linear = toDestination * xyz
        var out = SIMD3<Double>.zero
        for c in 0 ..< 3 {
            let y = linear[c]
            out[c] = y.isFinite ? (encoded ? ToneCurve.sRGBEncode(y) : y) : 0
        }
        return out
    }
}
