/// Arithmetic decoding (T.81 Annex D; F.1.4.4, F.2.4 and G.1.3): the QM decoder and the block
/// decoders of every scan kind, decoding what libjpeg's jdarith decodes, damaged data included.
///
/// The decoder's registers live in ``EntropyState`` (C in `reader.bits`, A in
/// ``EntropyState/qmInterval``, CT in ``EntropyState/qmShift``) and its adaptive statistics in
/// ``ArithmeticBins``, so the MCU loop's rollback covers them: an MCU that runs out of bytes is
/// undone, statistics included, and decoded again when more arrive.

/// The statistics areas of an arithmetic-coded scan, in one byte buffer: 64 DC and 256 AC bins
/// for each of the 16 table numbers a scan may name (T.81 F.1.4.4.1.3 and F.1.4.4.2.1), the fixed
/// bin (a non-adapting estimate of one half, for signs and DC refinement bits), and each scan
/// component's DC conditioning category. A bin holds libjpeg's compact state: the index into
/// ``QMTable`` in the low 7 bits and the MPS in bit 7.
enum ArithmeticBins {
    static let dcCount = 64, acCount = 256, tables = 16
    static let acStart = tables * dcCount
    static let fixedBin = acStart + tables * acCount
    static let contexts = fixedBin + 1
    static let count = contexts + 4

    static func dc(_ table: Int) -> Int { table * dcCount }
    static func ac(_ table: Int) -> Int { acStart + table * acCount }

    /// The bins a scan starts from and every restart interval starts again from (jdarith's
    /// `start_pass` and `process_restart`): the DC statistics of a sequential or DC-first scan,
    /// the AC statistics of a sequential or AC scan, zeroed; the DC contexts zeroed.
    static func reset(_ bins: UnsafeMutablePointer<UInt8>, plan: ScanPlan) {
        for c in plan.components {
            if plan.kind == .sequential || plan.kind == .dcFirst { (bins + c.dcBins).update(repeating: 0, count: dcCount) }
            if plan.kind != .dcFirst && plan.kind != .dcRefine { (bins + c.acBins).update(repeating: 0, count: acCount) }
        }
        (bins + contexts).update(repeating: 0, count: 4)
        bins[fixedBin] = QMTable.fixedState
    }

    /// The byte ranges of the bins a scan can change, which a rollback restores.
    static func ranges(_ plan: ScanPlan) -> [Range<Int>] {
        var ranges: [Range<Int>] = [contexts ..< count]
        for c in plan.components {
            if plan.kind == .sequential || plan.kind == .dcFirst { ranges.append(c.dcBins ..< c.dcBins + dcCount) }
            if plan.kind != .dcFirst && plan.kind != .dcRefine { ranges.append(c.acBins ..< c.acBins + acCount) }
        }
        // Components sharing a table share its bins: each range once.
        var unique: [Range<Int>] = []
        for r in ranges where !unique.contains(r) { unique.append(r) }
        return unique
    }
}

/// T.81 table D.3: per state, Qe in the top 16 bits, the next state after an MPS in bits 8-15,
/// and in the low byte the next state after an LPS with the MPS switch in bit 7 (libjpeg's
/// packing). State 113 is the fixed estimate (Qe 0x5A1D, never moving).
enum QMTable {
    static let fixedState: UInt8 = 113

    nonisolated(unsafe) static let entries: UnsafePointer<UInt32> = {
        // (Qe, next after LPS, next after MPS, switch)
        let rows: [(UInt32, UInt32, UInt32, UInt32)] = [
            (0x5A1D, 1, 1, 1), (0x2586, 14, 2, 0), (0x1114, 16, 3, 0), (0x080B, 18, 4, 0),
            (0x03D8, 20, 5, 0), (0x01DA, 23, 6, 0), (0x00E5, 25, 7, 0), (0x006F, 28, 8, 0),
            (0x0036, 30, 9, 0), (0x001A, 33, 10, 0), (0x000D, 35, 11, 0), (0x0006, 9, 12, 0),
            (0x0003, 10, 13, 0), (0x0001, 12, 13, 0), (0x5A7F, 15, 15, 1), (0x3F25, 36, 16, 0),
            (0x2CF2, 38, 17, 0), (0x207C, 39, 18, 0), (0x17B9, 40, 19, 0), (0x1182, 42, 20, 0),
            (0x0CEF, 43, 21, 0), (0x09A1, 45, 22, 0), (0x072F, 46, 23, 0), (0x055C, 48, 24, 0),
            (0x0406, 49, 25, 0), (0x0303, 51, 26, 0), (0x0240, 52, 27, 0), (0x01B1, 54, 28, 0),
            (0x0144, 56, 29, 0), (0x00F5, 57, 30, 0), (0x00B7, 59, 31, 0), (0x008A, 60, 32, 0),
            (0x0068, 62, 33, 0), (0x004E, 63, 34, 0), (0x003B, 32, 35, 0), (0x002C, 33, 9, 0),
            (0x5AE1, 37, 37, 1), (0x484C, 64, 38, 0), (0x3A0D, 65, 39, 0), (0x2EF1, 67, 40, 0),
            (0x261F, 68, 41, 0), (0x1F33, 69, 42, 0), (0x19A8, 70, 43, 0), (0x1518, 72, 44, 0),
            (0x1177, 73, 45, 0), (0x0E74, 74, 46, 0), (0x0BFB, 75, 47, 0), (0x09F8, 77, 48, 0),
            (0x0861, 78, 49, 0), (0x0706, 79, 50, 0), (0x05CD, 48, 51, 0), (0x04DE, 50, 52, 0),
            (0x040F, 50, 53, 0), (0x0363, 51, 54, 0), (0x02D4, 52, 55, 0), (0x025C, 53, 56, 0),
            (0x01F8, 54, 57, 0), (0x01A4, 55, 58, 0), (0x0160, 56, 59, 0), (0x0125, 57, 60, 0),
            (0x00F6, 58, 61, 0), (0x00CB, 59, 62, 0), (0x00AB, 61, 63, 0), (0x008F, 61, 32, 0),
            (0x5B12, 65, 65, 1), (0x4D04, 80, 66, 0), (0x412C, 81, 67, 0), (0x37D8, 82, 68, 0),
            (0x2FE8, 83, 69, 0), (0x293C, 84, 70, 0), (0x2379, 86, 71, 0), (0x1EDF, 87, 72, 0),
            (0x1AA9, 87, 73, 0), (0x174E, 72, 74, 0), (0x1424, 72, 75, 0), (0x119C, 74, 76, 0),
            (0x0F6B, 74, 77, 0), (0x0D51, 75, 78, 0), (0x0BB6, 77, 79, 0), (0x0A40, 77, 48, 0),
            (0x5832, 80, 81, 1), (0x4D1C, 88, 82, 0), (0x438E, 89, 83, 0), (0x3BDD, 90, 84, 0),
            (0x34EE, 91, 85, 0), (0x2EAE, 92, 86, 0), (0x299A, 93, 87, 0), (0x2516, 86, 71, 0),
            (0x5570, 88, 89, 1), (0x4CA9, 95, 90, 0), (0x44D9, 96, 91, 0), (0x3E22, 97, 92, 0),
            (0x3824, 99, 93, 0), (0x32B4, 99, 94, 0), (0x2E17, 93, 86, 0), (0x56A8, 95, 96, 1),
            (0x4F46, 101, 97, 0), (0x47E5, 102, 98, 0), (0x41CF, 103, 99, 0), (0x3C3D, 104, 100, 0),
            (0x375E, 99, 93, 0), (0x5231, 105, 102, 0), (0x4C0F, 106, 103, 0), (0x4639, 107, 104, 0),
            (0x415E, 103, 99, 0), (0x5627, 105, 106, 1), (0x50E7, 108, 107, 0), (0x4B85, 109, 103, 0),
            (0x5597, 110, 109, 0), (0x504F, 111, 107, 0), (0x5A10, 110, 111, 1), (0x5522, 112, 109, 0),
            (0x59EB, 112, 111, 1), (0x5A1D, 113, 113, 0),
        ]
        let table = UnsafeMutablePointer<UInt32>.allocate(capacity: 128)
        table.initialize(repeating: 0, count: 128)
        for (i, r) in rows.enumerated() { table[i] = r.0 << 16 | r.2 << 8 | r.3 << 7 | r.1 }
        return UnsafePointer(table)
    }()
}

/// The QM decoder's registers held in locals while an MCU decodes (as ``BitWindow`` does for
/// Huffman codes), with the bytes it reads.
struct QMWindow {
    var c: Int
    var a: Int
    var ct: Int
    var position: Int
    /// A marker was met: zeros from here on (legal in arithmetic coding, T.81 D.2.6 / libjpeg).
    var marker: Bool
    /// A byte was needed that has not arrived (or is past the end of the input).
    var missing = false
    let data: UnsafePointer<UInt8>
    let end: Int
    let table: UnsafePointer<UInt32>

    @inline(__always)
    init(_ st: EntropyState, data: UnsafePointer<UInt8>, end: Int) {
        c = Int(truncatingIfNeeded: st.reader.bits)
        a = st.qmInterval
        ct = Int(st.qmShift)
        position = st.reader.position
        marker = st.reader.hitMarker
        self.data = data
        self.end = end
        table = QMTable.entries
    }

    /// Writes the registers back; a missing byte is reported as the bit reader reports it
    /// (`count` below zero with `starved` or `hitEnd`), so the MCU loop rolls the MCU back.
    @inline(__always)
    func store(into st: inout EntropyState, isFinal: Bool) {
        st.reader.bits = UInt64(truncatingIfNeeded: c)
        st.qmInterval = a
        st.qmShift = Int8(truncatingIfNeeded: ct)
        st.reader.position = position
        st.reader.hitMarker = marker
        if missing {
            st.reader.count = -1
            if isFinal { st.reader.hitEnd = true } else { st.reader.starved = true }
        }
    }

    /// The next data byte (T.81 D.2.6 and figure D.22's byte input with FF 00 unstuffing;
    /// FF fill bytes swallowed); zero after a marker, which stays unread at `position`.
    @inline(__always)
    mutating func nextByte() -> Int {
        if !marker && position < end {
            let byte = data[position]
            if byte != 0xFF {
                position &+= 1
                return Int(byte)
            }
        }
        // Out of line and by value: the window's address never escapes, so it stays in registers.
        let r = QMWindow.slowByte(data, end: end, position: position, marker: marker)
        position = r.position
        marker = r.marker
        if r.missing { missing = true }
        return r.byte
    }

    @inline(never)
    static func slowByte(_ data: UnsafePointer<UInt8>, end: Int, position: Int, marker: Bool)
        -> (byte: Int, position: Int, marker: Bool, missing: Bool) {
        if marker { return (0, position, true, false) }
        if position >= end { return (0, position, false, true) }
        var next = position &+ 1
        while next < end && data[next] == 0xFF { next &+= 1 }
        if next >= end { return (0, position, false, true) }
        if data[next] == 0 { return (0xFF, next &+ 1, false, false) }
        return (0, position, true, false)
    }

    /// Decodes one binary decision with the statistics bin `s` (T.81 D.2.4-D.2.6, in libjpeg's
    /// arrangement: renormalisation before the decision, C's cut point floating with CT).
    /// libjpeg shifts A one bit at a time, reading a byte into C whenever CT runs out; here the
    /// shifts happen at once with the bytes they need (the same C, A and CT).
    @inline(__always)
    mutating func decode(_ s: UnsafeMutablePointer<UInt8>) -> Int {
        normalize()
        return decide(s)
    }

    /// Renormalisation before a decision: A doubled until it reaches 0x8000, C taking a byte
    /// whenever CT runs out.
    @inline(__always)
    mutating func normalize() {
        if a < 0x8000 {
            if ct < 0 {
                // A fresh interval (CT -16, A 0): two bytes, then A is 0x10000.
                c = nextByte()
                c = c &<< 8 | nextByte()
                ct = 0
                a = 0x10000
            } else {
                let shifts = a.leadingZeroBitCount &- (Int.bitWidth &- 16)
                while ct < shifts {
                    c = c &<< 8 | nextByte()
                    ct &+= 8
                }
                ct &-= shifts
                a &<<= shifts
            }
        }
    }

    /// A decision with the fixed bin (state 113: Qe 0x5A1D, MPS 0, never moving; signs and DC
    /// refinement bits): no bin to load or store.
    @inline(__always)
    mutating func decodeFixed() -> Int {
        normalize()
        let qe = 0x5A1D
        let rest = a &- qe
        let split = rest &<< ct
        let upper = c >= split
        let lps = upper != (rest < qe)
        c = upper ? c &- split : c
        a = upper ? qe : rest
        return lps ? 1 : 0
    }

    /// The decision itself once A is normalised (T.81 D.2.4, D.2.5), without branches: C at
    /// or above the split is the upper sub-interval (A becomes Qe); the symbol is an LPS when
    /// that differs from the conditional exchange test A - Qe < Qe; the estimate moves when
    /// the upper interval was taken or A needs renormalising (libjpeg's arith_decode).
    @inline(__always)
    mutating func decide(_ s: UnsafeMutablePointer<UInt8>) -> Int {
        let sv = Int(s.pointee)
        let entry = Int(table[sv & 0x7F])
        let qe = entry &>> 16
        let nextMPS = (entry &>> 8) & 0xFF, nextLPS = entry & 0xFF
        let rest = a &- qe
        let split = rest &<< ct
        let upper = c >= split
        let exchange = rest < qe
        let lps = upper != exchange
        let moves = upper || rest < 0x8000
        c = upper ? c &- split : c
        a = upper ? qe : rest
        let next = (sv & 0x80) ^ (lps ? nextLPS : nextMPS)
        s.pointee = UInt8(truncatingIfNeeded: moves ? next : sv)
        return (sv &>> 7) ^ (lps ? 1 : 0)
    }

    /// A DC difference (T.81 F.1.4.4.1, figures F.19 and F.21-F.24) added to `predictor`, the
    /// component's conditioning category updated. False on a magnitude past 15 bits (libjpeg's
    /// JWRN_ARITH_BAD_CODE), with the predictor unchanged.
    @inline(__always)
    mutating func dcDifference(_ bins: UnsafeMutablePointer<UInt8>, component c: ScanComponent,
                               context: UnsafeMutablePointer<UInt8>, predictor: inout Int) -> Bool {
        // A local copy keeps the registers out of memory (self may be the caller's inout).
        var w = self
        defer { self = w }
        let base = bins + c.dcBins
        var s = base + Int(context.pointee)
        if w.decode(s) == 0 {
            context.pointee = 0
            return true
        }
        let sign = w.decode(s + 1)
        s += 2 &+ sign
        var m = w.decode(s)
        if m != 0 {
            s = base + 20
            guard w.widenMagnitude(&m, from: &s) else { return false }
        }
        context.pointee = m < c.dcSmall ? 0 : UInt8(truncatingIfNeeded: (m > c.dcLarge ? 12 : 4) &+ sign &* 4)
        let v = w.magnitudeBits(m, s) &+ 1
        predictor &+= sign != 0 ? -v : v
        return true
    }

    /// Figure F.23's remaining decisions: the magnitude category doubles `m` while bins from
    /// `s` on say so; false past 15 bits (libjpeg's JWRN_ARITH_BAD_CODE).
    @inline(__always)
    mutating func widenMagnitude(_ m: inout Int, from s: inout UnsafeMutablePointer<UInt8>) -> Bool {
        while decode(s) != 0 {
            m &<<= 1
            if m == 0x8000 { return false }
            s += 1
        }
        return true
    }

    /// Figure F.24: the bits of the magnitude below its top bit `m`, from the bin 14 past the
    /// category's last (the value less one).
    @inline(__always)
    mutating func magnitudeBits(_ m: Int, _ s: UnsafeMutablePointer<UInt8>) -> Int {
        var v = m, bit = m &>> 1
        let bin = s + 14
        while bit != 0 {
            if decode(bin) != 0 { v |= bit }
            bit &>>= 1
        }
        return v
    }

    /// The AC coefficients `first...last` of a block (T.81 F.1.4.4.2, figure F.20; G.1.3.2 for
    /// a first AC scan, values shifted left by `al`), placed in natural order. Coefficients are
    /// written, never cleared. Returns whether the block ended well (a run past `last` or a
    /// magnitude past 15 bits is libjpeg's JWRN_ARITH_BAD_CODE) and whether it decoded any.
    @inline(__always)
    mutating func acCoefficients(_ block: UnsafeMutablePointer<Int16>, bins: UnsafeMutablePointer<UInt8>,
                                 component c: ScanComponent, first: Int, last: Int, al: Int,
                                 zigzag: UnsafePointer<UInt8>) -> (ok: Bool, any: Bool) {
        // A local copy keeps the registers out of memory (self may be the caller's inout).
        var w = self
        defer { self = w }
        let base = bins + c.acBins
        var any = false
        var k = first
        while k <= last {
            var s = base + 3 &* (k &- 1)
            if w.decode(s) != 0 { break }                      // end of block
            while w.decode(s + 1) == 0 {                       // a zero coefficient
                s += 3
                k &+= 1
                if k > last { return (false, any) }
            }
            let sign = w.decodeFixed()
            s += 2
            var m = w.decode(s)
            if m != 0 && w.decode(s) != 0 {
                m &<<= 1
                s = base + (k <= c.acK ? 189 : 217)
                guard w.widenMagnitude(&m, from: &s) else { return (false, any) }
            }
            var v = w.magnitudeBits(m, s) &+ 1
            if sign != 0 { v = -v }
            block[Int(zigzag[k])] = Int16(truncatingIfNeeded: v &<< al)
            any = true
            k &+= 1
        }
        return (true, any)
    }

    /// An AC refinement scan's block (T.81 G.1.3.3, libjpeg's decode_mcu_AC_refine): a
    /// correction bit for each coefficient already nonzero, new coefficients of magnitude
    /// 1 << al. Returns whether the block ended well and whether it changed.
    @inline(__always)
    mutating func acRefinement(_ block: UnsafeMutablePointer<Int16>, bins: UnsafeMutablePointer<UInt8>,
                               component c: ScanComponent, first: Int, last: Int, al: Int,
                               zigzag: UnsafePointer<UInt8>) -> (ok: Bool, changed: Bool) {
        // A local copy keeps the registers out of memory (self may be the caller's inout).
        var w = self
        defer { self = w }
        let base = bins + c.acBins
        let p1 = 1 &<< al, m1 = -1 &<< al
        // The end of block of the earlier scans: past it, each position starts with an EOB decision.
        var kex = last
        while kex > 0 && block[Int(zigzag[kex])] == 0 { kex &-= 1 }
        var changed = false
        var k = first
        while k <= last {
            var s = base + 3 &* (k &- 1)
            if k > kex && w.decode(s) != 0 { break }
            while true {
                let index = Int(zigzag[k])
                let coefficient = Int(block[index])
                if coefficient != 0 {
                    if w.decode(s + 2) != 0 {
                        block[index] = Int16(truncatingIfNeeded: coefficient &+ (coefficient < 0 ? m1 : p1))
                        changed = true
                    }
                    break
                }
                if w.decode(s + 1) != 0 {
                    block[index] = Int16(truncatingIfNeeded: w.decodeFixed() != 0 ? m1 : p1)
                    changed = true
                    break
                }
                s += 3
                k &+= 1
                if k > last { return (false, changed) }
            }
            k &+= 1
        }
        return (true, changed)
    }

    /// A sequential block (DC difference, then AC 1-63) into `block`, natural order: the DC
    /// term is written when its difference decoded, AC terms as they decode. False on a bad code.
    @inline(__always)
    mutating func sequentialBlock(_ block: UnsafeMutablePointer<Int16>, bins: UnsafeMutablePointer<UInt8>,
                                  component c: ScanComponent, context: UnsafeMutablePointer<UInt8>,
                                  predictor: inout Int, zigzag: UnsafePointer<UInt8>) -> Bool {
        guard dcDifference(bins, component: c, context: context, predictor: &predictor) else { return false }
        block[0] = Int16(truncatingIfNeeded: predictor)
        return acCoefficients(block, bins: bins, component: c, first: 1, last: 63, al: 0, zigzag: zigzag).ok
    }
}

extension MCULoop {
    /// One MCU of an arithmetic-coded scan into any sink. After a bad code nothing more is
    /// decoded until the next restart (libjpeg's `ct == -1`); blocks of a streamed MCU that were
    /// not decoded are zero (mid-gray), as libjpeg's zeroed MCU buffer leaves them.
    @inline(__always)
    static func decodeArithmeticMCU(_ st: inout EntropyState, plan: ScanPlan, sink: BlockSink, block: UnsafeMutablePointer<Int16>,
                                    bins: UnsafeMutablePointer<UInt8>, blocksPerMCU: Int, mx: Int, my: Int,
                                    zigzag: UnsafePointer<UInt8>, data: UnsafePointer<UInt8>, end: Int, isFinal: Bool) {
        var w = QMWindow(st, data: data, end: end)
        let stopped = st.qmShift == -1
        var failed = stopped
        var blockIndex = 0
        let contexts = bins + ArithmeticBins.contexts
        // A band's records are written from where the MCU starts, its end kept in `offsets[mx + 1]`.
        if case let .band(band) = sink { band.offsets[mx &+ 1] = band.offsets[mx] }
        for (i, c) in plan.components.enumerated() {
            let hBlocks = plan.interleaved ? c.h : 1, vBlocks = plan.interleaved ? c.v : 1
            for bv in 0 ..< vBlocks {
                for bh in 0 ..< hBlocks {
                    switch sink {
                    case let .planes(base, quant):
                        guard i < plan.idcts.count else { return }
                        if !failed {
                            failed = !w.sequentialBlock(block, bins: bins, component: c, context: contexts + i,
                                                        predictor: &st.predictors[i], zigzag: zigzag)
                        }
                        let bx = plan.interleaved ? mx &* c.h &+ bh : mx
                        let offset = c.planeOffset &+ ((my % 3) &* c.bandRows &+ bv &* c.blockSize) &* c.stride &+ bx &* c.blockSize
                        plan.idcts[i](block, quant + c.quantOffset, base + offset, c.stride)
                        block.update(repeating: 0, count: 64)
                    case let .band(band):
                        // Decoded in natural order, then packed into the MCU's next record.
                        if !failed {
                            failed = !w.sequentialBlock(block, bins: bins, component: c, context: contexts + i,
                                                        predictor: &st.predictors[i], zigzag: zigzag)
                        }
                        let next = BandRecords.pack(block, zigzag: zigzag, into: band.records + Int(band.offsets[mx &+ 1]))
                        band.offsets[mx &+ 1] = Int32(truncatingIfNeeded: next - band.records)
                    case let .coefficients(planes, changes):
                        if failed { break }
                        let bx: Int, by: Int
                        if plan.interleaved { bx = mx &* c.h &+ bh; by = my &* c.v &+ bv } else { bx = mx; by = my }
                        let index = by &* c.paddedBlocksWide &+ bx
                        let target = planes[c.index] + index &* c.valuesPerBlock
                        var changed = true
                        switch plan.kind {
                        case .sequential:
                            // Written in place, as libjpeg's jdarith writes the whole-image buffer:
                            // the DC term and the nonzero AC terms, over what earlier scans left.
                            failed = !w.sequentialBlock(target, bins: bins, component: c, context: contexts + i,
                                                        predictor: &st.predictors[i], zigzag: zigzag)
                        case .dcFirst:
                            var predictor = st.predictors[i]
                            failed = !w.dcDifference(bins, component: c, context: contexts + i, predictor: &predictor)
                            st.predictors[i] = predictor
                            if !failed { target[0] = Int16(truncatingIfNeeded: predictor &<< plan.al) }
                        case .dcRefine:
                            changed = w.decodeFixed() != 0
                            if changed { target[0] |= Int16(truncatingIfNeeded: 1 &<< plan.al) }
                        case .acFirst, .acRefine:
                            let compact = c.valuesPerBlock != 64
                            if compact { CompactBlock.expand(target, valuesPerBlock: c.valuesPerBlock, into: block, history: true) }
                            let coefficients = compact ? block : target
                            if plan.kind == .acFirst {
                                let r = w.acCoefficients(coefficients, bins: bins, component: c, first: plan.ss, last: plan.se,
                                                         al: plan.al, zigzag: zigzag)
                                failed = !r.ok
                                changed = r.any
                            } else {
                                let r = w.acRefinement(coefficients, bins: bins, component: c, first: plan.ss, last: plan.se,
                                                       al: plan.al, zigzag: zigzag)
                                failed = !r.ok
                                changed = r.changed
                            }
                            if compact {
                                CompactBlock.compress(block, valuesPerBlock: c.valuesPerBlock, into: target)
                                block.update(repeating: 0, count: 64)
                            }
                        }
                        if changed, let changes { changes[c.firstBlock &+ index] = 1 }
                    }
                    blockIndex &+= 1
                }
            }
        }
        if failed && !stopped {
            w.ct = -1
            st.reader.damage |= BitReader.Damage.badArithmeticCode
        }
        w.store(into: &st, isFinal: isFinal)
    }
}
