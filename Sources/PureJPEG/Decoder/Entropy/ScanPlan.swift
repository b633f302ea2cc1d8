import ImageCore

/// The kind of scan, which picks the block decoder (T.81 G.1.1.1).
enum ScanKind: Sendable, Equatable {
    case sequential, dcFirst, dcRefine, acFirst, acRefine
}

/// What the MCU loop keeps between calls; copying it is the rollback point (wuffs style).
///
/// The fields are ordered and sized to keep the struct at 112 bytes: the flags fill the
/// reader's tail padding. At 136 bytes Swift copies it through `memcpy`, and the copy before
/// each MCU that may need a rollback cost 5% of a progressive decode (callgrind).
struct EntropyState: Sendable {
    var reader = BitReader()
    /// After a premature marker: MCUs are left as they are until the next restart (libjpeg's
    /// `insufficient_data`).
    var skipping = false
    /// Nothing more of the scan can be read: a restart met a marker other than RSTn (every later
    /// restart would meet it again and skip its interval), or a marker cut short a scan without
    /// restart intervals.
    var dataEnded = false
    /// The scan was `skipping` when its latest restart marker was read (set at each restart,
    /// so it speaks for the first MCU of the interval only; once the scan is complete, for its
    /// last MCU): libjpeg sets `last_good_iMCU_row` before each MCU it starts with data
    /// (jdcoefct.c `consume_data`), ahead of the restart that may end the skipping.
    var beganSkipping = false
    /// Corrupt-data warnings reported in this scan (the rest are counted, not listed).
    var damageReports: Int32 = 0
    /// libjpeg's `last_good_iMCU_row` while `skipping` or `beganSkipping`: the iMCU row of the
    /// last MCU that began with data (block smoothing takes the rows past it at the previous
    /// scan's status). Otherwise the scan's last MCU row so far is the last good one.
    var lastGoodRow: Int32 = 0
    var predictors = DCPredictors()
    /// The EOB run of a progressive AC scan; in an arithmetic-coded scan, which has none, the QM
    /// decoder's interval register A (``qmInterval``), so the struct keeps its size.
    var eobrun = 0
    /// Next MCU of the scan.
    var mcu = 0
    var restartsToGo = 0
    /// The RSTn number expected next (0-7).
    var nextRestart: UInt8 = 0
    /// Arithmetic-coded scans: the QM decoder's bit shift counter CT (libjpeg's `ct`; -16 before
    /// the first two bytes are read, -1 after a bad code until the next restart). Its code
    /// register C is `reader.bits` and its interval A ``qmInterval``.
    var qmShift: Int8 = -16
    /// Bytes skipped while looking for a marker (reported once the marker is found).
    var garbage = 0
}

extension EntropyState {
    /// The QM decoder's interval register A (arithmetic-coded scans keep it in `eobrun`'s place).
    var qmInterval: Int {
        @inline(__always) get { eobrun }
        @inline(__always) set { eobrun = newValue }
    }
}

/// The DC predictors of up to four scan components (T.81 F.2.1.3.1). Plain fields behind a
/// switch: as a `SIMD4<Int>`, writing one lane with a variable index went through the stack and
/// reloaded the whole vector right after the 8-byte store (a store-forwarding stall per block).
struct DCPredictors: Sendable, Equatable {
    var p0 = 0, p1 = 0, p2 = 0, p3 = 0

    subscript(i: Int) -> Int {
        @inline(__always) get {
            switch i {
            case 0: return p0
            case 1: return p1
            case 2: return p2
            default: return p3
            }
        }
        @inline(__always) set {
            switch i {
            case 0: p0 = newValue
            case 1: p1 = newValue
            case 2: p2 = newValue
            default: p3 = newValue
            }
        }
    }
}

/// One component's part in a scan.
struct ScanComponent: Sendable {
    var index: Int
    var h: Int, v: Int
    /// Block rows in one of libjpeg's iMCU rows (``FrameComponent/iMCURows``).
    var iMCURows = 1
    var dc: HuffmanLookup?
    var ac: HuffmanLookup?
    /// Streaming: the component's plane stride, block size and ring geometry (its IDCT is
    /// `ScanPlan.idcts[i]`, kept apart so this struct stays plain data, cheap to copy per MCU).
    var stride = 0
    var blockSize = 8
    var planeOffset = 0
    var bandRows = 0
    /// Streaming: the IDCT is ``IDCTSIMD/idct8x8(_:_:_:_:)``, called directly.
    var directIDCT = false
    var paddedBlocksWide: Int
    /// Coefficient mode: values a block holds in the store (``FrameComponent/valuesPerBlock``).
    var valuesPerBlock = 64
    /// Coefficient mode: the component's first block in the change map (blocks of all components
    /// in order; its coefficients are ``DecodedCoefficients/planes``[index]). And the offset of its
    /// quantization table.
    var firstBlock: Int
    var quantOffset: Int
    /// Arithmetic-coded scans: where the component's DC and AC statistics start in the bins
    /// (``ArithmeticBins``), and its conditioning (DAC, T.81 F.1.4.4): DC differences below
    /// `dcSmall` are "zero", above `dcLarge` "large" ((1 << L) >> 1 and (1 << U) >> 1); AC
    /// magnitudes at positions up to `acK` use the low statistics.
    var dcBins = 0, acBins = 0
    var dcSmall = 0, dcLarge = 1, acK = 5
}

/// Everything fixed for the duration of one scan.
struct ScanPlan: Sendable {
    /// Keeps the Huffman tables whose pointers the components hold alive for the scan.
    var tables: [HuffmanTable]
    /// Streaming: each scan component's IDCT kernel.
    var idcts: [@Sendable (UnsafePointer<Int16>, UnsafePointer<UInt16>, UnsafeMutablePointer<UInt8>, Int) -> Void]
    var kind: ScanKind
    var components: [ScanComponent]
    var mcusWide: Int
    var mcuCount: Int
    var restartInterval: Int
    var ss: Int, se: Int, ah: Int, al: Int
    /// Non-interleaved scans cover the component's own blocks, one block per MCU (T.81 A.2.2).
    var interleaved: Bool
    var offset: Int
    /// The damage decoded past (the rest throws).
    var leniencies: JPEGLeniencies = .all
    /// Arithmetic coding (SOF9, SOF10; ``MCULoop/decodeArithmeticMCU``) instead of Huffman.
    var arithmetic = false
}

/// Where decoded blocks go.
enum BlockSink {
    /// Streaming: IDCT straight into the band rings of the pipeline.
    case planes(UnsafeMutablePointer<UInt8>, UnsafePointer<UInt16>)
    /// Coefficient mode: whole-image coefficient storage (progressive or multi-scan sequential),
    /// and the preview cache's change map when it keeps one (one byte per block, in coefficient
    /// order: set to 1 when a scan changes the block; see ``PreviewCache``).
    case coefficients(UnsafeMutablePointer<UnsafeMutablePointer<Int16>>, UnsafeMutablePointer<UInt8>?)
    /// Streaming on two threads: one MCU row's coefficients as compact records, block after
    /// block in MCU order (``PlaneBlock/blocks(of:quant:)``'s order within an MCU), for
    /// ``BandWorker`` to reconstruct on the other thread.
    case band(BandRecordRow)
}

enum ScanStep: Sendable, Equatable {
    case reached
    case needMore
    case truncated
    case failed(JPEGError)
}

/// One block of every MCU of a sequential scan decoded into the band rings, with what does not
/// change during the scan worked out (``MCULoop`` adds the MCU's column and band).
struct PlaneBlock {
    var dc: HuffmanLookup
    var ac: HuffmanLookup
    /// The scan component (its DC predictor lane, its `ScanPlan.idcts` entry).
    var predictor: Int
    var quant: UnsafePointer<UInt16>
    var stride: Int
    /// Plane offset plus the block's place inside the MCU.
    var offset: Int
    /// Bytes from one MCU column to the next, and from one band of the ring to the next.
    var stepX: Int
    var bandBytes: Int
    /// Index into `ScanPlan.idcts`, or -1 for ``IDCTSIMD/idct8x8(_:_:_:_:)`` called directly.
    var kernel: Int

    /// The blocks of one MCU in scan order; empty when a component lacks a table or a kernel
    /// (the general loop then reports it as before).
    static func blocks(of plan: ScanPlan, quant: UnsafePointer<UInt16>) -> [PlaneBlock] {
        var blocks: [PlaneBlock] = []
        for (i, c) in plan.components.enumerated() {
            guard let dc = c.dc, let ac = c.ac, i < plan.idcts.count else { return [] }
            let hBlocks = plan.interleaved ? c.h : 1, vBlocks = plan.interleaved ? c.v : 1
            for bv in 0 ..< vBlocks {
                for bh in 0 ..< hBlocks {
                    blocks.append(PlaneBlock(dc: dc, ac: ac, predictor: i, quant: quant + c.quantOffset, stride: c.stride,
                                             offset: c.planeOffset + bv * c.blockSize * c.stride + bh * c.blockSize,
                                             stepX: hBlocks * c.blockSize, bandBytes: c.bandRows * c.stride,
                                             kernel: c.directIDCT ? -1 : i))
                }
            }
        }
        return blocks
    }
}

/// Whether an MCU starting at a byte position could reach the end of the bytes present, which
/// is the only way it can be rolled back (the reader starves or hits the end). MCUs that cannot
/// need no copy of their coefficient blocks (saving every MCU's blocks before each attempt cost
/// 12% of a progressive decode).
///
/// One MCU consumes at most `bound` bytes (``mcuBound(_:blocksPerMCU:)``). The one way to
/// consume more is a run of 0xFF fill bytes, which the reader swallows as one byte, so the
/// guard also looks for FF FF pairs ahead, scanning each byte once (8 at a time when none is
/// 0xFF).
struct RollbackGuard {
    let bound: Int

    /// The most bytes one MCU of `plan` can consume. A block of a scan covering n coefficients
    /// reads at most n + 1 symbols (each places a coefficient, skips 16 with ZRL, or ends the
    /// band) of at most 31 bits (16 code bits, 15 extra bits); an AC refinement symbol is at
    /// most 17 bits (code and sign) or 30 (end of band and its run bits), plus at most one
    /// correction bit a coefficient, under 31 bits a symbol in all. DC first: one symbol; DC
    /// refinement: one bit; sequential: 65 symbols (DC, 63 AC, end of block). FF 00 stuffing at
    /// most doubles the bytes, and 64 more cover the reader's 8-byte look-ahead. (A fixed 600
    /// bytes a block made an interleaved 4:2:0 DC scan save its blocks for every MCU within
    /// 3.6 KB of the end of the bytes present: nearly all of them when fed 4 KB at a time.)
    static func mcuBound(_ plan: ScanPlan, blocksPerMCU: Int) -> Int {
        if plan.arithmetic {
            // A QM decision reads at most 15 bits (a renormalisation after Qe = 1), an interval's
            // start 16 more. Decisions per block: a DC difference at most 32 (zero, sign, 15
            // magnitude, 14 bits); per AC position at most 35 (end of block, zero, sign, 16
            // magnitude, 14 bits, and a refinement's correction), plus one; a DC refinement 1.
            let decisions: Int
            switch plan.kind {
            case .sequential: decisions = 32 &+ 63 &* 35 &+ 1
            case .dcFirst: decisions = 32
            case .dcRefine: decisions = 1
            case .acFirst, .acRefine: decisions = (max(plan.se &- plan.ss, 0) &+ 1) &* 35 &+ 1
            }
            return ((decisions &* 15 &+ 16 &+ 7) / 8) &* 2 &* max(blocksPerMCU, 1) &+ 64
        }
        let bits: Int
        switch plan.kind {
        case .sequential: bits = 65 &* 31
        case .dcFirst: bits = 31
        case .dcRefine: bits = 1
        case .acFirst, .acRefine: bits = (max(plan.se &- plan.ss, 0) &+ 2) &* 31
        }
        return ((bits &+ 7) / 8) &* 2 &* max(blocksPerMCU, 1) &+ 64
    }
    /// No FF FF pair starts in the bytes before `scanned`, except at `pair`.
    var scanned: Int
    var pair = Int.max

    /// True when an MCU starting at `position` cannot reach `end`.
    mutating func isClear(from position: Int, data: UnsafePointer<UInt8>, end: Int) -> Bool {
        let limit = position &+ bound
        if limit > end { return false }
        if pair < position {
            scanned = max(scanned, pair &+ 1)
            pair = .max
        }
        scanned = max(scanned, position)
        while pair == .max && scanned < limit {
            if scanned &+ 8 <= end {
                let inverted = ~UnsafeRawPointer(data + scanned).loadUnaligned(as: UInt64.self)
                if (inverted &- 0x0101_0101_0101_0101) & ~inverted & 0x8080_8080_8080_8080 == 0 {
                    scanned &+= 8
                    continue
                }
            }
            if data[scanned] == 0xFF && scanned &+ 1 < end && data[scanned &+ 1] == 0xFF {
                pair = scanned
            } else {
                scanned &+= 1
            }
        }
        return pair >= limit
    }
}
