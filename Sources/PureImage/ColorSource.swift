import PureColor

/// Which colour description of an image counts, and the transform to sRGB it gives.
extension Image {
    /// The transform from this image's colour space to sRGB, following the browsers' order:
    /// cICP, the ICC profile (its colour space must be the pixels'), the sRGB chunk, cHRM and
    /// gAMA. nil when the pixels are sRGB already (no description, an sRGB chunk, an sRGB
    /// profile, cICP BT.709/sRGB). Each description skipped says why in `warnings`.
    func sRGBSourceTransform() -> (transform: ColorTransform?, warnings: [String]) {
        var warnings: [String] = []
        let gray = !format.isColor
        if let cicp = metadata.cicp {
            switch Self.cicpSource(cicp) {
            case .success(nil):
                return (nil, warnings)
            case .success(let source?):
                if let transform = try? ColorTransform(primaries: source.primaries, whitePoint: source.white,
                                                       curve: source.curve, gray: gray) {
                    return (transform, warnings)
                }
                warnings.append("the cICP code points give no colour space; ignored")
            case .failure(let reason):
                warnings.append("cICP \(reason); ignored")
            }
        }
        if let profile = metadata.iccProfile {
            let space = ImageMetadata.iccColorSpace(of: profile) ?? "?"
            if space != (gray ? "GRAY" : "RGB ") {
                warnings.append("the ICC profile's colour space (\(space)) is not the \(format) pixels'; ignored")
            } else {
                do {
                    let parsed = try ICCProfile(profile)
                    if !gray && metadata.sampleBits == nil && parsed.isEquivalentToSRGB { return (nil, warnings) }
                    let transform = try ColorTransform(source: parsed, destination: .sRGB)
                    if transform.supports(format.is16Bit ? (gray ? .gray8 : .rgb8) : format) { return (transform, warnings) }
                    warnings.append("the ICC profile cannot be used for \(format) pixels; ignored")
                } catch {
                    warnings.append("the ICC profile cannot be used (\(error)); ignored")
                }
            }
        }
        if metadata.sRGBIntent != nil { return (nil, warnings) }
        guard metadata.gamma != nil || metadata.chromaticities != nil else {
            if !warnings.isEmpty { warnings.append("the pixels are taken as sRGB") }
            return (nil, warnings)
        }
        let srgb = StandardColorSpace.sRGB
        let curve: ToneCurve = metadata.gamma.map { .gamma(1 / $0) } ?? .sRGB
        var primaries = srgb.primaries, white = srgb.whitePoint
        if let c = metadata.chromaticities {
            primaries = [(c.redX, c.redY), (c.greenX, c.greenY), (c.blueX, c.blueY)]
            white = (c.whiteX, c.whiteY)
        }
        if let transform = try? ColorTransform(primaries: primaries, whitePoint: white, curve: curve, gray: gray) {
            return (transform, warnings)
        }
        warnings.append("the cHRM chromaticities span no colour space; sRGB primaries taken")
        return (try? ColorTransform(primaries: srgb.primaries, whitePoint: srgb.whitePoint, curve: curve, gray: gray), warnings)
    }

    /// A source described by primaries, white and curve.
    struct DescribedSource {
        var primaries: [(x: Double, y: Double)]
        var white: (x: Double, y: Double)
        var curve: ToneCurve
    }

    /// The source cICP code points (ITU-T H.273) describe: `.success(nil)` for sRGB itself,
    /// a failure naming what is not supported.
    static func cicpSource(_ cicp: CICP) -> Result<DescribedSource?, CICPError> {
        guard cicp.fullRange else { return .failure(CICPError("narrow-range samples not supported")) }
        let d65 = (x: 0.3127, y: 0.3290)
        let primaries: [(x: Double, y: Double)]
        switch cicp.colorPrimaries {
        case 1: primaries = StandardColorSpace.sRGB.primaries
        case 9: primaries = [(0.708, 0.292), (0.170, 0.797), (0.131, 0.046)]
        case 12: primaries = StandardColorSpace.displayP3.primaries
        default: return .failure(CICPError("colour primaries \(cicp.colorPrimaries) not supported"))
        }
        let curve: ToneCurve
        switch cicp.transferCharacteristics {
        case 13: curve = .sRGB
        case 1, 6, 14, 15: curve = .rec709
        case 8: curve = .identity
        case 4: curve = .gamma(2.2)
        case 5: curve = .gamma(2.8)
        case 16: return .failure(CICPError("transfer 16 (PQ, HDR) not supported"))
        case 18: return .failure(CICPError("transfer 18 (HLG, HDR) not supported"))
        default: return .failure(CICPError("transfer \(cicp.transferCharacteristics) not supported"))
        }
        if cicp.colorPrimaries == 1 && cicp.transferCharacteristics == 13 { return .success(nil) }
        return .success(DescribedSource(primaries: primaries, white: d65, curve: curve))
    }

    /// Why cICP code points cannot be used.
    struct CICPError: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }
}
