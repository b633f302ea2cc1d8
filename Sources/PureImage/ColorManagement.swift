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
    /// This image in `space`: converted from its ICC profile through `ColorTransform` and the
    /// profile dropped, or unchanged for ``OutputColorSpace/asStored`` and untagged images.
    /// A profile that cannot be used (a damaged one, one PureColor does not support, one whose
    /// colour space is not the pixels') is dropped and the pixels are taken as sRGB, with a
    /// warning saying so. An `.rgba8` image with a CMYK profile holds CMYK samples (as
    /// `JPEGDecodingOptions.outputCMYK` returns them) and becomes `.rgb8` through the profile
    /// (``cmykInSRGB(threads:)``). The conversion never fails.
    ///
    /// ```swift
    /// let (display, warning) = try ImageSource.decode(bytes).inColorSpace(.sRGB)
    /// ```
    public func inColorSpace(_ space: OutputColorSpace, threads: Int? = nil) -> (image: Image, warning: String?) {
        guard space == .sRGB, let profile = metadata.iccProfile else { return (self, nil) }
        if format == .rgba8, ImageMetadata.iccColorSpace(of: profile) == "CMYK" { return cmykInSRGB(threads: threads) }
        guard needsColorConversion(to: space) else {
            // An sRGB profile: nothing to convert, the profile dropped.
            var out = self
            out.metadata.iccProfile = nil
            out.metadata.iccProfileName = nil
            return (out, nil)
        }
        // Samples of fewer bits than the format (12-bit JPEG) are brought to the full range first.
        let base = metadata.sampleBits != nil ? fullRange() : self
        var out = base
        out.metadata.iccProfile = nil
        out.metadata.iccProfileName = nil
        let transform: ColorTransform
        do {
            transform = try ColorTransform(iccProfile: profile, destination: .sRGB)
        } catch {
            return (out, "the ICC profile cannot be used (\(error)); the pixels are taken as sRGB")
        }
        let source = base.format.is16Bit ? transform.withSixteenBitTables() : transform
        guard source.supports(base.format) else {
            let space = ImageMetadata.iccColorSpace(of: profile) ?? "?"
            return (out, "the ICC profile's colour space (\(space)) is not the \(base.format) pixels'; the pixels are taken as sRGB")
        }
        out = source.apply(to: base, threads: threads)
        out.metadata.sRGBIntent = nil
        return (out, nil)
    }
}

extension Image {
    /// Whether ``inColorSpace(_:threads:)`` builds a transform: false for ``OutputColorSpace/asStored``,
    /// untagged images and RGB images (full-range samples) whose profile is sRGB
    /// (`ICCProfile.isEquivalentToSRGB`), which cost no colour work beyond reading the profile.
    func needsColorConversion(to space: OutputColorSpace) -> Bool {
        guard space == .sRGB, let profile = metadata.iccProfile else { return false }
        if metadata.sampleBits == nil, format.channels >= 3, !(format == .rgba8 && ImageMetadata.iccColorSpace(of: profile) == "CMYK"),
           let parsed = try? ICCProfile(profile), parsed.isEquivalentToSRGB {
            return false
        }
        return true
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
        out.metadata.iccProfile = nil
        out.metadata.iccProfileName = nil
        out.metadata.sRGBIntent = nil
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
