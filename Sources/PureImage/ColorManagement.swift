import PureColor

/// The colour space a decode or thumbnail hands its pixels back in.
public enum OutputColorSpace: String, Sendable, Equatable, CaseIterable {
    /// The pixels as the file stores them, with the file's ICC profile in the metadata.
    case asStored = "stored"
    /// Converted from the embedded ICC profile to sRGB (`PureColor`), the profile dropped:
    /// what browsers show, right in viewers that ignore profiles too. An untagged image is
    /// already taken as sRGB.
    case sRGB = "srgb"
}

extension Image {
    /// This image in `space`: for ``OutputColorSpace/sRGB``, converted from the colour space
    /// its metadata describes and that description dropped; unchanged for
    /// ``OutputColorSpace/asStored``. Which description counts follows browsers (PNG third
    /// edition, 4.3): `cICP` (`ImageMetadata.cicp`), then the ICC profile, then the sRGB
    /// chunk, then cHRM and gAMA (gAMA alone with sRGB primaries and D65 white; cHRM alone with
    /// the sRGB curve); nothing (GIF, untagged) is sRGB. A description that cannot be used (a
    /// damaged or unsupported profile, one whose colour space is not the pixels', PQ or HLG
    /// code points) is skipped with a warning and the next one is taken. An `.rgba8` image
    /// with a CMYK profile holds CMYK samples (as `JPEGDecodingOptions.outputCMYK` returns
    /// them) and becomes `.rgb8` through the profile (``cmykInSRGB(threads:)``). The
    /// conversion never fails.
    ///
    /// ```swift
    /// let (display, warning) = try ImageSource.decode(bytes).inColorSpace(.sRGB)
    /// ```
    public func inColorSpace(_ space: OutputColorSpace, threads: Int? = nil) -> (image: Image, warning: String?) {
        let result = convertedToSRGB(space, threads: threads)
        return (result.image, result.warning)
    }

    /// ``inColorSpace(_:threads:)``, also saying whether a colour transform was built and run
    /// (false for ``OutputColorSpace/asStored``, untagged and sRGB images).
    func convertedToSRGB(_ space: OutputColorSpace, threads: Int?) -> (image: Image, warning: String?, converted: Bool) {
        guard space == .sRGB else { return (self, nil, false) }
        if format == .rgba8, let profile = metadata.iccProfile, ImageMetadata.iccColorSpace(of: profile) == "CMYK" {
            let (rgb, warning) = cmykInSRGB(threads: threads)
            return (rgb, warning, true)
        }
        let (transform, warnings) = sRGBSourceTransform()
        let warning = warnings.isEmpty ? nil : warnings.joined(separator: "; ")
        var out = self
        out.metadata.clearColorDescription()
        guard let transform else {
            // Already sRGB: nothing to convert. An sRGB chunk (with no profile or cICP) stays.
            if metadata.iccProfile == nil && metadata.cicp == nil { out.metadata.sRGBIntent = metadata.sRGBIntent }
            return (out, warning, false)
        }
        // Samples of fewer bits than the format (12-bit JPEG) are brought to the full range first.
        let base = metadata.sampleBits != nil ? fullRange() : self
        let source = base.format.is16Bit ? transform.withSixteenBitTables() : transform
        guard source.supports(base.format) else { return (out, warning, false) }
        out = source.apply(to: base, threads: threads)
        out.metadata.clearColorDescription()
        return (out, warning, true)
    }
}

extension ImageMetadata {
    /// Removes what says which colour space the pixels are in (profile, sRGB chunk, gamma,
    /// chromaticities, cICP): after a conversion the pixels are sRGB.
    mutating func clearColorDescription() {
        iccProfile = nil
        iccProfileName = nil
        sRGBIntent = nil
        gamma = nil
        chromaticities = nil
        cicp = nil
    }
}

extension Image {
    /// CMYK pixels in sRGB: an `.rgba8` image holding C, M, Y, K as a JPEG stores them
    /// (Adobe-inverted, 255 = no ink: what `JPEGDecodingOptions.outputCMYK` returns) becomes
    /// `.rgb8`. With an embedded CMYK profile PureColor can use, through that profile (its
    /// perceptual A2B table to sRGB, as browsers do); otherwise R = C * K / 255 (and so on) on
    /// the stored values, what libjpeg's `cmyk_to_rgb`, Pillow and PureJPEG's own RGB output
    /// give, with a warning when a profile was there but could not be used. The profile is
    /// dropped either way.
    ///
    /// ```swift
    /// var options = JPEGDecodingOptions()
    /// options.outputCMYK = true
    /// let (rgb, warning) = try JPEGDecoder.decode(bytes, options: options).cmykInSRGB()
    /// ```
    public func cmykInSRGB(threads: Int? = nil) -> (image: Image, warning: String?) {
        guard format == .rgba8 else { return (self, nil) }
        var out = Image(width: width, height: height, format: .rgb8)
        out.metadata = metadata
        out.metadata.clearColorDescription()
        var warning: String?
        if let profile = metadata.iccProfile {
            do {
                let transform = try ColorTransform(iccProfile: profile, destination: .sRGB)
                if transform.inputChannels == 4 {
                    pixels.withUnsafeBytes { input in
                        out.pixels.withUnsafeMutableBytes { output in
                            transform.applyCMYK(from: input, to: output, inverted: true, threads: threads)
                        }
                    }
                    return (out, nil)
                }
                let space = ImageMetadata.iccColorSpace(of: profile) ?? "?"
                warning = "the ICC profile's colour space (\(space)) is not CMYK; the CMYK pixels are converted without it"
            } catch {
                warning = "the ICC profile cannot be used (\(error)); the CMYK pixels are converted without it"
            }
        }
        pixels.withUnsafeBufferPointer { cmyk in
            out.pixels.withUnsafeMutableBufferPointer { rgb in
                for i in 0 ..< width * height {
                    let k = UInt32(cmyk[4 * i + 3])
                    for c in 0 ..< 3 {
                        // round(C * K / 255), exact for 8-bit operands.
                        let t = UInt32(cmyk[4 * i + c]) &* k &+ 128
                        rgb[3 * i + c] = UInt8(truncatingIfNeeded: (t &+ (t >> 8)) >> 8)
                    }
                }
            }
        }
        return (out, warning)
    }
}
