import PureImage
/// Netpbm writers: PAM (P7) keeps channels and depth; PGM/PPM (P5/P6) carry gray or RGB only.
enum Netpbm {
    /// P7 with WIDTH HEIGHT DEPTH MAXVAL TUPLTYPE ENDHDR; 16-bit samples big-endian.
    static func pam(_ image: Image) -> [UInt8] {
        pamHeader(width: image.width, height: image.height, format: image.format, sampleBits: image.metadata.sampleBits)
            + bigEndianSamples(image)
    }

    /// MAXVAL: the format's, or 2^n - 1 for samples of n bits (12-bit and lossless JPEG of 2 to
    /// 15 bits), as libjpeg-turbo 3's djpeg writes them.
    static func maxval(_ format: PixelFormat, sampleBits: Int?) -> Int {
        let full = format.is16Bit ? 16 : 8
        if let bits = sampleBits, (1 ..< full).contains(bits) { return (1 << bits) - 1 }
        return (1 << full) - 1
    }

    /// The P7 header for an image of this size and format (every channel kept).
    static func pamHeader(width: Int, height: Int, format: PixelFormat, sampleBits: Int? = nil) -> [UInt8] {
        let tuple = switch format.channels {
        case 1: "GRAYSCALE"
        case 2: "GRAYSCALE_ALPHA"
        case 3: "RGB"
        default: "RGB_ALPHA"
        }
        return Array(("P7\nWIDTH \(width)\nHEIGHT \(height)\nDEPTH \(format.channels)\n"
            + "MAXVAL \(maxval(format, sampleBits: sampleBits))\nTUPLTYPE \(tuple)\nENDHDR\n").utf8)
    }

    /// P5 (gray) or P6 (RGB); alpha is dropped, so callers say so.
    static func pnm(_ image: Image) -> [UInt8] {
        let target = image.format.withoutAlpha
        let plain = image.converted(to: target)
        return pnmHeader(width: image.width, height: image.height, format: target, sampleBits: plain.metadata.sampleBits)
            + bigEndianSamples(plain)
    }

    /// The P5 (gray) or P6 (RGB) header for rows in `format` (alpha is not written).
    static func pnmHeader(width: Int, height: Int, format: PixelFormat, sampleBits: Int? = nil) -> [UInt8] {
        Array("\(format.isColor ? "P6" : "P5")\n\(width) \(height)\n\(maxval(format, sampleBits: sampleBits))\n".utf8)
    }

    /// The image's samples as Netpbm stores them: 16-bit ones big-endian.
    static func bigEndianSamples(_ image: Image) -> [UInt8] {
        guard image.format.is16Bit else { return image.pixels }
        var out = image.pixels
        out.withUnsafeMutableBytes { raw in
            let samples = raw.bindMemory(to: UInt16.self)
            for i in samples.indices { samples[i] = samples[i].bigEndian }
        }
        return out
    }
}
