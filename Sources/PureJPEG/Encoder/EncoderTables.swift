/// Tables the encoder shares with every baseline JPEG writer: the example quantization tables
/// of T.81 Annex K.1 (the IJG defaults at quality 50), the example Huffman tables of K.3, and
/// the zigzag order of T.81 Figure A.6.
enum EncoderTables {
    /// `zigzag[k]` is the natural (row-major) index of the k-th coefficient in zigzag order.
    static let zigzag: [Int] = [
        0, 1, 8, 16, 9, 2, 3, 10, 17, 24, 32, 25, 18, 11, 4, 5,
        12, 19, 26, 33, 40, 48, 41, 34, 27, 20, 13, 6, 7, 14, 21, 28,
        35, 42, 49, 56, 57, 50, 43, 36, 29, 22, 15, 23, 30, 37, 44, 51,
        58, 59, 52, 45, 38, 31, 39, 46, 53, 60, 61, 54, 47, 55, 62, 63,
    ]

    /// T.81 Table K.1, natural order.
    static let luminanceQuantization: [UInt16] = [
        16, 11, 10, 16, 24, 40, 51, 61,
        12, 12, 14, 19, 26, 58, 60, 55,
        14, 13, 16, 24, 40, 57, 69, 56,
        14, 17, 22, 29, 51, 87, 80, 62,
        18, 22, 37, 56, 68, 109, 103, 77,
        24, 35, 55, 64, 81, 104, 113, 92,
        49, 64, 78, 87, 103, 121, 120, 101,
        72, 92, 95, 98, 112, 100, 103, 99,
    ]

    /// T.81 Table K.2, natural order.
    static let chrominanceQuantization: [UInt16] = [
        17, 18, 24, 47, 99, 99, 99, 99,
        18, 21, 26, 66, 99, 99, 99, 99,
        24, 26, 56, 99, 99, 99, 99, 99,
        47, 66, 99, 99, 99, 99, 99, 99,
        99, 99, 99, 99, 99, 99, 99, 99,
        99, 99, 99, 99, 99, 99, 99, 99,
        99, 99, 99, 99, 99, 99, 99, 99,
        99, 99, 99, 99, 99, 99, 99, 99,
    ]

    /// T.81 Table K.3 (luminance DC): code counts per length 1...16, then symbols.
    static let dcLuminance = HuffmanSpec(
        counts: [0, 1, 5, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0],
        symbols: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11])

    /// T.81 Table K.4 (chrominance DC).
    static let dcChrominance = HuffmanSpec(
        counts: [0, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0],
        symbols: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11])

    /// T.81 Table K.5 (luminance AC).
    static let acLuminance = HuffmanSpec(
        counts: [0, 2, 1, 3, 3, 2, 4, 3, 5, 5, 4, 4, 0, 0, 1, 125],
        symbols: [
            1, 2, 3, 0, 4, 17, 5, 18, 33, 49, 65, 6, 19, 81, 97, 7,
            34, 113, 20, 50, 129, 145, 161, 8, 35, 66, 177, 193, 21, 82, 209, 240,
            36, 51, 98, 114, 130, 9, 10, 22, 23, 24, 25, 26, 37, 38, 39, 40,
            41, 42, 52, 53, 54, 55, 56, 57, 58, 67, 68, 69, 70, 71, 72, 73,
            74, 83, 84, 85, 86, 87, 88, 89, 90, 99, 100, 101, 102, 103, 104, 105,
            106, 115, 116, 117, 118, 119, 120, 121, 122, 131, 132, 133, 134, 135, 136, 137,
            138, 146, 147, 148, 149, 150, 151, 152, 153, 154, 162, 163, 164, 165, 166, 167,
            168, 169, 170, 178, 179, 180, 181, 182, 183, 184, 185, 186, 194, 195, 196, 197,
            198, 199, 200, 201, 202, 210, 211, 212, 213, 214, 215, 216, 217, 218, 225, 226,
            227, 228, 229, 230, 231, 232, 233, 234, 241, 242, 243, 244, 245, 246, 247, 248,
            249, 250,
        ])

    /// T.81 Table K.6 (chrominance AC).
    static let acChrominance = HuffmanSpec(
        counts: [0, 2, 1, 2, 4, 4, 3, 4, 7, 5, 4, 4, 0, 1, 2, 119],
        symbols: [
            0, 1, 2, 3, 17, 4, 5, 33, 49, 6, 18, 65, 81, 7, 97, 113,
            19, 34, 50, 129, 8, 20, 66, 145, 161, 177, 193, 9, 35, 51, 82, 240,
            21, 98, 114, 209, 10, 22, 36, 52, 225, 37, 241, 23, 24, 25, 26, 38,
            39, 40, 41, 42, 53, 54, 55, 56, 57, 58, 67, 68, 69, 70, 71, 72,
            73, 74, 83, 84, 85, 86, 87, 88, 89, 90, 99, 100, 101, 102, 103, 104,
            105, 106, 115, 116, 117, 118, 119, 120, 121, 122, 130, 131, 132, 133, 134, 135,
            136, 137, 138, 146, 147, 148, 149, 150, 151, 152, 153, 154, 162, 163, 164, 165,
            166, 167, 168, 169, 170, 178, 179, 180, 181, 182, 183, 184, 185, 186, 194, 195,
            196, 197, 198, 199, 200, 201, 202, 210, 211, 212, 213, 214, 215, 216, 217, 218,
            226, 227, 228, 229, 230, 231, 232, 233, 234, 242, 243, 244, 245, 246, 247, 248,
            249, 250,
        ])
}

/// A Huffman table as DHT carries it (T.81 B.2.4.2): how many codes of each length 1...16,
/// then the symbols in code order.
struct HuffmanSpec: Sendable, Equatable {
    var counts: [UInt8]
    var symbols: [UInt8]
}

extension EncoderTables {
    /// IJG quality to percentage scale factor (libjpeg `jpeg_quality_scaling`): 50 keeps the
    /// K.1/K.2 tables, lower qualities scale them up hyperbolically, higher ones down linearly.
    static func scaleFactor(quality: Int) -> Int {
        let q = min(max(quality, 1), 100)
        return q < 50 ? 5000 / q : 200 - q * 2
    }

    /// A base table scaled as libjpeg's `jpeg_add_quant_table` does with `force_baseline`:
    /// `(base * scale + 50) / 100`, clamped to 1...255 so that 8-bit DQT entries suffice.
    static func scaled(_ base: [UInt16], quality: Int) -> [UInt16] {
        let scale = scaleFactor(quality: quality)
        return base.map { value in
            let v = (Int(value) * scale + 50) / 100
            return UInt16(min(max(v, 1), 255))
        }
    }
}
