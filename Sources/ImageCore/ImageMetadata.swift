/// Everything about an image that is not its pixels, gathered from whichever container it
/// came in (PNG chunks, JPEG APPn segments, GIF extensions).
public struct ImageMetadata: Sendable, Equatable {
    /// An embedded ICC colour profile, decompressed.
    public var iccProfile: [UInt8]?
    /// The ICC profile's name where the container gives one (PNG iCCP).
    public var iccProfileName: String?
    /// Raw EXIF bytes (a TIFF structure, starting `II*\0` or `MM\0*`).
    public var exif: [UInt8]?
    /// The EXIF orientation; ``Orientation/up`` when absent. Decoders do not apply it unless asked.
    public var orientation: Orientation
    /// The file gamma (PNG gAMA: 1/2.2 is 0.45455).
    public var gamma: Double?
    /// The sRGB rendering intent (PNG sRGB: 0 perceptual ... 3 absolute colorimetric).
    public var sRGBIntent: UInt8?
    /// The white point and primaries (PNG cHRM).
    public var chromaticities: Chromaticities?
    /// Coding-independent code points (PNG cICP, ITU-T H.273): primaries, transfer function,
    /// matrix, full range.
    public var cicp: CICP?
    /// Text entries (PNG tEXt, zTXt, iTXt; JPEG COM and GIF comments have keyword "Comment").
    public var texts: [TextEntry]
    /// The pixel density or aspect ratio (PNG pHYs, JPEG JFIF).
    public var density: Density?
    /// The last-modification time (PNG tIME).
    public var modificationTime: Timestamp?
    /// The suggested background colour as 16-bit RGB (PNG bKGD, expanded from any colour type).
    public var background: [UInt16]?
    /// The number of significant bits per channel (PNG sBIT), in the image's channel order.
    public var significantBits: [UInt8]?
    /// For an image whose samples run 0...2^n - 1 rather than over the format's full range: n
    /// (2...7 in an 8-bit format, 2...15 in a 16-bit one). 12-bit and lossless JPEG decode this
    /// way, to the values libjpeg-turbo returns; Netpbm output writes MAXVAL 2^n - 1, and
    /// ``Image/converted(to:)`` and the encoders scale the samples to the full range first
    /// (``Image/fullRange()``). nil: the format's full range.
    public var sampleBits: Int?

    /// Metadata with the given fields; everything unset by default (``isEmpty`` is then true).
    public init(iccProfile: [UInt8]? = nil, iccProfileName: String? = nil, exif: [UInt8]? = nil,
                orientation: Orientation = .up, gamma: Double? = nil, sRGBIntent: UInt8? = nil,
                chromaticities: Chromaticities? = nil, texts: [TextEntry] = [], density: Density? = nil,
                modificationTime: Timestamp? = nil, background: [UInt16]? = nil,
                significantBits: [UInt8]? = nil, cicp: CICP? = nil) {
        self.iccProfile = iccProfile
        self.iccProfileName = iccProfileName
        self.exif = exif
        self.orientation = orientation
        self.gamma = gamma
        self.sRGBIntent = sRGBIntent
        self.chromaticities = chromaticities
        self.texts = texts
        self.density = density
        self.modificationTime = modificationTime
        self.background = background
        self.significantBits = significantBits
        self.cicp = cicp
    }

    /// True when nothing is set.
    public var isEmpty: Bool { self == ImageMetadata() }

    /// The names of the fields that are set, for `info`-style listings (stable order).
    public var keys: [String] {
        var keys: [String] = []
        if iccProfile != nil { keys.append("icc") }
        if exif != nil { keys.append("exif") }
        if orientation != .up { keys.append("orientation") }
        if gamma != nil { keys.append("gamma") }
        if sRGBIntent != nil { keys.append("srgb") }
        if chromaticities != nil { keys.append("chromaticities") }
        if cicp != nil { keys.append("cicp") }
        if !texts.isEmpty { keys.append("text") }
        if density != nil { keys.append("density") }
        if modificationTime != nil { keys.append("time") }
        if background != nil { keys.append("background") }
        if significantBits != nil { keys.append("significantBits") }
        if sampleBits != nil { keys.append("sampleBits") }
        return keys
    }
}

/// One keyword/value text entry.
public struct TextEntry: Sendable, Equatable {
    /// How the entry is (or is to be) stored.
    public enum Kind: String, Sendable, Equatable {
        /// Latin-1 text (PNG tEXt), or a comment (JPEG COM, GIF comment extension).
        case plain
        /// Latin-1 text stored compressed (PNG zTXt).
        case compressed
        /// UTF-8 text with a language tag (PNG iTXt), compressed or not.
        case international
    }
    /// The keyword, such as "Title", "Author" or "Comment" (PNG: 1 to 79 Latin-1 characters).
    public var keyword: String
    /// The text itself.
    public var text: String
    /// How the entry is stored.
    public var kind: Kind
    /// iTXt language tag.
    public var language: String
    /// iTXt translated keyword.
    public var translatedKeyword: String
    /// iTXt: whether the text is (to be) stored compressed.
    public var compressed: Bool

    /// A text entry; ``compressed`` is also set when `kind` is ``Kind/compressed``.
    ///
    /// ```swift
    /// image.metadata.texts.append(TextEntry(keyword: "Author", text: "Ada"))
    /// ```
    public init(keyword: String, text: String, kind: Kind = .plain, language: String = "",
                translatedKeyword: String = "", compressed: Bool = false) {
        self.keyword = keyword
        self.text = text
        self.kind = kind
        self.language = language
        self.translatedKeyword = translatedKeyword
        self.compressed = compressed || kind == .compressed
    }
}

/// Pixel density: per metre (PNG pHYs unit 1), per inch or per centimetre (JPEG JFIF), or
/// an aspect ratio only.
public struct Density: Sendable, Equatable {
    /// What ``x`` and ``y`` count: a ratio only, or pixels per inch, centimetre or metre.
    public enum Unit: String, Sendable, Equatable {
        /// No physical unit: ``Density/x`` and ``Density/y`` give only the pixel aspect ratio.
        case aspectRatio
        /// Pixels per inch (dpi; JFIF unit 1).
        case perInch
        /// Pixels per centimetre (JFIF unit 2).
        case perCentimetre
        /// Pixels per metre (PNG pHYs unit 1).
        case perMetre
    }
    /// Horizontal pixels per unit.
    public var x: Int
    /// Vertical pixels per unit.
    public var y: Int
    /// The unit of ``x`` and ``y``.
    public var unit: Unit
    /// A density of `x` by `y` pixels per `unit`.
    public init(x: Int, y: Int, unit: Unit) { self.x = x; self.y = y; self.unit = unit }

    /// Dots per inch where the unit allows it.
    public var dpi: (x: Double, y: Double)? {
        switch unit {
        case .aspectRatio: nil
        case .perInch: (Double(x), Double(y))
        case .perCentimetre: (Double(x) * 2.54, Double(y) * 2.54)
        case .perMetre: (Double(x) * 0.0254, Double(y) * 0.0254)
        }
    }
}

/// CIE chromaticities of the white point and primaries (PNG cHRM).
public struct Chromaticities: Sendable, Equatable {
    /// CIE 1931 x and y of the white point and of the red, green and blue primaries (0 to 1).
    public var whiteX, whiteY, redX, redY, greenX, greenY, blueX, blueY: Double
    /// Chromaticities from the eight CIE x, y coordinates.
    public init(whiteX: Double, whiteY: Double, redX: Double, redY: Double,
                greenX: Double, greenY: Double, blueX: Double, blueY: Double) {
        self.whiteX = whiteX; self.whiteY = whiteY; self.redX = redX; self.redY = redY
        self.greenX = greenX; self.greenY = greenY; self.blueX = blueX; self.blueY = blueY
    }
}

/// ITU-T H.273 coding-independent code points (PNG cICP, an ICC `cicp` tag).
public struct CICP: Sendable, Hashable {
    /// Colour primaries (1: BT.709/sRGB, 9: BT.2020, 12: Display P3 (D65), ...).
    public var colorPrimaries: UInt8
    /// Transfer characteristics (13: sRGB, 1/6/14/15: BT.709, 8: linear, 16: PQ, 18: HLG, ...).
    public var transferCharacteristics: UInt8
    /// Matrix coefficients (0 for RGB: PNG allows nothing else).
    public var matrixCoefficients: UInt8
    /// True for full-range samples.
    public var fullRange: Bool
    /// Code points from their four values.
    public init(colorPrimaries: UInt8, transferCharacteristics: UInt8, matrixCoefficients: UInt8 = 0, fullRange: Bool = true) {
        self.colorPrimaries = colorPrimaries
        self.transferCharacteristics = transferCharacteristics
        self.matrixCoefficients = matrixCoefficients
        self.fullRange = fullRange
    }
}

/// A calendar time in UTC (PNG tIME).
public struct Timestamp: Sendable, Equatable {
    /// Year (e.g. 2024), month (1-12), day (1-31), hour (0-23), minute (0-59), second (0-60).
    public var year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int
    /// A timestamp from its calendar fields, UTC.
    public init(year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int) {
        self.year = year; self.month = month; self.day = day
        self.hour = hour; self.minute = minute; self.second = second
    }
}

extension ImageMetadata {
    /// The data colour space an ICC profile declares (header bytes 16-19: `"RGB "`, `"GRAY"`,
    /// `"CMYK"`, ...), or nil for a profile shorter than its header.
    public static func iccColorSpace(of profile: [UInt8]) -> String? {
        guard profile.count >= 128 else { return nil }
        return String(decoding: profile[16 ..< 20], as: UTF8.self)
    }

    /// ``iccProfile`` when its colour space suits an output of `colorChannels` colour channels
    /// (1: `GRAY`, 3: `RGB `, 4: `CMYK`), else nil. An encoder writes only such a profile: a
    /// CMYK profile on RGB pixels, or an RGB one on gray, is invalid (PNG 11.3.3.3, ICC.1
    /// 7.2.6), and viewers that honour it show wrong colours.
    ///
    /// ```swift
    /// let profile = image.metadata.iccProfileMatching(colorChannels: image.format.isColor ? 3 : 1)
    /// ```
    public func iccProfileMatching(colorChannels: Int) -> [UInt8]? {
        guard let profile = iccProfile, let space = Self.iccColorSpace(of: profile) else { return nil }
        switch colorChannels {
        case 1: return space == "GRAY" ? profile : nil
        case 3: return space == "RGB " ? profile : nil
        case 4: return space == "CMYK" ? profile : nil
        default: return nil
        }
    }
}

/// Which metadata an output carries (``ImageMetadata/kept(_:)``).
///
/// | policy | kept |
/// | --- | --- |
/// | ``all`` | everything |
/// | ``colorOnly`` | what says how to show the pixels: ICC profile, sRGB intent, gamma, chromaticities, cICP, significant bits, orientation |
/// | ``dropAll`` | nothing but how to read the samples (``ImageMetadata/sampleBits``) |
public enum MetadataPolicy: String, Sendable, Equatable, CaseIterable {
    /// Every field, EXIF (camera, GPS position, serial numbers) and text included.
    case all
    /// Colour only: no EXIF, text, density or time (what a published thumbnail should carry).
    case colorOnly = "color"
    /// Nothing (`"none"` on the command line). Not named `none`, which an optional
    /// `MetadataPolicy?` parameter would read as nil.
    case dropAll = "none"
}

extension ImageMetadata {
    /// This metadata with only what `policy` keeps.
    ///
    /// ```swift
    /// thumbnail.metadata = thumbnail.metadata.kept(.colorOnly)   // no GPS position in the output
    /// ```
    public func kept(_ policy: MetadataPolicy) -> ImageMetadata {
        switch policy {
        case .all:
            return self
        case .colorOnly:
            var out = ImageMetadata(iccProfile: iccProfile, iccProfileName: iccProfileName, orientation: orientation, gamma: gamma,
                                    sRGBIntent: sRGBIntent, chromaticities: chromaticities, significantBits: significantBits,
                                    cicp: cicp)
            out.sampleBits = sampleBits
            return out
        case .dropAll:
            var out = ImageMetadata()
            out.sampleBits = sampleBits
            return out
        }
    }
}
