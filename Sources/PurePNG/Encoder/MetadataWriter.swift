import ImageCore

/// Writes ``ImageMetadata`` as PNG ancillary chunks, in the order PNG 5.6 requires:
/// cHRM, gAMA, iCCP (or sRGB: PNG 11.3.3.5 advises against both; iCCP wins) and sBIT before
/// PLTE; then tRNS (written by the encoder), bKGD and pHYs after PLTE; eXIf, tIME and the text
/// chunks before IDAT, so a streaming reader sees everything before the pixels.
///
/// Values a PNG cannot carry (a keyword of 80 bytes, a month of 13, a negative gamma) throw
/// ``PNGError/invalidParameter(_:)`` rather than being silently changed; metadata that simply
/// does not apply to the output layout (a bKGD colour that is not gray in a gray image, an
/// sBIT list of the wrong length) is left out.
enum MetadataWriter {
    /// cHRM, gAMA, iCCP or sRGB, sBIT.
    static func writeBeforePalette(_ m: ImageMetadata, source: PixelFormat, layout: EncodedLayout,
                                   level: Int, into w: inout ChunkWriter) throws(PNGError) {
        if let c = m.chromaticities {
            var data: [UInt8] = []
            for v in [c.whiteX, c.whiteY, c.redX, c.redY, c.greenX, c.greenY, c.blueX, c.blueY] {
                data.appendBigEndian32(try fixedPoint(v, name: "chromaticity"))
            }
            try w.write(.cHRM, data)
        }
        if let g = m.gamma {
            let v = try fixedPoint(g, name: "gamma")
            guard v > 0 else { throw .invalidParameter("gamma \(g) must be positive") }
            var data: [UInt8] = []
            data.appendBigEndian32(v)
            try w.write(.gAMA, data)
        }
        let grayLayout = layout.colorType == .gray || layout.colorType == .grayAlpha
        if let profile = m.iccProfileMatching(colorChannels: grayLayout ? 1 : 3) {
            // PNG 11.3.3.3: name, NUL, compression method 0, zlib datastream.
            var data = try keyword(m.iccProfileName ?? "ICC Profile", chunk: "iCCP")
            data.append(0)
            data.append(0)
            data.append(contentsOf: try Deflater.compress(profile, level: level))
            try w.write(.iCCP, data)
        } else if let intent = m.sRGBIntent {
            guard intent <= 3 else { throw .invalidParameter("sRGB rendering intent \(intent) is not 0...3") }
            try w.write(.sRGB, [intent])
        }
        if let bits = m.significantBits, let data = significantBits(bits, source: source, layout: layout) {
            try w.write(.sBIT, data)
        }
    }

    /// bKGD, pHYs, eXIf, tIME, tEXt/zTXt/iTXt.
    static func writeAfterPalette(_ m: ImageMetadata, layout: EncodedLayout, palette: PaletteIndex?,
                                  level: Int, into w: inout ChunkWriter) throws(PNGError) {
        if let bg = m.background, let data = background(bg, layout: layout, palette: palette) {
            try w.write(.bKGD, data)
        }
        if let d = m.density { try w.write(.pHYs, try physicalDimensions(d)) }
        if let exif = m.exif { try w.write(.eXIf, exif) }
        if let t = m.modificationTime { try w.write(.tIME, try time(t)) }
        for entry in m.texts { try writeText(entry, level: level, into: &w) }
    }

    // MARK: Field encodings

    /// PNG 11.3.3.2, 11.3.3.4: value times 100000 as a 4-byte unsigned integer.
    private static func fixedPoint(_ v: Double, name: String) throws(PNGError) -> UInt32 {
        let scaled = (v * 100_000).rounded()
        guard scaled.isFinite, scaled >= 0, scaled <= Double(Int32.max) else {
            throw .invalidParameter("\(name) \(v) is outside what PNG can store")
        }
        return UInt32(scaled)
    }

    /// PNG 11.3.4.2: 1-79 Latin-1 printable characters, no leading, trailing or double spaces.
    static func keyword(_ s: String, chunk: String) throws(PNGError) -> [UInt8] {
        guard let bytes = latin1(s), (1 ... 79).contains(bytes.count),
              bytes.allSatisfy({ (32 ... 126).contains($0) || $0 >= 161 }),
              bytes.first != 32, bytes.last != 32,
              !zip(bytes, bytes.dropFirst()).contains(where: { $0 == 32 && $1 == 32 })
        else { throw .invalidParameter("\"\(s)\" is not a valid PNG keyword for \(chunk)") }
        return bytes
    }

    /// The ISO 8859-1 bytes of `s`, or nil if it has a character outside Latin-1 or a NUL.
    static func latin1(_ s: String) -> [UInt8]? {
        var out: [UInt8] = []
        out.reserveCapacity(s.unicodeScalars.count)
        for u in s.unicodeScalars {
            guard u.value > 0, u.value <= 255 else { return nil }
            out.append(UInt8(u.value))
        }
        return out
    }

    /// PNG 11.3.4.3-5: tEXt, zTXt, iTXt. Text that Latin-1 cannot hold goes into iTXt (UTF-8)
    /// whatever kind it was, so nothing is lost.
    private static func writeText(_ e: TextEntry, level: Int, into w: inout ChunkWriter) throws(PNGError) {
        let key = try keyword(e.keyword, chunk: "text")
        let latin = e.kind == .international ? nil : latin1(e.text)
        if let latin, e.kind == .plain, !e.compressed {
            try w.write(.tEXt, key + [0] + latin)
            return
        }
        if let latin {
            try w.write(.zTXt, key + [0, 0] + (try Deflater.compress(latin, level: level)))
            return
        }
        guard e.language.unicodeScalars.allSatisfy({ $0.value > 0 && $0.value < 128 }),
              !e.translatedKeyword.utf8.contains(0) else {
            throw .invalidParameter("iTXt language tag or translated keyword of \"\(e.keyword)\" is invalid")
        }
        let text = Array(e.text.utf8)
        var data = key
        data.append(0)
        data.append(e.compressed ? 1 : 0)
        data.append(0)
        data.append(contentsOf: e.language.utf8)
        data.append(0)
        data.append(contentsOf: e.translatedKeyword.utf8)
        data.append(0)
        data.append(contentsOf: e.compressed ? try Deflater.compress(text, level: level) : text)
        try w.write(.iTXt, data)
    }

    /// PNG 11.3.5.3: pixels per unit; unit 1 is the metre, 0 an aspect ratio only.
    private static func physicalDimensions(_ d: Density) throws(PNGError) -> [UInt8] {
        let scale: Double = switch d.unit {
        case .aspectRatio, .perMetre: 1
        case .perCentimetre: 100
        case .perInch: 1 / 0.0254
        }
        let x = (Double(d.x) * scale).rounded(), y = (Double(d.y) * scale).rounded()
        guard x >= 0, y >= 0, x <= Double(Int32.max), y <= Double(Int32.max) else {
            throw .invalidParameter("density \(d.x)x\(d.y) is outside what pHYs can store")
        }
        var data: [UInt8] = []
        data.appendBigEndian32(UInt32(x))
        data.appendBigEndian32(UInt32(y))
        data.append(d.unit == .aspectRatio ? 0 : 1)
        return data
    }

    /// PNG 11.3.6.1: year (2 bytes), month, day, hour, minute, second (up to 60 for leap seconds).
    private static func time(_ t: Timestamp) throws(PNGError) -> [UInt8] {
        guard (0 ... 65535).contains(t.year), (1 ... 12).contains(t.month), (1 ... 31).contains(t.day),
              (0 ... 23).contains(t.hour), (0 ... 59).contains(t.minute), (0 ... 60).contains(t.second) else {
            throw .invalidParameter("tIME \(t.year)-\(t.month)-\(t.day) \(t.hour):\(t.minute):\(t.second) is out of range")
        }
        var data: [UInt8] = []
        data.appendBigEndian16(UInt16(t.year))
        for v in [t.month, t.day, t.hour, t.minute, t.second] { data.append(UInt8(v)) }
        return data
    }

    /// PNG 11.3.3.4: one significant-bit count per output channel (RGB for palette images),
    /// each 1...sample depth. `bits` is in the source image's channel order.
    private static func significantBits(_ bits: [UInt8], source: PixelFormat, layout: EncodedLayout) -> [UInt8]? {
        guard bits.count == source.channels else { return nil }
        let sampleDepth = layout.colorType == .palette ? 8 : layout.bitDepth
        let r = bits[0], g = source.isColor ? bits[1] : bits[0], b = source.isColor ? bits[2] : bits[0]
        let a = source.hasAlpha ? bits[bits.count - 1] : UInt8(sampleDepth)
        let out: [UInt8] = switch layout.colorType {
        case .gray: [max(r, g, b)]
        case .grayAlpha: [max(r, g, b), a]
        case .rgb, .palette: [r, g, b]
        case .rgba: [r, g, b, a]
        }
        let clamped = out.map { min($0, UInt8(sampleDepth)) }
        return clamped.contains(0) ? nil : clamped
    }

    /// PNG 11.3.5.1: a gray level or RGB at the image's depth, or a palette index.
    private static func background(_ bg: [UInt16], layout: EncodedLayout, palette: PaletteIndex?) -> [UInt8]? {
        guard bg.count == 3 else { return nil }
        let maxValue = UInt32(1 << layout.bitDepth) - 1
        @inline(__always) func scaled(_ v: UInt16) -> UInt16 {
            UInt16(truncatingIfNeeded: (UInt32(v) * maxValue + 32767) / 65535)
        }
        var data: [UInt8] = []
        switch layout.colorType {
        case .gray, .grayAlpha:
            guard bg[0] == bg[1], bg[1] == bg[2] else { return nil }
            data.appendBigEndian16(scaled(bg[0]))
        case .rgb, .rgba:
            for v in bg { data.appendBigEndian16(scaled(v)) }
        case .palette:
            let rgb = bg.map { (UInt32($0) * 255 + 32767) / 65535 }
            guard let palette, let i = palette.entries.firstIndex(where: {
                $0 >> 24 == rgb[0] && ($0 >> 16) & 0xFF == rgb[1] && ($0 >> 8) & 0xFF == rgb[2]
            }) else { return nil }
            data.append(UInt8(truncatingIfNeeded: i))
        }
        return data
    }
}
