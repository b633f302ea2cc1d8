import ImageCore

/// How colours that fall between palette entries are spread over neighbouring pixels.
public enum Dithering: Sendable, Equatable, Hashable {
    /// Every pixel takes its nearest palette entry.
    case none
    /// Floyd-Steinberg error diffusion, serpentine (rows alternate direction), with the error
    /// scaled by `strength` in 0...1 (libimagequant's `dithering_level`).
    case floydSteinberg(strength: Float)
    /// An 8x8 Bayer threshold added before the nearest-entry search, scaled by `strength` in
    /// 0...1: no error travels, so a pixel's index depends on its colour and position only.
    case ordered(strength: Float)

    /// The strength in 0...1 (0 for ``none``).
    public var strength: Float {
        switch self {
        case .none: 0
        case let .floydSteinberg(s), let .ordered(s): s
        }
    }
}

/// Choices for ``Quantizer``. The defaults follow libimagequant's (256 colours, full
/// Floyd-Steinberg dithering).
///
/// ```swift
/// var options = QuantizationOptions(maxColors: 64)
/// options.dithering = .floydSteinberg(strength: 0.5)
/// let result = try Quantizer.quantize(image, options: options)
/// ```
public struct QuantizationOptions: Sendable, Equatable, Hashable {
    /// At most this many palette entries, 2...256.
    public var maxColors: Int
    /// How pixels are mapped to the palette.
    public var dithering: Dithering
    /// At most this many rounds of k-means refinement after median cut (0 keeps median cut's
    /// boxes' means); rounds stop early once the error stops improving.
    public var kMeansIterations: Int
    /// Weigh smooth areas above noisy ones and edges when building the palette (libimagequant's
    /// importance map): errors in flat areas show, errors in texture hide. On by default: with
    /// libimagequant's dithering it gains SSIM (0.9742 to 0.9752 on the benchmark set) for
    /// 0.02 dB PSNR.
    public var importanceMap: Bool
    /// When set, median cut stops splitting once the palette's mean error reaches what this
    /// quality (0...100, pngquant's scale) allows, giving fewer colours for simple images; no
    /// colour then weighs more than a tenth of the image (libimagequant's cap).
    public var targetQuality: Int?
    /// Threads for the histogram-independent stages (k-means assignment, remapping without
    /// error diffusion): nil uses the processors online, 1 the caller's thread. Results are the
    /// same for every count.
    public var threads: Int?

    public init(maxColors: Int = 256, dithering: Dithering = .floydSteinberg(strength: 1),
                kMeansIterations: Int = 25, importanceMap: Bool = true, targetQuality: Int? = nil,
                threads: Int? = nil) {
        self.maxColors = maxColors
        self.dithering = dithering
        self.kMeansIterations = kMeansIterations
        self.importanceMap = importanceMap
        self.targetQuality = targetQuality
        self.threads = threads
    }

    func validate() throws(QuantizationError) {
        guard (2 ... 256).contains(maxColors) else {
            throw .invalidParameter("maxColors \(maxColors) is outside 2...256")
        }
        guard (0 ... 1).contains(dithering.strength) else {
            throw .invalidParameter("dithering strength \(dithering.strength) is outside 0...1")
        }
        guard (0 ... 100).contains(kMeansIterations) else {
            throw .invalidParameter("kMeansIterations \(kMeansIterations) is outside 0...100")
        }
        if let targetQuality, !(0 ... 100).contains(targetQuality) {
            throw .invalidParameter("targetQuality \(targetQuality) is outside 0...100")
        }
        if let threads, threads < 1 { throw .invalidParameter("threads \(threads) is not at least 1") }
    }
}

/// What ``Quantizer`` can refuse.
public enum QuantizationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// An option out of range, or a palette that cannot serve (empty, over 256 entries).
    case invalidParameter(String)

    public var description: String {
        switch self {
        case let .invalidParameter(message): "invalid quantization parameter: \(message)"
        }
    }
}

/// pngquant's 0...100 quality scale against mean squared error in the quantizer's colour space.
public enum QuantizationQuality {
    /// The largest mean error (``QuantizedImage/meanSquaredError``) that still rates
    /// `quality`: pngquant's curve (roughly libjpeg's quality), 0 for 100.
    public static func maximumError(forQuality quality: Int) -> Double {
        if quality <= 0 { return 1e20 }
        if quality >= 100 { return 0 }
        let q = Double(quality)
        let extraLowQualityFudge = max(0, 0.016 / (0.001 + q) - 0.001)
        return extraLowQualityFudge + 2.5 / power(210 + q, 1.2) * (100.1 - q) / 100
    }

    /// The quality (0...100) whose error bound `error` meets: the largest q with
    /// `maximumError(forQuality: q) >= error`.
    public static func quality(forError error: Double) -> Int {
        var q = 100
        while q > 0 && maximumError(forQuality: q) < error { q -= 1 }
        return q
    }
}
