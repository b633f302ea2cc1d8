/// Baseline sequential scans (T.81 F.1.2, G.1.2.1 not used): one interleaved scan over all
/// components (or the single component), MCU by MCU, with restart markers every
/// `restartInterval` MCUs (T.81 B.2.5, F.1.2.4: DC predictions reset after each RSTn).
struct BaselineScanState {
    var lastDC: [Int32]
    var mcusDone = 0
    let restartInterval: Int

    init(components: Int, restartInterval: Int) {
        lastDC = [Int32](repeating: 0, count: components)
        self.restartInterval = restartInterval
    }

    /// True (and predictions reset) when a restart marker precedes the next MCU; the marker
    /// number is `(mcusDone / restartInterval - 1) & 7`.
    @inline(__always)
    mutating func restartDue() -> Int? {
        guard restartInterval > 0, mcusDone > 0, mcusDone % restartInterval == 0 else { return nil }
        for i in lastDC.indices { lastDC[i] = 0 }
        return (mcusDone / restartInterval - 1) & 7
    }

    /// Codes one MCU row whose blocks for component c start at `rows[c]` (layout
    /// `[v][blocksPerLine][64]`). One ``BitSink`` serves the whole row (restart markers
    /// included), and each component's pointers and tables are gathered once per row, so the
    /// block loop reads no arrays and stores no writer state.
    /// `mcus`: the MCUs of the row to code (all by default; ``BandedStream`` codes a band's
    /// first MCU apart from the rest).
    mutating func encodeRow(_ rows: [UnsafePointer<Int16>], masks: [UnsafePointer<UInt64>], layout: EncoderLayout,
                            tables: EntropyTables, writer w: inout BitWriter, mcus: Range<Int>? = nil) {
        let comps = layout.components
        let lookup = UnsafePointer(tables.lookup)
        w.reserve(layout.mcusAcross * (comps.count == 1 ? 1 : layout.maxH * layout.maxV + 2) * 448 + 64)
        let parts = comps.enumerated().map { c, comp in
            RowPart(blocks: rows[c], masks: masks[c], h: comp.h, v: comp.v, lineBlocks: comp.blocksPerLine,
                    dc: UnsafePointer(tables.dcShifted + comp.table * 256), ac: UnsafePointer(tables.acShifted + comp.table * 256))
        }
        var last = lastDC
        var done = mcusDone
        let interval = restartInterval
        let range = mcus ?? 0 ..< layout.mcusAcross
        precondition(range.lowerBound >= 0 && range.upperBound <= layout.mcusAcross, "encodeRow: MCUs out of the row")
        parts.withUnsafeBufferPointer { pp in
            last.withUnsafeMutableBufferPointer { lp in
                guard let p = pp.baseAddress, let previousDC = lp.baseAddress, pp.count <= lp.count else { return }
                let n = pp.count
                w.withSink { sink in
                    for mx in range {
                        if interval > 0, done > 0, done % interval == 0 {
                            for i in 0 ..< n { previousDC[i] = 0 }
                            sink.flushAndMark(0xD0 &+ UInt8(truncatingIfNeeded: (done / interval &- 1) & 7))
                        }
                        for c in 0 ..< n {
                            let part = p[c]
                            var previous = previousDC[c]
                            for by in 0 ..< part.v {
                                let first = by &* part.lineBlocks &+ mx &* part.h
                                var block = part.blocks + first &* 64
                                var mask = part.masks + first
                                for _ in 0 ..< part.h {
                                    BlockCoder.encode(block, mask: mask.pointee, previousDC: previous, dc: part.dc, ac: part.ac,
                                                      lookup: lookup, &sink)
                                    previous = Int32(block[0])
                                    block += 64
                                    mask += 1
                                }
                            }
                            previousDC[c] = previous
                        }
                        done &+= 1
                    }
                }
            }
        }
        lastDC = last
        mcusDone = done
    }

    /// The counting twin of ``encodeRow(_:layout:tables:writer:)``: symbol frequencies per
    /// table slot (`dcCounts[slot * 257 + symbol]`).
    mutating func countRow(_ rows: [UnsafePointer<Int16>], masks: [UnsafePointer<UInt64>], layout: EncoderLayout,
                           zigzag: UnsafePointer<Int>, dcCounts: UnsafeMutablePointer<Int>, acCounts: UnsafeMutablePointer<Int>) {
        for mx in 0 ..< layout.mcusAcross {
            _ = restartDue()
            for (c, comp) in layout.components.enumerated() {
                var previous = lastDC[c]
                for by in 0 ..< comp.v {
                    let first = by * comp.blocksPerLine + mx * comp.h
                    var block = rows[c] + first * 64
                    var mask = masks[c] + first
                    for _ in 0 ..< comp.h {
                        BlockCoder.count(block, mask: mask.pointee, previousDC: previous, dc: dcCounts + comp.table * 257,
                                         ac: acCounts + comp.table * 257, zigzag: zigzag)
                        previous = Int32(block[0])
                        block += 64
                        mask += 1
                    }
                }
                lastDC[c] = previous
            }
            mcusDone += 1
        }
    }
}

/// One component's share of an MCU row for ``BaselineScanState/encodeRow(_:masks:layout:tables:writer:)``.
struct RowPart {
    let blocks: UnsafePointer<Int16>
    let masks: UnsafePointer<UInt64>
    let h: Int, v: Int, lineBlocks: Int
    let dc: UnsafePointer<UInt64>, ac: UnsafePointer<UInt64>
}

/// All quantized blocks of an image, per component `[mcusDown * v][blocksPerLine][64]`: the
/// store that Huffman optimization (two passes) and progressive scans need.
final class CoefficientStore {
    let layout: EncoderLayout
    let planes: [UnsafeMutablePointer<Int16>]
    /// Each block's nonzero map (bit k: zigzag coefficient k is not zero).
    let masks: [UnsafeMutablePointer<UInt64>]
    let counts: [Int]

    init(layout: EncoderLayout) {
        self.layout = layout
        counts = layout.components.map { layout.mcusDown * $0.v * $0.blocksPerLine * 64 }
        planes = counts.map { n in
            let p = UnsafeMutablePointer<Int16>.allocate(capacity: max(n, 1))
            p.initialize(repeating: 0, count: max(n, 1))
            return p
        }
        masks = counts.map { n in
            let p = UnsafeMutablePointer<UInt64>.allocate(capacity: max(n / 64, 1))
            p.initialize(repeating: 0, count: max(n / 64, 1))
            return p
        }
    }

    deinit {
        for p in planes { p.deallocate() }
        for p in masks { p.deallocate() }
    }

    /// Where MCU row `mcuRow`'s nonzero maps start in each component.
    func rowMaskPointers(_ mcuRow: Int) -> [UnsafeMutablePointer<UInt64>] {
        layout.components.enumerated().map { c, comp in masks[c] + mcuRow * comp.v * comp.blocksPerLine }
    }

    /// Where MCU row `mcuRow` starts in each component.
    func rowPointers(_ mcuRow: Int) -> [UnsafeMutablePointer<Int16>] {
        layout.components.enumerated().map { c, comp in planes[c] + mcuRow * comp.v * comp.blocksPerLine * 64 }
    }

    /// Block (`row`, `col`) of component `c`, in block units of that component.
    @inline(__always)
    func block(_ c: Int, row: Int, col: Int) -> UnsafeMutablePointer<Int16> {
        planes[c] + (row * layout.components[c].blocksPerLine + col) * 64
    }
}
