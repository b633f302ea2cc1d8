/// Progressive scans (T.81 G.1.2): DC first and refinement, AC first with end-of-band runs,
/// AC refinement with correction bits, each scan with its own optimal Huffman tables, coded as
/// libjpeg's jcphuff.c does so that the bytes equal `cjpeg -progressive`.
enum ProgressiveScript {
    /// libjpeg's `jpeg_simple_progression` script: for YCbCr, DC first (all components, Al 1),
    /// luma AC 1-5 then chroma, the rest of luma, refinements, and luma's last bit last; for
    /// one component the all-purpose script.
    static func simple(components n: Int) -> [JPEGScan] {
        func scan(_ c: [Int], _ ss: Int, _ se: Int, _ ah: Int, _ al: Int) -> JPEGScan {
            JPEGScan(components: c, spectralStart: ss, spectralEnd: se, successiveHigh: ah, successiveLow: al)
        }
        if n == 3 {
            return [scan([0, 1, 2], 0, 0, 0, 1), scan([0], 1, 5, 0, 2), scan([2], 1, 63, 0, 1),
                    scan([1], 1, 63, 0, 1), scan([0], 6, 63, 0, 2), scan([0], 1, 63, 2, 1),
                    scan([0, 1, 2], 0, 0, 1, 0), scan([2], 1, 63, 1, 0), scan([1], 1, 63, 1, 0),
                    scan([0], 1, 63, 1, 0)]
        }
        let all = Array(0 ..< n)
        var s = [scan(all, 0, 0, 0, 1)]
        for c in all { s.append(scan([c], 1, 5, 0, 2)) }
        for c in all { s.append(scan([c], 6, 63, 0, 2)) }
        for c in all { s.append(scan([c], 1, 63, 2, 1)) }
        s.append(scan(all, 0, 0, 1, 0))
        for c in all { s.append(scan([c], 1, 63, 1, 0)) }
        return s
    }

    /// The rules of T.81 G.1.1.1.1 as libjpeg's `validate_script` applies them: bands within
    /// 0...63, DC alone in its scans, AC scans single-component and after that component's
    /// first DC scan, each refinement dropping exactly one bit from where the last scan of that
    /// coefficient left it, and every coefficient of every component complete at the end.
    static func validate(_ script: [JPEGScan], components n: Int) throws(JPEGEncoderError) {
        guard !script.isEmpty else { throw .invalidParameter("empty scan script") }
        // lastBit[c][k]: -1 not yet sent, else the Al it was last sent with.
        var lastBit = [[Int]](repeating: [Int](repeating: -1, count: 64), count: n)
        for (i, s) in script.enumerated() {
            let (ss, se, ah, al) = (s.spectralStart, s.spectralEnd, s.successiveHigh, s.successiveLow)
            guard !s.components.isEmpty, s.components.count <= 4,
                  s.components.allSatisfy({ (0 ..< n).contains($0) }),
                  zip(s.components, s.components.dropFirst()).allSatisfy({ $0 < $1 }) else {
                throw .invalidParameter("scan \(i): bad component list \(s.components)")
            }
            guard ss >= 0, ss <= se, se <= 63, (0 ... 13).contains(al), (0 ... 13).contains(ah) else {
                throw .invalidParameter("scan \(i): bad band \(ss)...\(se) or bits \(ah)/\(al)")
            }
            if ss == 0 {
                guard se == 0 else { throw .invalidParameter("scan \(i): DC and AC in one scan") }
            } else {
                guard s.components.count == 1 else { throw .invalidParameter("scan \(i): AC scan with several components") }
            }
            for c in s.components {
                if ss > 0 && lastBit[c][0] < 0 {
                    throw .invalidParameter("scan \(i): AC of component \(c) before its DC")
                }
                for k in ss ... se {
                    let last = lastBit[c][k]
                    if last < 0 {
                        guard ah == 0 else { throw .invalidParameter("scan \(i): refinement of unsent coefficient \(k)") }
                    } else {
                        guard ah == last, al == ah - 1 else {
                            throw .invalidParameter("scan \(i): coefficient \(k) refined from bit \(ah) to \(al), last sent at \(last)")
                        }
                    }
                    lastBit[c][k] = al
                }
            }
        }
        guard lastBit.allSatisfy({ $0.allSatisfy { $0 == 0 } }) else {
            throw .invalidParameter("scan script leaves coefficients incomplete")
        }
    }
}

/// Runs scans over a ``CoefficientStore``; each scan runs twice, counting then writing.
struct ProgressiveEncoder {
    let store: CoefficientStore
    let layout: EncoderLayout
    let restartInterval: Int
    private let zigzag = EncoderTables.zigzag

    // Per-pass state.
    private var gather = true
    private var dcCounts = [Int](repeating: 0, count: 2 * 257)
    private var acCounts = [Int](repeating: 0, count: 2 * 257)
    private var dcCodes: [HuffmanCodes] = []
    private var acCodes: [HuffmanCodes] = []
    private var lastDC = [Int32](repeating: 0, count: 4)
    private var eobRun = 0
    /// Correction bits waiting for the end of the current EOB run (libjpeg's BE buffer).
    private var pendingBits: [UInt8] = []
    private var acSlot = 0
    private var scan = JPEGScan(components: [0], spectralStart: 0, spectralEnd: 0, successiveHigh: 0, successiveLow: 0)

    init(store: CoefficientStore, restartInterval: Int) {
        self.store = store
        layout = store.layout
        self.restartInterval = restartInterval
    }

    mutating func encodeScan(_ s: JPEGScan, writeDRI: Bool, writer w: inout BitWriter) {
        scan = s
        let comps = s.components.map { layout.components[$0] }
        let isDC = s.spectralStart == 0
        acSlot = comps[0].table
        // Pass 1: symbol counts.
        gather = true
        for i in dcCounts.indices { dcCounts[i] = 0; acCounts[i] = 0 }
        run(&w)
        // Tables for this scan, DHT, DRI, SOS (libjpeg `write_scan_header`).
        var dcSpecs = [HuffmanSpec](repeating: EncoderTables.dcLuminance, count: 2)
        var acSpecs = [HuffmanSpec](repeating: EncoderTables.acLuminance, count: 2)
        var header: [UInt8] = []
        var sent = Set<Int>()
        for comp in comps {
            let t = comp.table
            if isDC && s.successiveHigh == 0 && !sent.contains(t) {
                dcSpecs[t] = .optimal(frequencies: Array(dcCounts[(t * 257) ..< (t * 257 + 257)]))
                header += JPEGWriter.dht(isAC: false, index: t, spec: dcSpecs[t])
                sent.insert(t)
            }
            if !isDC && !sent.contains(t) {
                acSpecs[t] = .optimal(frequencies: Array(acCounts[(t * 257) ..< (t * 257 + 257)]))
                header += JPEGWriter.dht(isAC: true, index: t, spec: acSpecs[t])
                sent.insert(t)
            }
        }
        if writeDRI && restartInterval > 0 { header += JPEGWriter.dri(restartInterval) }
        let tableBytes: [UInt8] = comps.map { c in
            isDC ? (s.successiveHigh == 0 ? UInt8(c.table << 4) : 0) : UInt8(c.table)
        }
        header += JPEGWriter.sos(components: comps, tableBytes: tableBytes, ss: s.spectralStart,
                                 se: s.spectralEnd, ah: s.successiveHigh, al: s.successiveLow)
        w.append(header)
        dcCodes = dcSpecs.map(HuffmanCodes.init)
        acCodes = acSpecs.map(HuffmanCodes.init)
        // Pass 2: the bits.
        gather = false
        run(&w)
        w.flushBits()
    }

    private mutating func run(_ w: inout BitWriter) {
        for i in lastDC.indices { lastDC[i] = 0 }
        eobRun = 0
        pendingBits.removeAll(keepingCapacity: true)
        var mcus = 0
        let comps = scan.components
        if comps.count > 1 {
            for my in 0 ..< layout.mcusDown {
                for mx in 0 ..< layout.mcusAcross {
                    restartIfDue(mcus, &w)
                    w.reserve(2048)
                    for (i, c) in comps.enumerated() {
                        let comp = layout.components[c]
                        for by in 0 ..< comp.v {
                            for bx in 0 ..< comp.h {
                                block(store.block(c, row: my * comp.v + by, col: mx * comp.h + bx), i, comp.table, &w)
                            }
                        }
                    }
                    mcus += 1
                }
            }
        } else {
            let c = comps[0], comp = layout.components[c]
            for row in 0 ..< comp.heightInBlocks {
                for col in 0 ..< comp.widthInBlocks {
                    restartIfDue(mcus, &w)
                    w.reserve(2048)
                    block(store.block(c, row: row, col: col), 0, comp.table, &w)
                    mcus += 1
                }
            }
        }
        emitEOBRun(&w)
    }

    private mutating func restartIfDue(_ mcus: Int, _ w: inout BitWriter) {
        guard restartInterval > 0, mcus > 0, mcus % restartInterval == 0 else { return }
        emitEOBRun(&w)
        if !gather {
            w.flushBits()
            w.append([0xFF, 0xD0 + UInt8((mcus / restartInterval - 1) & 7)])
        }
        if scan.spectralStart == 0 {
            for i in lastDC.indices { lastDC[i] = 0 }
        } else {
            eobRun = 0
            pendingBits.removeAll(keepingCapacity: true)
        }
    }

    @inline(__always)
    private mutating func block(_ b: UnsafeMutablePointer<Int16>, _ i: Int, _ table: Int, _ w: inout BitWriter) {
        let s = scan
        if s.spectralStart == 0 {
            if s.successiveHigh == 0 {
                let v = Int32(b[0]) >> Int32(s.successiveLow)
                let (nbits, extra) = magnitudeCategory(v &- lastDC[i])
                lastDC[i] = v
                dcSymbol(table, nbits, &w)
                bits(extra, nbits, &w)
            } else {
                bits(UInt64((Int32(b[0]) >> Int32(s.successiveLow)) & 1), 1, &w)
            }
        } else if s.successiveHigh == 0 {
            acFirst(b, &w)
        } else {
            acRefine(b, &w)
        }
    }

    @inline(__always)
    private mutating func dcSymbol(_ table: Int, _ symbol: Int, _ w: inout BitWriter) {
        if gather { dcCounts[table * 257 + symbol] += 1; return }
        let e = dcCodes[table].entries[symbol]
        w.put(UInt64(e & 0xFFFF), Int(e >> 16))
    }

    @inline(__always)
    private mutating func acSymbol(_ symbol: Int, _ w: inout BitWriter) {
        if gather { acCounts[acSlot * 257 + symbol] += 1; return }
        let e = acCodes[acSlot].entries[symbol]
        w.put(UInt64(e & 0xFFFF), Int(e >> 16))
    }

    @inline(__always)
    private func bits(_ value: UInt64, _ n: Int, _ w: inout BitWriter) {
        if !gather && n > 0 { w.put(value & ((1 << UInt64(n)) - 1), n) }
    }

    /// The pending end-of-band run (T.81 G.1.2.2: EOBn symbol plus n extra bits), then the
    /// correction bits that waited for it.
    private mutating func emitEOBRun(_ w: inout BitWriter) {
        guard eobRun > 0 else { return }
        let nbits = Int.bitWidth - 1 - eobRun.leadingZeroBitCount
        acSymbol(nbits << 4, &w)
        bits(UInt64(eobRun), nbits, &w)
        eobRun = 0
        flushPending(&w)
    }

    private mutating func flushPending(_ w: inout BitWriter) {
        if !gather {
            w.reserve(pendingBits.count / 8 + 16)
            for b in pendingBits { w.put(UInt64(b), 1) }
        }
        pendingBits.removeAll(keepingCapacity: true)
    }

    /// G.1.2.2 first AC scan of a block (libjpeg `encode_mcu_AC_first`).
    private mutating func acFirst(_ b: UnsafeMutablePointer<Int16>, _ w: inout BitWriter) {
        let al = Int32(scan.successiveLow)
        var run = 0
        for k in scan.spectralStart ... scan.spectralEnd {
            let x = Int32(b[zigzag[k]])
            let v = x < 0 ? -((-x) >> al) : x >> al
            if v == 0 { run += 1; continue }
            emitEOBRun(&w)
            while run > 15 { acSymbol(0xF0, &w); run -= 16 }
            let (nbits, extra) = magnitudeCategory(v)
            acSymbol(run << 4 | nbits, &w)
            bits(extra, nbits, &w)
            run = 0
        }
        if run > 0 {
            eobRun += 1
            if eobRun == 0x7FFF { emitEOBRun(&w) }
        }
    }

    /// G.1.2.3 AC refinement of a block (libjpeg `encode_mcu_AC_refine`): coefficients already
    /// nonzero send one correction bit each, buffered until the next symbol; newly nonzero ones
    /// (magnitude 1 at this bit) are coded with run, and EOB runs carry pending corrections.
    private mutating func acRefine(_ b: UnsafeMutablePointer<Int16>, _ w: inout BitWriter) {
        let al = Int32(scan.successiveLow)
        let ss = scan.spectralStart, se = scan.spectralEnd
        var absolute = [Int32](repeating: 0, count: 64)
        var eob = 0
        for k in ss ... se {
            let x = Int32(b[zigzag[k]])
            let a = (x < 0 ? -x : x) >> al
            absolute[k] = a
            if a == 1 { eob = k }
        }
        var run = 0
        var corrections: [UInt8] = []
        for k in ss ... se {
            let a = absolute[k]
            if a == 0 { run += 1; continue }
            while run > 15 && k <= eob {
                emitEOBRun(&w)
                acSymbol(0xF0, &w)
                run -= 16
                emitBits(corrections, &w)
                corrections.removeAll(keepingCapacity: true)
            }
            if a > 1 {
                corrections.append(UInt8(a & 1))
                continue
            }
            emitEOBRun(&w)
            acSymbol(run << 4 | 1, &w)
            bits(b[zigzag[k]] < 0 ? 0 : 1, 1, &w)
            emitBits(corrections, &w)
            corrections.removeAll(keepingCapacity: true)
            run = 0
        }
        if run > 0 || !corrections.isEmpty {
            eobRun += 1
            pendingBits += corrections
            if eobRun == 0x7FFF || pendingBits.count > 1000 - 64 + 1 { emitEOBRun(&w) }
        }
    }

    private func emitBits(_ list: [UInt8], _ w: inout BitWriter) {
        guard !gather else { return }
        w.reserve(list.count / 8 + 16)
        for b in list { w.put(UInt64(b), 1) }
    }
}
