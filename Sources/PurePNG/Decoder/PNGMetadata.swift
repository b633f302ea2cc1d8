import ImageCore

/// Ancillary chunks (PNG 11.3) into ``ImageMetadata``.
///
/// A malformed ancillary chunk is not fatal (libpng treats it as a benign error): the parser
/// reports why, the decoder turns that into a `.warning` event and skips the chunk. Only
/// exceeding ``DecodingLimits/maxMetadataBytes`` is an error.
enum PNGMetadata {
    enum Outcome: Equatable {
        case stored
        case skipped(String)
    }

    /// Parses one ancillary chunk's `data` into `metadata`. `budget` is what remains of the
    /// metadata limit; decompressed and raw metadata kept is subtracted from it.
    static func parse(_ type: ChunkType, _ data: ArraySlice<UInt8>, info: PNGInfo, into metadata: inout ImageMetadata,
                      budget: inout Int, limits: DecodingLimits, offset: Int) throws(PNGError) -> Outcome {
        let d = Array(data)
        @inline(__always) func u32(_ i: Int) -> UInt32 { d.readUInt32BE(at: i) }
        @inline(__always) func u16(_ i: Int) -> UInt16 { UInt16(d[i]) << 8 | UInt16(d[i + 1]) }
        func charge(_ n: Int) throws(PNGError) {
            guard n <= budget else { throw .limitExceeded(.metadata(limit: limits.maxMetadataBytes), offset: offset) }
            budget -= n
        }
        func inflated(_ bytes: ArraySlice<UInt8>) throws(PNGError) -> [UInt8]? {
            switch Inflater.inflateAll(bytes, limit: budget) {
            case let .success(out):
                try charge(out.count)
                return out
            case .failure(.tooLarge):
                throw .limitExceeded(.metadata(limit: limits.maxMetadataBytes), offset: offset)
            case .failure:
                return nil
            }
        }

        switch type {
        case .gAMA:
            guard d.count == 4 else { return .skipped("gAMA length \(d.count), expected 4") }
            let value = u32(0)
            guard value > 0, value <= 0x7FFF_FFFF else { return .skipped("gAMA value \(value) out of range") }
            metadata.gamma = Double(value) / 100_000
        case .cHRM:
            guard d.count == 32 else { return .skipped("cHRM length \(d.count), expected 32") }
            let v = (0 ..< 8).map { Double(u32(4 * $0)) / 100_000 }
            metadata.chromaticities = Chromaticities(whiteX: v[0], whiteY: v[1], redX: v[2], redY: v[3],
                                                     greenX: v[4], greenY: v[5], blueX: v[6], blueY: v[7])
        case .sRGB:
            guard d.count == 1, d[0] <= 3 else { return .skipped("invalid sRGB chunk") }
            metadata.sRGBIntent = d[0]
        case .cICP:
            guard d.count == 4 else { return .skipped("cICP length \(d.count), expected 4") }
            // PNG carries RGB only (matrix 0) and a full-range flag of 0 or 1.
            guard d[2] == 0, d[3] <= 1 else { return .skipped("cICP matrix \(d[2]) or range flag \(d[3]) invalid") }
            metadata.cicp = CICP(colorPrimaries: d[0], transferCharacteristics: d[1], matrixCoefficients: d[2], fullRange: d[3] == 1)
        case .iCCP:
            guard let nul = d.firstIndex(of: 0), (1 ... 79).contains(nul), d.count >= nul + 2 else {
                return .skipped("iCCP without a valid profile name")
            }
            guard d[nul + 1] == 0 else { return .skipped("iCCP compression method \(d[nul + 1])") }
            guard let profile = try inflated(d[(nul + 2)...]) else { return .skipped("iCCP profile does not decompress") }
            metadata.iccProfile = profile
            metadata.iccProfileName = latin1(d[0 ..< nul])
        case .tEXt:
            guard let nul = d.firstIndex(of: 0), (1 ... 79).contains(nul) else { return .skipped("tEXt without a valid keyword") }
            try charge(d.count)
            metadata.texts.append(TextEntry(keyword: latin1(d[0 ..< nul]), text: latin1(d[(nul + 1)...]), kind: .plain))
        case .zTXt:
            guard let nul = d.firstIndex(of: 0), (1 ... 79).contains(nul), d.count >= nul + 2 else {
                return .skipped("zTXt without a valid keyword")
            }
            guard d[nul + 1] == 0 else { return .skipped("zTXt compression method \(d[nul + 1])") }
            guard let text = try inflated(d[(nul + 2)...]) else { return .skipped("zTXt text does not decompress") }
            metadata.texts.append(TextEntry(keyword: latin1(d[0 ..< nul]), text: latin1(text[...]), kind: .compressed))
        case .iTXt:
            return try parseInternationalText(d, into: &metadata, inflate: inflated, charge: charge)
        case .pHYs:
            guard d.count == 9 else { return .skipped("pHYs length \(d.count), expected 9") }
            guard d[8] <= 1 else { return .skipped("pHYs unit \(d[8])") }
            metadata.density = Density(x: Int(u32(0)), y: Int(u32(4)), unit: d[8] == 1 ? .perMetre : .aspectRatio)
        case .tIME:
            guard d.count == 7 else { return .skipped("tIME length \(d.count), expected 7") }
            let t = Timestamp(year: Int(u16(0)), month: Int(d[2]), day: Int(d[3]), hour: Int(d[4]), minute: Int(d[5]), second: Int(d[6]))
            guard (1 ... 12).contains(t.month), (1 ... 31).contains(t.day), t.hour < 24, t.minute < 60, t.second <= 60 else {
                return .skipped("tIME out of range")
            }
            metadata.modificationTime = t
        case .bKGD:
            return parseBackground(d, info: info, into: &metadata)
        case .sBIT:
            let channels = info.colorType == .palette ? 3 : info.colorType.channels
            let depth = info.colorType == .palette ? 8 : info.bitDepth
            guard d.count == channels else { return .skipped("sBIT length \(d.count), expected \(channels)") }
            guard d.allSatisfy({ $0 >= 1 && Int($0) <= depth }) else { return .skipped("sBIT value out of range") }
            metadata.significantBits = d
        case .eXIf:
            try charge(d.count)
            var exif = d
            // Some writers keep the JPEG APP1 prefix; the TIFF structure starts after it.
            if exif.starts(with: [0x45, 0x78, 0x69, 0x66, 0, 0]) { exif.removeFirst(6) }
            guard let orientation = EXIF.orientation(exif) else { return .skipped("eXIf is not a TIFF structure") }
            metadata.exif = exif
            metadata.orientation = orientation
        default:
            return .skipped("unknown chunk \(type)")
        }
        return .stored
    }

    /// iTXt (PNG 11.3.4.5): keyword, compression flag and method, language, translated
    /// keyword, then UTF-8 text, compressed when the flag says so.
    private static func parseInternationalText(_ d: [UInt8], into metadata: inout ImageMetadata,
                                               inflate: ([UInt8].SubSequence) throws(PNGError) -> [UInt8]?,
                                               charge: (Int) throws(PNGError) -> Void) throws(PNGError) -> Outcome {
        guard let nul = d.firstIndex(of: 0), (1 ... 79).contains(nul), d.count >= nul + 3 else {
            return .skipped("iTXt without a valid keyword")
        }
        let flag = d[nul + 1], method = d[nul + 2]
        guard flag <= 1, method == 0 else { return .skipped("iTXt compression flag \(flag) method \(method)") }
        let languageStart = nul + 3
        guard let languageEnd = d[languageStart...].firstIndex(of: 0),
              let translatedEnd = d[(languageEnd + 1)...].firstIndex(of: 0) else {
            return .skipped("iTXt fields not terminated")
        }
        let body = d[(translatedEnd + 1)...]
        let text: [UInt8]
        if flag == 1 {
            guard let t = try inflate(body) else { return .skipped("iTXt text does not decompress") }
            text = t
        } else {
            try charge(body.count)
            text = Array(body)
        }
        metadata.texts.append(TextEntry(keyword: latin1(d[0 ..< nul]), text: String(decoding: text, as: UTF8.self),
                                        kind: .international,
                                        language: String(decoding: d[languageStart ..< languageEnd], as: UTF8.self),
                                        translatedKeyword: String(decoding: d[(languageEnd + 1) ..< translatedEnd], as: UTF8.self),
                                        compressed: flag == 1))
        return .stored
    }

    /// bKGD (PNG 11.3.5.1) as 16-bit RGB: palette entries and 8-bit samples x257, lower
    /// depths scaled to the full 16-bit range.
    private static func parseBackground(_ d: [UInt8], info: PNGInfo, into metadata: inout ImageMetadata) -> Outcome {
        let maxValue = info.bitDepth == 16 ? 65535 : (1 << info.bitDepth) - 1
        let scale = 65535 / maxValue
        @inline(__always) func sample(_ i: Int) -> Int { Int(d[i]) << 8 | Int(d[i + 1]) }
        switch info.colorType {
        case .palette:
            guard d.count == 1 else { return .skipped("bKGD length \(d.count), expected 1") }
            guard let palette = info.palette, Int(d[0]) < palette.count else { return .skipped("bKGD index outside the palette") }
            let e = Int(d[0]) * 4
            metadata.background = (0 ..< 3).map { UInt16(palette.rgba[e + $0]) * 257 }
        case .gray, .grayAlpha:
            guard d.count == 2 else { return .skipped("bKGD length \(d.count), expected 2") }
            let v = sample(0)
            guard v <= maxValue else { return .skipped("bKGD value out of range") }
            let wide = UInt16(v * scale)
            metadata.background = [wide, wide, wide]
        case .rgb, .rgba:
            guard d.count == 6 else { return .skipped("bKGD length \(d.count), expected 6") }
            let v = [sample(0), sample(2), sample(4)]
            guard v.allSatisfy({ $0 <= maxValue }) else { return .skipped("bKGD value out of range") }
            metadata.background = v.map { UInt16($0 * scale) }
        }
        return .stored
    }

    /// ISO 8859-1 bytes as a string: each byte is the Unicode scalar of the same value.
    static func latin1(_ bytes: ArraySlice<UInt8>) -> String {
        var s = String.UnicodeScalarView()
        for b in bytes { s.append(Unicode.Scalar(b)) }
        return String(s)
    }
}

