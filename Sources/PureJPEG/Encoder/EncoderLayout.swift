/// The frame geometry the encoder works to (T.81 A.1.1, A.2): components with their sampling
/// factors, sizes in blocks and MCU counts, computed as libjpeg's jcmaster.c `initial_setup`
/// and `per_scan_setup` do.
struct EncoderComponent: Sendable, Equatable {
    /// Component identifier in SOF/SOS (1, 2, 3 as libjpeg writes for YCbCr).
    var id: UInt8
    var h: Int
    var v: Int
    /// Quantization and Huffman table slot: 0 for luma, 1 for chroma.
    var table: Int
    /// Blocks holding real samples (`ceil(ceil(width * h / maxH) / 8)`).
    var widthInBlocks: Int
    var heightInBlocks: Int
    /// Blocks per block row once the row is padded to whole MCUs (`mcusAcross * h`).
    var blocksPerLine: Int
    /// Samples per row in this component's plane (`ceil(width * h / maxH)`).
    var sampledWidth: Int
}

struct EncoderLayout: Sendable, Equatable {
    var width: Int
    var height: Int
    var components: [EncoderComponent]
    var maxH: Int
    var maxV: Int
    var mcusAcross: Int
    var mcusDown: Int

    /// Image rows in one MCU row.
    var mcuHeight: Int { 8 * maxV }
    /// Full-resolution samples per row after padding to whole MCUs.
    var paddedWidth: Int { mcusAcross * 8 * maxH }
    var isColor: Bool { components.count == 3 }

    init(width: Int, height: Int, grayscale: Bool, subsampling: ChromaSubsampling) {
        self.width = width
        self.height = height
        let factors: [(Int, Int)]
        if grayscale {
            factors = [(1, 1)]
        } else {
            switch subsampling {
            case .s444: factors = [(1, 1), (1, 1), (1, 1)]
            case .s422: factors = [(2, 1), (1, 1), (1, 1)]
            case .s420: factors = [(2, 2), (1, 1), (1, 1)]
            }
        }
        let maxH = factors.map(\.0).max() ?? 1, maxV = factors.map(\.1).max() ?? 1
        self.maxH = maxH
        self.maxV = maxV
        mcusAcross = (width + 8 * maxH - 1) / (8 * maxH)
        mcusDown = (height + 8 * maxV - 1) / (8 * maxV)
        var comps: [EncoderComponent] = []
        for (i, (h, v)) in factors.enumerated() {
            let sampledWidth = (width * h + maxH - 1) / maxH
            let sampledHeight = (height * v + maxV - 1) / maxV
            comps.append(EncoderComponent(
                id: UInt8(i + 1), h: h, v: v, table: i == 0 ? 0 : 1,
                widthInBlocks: (sampledWidth + 7) / 8, heightInBlocks: (sampledHeight + 7) / 8,
                blocksPerLine: (width + 8 * maxH - 1) / (8 * maxH) * h, sampledWidth: sampledWidth))
        }
        components = comps
    }
}
