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

    // Per-pass state.
    private var gather = true
    /// Symbol counts (2 slots x 257) and code entries (2 slots x 256) behind raw pointers:
    /// the per-symbol paths run millions of times and must not pay for array checks.
    private let tables = ProgressiveTables()
    private var lastDC = [Int32](repeating: 0, count: 4)
    private var eobRun = 0
    /// How many correction bits wait for the end of the current EOB run (libjpeg's BE
    /// buffer, ``ProgressiveTables/pendingBits``).
    private var pendingCount = 0
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
        tables.dcCounts.update(repeating: 0, count: 2 * 257)
        tables.acCounts.update(repeating: 0, count: 2 * 257)
        run(&w)
        // Tables for this scan, DHT, DRI, SOS (libjpeg `write_scan_header`).
        var dcSpecs = [HuffmanSpec](repeating: EncoderTables.dcLuminance, count: 2)
        var acSpecs = [HuffmanSpec](repeating: EncoderTables.acLuminance, count: 2)
        var header: [UInt8] = []
        var sent = Set<Int>()
        for comp in comps {
            let t = comp.table
            if isDC && s.successiveHigh == 0 && !sent.contains(t) {
                dcSpecs[t] = .optimal(frequencies: Array(UnsafeBufferPointer(start: tables.dcCounts + t * 257, count: 257)))
                header += JPEGWriter.dht(isAC: false, index: t, spec: dcSpecs[t])
                sent.insert(t)
            }
            if !isDC && !sent.contains(t) {
                acSpecs[t] = .optimal(frequencies: Array(UnsafeBufferPointer(start: tables.acCounts + t * 257, count: 257)))
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
        for t in 0 ..< 2 {
            let dcEntries = HuffmanCodes(dcSpecs[t]).entries, acEntries = HuffmanCodes(acSpecs[t]).entries
            for i in 0 ..< 256 {
                tables.dcCodes[t * 256 + i] = dcEntries[i]
                tables.acCodes[t * 256 + i] = acEntries[i]
            }
        }
        // Pass 2: the bits.
        gather = false
        run(&w)
        w.flushBits()
    }

    private mutating func run(_ w: inout BitWriter) {
        for i in lastDC.indices { lastDC[i] = 0 }
        eobRun = 0
        pendingCount = 0
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
                    let index = row * comp.blocksPerLine + col
                    block(store.planes[c] + index * 64, 0, comp.table, &w, mask: store.masks[c][index])
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
            pendingCount = 0
        }
    }

    @inline(__always)
    private mutating func block(_ b: UnsafeMutablePointer<Int16>, _ i: Int, _ table: Int, _ w: inout BitWriter,
                                mask: UInt64 = ~0) {
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
            acFirst(b, mask, &w)
        } else {
            acRefine(b, mask, &w)
        }
    }

    @inline(__always)
    private mutating func dcSymbol(_ table: Int, _ symbol: Int, _ w: inout BitWriter) {
        if gather { tables.dcCounts[table &* 257 &+ symbol] &+= 1; return }
        let e = tables.dcCodes[table &* 256 &+ symbol]
        w.put(UInt64(e & 0xFFFF), Int(e >> 16))
    }

    @inline(__always)
    private mutating func acSymbol(_ symbol: Int, _ w: inout BitWriter) {
        if gather { tables.acCounts[acSlot &* 257 &+ symbol] &+= 1; return }
        let e = tables.acCodes[acSlot &* 256 &+ symbol]
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
        Self.emitBits(tables.pendingBits, pendingCount, gather: gather, &w)
        pendingCount = 0
    }

    /// G.1.2.2 first AC scan of a block (libjpeg `encode_mcu_AC_first`). Only coefficients in
    /// the block's nonzero map are visited; those that shift to zero at `Al` count into the run.
    private mutating func acFirst(_ b: UnsafeMutablePointer<Int16>, _ mask: UInt64, _ w: inout BitWriter) {
        let al = Int32(scan.successiveLow)
        let ss = scan.spectralStart, se = scan.spectralEnd
        let band = (se == 63 ? ~UInt64(0) : (UInt64(1) << UInt64(se + 1)) - 1) & ~((UInt64(1) << UInt64(ss)) - 1)
        var m = mask & band
        var last = ss - 1
        while m != 0 {
            let k = m.trailingZeroBitCount
            m &= m - 1
            let x = Int32(b[tables.zigzag[k]])
            let v = x < 0 ? 0 &- ((0 &- x) &>> al) : x &>> al
            if v == 0 { continue }
            var run = k - last - 1
            last = k
            emitEOBRun(&w)
            while run > 15 { acSymbol(0xF0, &w); run -= 16 }
            let (nbits, extra) = magnitudeCategory(v)
            acSymbol(run << 4 | nbits, &w)
            bits(extra, nbits, &w)
        }
        if last < se {
            eobRun += 1
            if eobRun == 0x7FFF { emitEOBRun(&w) }
        }
    }

    /// G.1.2.3 AC refinement of a block (libjpeg `encode_mcu_AC_refine`): coefficients already
    /// nonzero send one correction bit each, buffered until the next symbol; newly nonzero ones
    /// (magnitude 1 at this bit) are coded with run, and EOB runs carry pending corrections.
    private mutating func acRefine(_ b: UnsafeMutablePointer<Int16>, _ mask: UInt64, _ w: inout BitWriter) {
        // The block's correction bits are gathered right after the bits already pending, so
        // that a block ending inside an EOB run (the usual case) needs no copy.
        acRefine(b, mask, tables.pendingBits + pendingCount, &w)
    }

    /// Only coefficients in the block's nonzero map are visited; the gaps between them are
    /// zero at every bit and go into the run, as do visited ones that are zero at this bit.
    private mutating func acRefine(_ b: UnsafeMutablePointer<Int16>, _ mask: UInt64,
                                   _ corrections: UnsafeMutablePointer<UInt8>, _ w: inout BitWriter) {
        let al = Int32(scan.successiveLow)
        let ss = scan.spectralStart, se = scan.spectralEnd
        let band = (se == 63 ? ~UInt64(0) : (UInt64(1) << UInt64(se + 1)) - 1) & ~((UInt64(1) << UInt64(ss)) - 1)
        let zigzag = UnsafePointer(tables.zigzag)
        @inline(__always) func magnitude(_ k: Int) -> Int32 {
            let x = Int32(b[zigzag[k]])
            let sign = x &>> 31
            return ((x ^ sign) &- sign) &>> al
        }
        // The last coefficient that becomes nonzero at this bit (libjpeg's EOB).
        var eob = 0
        var m = mask & band
        while m != 0 {
            let k = m.trailingZeroBitCount
            m &= m - 1
            if magnitude(k) == 1 { eob = k }
        }
        var run = 0
        var pending = 0
        var previous = ss - 1
        m = mask & band
        while m != 0 {
            let k = m.trailingZeroBitCount
            m &= m - 1
            run &+= k &- previous &- 1
            previous = k
            let a = magnitude(k)
            if a == 0 { run &+= 1; continue }
            while run > 15 && k <= eob {
                emitEOBRun(&w)
                acSymbol(0xF0, &w)
                run -= 16
                Self.emitBits(corrections, pending, gather: gather, &w)
                pending = 0
            }
            if a > 1 {
                corrections[pending] = UInt8(a & 1)
                pending += 1
                continue
            }
            emitEOBRun(&w)
            acSymbol(run << 4 | 1, &w)
            bits(b[zigzag[k]] < 0 ? 0 : 1, 1, &w)
            Self.emitBits(corrections, pending, gather: gather, &w)
            pending = 0
            run = 0
        }
        run += se - previous
        if run > 0 || pending > 0 {
            eobRun += 1
            // If a symbol flushed the pending bits during this block, the remaining
            // corrections move down to follow the new (shorter) list.
            let destination = tables.pendingBits + pendingCount
            if destination != corrections {
                for j in 0 ..< pending { destination[j] = corrections[j] }
            }
            pendingCount += pending
            if eobRun == 0x7FFF || pendingCount > 1000 - 64 + 1 { emitEOBRun(&w) }
        }
    }

    /// Correction bits (one per byte) out 32 at a time: one `put` per chunk rather than per bit.
    /// Static on purpose: as a method of this (large) struct, called from a mutating one, it
    /// made Swift copy `self` (168 bytes, a `memcpy`) at every call.
    private static func emitBits(_ list: UnsafePointer<UInt8>, _ count: Int, gather: Bool, _ w: inout BitWriter) {
        guard !gather, count > 0 else { return }
        w.reserve(count / 8 + 16)
        w.withSink { sink in
            var i = 0
            while i < count {
                let n = min(32, count &- i)
                var value: UInt64 = 0
                for j in 0 ..< n { value = value &<< 1 | UInt64(list[i &+ j] & 1) }
                sink.put(value, n)
                i &+= n
            }
        }
    }
}

/// Scratch tables of the progressive coder (see ``ProgressiveEncoder``).
final class ProgressiveTables {
    let dcCounts = UnsafeMutablePointer<Int>.allocate(capacity: 2 * 257)
    let acCounts = UnsafeMutablePointer<Int>.allocate(capacity: 2 * 257)
    let dcCodes = UnsafeMutablePointer<UInt32>.allocate(capacity: 2 * 256)
    let acCodes = UnsafeMutablePointer<UInt32>.allocate(capacity: 2 * 256)
    /// Correction bits (0 or 1, one per byte) waiting for the end of an EOB run: at most
    /// 1000 (the coder empties it past 937 and a block adds at most 63).
    let pendingBits = UnsafeMutablePointer<UInt8>.allocate(capacity: 1024)
    /// ``EncoderTables/zigzag`` behind a pointer (no array checks in the per-coefficient loops).
    let zigzag = UnsafeMutablePointer<Int>.allocate(capacity: 64)

    init() {
        for k in 0 ..< 64 { (zigzag + k).initialize(to: EncoderTables.zigzag[k]) }
        pendingBits.initialize(repeating: 0, count: 1024)
        dcCounts.initialize(repeating: 0, count: 2 * 257)
        acCounts.initialize(repeating: 0, count: 2 * 257)
        dcCodes.initialize(repeating: 0, count: 2 * 256)
        acCodes.initialize(repeating: 0, count: 2 * 256)
    }

    deinit {
        dcCounts.deallocate()
        acCounts.deallocate()
        dcCodes.deallocate()
        acCodes.deallocate()
        pendingBits.deallocate()
        zigzag.deallocate()
    }
}
