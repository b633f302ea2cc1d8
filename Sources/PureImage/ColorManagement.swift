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
    /// A profile that cannot be used (LUT-based or CMYK profiles, not supported yet; a damaged
    /// one; one whose colour space is not the pixels') is dropped and the pixels are taken as
    /// sRGB, with a warning saying so. The conversion never fails.
    ///
    /// ```swift
    /// let (display, warning) = try ImageSource.decode(bytes).inColorSpace(.sRGB)
    /// ```
    public func inColorSpace(_ space: OutputColorSpace, threads: Int? = nil) -> (image: Image, warning: String?) {
        guard space == .sRGB, let profile = metadata.iccProfile else { return (self, nil) }
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
