import ImageCore

/// The MCU loop of the DCT scans (T.81 E.2.3, G.1.2): blocks decoded one MCU at a time into
/// the sink of the scan (band rings, the coefficient store, or scratch), rolled back when the
/// bytes run short, with restart markers and libjpeg's resynchronisation.
enum MCULoop {
    /// Decodes MCUs from `state.mcu` up to `stop` over the bytes `data[0..<end]`.
    /// On `.needMore` and `.truncated` the state is the last complete MCU's (rolled back).
    static func run(_ st: inout EntropyState, plan: ScanPlan, sink: BlockSink, stop: Int,
                    data: UnsafePointer<UInt8>, end: Int, isFinal: Bool, baseOffset: Int,
                    zigzag: UnsafePointer<UInt8>, bins: UnsafeMutablePointer<UInt8>? = nil,
                    warnings: inout [String]) -> ScanStep {
        let block = UnsafeMutablePointer<Int16>.allocate(capacity: 64)
        block.initialize(repeating: 0, count: 64)
        defer { block.deallocate() }
        // Coefficient mode: the MCU's blocks as they were before an attempt, restored on rollback.
        let blocksPerMCU = plan.interleaved ? plan.components.reduce(0) { $0 + $1.h * $1.v } : 1
        let savedBlocks = UnsafeMutablePointer<Int16>.allocate(capacity: 64 * max(blocksPerMCU, 1))
        savedBlocks.initialize(repeating: 0, count: 64 * max(blocksPerMCU, 1))
        defer { savedBlocks.deallocate() }

        // Sequential scans into the band rings: every block of an MCU worked out once per call.
        var planeBlocks: [PlaneBlock] = []
        if plan.kind == .sequential, case let .planes(_, quant) = sink {
            planeBlocks = PlaneBlock.blocks(of: plan, quant: quant)
        }
        // Sequential scans into a coefficient band: the tables of every block of an MCU.
        var bandTables: [(dc: HuffmanLookup, ac: HuffmanLookup, predictor: Int)] = []
        if plan.kind == .sequential, !plan.arithmetic, case .band = sink {
            for (i, c) in plan.components.enumerated() {
                guard let dc = c.dc, let ac = c.ac else { return .failed(.invalidOption("a component without tables")) }
                let count = plan.interleaved ? c.h * c.v : 1
                bandTables += Array(repeating: (dc, ac, i), count: count)
            }
        }
        let fastPlanes = !planeBlocks.isEmpty
        // A non-interleaved AC scan into the coefficient store without a change map (the bulk of
        // a progressive decode): each MCU is one block, addressed directly.
        var directAC: (plane: UnsafeMutablePointer<Int16>, wide: Int, ac: HuffmanLookup)?
        if case let .coefficients(planes, .none) = sink, !plan.interleaved, !plan.arithmetic,
           plan.kind == .acFirst || plan.kind == .acRefine, let c = plan.components.first, c.valuesPerBlock == 64,
           let ac = c.ac {
            directAC = (planes[c.index], c.paddedBlocksWide, ac)
        }
        // Arithmetic coding: the statistics bins the scan changes, saved with the state where an
        // MCU may be rolled back.
        if plan.arithmetic && bins == nil { return .failed(.invalidOption("an arithmetic-coded scan without statistics")) }
        let binRanges = plan.arithmetic ? ArithmeticBins.ranges(plan) : []
        let savedBins = UnsafeMutablePointer<UInt8>.allocate(capacity: plan.arithmetic ? ArithmeticBins.count : 1)
        defer { savedBins.deallocate() }
        @inline(__always) func copyBins(restore: Bool) {
            guard let bins else { return }
            for r in binRanges {
                if restore {
                    (bins + r.lowerBound).update(from: savedBins + r.lowerBound, count: r.count)
                } else {
                    (savedBins + r.lowerBound).initialize(from: bins + r.lowerBound, count: r.count)
                }
            }
        }
        var rollbackGuard = RollbackGuard(bound: RollbackGuard.mcuBound(plan, blocksPerMCU: blocksPerMCU),
                                          scanned: st.reader.position)
        var isCoefficientSink = false
        if case .coefficients = sink { isCoefficientSink = true }

        // libjpeg's iMCU rows: a non-interleaved scan's MCU rows are block rows, v to an iMCU row.
        let rowsPerIMCU = plan.interleaved ? 1 : max(plan.components.first?.iMCURows ?? 1, 1)
        // The MCU's column and row, kept in step with `st.mcu` (a division per MCU showed in profiles).
        var mx = st.mcu % max(plan.mcusWide, 1), my = st.mcu / max(plan.mcusWide, 1)
        @inline(__always) func advance() {
            st.mcu &+= 1
            st.restartsToGo &-= 1
            mx &+= 1
            if mx == plan.mcusWide {
                mx = 0
                my &+= 1
            }
        }

        while st.mcu < stop {
            if plan.restartInterval > 0 && st.restartsToGo == 0 {
                let r = restart(&st, plan: plan, data: data, end: end, isFinal: isFinal, baseOffset: baseOffset, warnings: &warnings)
                if r != .reached { return r }
                if plan.arithmetic, let bins {
                    // jdarith's process_restart: statistics, contexts and registers start again.
                    ArithmeticBins.reset(bins, plan: plan)
                    st.qmShift = -16
                    st.qmInterval = 0
                }
            }
            // Inside an AC end-of-band run a block reads no bits (T.81 G.1.2.2): no rollback point needed.
            if plan.kind == .acFirst && st.eobrun > 0 && !st.skipping && !plan.arithmetic {
                st.eobrun &-= 1
                advance()
                continue
            }
            // Only an MCU that may reach the end of the bytes can be rolled back: in coefficient
            // mode the others need no copy of their blocks (nor of the state). Streaming MCUs copy
            // only the state, which costs less than looking ahead for the guard.
            // Arithmetic MCUs save the statistics too, so every sink looks ahead first.
            let saved: EntropyState? = (isCoefficientSink || plan.arithmetic) && !st.skipping
                && rollbackGuard.isClear(from: st.reader.position, data: data, end: end) ? nil : st
            st.reader.starved = false
            let decoding = !st.skipping
            if decoding {
                if saved != nil && isCoefficientSink {
                    copyBlocks(st.mcu, plan: plan, sink: sink, saved: savedBlocks, restore: false)
                }
                if saved != nil && plan.arithmetic { copyBins(restore: false) }
                if plan.arithmetic, let bins {
                    decodeArithmeticMCU(&st, plan: plan, sink: sink, block: block, bins: bins, blocksPerMCU: blocksPerMCU,
                                        mx: mx, my: my, zigzag: zigzag, data: data, end: end, isFinal: isFinal)
                } else if let direct = directAC {
                    let target = direct.plane + (my &* direct.wide &+ mx) &* 64
                    if plan.kind == .acRefine {
                        st.reader.decodeACRefine(target, ac: direct.ac, ss: plan.ss, se: plan.se, al: plan.al, eobrun: &st.eobrun,
                                                 zigzag: zigzag, data: data, end: end, isFinal: isFinal)
                    } else {
                        st.reader.decodeACFirst(target, ac: direct.ac, ss: plan.ss, se: plan.se, al: plan.al, eobrun: &st.eobrun,
                                                zigzag: zigzag, data: data, end: end, isFinal: isFinal)
                    }
                } else if case let .band(band) = sink {
                    bandTables.withUnsafeBufferPointer { tables in
                        let records = band.records + Int(band.offsets[mx])
                        let next = decodeBandMCU(&st, tables: tables, records: records, zigzag: zigzag,
                                                 data: data, end: end, isFinal: isFinal)
                        band.offsets[mx &+ 1] = Int32(truncatingIfNeeded: next - band.records)
                    }
                } else if fastPlanes, case let .planes(base, _) = sink {
                    planeBlocks.withUnsafeBufferPointer { blocks in
                        decodePlanesMCU(&st, plan: plan, blocks: blocks, base: base, block: block, mx: mx, my: my,
                                        zigzag: zigzag, data: data, end: end, isFinal: isFinal)
                    }
                } else {
                    decodeMCU(&st, plan: plan, sink: sink, block: block, mx: mx, my: my,
                              zigzag: zigzag, data: data, end: end, isFinal: isFinal)
                }
            }
            if st.reader.overran && (st.reader.starved || st.reader.hitEnd) {
                guard let saved else {
                    // RollbackGuard rules this out (see there); never continue from a half-decoded MCU.
                    return .failed(.corruptData(reason: "entropy-coded data ran past its bound",
                                                offset: baseOffset + st.reader.approximateOffset))
                }
                let starved = st.reader.starved
                if isCoefficientSink { copyBlocks(saved.mcu, plan: plan, sink: sink, saved: savedBlocks, restore: true) }
                if plan.arithmetic { copyBins(restore: true) }
                st = saved
                return starved ? .needMore : .truncated
            }
            if st.reader.damage != 0 {
                // Decoded past as libjpeg decodes it; reported (or refused, strict) once the MCU is final.
                let offset = baseOffset + st.reader.approximateOffset
                let reason = describe(st.reader.damage)
                st.reader.damage = 0
                if !plan.leniencies.contains(.corruptData) { return .failed(.corruptData(reason: reason, offset: offset)) }
                if st.damageReports <= maxDamageReports { st.damageReports += 1 }
                if st.damageReports <= maxDamageReports {
                    warnings.append("corrupt JPEG data at offset \(offset): \(reason)"
                        + (st.damageReports == maxDamageReports ? " (further corrupt data in this scan is not reported)" : ""))
                }
            }
            if st.reader.hitMarker && st.reader.overran && !st.skipping {
                // libjpeg's JWRN_HIT_MARKER: the MCU was finished with zero bits; the rest of the
                // restart interval keeps its coefficients (zero: mid-gray in a sequential scan).
                if !plan.leniencies.contains(.prematureMarker) {
                    return .failed(.corruptData(reason: "premature end of entropy-coded data (a marker inside the scan)",
                                                offset: baseOffset + st.reader.position))
                }
                warnings.append("premature end of entropy-coded data at offset \(baseOffset + st.reader.position); rest of the interval left gray")
                st.skipping = true
                noteLastGoodRow(&st, row: my / rowsPerIMCU, restartInterval: plan.restartInterval)
                st.dataEnded = st.dataEnded || plan.restartInterval == 0
                st.reader.count = 0
                st.reader.bits = 0
            }
            if !decoding, case .planes = sink {
                // The band ring still holds an older MCU row: damaged blocks become mid-gray, as zero coefficients do.
                block.update(repeating: 0, count: 64)
                writeBlocks(st.mcu, plan: plan, sink: sink, block: block)
            }
            if !decoding, case let .band(band) = sink {
                var records = band.records + Int(band.offsets[mx])
                for _ in 0 ..< blocksPerMCU { records = BandRecords.writeEmpty(records) }
                band.offsets[mx &+ 1] = Int32(truncatingIfNeeded: records - band.records)
            }
            advance()
            if st.dataEnded && isCoefficientSink && !plan.arithmetic {
                // The remaining MCUs keep their coefficients: all at once, not one skipped MCU at
                // a time (hundreds of empty scans over a wide image took 150 ms, FUZZING.md IS-2).
                st.mcu = max(st.mcu, stop)
            }
        }
        return .reached
    }

    /// The scan starts skipping in the current MCU (iMCU row `row`). libjpeg updates
    /// `last_good_iMCU_row` before each MCU it starts with data; while skipping it stops, so the
    /// row of this MCU is the value while the scan skips, unless the MCU began skipping (its
    /// restart, the first thing it read, ended an earlier skip). Out of line: inlined into the
    /// MCU loop it cost a progressive decode 0.5% more instructions.
    @inline(never)
    static func noteLastGoodRow(_ st: inout EntropyState, row: Int, restartInterval: Int) {
        if !st.beganSkipping || st.restartsToGo != restartInterval { st.lastGoodRow = Int32(truncatingIfNeeded: row) }
    }

    /// Corrupt-data warnings listed per scan; a badly damaged scan would otherwise give one per MCU.
    static let maxDamageReports = 8

    private static func describe(_ damage: UInt8) -> String {
        var reasons: [String] = []
        if damage & BitReader.Damage.badCode != 0 { reasons.append("bad Huffman code") }
        if damage & BitReader.Damage.runPastBlock != 0 { reasons.append("coefficient run past the end of the block") }
        if damage & BitReader.Damage.badRefinement != 0 { reasons.append("refinement coefficient of size above 1") }
        if damage & BitReader.Damage.badArithmeticCode != 0 { reasons.append("bad arithmetic code; the rest of the interval left as it is") }
        return reasons.joined(separator: ", ")
    }

    /// Saves (or, on rollback, restores) every coefficient block of MCU `mcu` in coefficient
    /// mode. An attempt that ran out of bytes may have written values decoded from zero fill,
    /// and the replay with the real bytes need not overwrite them all (it may stop at corrupt
    /// data, or leave positions an earlier scan filled): restoring the blocks makes the result
    /// the same whatever the chunking (FUZZING.md JPEG-1). Streaming blocks are rewritten on replay.
    private static func copyBlocks(_ mcu: Int, plan: ScanPlan, sink: BlockSink, saved: UnsafeMutablePointer<Int16>, restore: Bool) {
        guard case let .coefficients(planes, _) = sink else { return }
        var slot = saved
        for c in plan.components {
            let hBlocks = plan.interleaved ? c.h : 1, vBlocks = plan.interleaved ? c.v : 1
            for bv in 0 ..< vBlocks {
                for bh in 0 ..< hBlocks {
                    let (target, _) = coefficientBlock(mcu, blockH: bh, blockV: bv, component: c, plan: plan, planes: planes)
                    let n = c.valuesPerBlock
                    if restore { target.update(from: slot, count: n) } else { slot.update(from: target, count: n) }
                    slot += 64
                }
            }
        }
    }

    /// Marks every block of MCU `mcu` in the preview cache's change map (when there is one).
    private static func markChanged(_ mcu: Int, plan: ScanPlan, sink: BlockSink) {
        guard case let .coefficients(planes, changes?) = sink else { return }
        forEachBlock(of: mcu, plan: plan, planes: planes) { _, index in changes[index] = 1 }
    }

    /// Every coefficient block of MCU `mcu`, in the scan's order (coefficient mode), with its
    /// index in the change map.
    private static func forEachBlock(of mcu: Int, plan: ScanPlan, planes: UnsafeMutablePointer<UnsafeMutablePointer<Int16>>,
                                     _ body: (UnsafeMutablePointer<Int16>, Int) -> Void) {
        for c in plan.components {
            let hBlocks = plan.interleaved ? c.h : 1, vBlocks = plan.interleaved ? c.v : 1
            for bv in 0 ..< vBlocks {
                for bh in 0 ..< hBlocks {
                    let (target, index) = coefficientBlock(mcu, blockH: bh, blockV: bv, component: c, plan: plan,
                                                           planes: planes)
                    body(target, index)
                }
            }
        }
    }

    @inline(__always)
    private static func coefficientBlock(_ mcu: Int, blockH: Int, blockV: Int, component c: ScanComponent, plan: ScanPlan,
                                         planes: UnsafeMutablePointer<UnsafeMutablePointer<Int16>>)
        -> (UnsafeMutablePointer<Int16>, Int) {
        coefficientBlock(mx: mcu % plan.mcusWide, my: mcu / plan.mcusWide, blockH: blockH, blockV: blockV, component: c,
                         plan: plan, planes: planes)
    }

    /// A block's coefficients and its index in the change map.
    @inline(__always)
    private static func coefficientBlock(mx: Int, my: Int, blockH: Int, blockV: Int, component c: ScanComponent,
                                         plan: ScanPlan, planes: UnsafeMutablePointer<UnsafeMutablePointer<Int16>>)
        -> (UnsafeMutablePointer<Int16>, Int) {
        let bx: Int, by: Int
        if plan.interleaved { bx = mx &* c.h &+ blockH; by = my &* c.v &+ blockV } else { bx = mx; by = my }
        let block = by &* c.paddedBlocksWide &+ bx
        return (planes[c.index] + block &* c.valuesPerBlock, c.firstBlock &+ block)
    }

    @inline(__always)
    private static func decodeMCU(_ st: inout EntropyState, plan: ScanPlan, sink: BlockSink, block: UnsafeMutablePointer<Int16>,
                                  mx: Int, my: Int, zigzag: UnsafePointer<UInt8>,
                                  data: UnsafePointer<UInt8>, end: Int, isFinal: Bool) {
        for (i, c) in plan.components.enumerated() {
            let hBlocks = plan.interleaved ? c.h : 1, vBlocks = plan.interleaved ? c.v : 1
            for bv in 0 ..< vBlocks {
                for bh in 0 ..< hBlocks {
                    switch sink {
                    case .band:
                        return
                    case let .planes(base, quant):
                        guard let dc = c.dc, let ac = c.ac, i < plan.idcts.count else { return }
                        let idct = plan.idcts[i]
                        st.reader.decodeSequentialBlock(block, dc: dc, ac: ac, predictor: &st.predictors[i],
                                                            zigzag: zigzag, data: data, end: end, isFinal: isFinal)
                        let bx = plan.interleaved ? mx &* c.h &+ bh : mx
                        let offset = c.planeOffset &+ ((my % 3) &* c.bandRows &+ bv &* c.blockSize) &* c.stride &+ bx &* c.blockSize
                        idct(block, quant + c.quantOffset, base + offset, c.stride)
                        block.update(repeating: 0, count: 64)
                    case let .coefficients(planes, changes):
                        let (target, index) = coefficientBlock(mx: mx, my: my, blockH: bh, blockV: bv, component: c,
                                                               plan: plan, planes: planes)
                        var changed = true
                        switch plan.kind {
                        case .sequential:
                            guard let dc = c.dc, let ac = c.ac else { return }
                            // libjpeg's jdhuff writes the DC and the nonzero AC coefficients into
                            // a buffer it never clears between scans: a component that an earlier
                            // scan covered keeps that scan's values where this one decodes zeros.
                            st.reader.decodeSequentialBlock(block, dc: dc, ac: ac, predictor: &st.predictors[i],
                                                                zigzag: zigzag, data: data, end: end, isFinal: isFinal)
                            target[0] = block[0]
                            for k in 1 ..< 64 where block[k] != 0 { target[k] = block[k] }
                            block.update(repeating: 0, count: 64)
                        case .dcFirst:
                            guard let dc = c.dc else { return }
                            st.reader.decodeDCFirst(target, dc: dc, predictor: &st.predictors[i], al: plan.al,
                                                        data: data, end: end, isFinal: isFinal)
                        case .dcRefine:
                            changed = st.reader.decodeDCRefine(target, al: plan.al, data: data, end: end, isFinal: isFinal)
                        case .acFirst, .acRefine:
                            guard let ac = c.ac else { return }
                            // A compact block is decoded in the scratch block (CompactBlock).
                            let compact = c.valuesPerBlock != 64
                            if compact { CompactBlock.expand(target, valuesPerBlock: c.valuesPerBlock, into: block, history: true) }
                            let coefficients = compact ? block : target
                            if plan.kind == .acFirst {
                                changed = st.reader.decodeACFirst(coefficients, ac: ac, ss: plan.ss, se: plan.se, al: plan.al,
                                                                  eobrun: &st.eobrun, zigzag: zigzag, data: data, end: end,
                                                                  isFinal: isFinal)
                            } else {
                                changed = st.reader.decodeACRefine(coefficients, ac: ac, ss: plan.ss, se: plan.se, al: plan.al,
                                                                   eobrun: &st.eobrun, zigzag: zigzag, data: data, end: end,
                                                                   isFinal: isFinal)
                            }
                            if compact {
                                CompactBlock.compress(block, valuesPerBlock: c.valuesPerBlock, into: target)
                                block.update(repeating: 0, count: 64)
                            }
                        }
                        // A rolled-back attempt may leave a mark on a block it restores: a spare re-render, never a missed one.
                        if changed, let changes { changes[index] = 1 }
                    }
                }
            }
        }
    }

    /// ``decodeMCU(_:plan:sink:block:zigzag:data:end:isFinal:)`` for a sequential scan into the
    /// band rings, from the precomputed blocks: no per-block struct copies, optional unwrapping
    /// or closure retains, and the full-size SIMD IDCT called directly.
    @inline(__always)
    private static func decodePlanesMCU(_ st: inout EntropyState, plan: ScanPlan, blocks: UnsafeBufferPointer<PlaneBlock>,
                                        base: UnsafeMutablePointer<UInt8>, block: UnsafeMutablePointer<Int16>, mx: Int, my: Int,
                                        zigzag: UnsafePointer<UInt8>, data: UnsafePointer<UInt8>, end: Int,
                                        isFinal: Bool) {
        let band = my % 3
        for b in blocks {
            var predictor = st.predictors[b.predictor]
            st.reader.decodeSequentialBlock(block, dc: b.dc, ac: b.ac, predictor: &predictor,
                                                zigzag: zigzag, data: data, end: end, isFinal: isFinal)
            st.predictors[b.predictor] = predictor
            let target = base + (b.offset &+ band &* b.bandBytes &+ mx &* b.stepX)
            if b.kernel < 0 {
                IDCTSIMD.idct8x8(block, b.quant, target, b.stride)
            } else {
                plan.idcts[b.kernel](block, b.quant, target, b.stride)
            }
            block.update(repeating: 0, count: 64)
        }
    }

    /// A sequential MCU into a band of compact records (``BandRecords``), from `records`;
    /// returns the end of its last record (a replay after a rollback starts at the same place).
    @inline(__always)
    private static func decodeBandMCU(_ st: inout EntropyState, tables: UnsafeBufferPointer<(dc: HuffmanLookup, ac: HuffmanLookup, predictor: Int)>,
                                      records: UnsafeMutablePointer<Int16>, zigzag: UnsafePointer<UInt8>,
                                      data: UnsafePointer<UInt8>, end: Int, isFinal: Bool) -> UnsafeMutablePointer<Int16> {
        var next = records
        for t in tables {
            var predictor = st.predictors[t.predictor]
            let writer = BandRecordWriter(next, zigzag: zigzag)
            let n = st.reader.decodeSequentialBlock(into: writer, dc: t.dc, ac: t.ac, predictor: &predictor,
                                                    data: data, end: end, isFinal: isFinal)
            next = writer.finish(n)
            st.predictors[t.predictor] = predictor
        }
        return next
    }

    /// Writes `block` (zeros: mid-gray) to every block of MCU `mcu` in streaming mode.
    private static func writeBlocks(_ mcu: Int, plan: ScanPlan, sink: BlockSink, block: UnsafeMutablePointer<Int16>) {
        guard case let .planes(base, quant) = sink else { return }
        let mx = mcu % plan.mcusWide, my = mcu / plan.mcusWide
        for (i, c) in plan.components.enumerated() where i < plan.idcts.count {
            let idct = plan.idcts[i]
            let hBlocks = plan.interleaved ? c.h : 1, vBlocks = plan.interleaved ? c.v : 1
            for bv in 0 ..< vBlocks {
                for bh in 0 ..< hBlocks {
                    let bx = plan.interleaved ? mx * c.h + bh : mx
                    let offset = c.planeOffset + ((my % 3) * c.bandRows + bv * c.blockSize) * c.stride + bx * c.blockSize
                    idct(block, quant + c.quantOffset, base + offset, c.stride)
                }
            }
        }
    }

    /// At the end of a restart interval: find the next marker and act as libjpeg's
    /// read_restart_marker / jpeg_resync_to_restart do (T.81 F.2.1.3.1, E.2.4).
    static func restart(_ st: inout EntropyState, plan: ScanPlan, data: UnsafePointer<UInt8>, end: Int, isFinal: Bool,
                        baseOffset: Int, warnings: inout [String]) -> ScanStep {
        st.beganSkipping = st.skipping
        // Whole bytes left unused in the bit buffer are discarded (libjpeg's process_restart counts them).
        st.garbage += max(st.reader.count, 0) / 8
        st.reader.reset()
        var p = st.reader.position
        while true {
            // Skip to FF x with x neither 00 (stuffed data) nor FF (fill).
            while p < end && data[p] != 0xFF { p += 1; st.garbage += 1 }
            var q = p + 1
            while q < end && data[q] == 0xFF { q += 1 }
            if q >= end {
                st.reader.position = p
                return isFinal ? .truncated : .needMore
            }
            if data[q] == 0 {
                st.garbage += q + 1 - p
                p = q + 1
                continue
            }
            let marker = data[q]
            let desired = Int(st.nextRestart)
            if (st.garbage > 0 && !plan.leniencies.contains(.extraneousBytes))
                || (Int(marker) != Int(Marker.rst0) + desired && !plan.leniencies.contains(.restartMarkers)) {
                let found = marker >= Marker.rst0 && marker <= Marker.rst7 ? "RST\(marker - Marker.rst0)" : "marker 0x\(hex(marker))"
                return .failed(.corruptData(reason: st.garbage > 0 ? "\(st.garbage) bytes before RST\(desired)" : "\(found) where RST\(desired) was due",
                                            offset: baseOffset + q - 1))
            }
            if st.garbage > 0 {
                warnings.append("\(st.garbage) extraneous bytes before marker 0x\(hex(marker)) at offset \(baseOffset + q - 1)")
                st.garbage = 0
            }
            enum Action { case take, skip, leave }
            let action: Action
            if marker < Marker.sof0 {
                action = .skip
            } else if marker < Marker.rst0 || marker > Marker.rst7 {
                action = .leave
            } else {
                let n = Int(marker - Marker.rst0)
                if n == (desired + 1) & 7 || n == (desired + 2) & 7 {
                    action = .leave
                } else if n == (desired - 1) & 7 || n == (desired - 2) & 7 {
                    action = .skip
                } else {
                    action = .take
                }
                if n != desired { warnings.append("expected RST\(desired), found RST\(n) at offset \(baseOffset + q - 1)") }
            }
            switch action {
            case .skip:
                p = q + 1
                continue
            case .take:
                st.reader.position = q + 1
                st.skipping = false
            case .leave:
                // libjpeg leaves the marker unread and its out-of-data flag as it was: unless the
                // interval before ended early, the next MCU is decoded from zero bits (and ends
                // the interval's data), as the entropy decoder meets the marker at once.
                st.reader.position = q - 1
                st.dataEnded = marker < Marker.rst0 || marker > Marker.rst7
            }
            st.predictors = DCPredictors()
            st.eobrun = 0
            st.restartsToGo = plan.restartInterval
            st.nextRestart = UInt8((desired + 1) & 7)
            return .reached
        }
    }
}
