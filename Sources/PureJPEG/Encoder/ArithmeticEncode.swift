/// Arithmetic-coded scans (T.81 Annex D, F.1.4.4 and G.1.3): the QM encoder and the block
/// coders of sequential and progressive scans, writing the bytes libjpeg's jcarith writes, so
/// files equal `cjpeg -arithmetic` (and with `-progressive`). The decoder's twin is
/// `EntropyArithmetic.swift`; both share ``QMTable``.

/// The QM encoder (T.81 D.1, in libjpeg's arrangement: C with three spacer bits, a carry into
/// the byte held back in `buffer`, stacked 0xFF bytes `sc` and pending zero bytes `zc`, and
/// the shortest termination: no trailing zero bytes).
struct QMEncoder {
    var c = 0
    var a = 0x10000
    var ct = 11
    var sc = 0
    var zc = 0
    /// The byte held back for a carry; -1 when there is none yet.
    var buffer = -1
    var out: [UInt8] = []
    let table = QMTable.entries

    /// Codes decision `bit` with the statistics bin `s` (T.81 D.1.4-D.1.6).
    @inline(__always)
    mutating func encode(_ s: UnsafeMutablePointer<UInt8>, _ bit: Int) {
        let sv = Int(s.pointee)
        let entry = Int(table[sv & 0x7F])
        let qe = entry &>> 16
        a &-= qe
        if bit != sv &>> 7 {
            // The less probable symbol, exchanged with the more probable when its interval is larger.
            if a >= qe {
                c &+= a
                a = qe
            }
            s.pointee = UInt8(truncatingIfNeeded: (sv & 0x80) ^ (entry & 0xFF))
        } else {
            if a >= 0x8000 { return }
            if a < qe {
                c &+= a
                a = qe
            }
            s.pointee = UInt8(truncatingIfNeeded: (sv & 0x80) ^ ((entry &>> 8) & 0xFF))
        }
        repeat {
            a &<<= 1
            c &<<= 1
            ct &-= 1
            if ct == 0 {
                byteOut()
                c &= 0x7FFFF
                ct = 8
            }
        } while a < 0x8000
    }

    private mutating func flushZeros() {
        while zc > 0 {
            out.append(0)
            zc &-= 1
        }
    }

    private mutating func emitStuffed(_ byte: Int) {
        out.append(UInt8(truncatingIfNeeded: byte))
        if byte & 0xFF == 0xFF { out.append(0) }
    }

    /// A byte of C is complete (T.81 D.1.6, figure D.9's Byte_out with carry propagation).
    @inline(never)
    private mutating func byteOut() {
        let temp = c &>> 19
        if temp > 0xFF {
            // A carry: into the held byte, and the stacked 0xFF bytes become 0x00.
            if buffer >= 0 {
                flushZeros()
                emitStuffed(buffer &+ 1)
            }
            zc &+= sc
            sc = 0
            buffer = temp & 0xFF
        } else if temp == 0xFF {
            sc &+= 1
        } else {
            releaseHeld()
            buffer = temp
        }
    }

    /// No carry can reach the held byte and the stacked 0xFF bytes any more: out they go
    /// (a held zero waits, as trailing zeros may be dropped).
    private mutating func releaseHeld() {
        if buffer == 0 {
            zc &+= 1
        } else if buffer >= 0 {
            flushZeros()
            emitStuffed(buffer)
        }
        if sc > 0 {
            flushZeros()
            while sc > 0 {
                out.append(0xFF)
                out.append(0)
                sc &-= 1
            }
        }
    }

    /// Ends the code (T.81 D.1.8 with libjpeg's choice of C: the value in the interval with the
    /// most trailing zero bits), writing only the bytes that are not zero.
    mutating func finish() {
        let temp = (a &- 1 &+ c) & 0xFFFF_0000
        c = temp < c ? temp &+ 0x8000 : temp
        c &<<= ct
        if c & 0xF800_0000 != 0 {
            if buffer >= 0 {
                flushZeros()
                emitStuffed(buffer &+ 1)
            }
            zc &+= sc
            sc = 0
        } else {
            releaseHeld()
        }
        if c & 0x7FF_F800 != 0 {
            flushZeros()
            emitStuffed((c &>> 19) & 0xFF)
            if c & 0x7_F800 != 0 { emitStuffed((c &>> 11) & 0xFF) }
        }
    }

    /// The registers of a new scan or restart interval (jcarith's start_pass, emit_restart).
    mutating func reset() {
        c = 0
        a = 0x10000
        ct = 11
        sc = 0
        zc = 0
        buffer = -1
    }
}

/// Codes the scans of an arithmetic-coded JPEG from the quantized coefficients.
struct ArithmeticScanEncoder {
    let store: CoefficientStore
    let layout: EncoderLayout
    let restartInterval: Int
    var coder = QMEncoder()
    /// Statistics bins, laid out as the decoder's (``ArithmeticBins``), table numbers 0 and 1.
    let bins: UnsafeMutablePointer<UInt8>
    var lastDC = [Int](repeating: 0, count: 4)
    var contexts = [Int](repeating: 0, count: 4)
    /// libjpeg's default conditioning (T.81 F.1.4.4.1.4, F.1.4.4.2.1): L 0, U 1, K 5.
    static let dcL = 0, dcU = 1, acK = 5

    init(store: CoefficientStore, restartInterval: Int) {
        self.store = store
        layout = store.layout
        self.restartInterval = restartInterval
        bins = UnsafeMutablePointer<UInt8>.allocate(capacity: ArithmeticBins.count)
        bins.initialize(repeating: 0, count: ArithmeticBins.count)
    }

    func release() { bins.deallocate() }

    /// DAC (T.81 B.2.4.3) for the tables a scan codes with, as jcmarker's emit_dac: DC
    /// conditioning for a DC scan that is not a refinement, AC conditioning for a scan with AC
    /// terms; none for a DC refinement scan.
    static func dac(tables: [Int], dc: Bool, ac: Bool) -> [UInt8] {
        var payload: [UInt8] = []
        for t in 0 ..< 16 where tables.contains(t) {
            if dc { payload += [UInt8(t), UInt8(dcL + (dcU << 4))] }
            if ac { payload += [UInt8(t + 0x10), UInt8(acK)] }
        }
        return payload.isEmpty ? [] : JPEGWriter.segment(Marker.dac, payload)
    }

    /// Codes scan `s` (a sequential scan: every component, 0...63) with its header, into `w`.
    mutating func encodeScan(_ s: JPEGScan, progressive: Bool, writeDRI: Bool, writer w: inout BitWriter) {
        let comps = s.components.map { layout.components[$0] }
        let tables = Array(Set(comps.map(\.table))).sorted()
        let isDC = s.spectralStart == 0
        var header = ArithmeticScanEncoder.dac(tables: tables, dc: isDC && s.successiveHigh == 0, ac: s.spectralEnd != 0)
        if writeDRI && restartInterval > 0 { header += JPEGWriter.dri(restartInterval) }
        // jcmarker's emit_sos (libjpeg-turbo 2.1): a progressive DC scan names no AC table, an
        // AC scan no DC table, a DC refinement scan neither.
        let tableBytes: [UInt8] = comps.map { c in
            guard progressive else { return UInt8(c.table << 4 | c.table) }
            return isDC ? (s.successiveHigh == 0 ? UInt8(c.table << 4) : 0) : UInt8(c.table)
        }
        header += JPEGWriter.sos(components: comps, tableBytes: tableBytes, ss: s.spectralStart, se: s.spectralEnd,
                                 ah: s.successiveHigh, al: s.successiveLow)
        w.append(header)
        coder.out.removeAll(keepingCapacity: true)
        coder.out.reserveCapacity(1 << 16)
        resetStatistics(s, progressive: progressive)
        coder.reset()
        var mcus = 0
        let restart = { (mcus: Int, enc: inout ArithmeticScanEncoder) in
            guard enc.restartInterval > 0, mcus > 0, mcus % enc.restartInterval == 0 else { return }
            enc.coder.finish()
            enc.coder.out += [0xFF, 0xD0 + UInt8((mcus / enc.restartInterval - 1) & 7)]
            enc.resetStatistics(s, progressive: progressive)
            enc.coder.reset()
        }
        EncoderTables.zigzag.withUnsafeBufferPointer { zz in
            guard let zigzag = zz.baseAddress else { return }
            if comps.count > 1 {
                for my in 0 ..< layout.mcusDown {
                    for mx in 0 ..< layout.mcusAcross {
                        restart(mcus, &self)
                        for (i, c) in s.components.enumerated() {
                            let comp = layout.components[c]
                            for by in 0 ..< comp.v {
                                for bx in 0 ..< comp.h {
                                    block(store.block(c, row: my * comp.v + by, col: mx * comp.h + bx), index: i,
                                          table: comp.table, scan: s, progressive: progressive, zigzag: zigzag)
                                }
                            }
                        }
                        mcus += 1
                    }
                }
            } else {
                let c = s.components[0], comp = layout.components[c]
                for row in 0 ..< comp.heightInBlocks {
                    for col in 0 ..< comp.widthInBlocks {
                        restart(mcus, &self)
                        block(store.block(c, row: row, col: col), index: 0, table: comp.table, scan: s,
                              progressive: progressive, zigzag: zigzag)
                        mcus += 1
                    }
                }
            }
        }
        coder.finish()
        w.append(coder.out)
    }

    /// jcarith's start_pass and emit_restart: the scan's statistics zeroed, predictions and
    /// contexts too.
    private mutating func resetStatistics(_ s: JPEGScan, progressive: Bool) {
        for c in s.components {
            let t = layout.components[c].table
            if !progressive || (s.spectralStart == 0 && s.successiveHigh == 0) {
                (bins + ArithmeticBins.dc(t)).update(repeating: 0, count: ArithmeticBins.dcCount)
            }
            if !progressive || s.spectralEnd != 0 {
                (bins + ArithmeticBins.ac(t)).update(repeating: 0, count: ArithmeticBins.acCount)
            }
        }
        for i in lastDC.indices { lastDC[i] = 0; contexts[i] = 0 }
        bins[ArithmeticBins.fixedBin] = QMTable.fixedState
    }

    @inline(__always)
    private mutating func block(_ b: UnsafeMutablePointer<Int16>, index: Int, table: Int, scan s: JPEGScan, progressive: Bool,
                                zigzag: UnsafePointer<Int>) {
        if !progressive {
            dcDifference(Int(b[0]), index: index, table: table)
            acCoefficients(b, table: table, first: 1, last: 63, al: 0, zigzag: zigzag)
        } else if s.spectralStart == 0 {
            if s.successiveHigh == 0 {
                dcDifference(Int(b[0]) >> s.successiveLow, index: index, table: table)
            } else {
                coder.encode(bins + ArithmeticBins.fixedBin, (Int(b[0]) >> s.successiveLow) & 1)
            }
        } else if s.successiveHigh == 0 {
            acCoefficients(b, table: table, first: s.spectralStart, last: s.spectralEnd, al: s.successiveLow, zigzag: zigzag)
        } else {
            acRefinement(b, table: table, first: s.spectralStart, last: s.spectralEnd, ah: s.successiveHigh,
                         al: s.successiveLow, zigzag: zigzag)
        }
    }

    /// A DC value's difference from the component's last (T.81 F.1.4.4.1, figures F.4 and F.6-F.9).
    @inline(__always)
    private mutating func dcDifference(_ value: Int, index i: Int, table: Int) {
        let base = bins + ArithmeticBins.dc(table)
        var s = base + contexts[i]
        var v = value &- lastDC[i]
        if v == 0 {
            coder.encode(s, 0)
            contexts[i] = 0
            return
        }
        lastDC[i] = value
        coder.encode(s, 1)
        if v > 0 {
            coder.encode(s + 1, 0)
            s += 2
            contexts[i] = 4
        } else {
            v = -v
            coder.encode(s + 1, 1)
            s += 3
            contexts[i] = 8
        }
        var m = 0
        v &-= 1
        if v != 0 {
            coder.encode(s, 1)
            (s, m) = categoryRun(v &>> 1, from: base + 20, top: 1)
        }
        coder.encode(s, 0)
        if m < (1 << ArithmeticScanEncoder.dcL) >> 1 {
            contexts[i] = 0
        } else if m > (1 << ArithmeticScanEncoder.dcU) >> 1 {
            contexts[i] += 8
        }
        magnitudeBits(v, top: m, from: s + 14)
    }

    /// Figure F.9's category run: a 1 in each bin from `s` while `v2` has bits left, doubling
    /// the top bit `m`; returns the bin after the run and the top bit.
    @inline(__always)
    private mutating func categoryRun(_ v2: Int, from s: UnsafeMutablePointer<UInt8>, top m: Int)
        -> (UnsafeMutablePointer<UInt8>, Int) {
        var s = s, m = m, v2 = v2
        while v2 != 0 {
            coder.encode(s, 1)
            m &<<= 1
            s += 1
            v2 &>>= 1
        }
        return (s, m)
    }

    /// Figure F.9's magnitude bits: the bits of `v` below its top bit `m`, each in bin `s`.
    @inline(__always)
    private mutating func magnitudeBits(_ v: Int, top m: Int, from s: UnsafeMutablePointer<UInt8>) {
        var m = m &>> 1
        while m != 0 {
            coder.encode(s, m & v != 0 ? 1 : 0)
            m &>>= 1
        }
    }

    /// The magnitude category and bits of a nonzero AC value less one (figures F.8, F.9) at
    /// position `k`, from the bin after its sign (`s`).
    @inline(__always)
    private mutating func acMagnitude(_ value: Int, k: Int, s start: UnsafeMutablePointer<UInt8>, base: UnsafeMutablePointer<UInt8>) {
        var s = start
        let v = value &- 1
        var m = 0
        if v != 0 {
            coder.encode(s, 1)
            m = 1
            if v &>> 1 != 0 {
                coder.encode(s, 1)
                (s, m) = categoryRun(v &>> 2, from: base + (k <= ArithmeticScanEncoder.acK ? 189 : 217), top: 2)
            }
        }
        coder.encode(s, 0)
        magnitudeBits(v, top: m, from: s + 14)
    }

    /// AC terms `first...last` after the point transform `al` (T.81 F.1.4.4.2, figure F.5;
    /// G.1.3.2): an end-of-block decision before each nonzero run, zero decisions, sign in the
    /// fixed bin, magnitude.
    @inline(__always)
    private mutating func acCoefficients(_ b: UnsafeMutablePointer<Int16>, table: Int, first: Int, last: Int, al: Int,
                                         zigzag: UnsafePointer<Int>) {
        let base = bins + ArithmeticBins.ac(table), fixed = bins + ArithmeticBins.fixedBin
        var end = last
        while end > 0 && abs(Int(b[zigzag[end]])) >> al == 0 { end &-= 1 }
        var k = first
        while k <= end {
            var s = base + 3 &* (k &- 1)
            coder.encode(s, 0)
            var v: Int
            var negative: Bool
            while true {
                v = Int(b[zigzag[k]])
                negative = v < 0
                v = abs(v) >> al
                if v != 0 { break }
                coder.encode(s + 1, 0)
                s += 3
                k &+= 1
            }
            coder.encode(s + 1, 1)
            coder.encode(fixed, negative ? 1 : 0)
            acMagnitude(v, k: k, s: s + 2, base: base)
            k &+= 1
        }
        if k <= last { coder.encode(base + 3 &* (k &- 1), 1) }
    }

    /// An AC refinement scan's block (T.81 G.1.3.3, figure G.10): correction bits for terms
    /// already nonzero, new terms of magnitude one.
    @inline(__always)
    private mutating func acRefinement(_ b: UnsafeMutablePointer<Int16>, table: Int, first: Int, last: Int, ah: Int,
                                       al: Int, zigzag: UnsafePointer<Int>) {
        let base = bins + ArithmeticBins.ac(table), fixed = bins + ArithmeticBins.fixedBin
        var end = last
        while end > 0 && abs(Int(b[zigzag[end]])) >> al == 0 { end &-= 1 }
        var previousEnd = end
        while previousEnd > 0 && abs(Int(b[zigzag[previousEnd]])) >> ah == 0 { previousEnd &-= 1 }
        var k = first
        while k <= end {
            var s = base + 3 &* (k &- 1)
            if k > previousEnd { coder.encode(s, 0) }
            while true {
                let value = Int(b[zigzag[k]])
                let v = abs(value) >> al
                if v != 0 {
                    if v >> 1 != 0 {
                        coder.encode(s + 2, v & 1)
                    } else {
                        coder.encode(s + 1, 1)
                        coder.encode(fixed, value < 0 ? 1 : 0)
                    }
                    break
                }
                coder.encode(s + 1, 0)
                s += 3
                k &+= 1
            }
            k &+= 1
        }
        if k <= last { coder.encode(base + 3 &* (k &- 1), 1) }
    }
}
