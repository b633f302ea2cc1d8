/// The forward PNG filters (PNG 9.2) and the adaptive per-row choice (PNG 12.8).
///
/// Every kernel has a plain scalar reference (`...Scalar`) and a SIMD version; tests check
/// that they agree on random rows for every bytes-per-pixel value 1...8.
///
/// Names: `x` is the byte being filtered, `a` the corresponding byte of the pixel to its left,
/// `b` the byte above, `c` the byte above and to the left (PNG 9.2 figure 9.1); bytes left of
/// the row and the row above the first are zero.
enum ForwardFilter {
    static let none: UInt8 = 0, sub: UInt8 = 1, up: UInt8 = 2, average: UInt8 = 3, paeth: UInt8 = 4

    /// Zero bytes the SIMD kernels need in front of `cur` and `prev` (at least `bpp`, at most 8).
    static let leadingPadding = 16

    /// libpng's cost of one filtered byte: its magnitude read as a signed byte.
    @inline(__always) static func cost(_ v: UInt8) -> Int { v < 128 ? Int(v) : 256 - Int(v) }

    /// PNG 9.4: the neighbour closest to `a + b - c`, ties going to a, then b.
    @inline(__always) static func paethPredictor(_ a: UInt8, _ b: UInt8, _ c: UInt8) -> UInt8 {
        let ia = Int(a), ib = Int(b), ic = Int(c)
        let pa = abs(ib - ic), pb = abs(ia - ic), pc = abs(ia + ib - 2 * ic)
        if pa <= pb && pa <= pc { return a }
        return pb <= pc ? b : c
    }

    // MARK: Scalar references

    /// Filters `count` bytes of `cur` with filter `type` into `out`. Needs no padding.
    static func filterScalar(_ type: UInt8, cur: UnsafePointer<UInt8>, prev: UnsafePointer<UInt8>,
                             count: Int, bpp: Int, out: UnsafeMutablePointer<UInt8>) {
        for i in 0 ..< count {
            let x = cur[i], b = prev[i]
            let a: UInt8 = i >= bpp ? cur[i - bpp] : 0
            let c: UInt8 = i >= bpp ? prev[i - bpp] : 0
            switch type {
            case sub: out[i] = x &- a
            case up: out[i] = x &- b
            case average: out[i] = x &- UInt8((Int(a) + Int(b)) >> 1)
            case paeth: out[i] = x &- paethPredictor(a, b, c)
            default: out[i] = x
            }
        }
    }

    /// The heuristic's sum for `count` filtered bytes.
    static func costScalar(_ p: UnsafePointer<UInt8>, count: Int) -> Int {
        var sum = 0
        for i in 0 ..< count { sum &+= cost(p[i]) }
        return sum
    }

    /// The adaptive choice, scalar: the filter with the smallest cost, ties to the lower type
    /// (libpng tries None, Sub, Up, Average, Paeth in that order and keeps a strictly smaller sum).
    static func chooseScalar(cur: UnsafePointer<UInt8>, prev: UnsafePointer<UInt8>, count: Int, bpp: Int,
                             scratch: UnsafeMutablePointer<UInt8>) -> (type: UInt8, costs: [Int]) {
        var costs = [costScalar(cur, count: count)]
        for t in sub ... paeth {
            filterScalar(t, cur: cur, prev: prev, count: count, bpp: bpp, out: scratch)
            costs.append(costScalar(scratch, count: count))
        }
        var best = 0
        for k in 1 ..< 5 where costs[k] < costs[best] { best = k }
        return (UInt8(best), costs)
    }

    // MARK: SIMD kernels

    @inline(__always) private static func load(_ p: UnsafePointer<UInt8>, _ i: Int) -> SIMD16<UInt8> {
        UnsafeRawPointer(p + i).loadUnaligned(as: SIMD16<UInt8>.self)
    }

    @inline(__always) private static func store(_ v: SIMD16<UInt8>, _ p: UnsafeMutablePointer<UInt8>, _ i: Int) {
        UnsafeMutableRawPointer(p + i).storeBytes(of: v, as: SIMD16<UInt8>.self)
    }

    /// Exact `(a + b) >> 1` without leaving 8 bits.
    @inline(__always) private static func average(_ a: SIMD16<UInt8>, _ b: SIMD16<UInt8>) -> SIMD16<UInt8> {
        (a & b) &+ ((a ^ b) &>> 1)
    }

    /// PNG 9.4 on 16 lanes, each half in 16-bit lanes (``PaethLanes``).
    @inline(__always) private static func paethPredictor(_ a: SIMD16<UInt8>, _ b: SIMD16<UInt8>,
                                                         _ c: SIMD16<UInt8>) -> SIMD16<UInt8> {
        @inline(__always) func half(_ high: Bool) -> PaethLanes.H {
            PaethLanes.predictor(PaethLanes.widen(a, high: high), PaethLanes.widen(b, high: high),
                                 PaethLanes.widen(c, high: high))
        }
        return PaethLanes.narrow(half(false), half(true))
    }

    /// Per-lane cost (the magnitude of the byte read as signed), bytes 0...7 and 8...15 in
    /// 16-bit lanes for accumulation.
    @inline(__always) private static func magnitude(_ v: SIMD16<UInt8>) -> (SIMD8<UInt16>, SIMD8<UInt16>) {
        @inline(__always) func signed(_ k: Int) -> Int16 { Int16(Int8(bitPattern: v[k])) }
        let low = PaethLanes.H(signed(0), signed(1), signed(2), signed(3), signed(4), signed(5), signed(6), signed(7))
        let high = PaethLanes.H(signed(8), signed(9), signed(10), signed(11), signed(12), signed(13), signed(14), signed(15))
        return (unsafeBitCast(PaethLanes.magnitude(low), to: SIMD8<UInt16>.self),
                unsafeBitCast(PaethLanes.magnitude(high), to: SIMD8<UInt16>.self))
    }

    /// A cost accumulator: 16 lanes as two halves.
    private struct Costs {
        var low = SIMD8<UInt16>(), high = SIMD8<UInt16>()

        @inline(__always) mutating func add(_ v: SIMD16<UInt8>) {
            let (l, h) = magnitude(v)
            low &+= l
            high &+= h
        }

        /// The sum of every lane (once per 256 steps, so plain scalar code).
        var total: Int {
            var t = 0
            for k in 0 ..< 8 { t &+= Int(low[k]) &+ Int(high[k]) }
            return t
        }
    }

    /// Filters `count` bytes with one filter type. `cur` and `prev` must each be preceded by
    /// ``leadingPadding`` zero bytes, so the first pixel's left neighbours read as zero.
    static func filter(_ type: UInt8, cur: UnsafePointer<UInt8>, prev: UnsafePointer<UInt8>,
                       count: Int, bpp: Int, out: UnsafeMutablePointer<UInt8>) {
        let vectorEnd = count & ~15
        var i = 0
        switch type {
        case sub:
            while i < vectorEnd { store(load(cur, i) &- load(cur, i - bpp), out, i); i &+= 16 }
        case up:
            while i < vectorEnd { store(load(cur, i) &- load(prev, i), out, i); i &+= 16 }
        case average:
            while i < vectorEnd {
                store(load(cur, i) &- average(load(cur, i - bpp), load(prev, i)), out, i); i &+= 16
            }
        case paeth:
            while i < vectorEnd {
                let pred = paethPredictor(load(cur, i - bpp), load(prev, i), load(prev, i - bpp))
                store(load(cur, i) &- pred, out, i); i &+= 16
            }
        default:
            out.update(from: cur, count: count)
            return
        }
        // The tail (under 16 bytes) reads its left neighbours from the bytes just filtered
        // or the padding, exactly as the scalar reference does.
        while i < count {
            let x = cur[i], a = cur[i - bpp], b = prev[i], c = prev[i - bpp]
            switch type {
            case sub: out[i] = x &- a
            case up: out[i] = x &- b
            case average: out[i] = x &- UInt8((Int(a) + Int(b)) >> 1)
            default: out[i] = x &- paethPredictor(a, b, c)
            }
            i &+= 1
        }
    }

    /// All four predicting filters in one pass over the row, with the heuristic cost of each
    /// and of None: `costs[t]` is the sum for filter type `t`. Same padding rule as ``filter``.
    /// One pass keeps the row in L1 and loads each input vector once instead of four times.
    static func filterAll(cur: UnsafePointer<UInt8>, prev: UnsafePointer<UInt8>, count: Int, bpp: Int,
                          sub subOut: UnsafeMutablePointer<UInt8>, up upOut: UnsafeMutablePointer<UInt8>,
                          average avgOut: UnsafeMutablePointer<UInt8>, paeth paethOut: UnsafeMutablePointer<UInt8>,
                          costs: inout (Int, Int, Int, Int, Int)) {
        let vectorEnd = count & ~15
        var s0 = 0, s1 = 0, s2 = 0, s3 = 0, s4 = 0
        var i = 0
        while i < vectorEnd {
            // A lane gains at most 128 per step: 256 steps fit in 16 bits (256 * 128 = 32768).
            let blockEnd = min(vectorEnd, i &+ 256 &* 16)
            var m0 = Costs(), m1 = m0, m2 = m0, m3 = m0, m4 = m0
            while i < blockEnd {
                let x = load(cur, i), a = load(cur, i &- bpp), b = load(prev, i), c = load(prev, i &- bpp)
                let fs = x &- a, fu = x &- b
                let fa = x &- average(a, b), fp = x &- paethPredictor(a, b, c)
                store(fs, subOut, i); store(fu, upOut, i); store(fa, avgOut, i); store(fp, paethOut, i)
                m0.add(x); m1.add(fs); m2.add(fu); m3.add(fa); m4.add(fp)
                i &+= 16
            }
            s0 &+= m0.total; s1 &+= m1.total; s2 &+= m2.total; s3 &+= m3.total; s4 &+= m4.total
        }
        while i < count {
            let x = cur[i], a = cur[i - bpp], b = prev[i], c = prev[i - bpp]
            let fs = x &- a, fu = x &- b
            let fa = x &- UInt8((Int(a) + Int(b)) >> 1), fp = x &- paethPredictor(a, b, c)
            subOut[i] = fs; upOut[i] = fu; avgOut[i] = fa; paethOut[i] = fp
            s0 &+= cost(x); s1 &+= cost(fs); s2 &+= cost(fu); s3 &+= cost(fa); s4 &+= cost(fp)
            i &+= 1
        }
        costs = (s0, s1, s2, s3, s4)
    }

    /// The adaptive choice from ``filterAll``'s costs, ties to the lower type as in libpng.
    @inline(__always) static func choose(_ costs: (Int, Int, Int, Int, Int)) -> UInt8 {
        var best: UInt8 = none, bestCost = costs.0
        if costs.1 < bestCost { best = sub; bestCost = costs.1 }
        if costs.2 < bestCost { best = up; bestCost = costs.2 }
        if costs.3 < bestCost { best = average; bestCost = costs.3 }
        if costs.4 < bestCost { best = paeth }
        return best
    }
}
