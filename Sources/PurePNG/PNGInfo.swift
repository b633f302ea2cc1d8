import ImageCore

/// What the critical chunks say about a PNG: IHDR (PNG 11.2.2), PLTE (11.2.3) and the
/// transparency of tRNS (11.3.2.1), validated.
///
/// ```swift
/// var decoder = PNGDecoder()
/// _ = try decoder.append(bytes)
/// if let info = decoder.info { print(info.width, info.colorType, info.bitDepth) }
/// ```
public struct PNGInfo: Sendable, Equatable {
    /// The tRNS chunk's content, by colour type.
    public enum Transparency: Sendable, Equatable {
        /// Gray samples equal to this value (at the image's bit depth) are transparent.
        case gray(UInt16)
        /// RGB pixels equal to this colour (at the image's bit depth) are transparent.
        case rgb(red: UInt16, green: UInt16, blue: UInt16)
        /// Alpha for the first palette entries (the rest are opaque).
        case palette([UInt8])
    }

    /// Width in pixels (1 to 2^31 - 1).
    public var width: Int
    /// Height in pixels (1 to 2^31 - 1).
    public var height: Int
    /// 1, 2, 4, 8 or 16 bits per sample (PNG 11.2.2, Table 11.1).
    public var bitDepth: Int
    /// The colour type of the encoded data.
    public var colorType: PNGColorType
    /// Adam7 interlacing (PNG 8.2).
    public var interlaced: Bool
    /// PLTE entries, with tRNS alphas merged in; nil when there is no PLTE.
    public var palette: Palette?
    /// The tRNS chunk, when present and valid.
    public var transparency: Transparency?

    /// Header facts as IHDR, PLTE and tRNS state them (the decoder validates them; this initializer does not).
    public init(width: Int, height: Int, bitDepth: Int, colorType: PNGColorType, interlaced: Bool,
                palette: Palette? = nil, transparency: Transparency? = nil) {
        self.width = width
        self.height = height
        self.bitDepth = bitDepth
        self.colorType = colorType
        self.interlaced = interlaced
        self.palette = palette
        self.transparency = transparency
    }

    /// Bits in one encoded pixel.
    public var bitsPerPixel: Int { bitDepth * colorType.channels }

    /// The "bpp" of the filters (PNG 9.2): bytes per complete pixel, at least 1.
    public var filterBytesPerPixel: Int { max(1, bitsPerPixel / 8) }

    /// Bytes in one unfiltered row of `width` pixels (no filter byte).
    public func rowBytes(width: Int) -> Int { (width * bitsPerPixel + 7) / 8 }

    /// The layout ``PNGDecoder`` produces: the source's channels and depth, with an alpha
    /// channel when tRNS is present (palette images become RGB or RGBA 8-bit).
    public var outputFormat: PixelFormat {
        let sixteen = bitDepth == 16
        switch colorType {
        case .gray: return transparency == nil ? (sixteen ? .gray16 : .gray8) : (sixteen ? .grayAlpha16 : .grayAlpha8)
        case .rgb: return transparency == nil ? (sixteen ? .rgb16 : .rgb8) : (sixteen ? .rgba16 : .rgba8)
        case .palette: return transparency == nil ? .rgb8 : .rgba8
        case .grayAlpha: return sixteen ? .grayAlpha16 : .grayAlpha8
        case .rgba: return sixteen ? .rgba16 : .rgba8
        }
    }

    /// Parses the 13 bytes of IHDR (PNG 11.2.2). `offset` is the chunk's start in the file.
    static func parseHeader(_ data: ArraySlice<UInt8>, offset: Int) throws(PNGError) -> PNGInfo {
        guard data.count == 13 else { throw .invalidHeaderLength(length: UInt32(clamping: data.count), offset: offset) }
        let b = Array(data)
        let width = b.readUInt32BE(at: 0), height = b.readUInt32BE(at: 4)
        let depth = b[8], colour = b[9]
        guard (1 ... 0x7FFF_FFFF).contains(width), (1 ... 0x7FFF_FFFF).contains(height) else {
            throw .invalidDimensions(width: width, height: height, offset: offset)
        }
        guard let colorType = PNGColorType(rawValue: colour), colorType.allowedBitDepths.contains(Int(depth)) else {
            throw .invalidColorTypeAndDepth(colorType: colour, bitDepth: depth, offset: offset)
        }
        guard b[10] == 0 else { throw .invalidCompressionMethod(b[10], offset: offset) }
        guard b[11] == 0 else { throw .invalidFilterMethod(b[11], offset: offset) }
        guard b[12] <= 1 else { throw .invalidInterlaceMethod(b[12], offset: offset) }
        return PNGInfo(width: Int(width), height: Int(height), bitDepth: Int(depth), colorType: colorType,
                       interlaced: b[12] == 1)
    }

    /// Validates PLTE (PNG 11.2.3): a whole number of RGB triples, 1 to 256 entries, no more
    /// than the bit depth can index.
    func parsePalette(_ data: ArraySlice<UInt8>, offset: Int) throws(PNGError) -> Palette {
        let entries = data.count / 3
        guard data.count % 3 == 0, entries >= 1, entries <= 256 else {
            throw .invalidPalette(entries: entries, offset: offset)
        }
        if colorType == .palette && entries > 1 << bitDepth {
            throw .invalidPalette(entries: entries, offset: offset)
        }
        return Palette(rgb: data)
    }

    /// Why a gray or RGB tRNS key is out of range for a bit depth below 16 (PNG 11.3.2.1), or
    /// nil. libpng warns and compares the key's low bits only.
    func outOfRangeKey(_ transparency: Transparency) -> String? {
        guard bitDepth < 16 else { return nil }
        let top = UInt16((1 << bitDepth) - 1)
        switch transparency {
        case let .gray(v) where v > top: return "gray key \(v) over \(top)"
        case let .rgb(r, g, b) where r > top || g > top || b > top: return "colour key \(r),\(g),\(b) over \(top)"
        default: return nil
        }
    }

    /// Validates tRNS (PNG 11.3.2.1) against the colour type and palette.
    func parseTransparency(_ data: ArraySlice<UInt8>, offset: Int) throws(PNGError) -> Transparency {
        let b = Array(data)
        @inline(__always) func u16(_ i: Int) -> UInt16 { UInt16(b[i]) << 8 | UInt16(b[i + 1]) }
        switch colorType {
        case .gray:
            guard b.count == 2 else { throw .invalidTransparency(reason: "gray tRNS must be 2 bytes, got \(b.count)", offset: offset) }
            return .gray(u16(0))
        case .rgb:
            guard b.count == 6 else { throw .invalidTransparency(reason: "RGB tRNS must be 6 bytes, got \(b.count)", offset: offset) }
            return .rgb(red: u16(0), green: u16(2), blue: u16(4))
        case .palette:
            let entries = palette?.count ?? 0
            guard b.count <= entries else {
                throw .invalidTransparency(reason: "\(b.count) alphas for \(entries) palette entries", offset: offset)
            }
            return .palette(b)
        case .grayAlpha, .rgba:
            throw .invalidTransparency(reason: "tRNS in an image with an alpha channel", offset: offset)
        }
    }
}
