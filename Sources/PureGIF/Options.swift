import ImageCore

/// How strictly a GIF is read. The defaults decode what browsers decode, the way they decode
/// it; each option names one leniency so that a strict reader can turn it off.
///
/// ```swift
/// var strict = GIFDecodingOptions()
/// strict.allowExcessPixelData = false
/// var decoder = GIFDecoder(options: strict)
/// ```
public struct GIFDecodingOptions: Sendable, Equatable {
    /// LZW data that decodes to more pixels than the frame holds is ignored past the last
    /// pixel (browsers stop drawing at the frame's end). Off: ``GIFError/tooMuchPixelData(frame:offset:)``.
    public var allowExcessPixelData: Bool
    /// A frame whose data ends (end code or block terminator) before its last pixel is kept,
    /// the pixels never decoded leaving the canvas as it was. Off: ``GIFError/notEnoughPixelData(frame:offset:)``.
    public var allowIncompletePixelData: Bool
    /// Image data whose sub-blocks end without an end-of-information code is accepted.
    /// Off: ``GIFError/missingEndCode(frame:offset:)``.
    public var allowMissingEndCode: Bool
    /// Sub-blocks after the one holding the end-of-information code are skipped.
    /// Off: ``GIFError/dataAfterEndCode(frame:offset:)``.
    public var allowDataAfterEndCode: Bool
    /// Input that ends at a block boundary after at least one complete frame, without the
    /// trailer byte (0x3B), is a complete file. Off: ``GIFDecoder/finish()`` throws `.truncated`.
    public var allowMissingTrailer: Bool
    /// The colour table used by a frame that has neither a local nor a global one. `nil`
    /// (the default): such a frame is ``GIFError/missingColorTable(frame:offset:)``.
    public var defaultColorTable: Palette?

    /// Options with each leniency on by default (browser behaviour) and no default colour table.
    ///
    /// ```swift
    /// let options = GIFDecodingOptions(allowMissingTrailer: false, defaultColorTable: GIFDecodingOptions.grayColorTable)
    /// let animation = try GIFAnimation(bytes: data, options: options)
    /// ```
    public init(allowExcessPixelData: Bool = true, allowIncompletePixelData: Bool = true,
                allowMissingEndCode: Bool = true, allowDataAfterEndCode: Bool = true,
                allowMissingTrailer: Bool = true, defaultColorTable: Palette? = nil) {
        self.allowExcessPixelData = allowExcessPixelData
        self.allowIncompletePixelData = allowIncompletePixelData
        self.allowMissingEndCode = allowMissingEndCode
        self.allowDataAfterEndCode = allowDataAfterEndCode
        self.allowMissingTrailer = allowMissingTrailer
        self.defaultColorTable = defaultColorTable
    }

    /// Every leniency off: the file must follow GIF89a to the letter (no default colour table).
    public static let strict = GIFDecodingOptions(allowExcessPixelData: false, allowIncompletePixelData: false,
                                                  allowMissingEndCode: false, allowDataAfterEndCode: false,
                                                  allowMissingTrailer: false)

    /// A 256-entry grey ramp, a common choice for ``defaultColorTable``.
    public static let grayColorTable = Palette(rgb: (0 ..< 768).map { UInt8($0 / 3) })
}
