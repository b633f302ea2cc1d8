import ImageCore

/// The coding process named by the SOF marker (T.81 B.1.1.3, table B.1).
public enum JPEGProcess: String, Sendable, Equatable {
    /// SOF0: baseline sequential, Huffman.
    case baseline
    /// SOF1: extended sequential, Huffman (8-bit here).
    case extended
    /// SOF2: progressive, Huffman.
    case progressive
    /// SOF9: extended sequential, arithmetic coding (T.81 Annex D).
    case arithmetic
    /// SOF10: progressive, arithmetic coding.
    case arithmeticProgressive
    /// SOF3: lossless (T.81 Annex H), Huffman coding; 2-16 bits a sample.
    case lossless

    /// True for the progressive processes (SOF2, SOF10).
    public var isProgressive: Bool { self == .progressive || self == .arithmeticProgressive }
    /// True for the arithmetic-coded processes (SOF9, SOF10).
    public var isArithmetic: Bool { self == .arithmetic || self == .arithmeticProgressive }
}

/// One image component as SOF declares it, with the block geometry derived from it (T.81 A.1.1).
struct FrameComponent: Sendable, Equatable {
    var id: UInt8
    var h: Int
    var v: Int
    var quantTable: Int
    /// Samples in the component: ceil(X * h / Hmax) by ceil(Y * v / Vmax) (T.81 A.1.1).
    var width = 0, height = 0
    /// Blocks that hold samples (non-interleaved scans cover exactly these, T.81 A.2.2).
    var blocksWide = 0, blocksHigh = 0
    /// Blocks in the MCU-padded grid of interleaved scans (mcusX * h by mcusY * v).
    var paddedBlocksWide = 0, paddedBlocksHigh = 0
    /// The vertical factor SOF declared, when it differs from `v`: a lone component is decoded
    /// as 1x1 (its scans are one block per MCU), but libjpeg keeps its factor, and its iMCU rows
    /// (block smoothing's windows, `last_good_iMCU_row`) are that many block rows.
    var declaredV = 0
    /// Block rows in one of libjpeg's iMCU rows of this component.
    var iMCURows: Int { declaredV > 0 ? declaredV : v }
    /// Values the coefficient store keeps per block (``CompactBlock``): 64, or for a progressive
    /// component whose scaled IDCT reads fewer, what that IDCT reads (and a map of the others'
    /// history); with the 1x1 IDCT the DC term alone, and its AC scans are skipped.
    var valuesPerBlock = 64
}

/// The frame header (SOF) with the MCU geometry every later stage uses.
struct Frame: Sendable, Equatable {
    var process: JPEGProcess
    /// Bits a sample: 8 for the DCT processes here, 2-16 for lossless.
    var precision = 8
    var width: Int
    var height: Int
    var components: [FrameComponent]
    var hMax = 1, vMax = 1
    var mcusWide = 0, mcusHigh = 0
    /// Offset of the SOF marker (for errors found later about the frame).
    var offset: Int

    init(process: JPEGProcess, width: Int, height: Int, components: [FrameComponent], offset: Int) {
        self.process = process
        self.width = width
        self.height = height
        self.components = components
        self.offset = offset
        hMax = components.map(\.h).max() ?? 1
        vMax = components.map(\.v).max() ?? 1
        mcusWide = (width + 8 * hMax - 1) / (8 * hMax)
        mcusHigh = (height + 8 * vMax - 1) / (8 * vMax)
        for i in self.components.indices {
            var c = self.components[i]
            c.width = (width * c.h + hMax - 1) / hMax
            c.height = (height * c.v + vMax - 1) / vMax
            c.blocksWide = (c.width + 7) / 8
            c.blocksHigh = (c.height + 7) / 8
            c.paddedBlocksWide = mcusWide * c.h
            c.paddedBlocksHigh = mcusHigh * c.v
            self.components[i] = c
        }
    }

    var isProgressive: Bool { process.isProgressive }
    var isArithmetic: Bool { process.isArithmetic }
    /// AC scans of components decoded with the 1x1 IDCT are passed over unread
    /// (``JPEGDecodingOptions/dcScaleToFit`` chose 1/8; ``SkippedScan``).
    var passesOverAC = false

    /// A lower bound on the entropy-coded bytes of a complete image of this frame, for
    /// ``DecodingLimits/requiresPlausibleInput``: a quarter of the least a Huffman code can take
    /// (each block of a sequential scan codes a DC symbol and an end of block, one bit or more
    /// each; a progressive file's first DC scan one symbol a block; a lossless scan one symbol a
    /// sample), so a download cut short still decodes as libjpeg decodes it unless it holds
    /// less than that. Arithmetic coding's best state codes a decision in about 1/20,000 of a
    /// bit: there the bound is a byte for 131,072 blocks. Components are counted once per id
    /// (a repeated id may never be scanned).
    var leastCodedBytes: Int {
        var ids: [UInt8] = [], blocks = 0, samples = 0
        for c in components where !ids.contains(c.id) {
            ids.append(c.id)
            blocks += c.blocksWide * c.blocksHigh
            samples += c.width * c.height
        }
        if isArithmetic { return blocks >> 17 }
        switch process {
        case .lossless: return samples / 32
        case .progressive: return blocks / 32
        default: return blocks / 16
        }
    }

    /// Padded blocks of all components (the preview cache's change map has a byte for each).
    var blockCount: Int {
        components.reduce(0) { $0 + $1.paddedBlocksWide * $1.paddedBlocksHigh }
    }

    /// Coefficient storage for the whole image: `valuesPerBlock` Int16 per padded block.
    var coefficientBytes: Int {
        components.reduce(0) { $0 + $1.paddedBlocksWide * $1.paddedBlocksHigh * 2 * $1.valuesPerBlock }
    }
}

/// A scan header (SOS, T.81 B.2.3) resolved against the frame.
struct ScanHeader: Sendable, Equatable {
    /// Indices into `Frame.components`, in scan order.
    var components: [Int]
    var dcTables: [Int]
    var acTables: [Int]
    /// Spectral selection start and end, successive approximation high and low (T.81 G.1.1.1).
    var ss: Int, se: Int, ah: Int, al: Int
    var offset: Int

    /// A scan of one component covers that component's own block grid, one block per MCU (T.81 A.2.2).
    var isInterleaved: Bool { components.count > 1 }
}

/// How the decoded components become output pixels (T.81 leaves this to JFIF/Adobe; we follow libjpeg).
enum ColorTransform: Sendable, Equatable {
    case gray, ycbcr, rgb, cmyk, ycck
}

/// The natural-order index of each zig-zag position (T.81 figure A.6), with 16 spare entries so
/// a run that overshoots never indexes past the table (the decoder still reports it), then from
/// ``naturalToZigzagOffset`` the inverse permutation (the zig-zag position of each natural
/// index), so the entropy decoders get both through one pointer.
let zigzagToNatural: [UInt8] = {
    let order: [UInt8] = [
    0, 1, 8, 16, 9, 2, 3, 10, 17, 24, 32, 25, 18, 11, 4, 5,
    12, 19, 26, 33, 40, 48, 41, 34, 27, 20, 13, 6, 7, 14, 21, 28,
    35, 42, 49, 56, 57, 50, 43, 36, 29, 22, 15, 23, 30, 37, 44, 51,
    58, 59, 52, 45, 38, 31, 39, 46, 53, 60, 61, 54, 47, 55, 62, 63,
    63, 63, 63, 63, 63, 63, 63, 63, 63, 63, 63, 63, 63, 63, 63, 63,
]
    var inverse = [UInt8](repeating: 0, count: 64)
    for k in 0 ..< 64 { inverse[Int(order[k])] = UInt8(k) }
    return order + inverse
}()

/// Where the natural-to-zig-zag table starts in ``zigzagToNatural``.
let naturalToZigzagOffset = 80
