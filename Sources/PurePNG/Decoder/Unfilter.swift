/// Reversing the five PNG filters (PNG 9.2-9.4), in place on one row.
///
/// Every kernel takes the row (filter byte already removed), the previous row of the same
/// pass after unfiltering (all zero for a pass's first row) and the filter "bpp": bytes per
/// complete pixel, at least 1 (PNG 9.2). Bytes left of the row start count as zero.
///
/// `scalar` is the plain reference; `apply` picks a SIMD kernel where one helps (Up at any
/// bpp; Sub, Average and Paeth at 3, 4, 6 and 8 bytes per pixel, one pixel per step since
/// each pixel depends on the one to its left). Tests check that both agree on random rows.
enum Unfilter {
    /// Bytes a row buffer must have readable past the row's end: the SIMD kernels load a
    /// whole 8-byte vector at each pixel and use only the first `bpp` lanes.
    static let slack = 16

    /// The reference implementation of PNG 9.2-9.4, one byte at a time.
    @inline(never)
    static func scalar(_ type: UInt8, row: UnsafeMutablePointer<UInt8>, prev: UnsafePointer<UInt8>, count n: Int, bpp: Int) {
        switch type {
        case 1: // Sub: Raw(x) + Raw(x - bpp)
            var i = bpp
            while i < n { row[i] &+= row[i &- bpp]; i &+= 1 }
        case 2: // Up: Raw(x) + Prior(x)
            for i in 0 ..< n { row[i] &+= prev[i] }
        case 3: // Average: Raw(x) + floor((Raw(x - bpp) + Prior(x)) / 2)
            for i in 0 ..< min(bpp, n) { row[i] &+= prev[i] >> 1 }
            var i = bpp
            while i < n {
                row[i] &+= UInt8(truncatingIfNeeded: (UInt16(row[i &- bpp]) &+ UInt16(prev[i])) >> 1)
                i &+= 1
            }
        case 4: // Paeth (PNG 9.4): the neighbour closest to a + b - c, ties to a, then b
            for i in 0 ..< min(bpp, n) { row[i] &+= prev[i] }
            var i = bpp
            while i < n {
                row[i] &+= paeth(row[i &- bpp], prev[i], prev[i &- bpp])
                i &+= 1
            }
        default:
            break
        }
    }

    /// PNG 9.4's predictor, written as selects (no data-dependent branches: on photographic
    /// rows they mispredict about half the time).
    @inline(__always)
    static func paeth(_ a: UInt8, _ b: UInt8, _ c: UInt8) -> UInt8 {
        let ia = Int(a), ib = Int(b), ic = Int(c)
        @inline(__always) func magnitude(_ x: Int) -> Int { let m = x &>> 63; return (x ^ m) &- m }
        let pa = magnitude(ib &- ic), pb = magnitude(ia &- ic), pc = magnitude(ia &+ ib &- 2 &* ic)
        let bc = pb <= pc ? b : c
        return pa <= min(pb, pc) ? a : bc
    }

    /// Reverses filter `type` (0 to 4; the caller has rejected others) with the fastest kernel.
    /// `row` needs ``slack`` readable bytes past `count`; so does `prev`.
    @inline(__always)
    static func apply(_ type: UInt8, row: UnsafeMutablePointer<UInt8>, prev: UnsafePointer<UInt8>, count n: Int, bpp: Int) {
        switch type {
        case 0:
            return
        case 2:
            up(row: row, prev: prev, count: n)
        default:
            switch bpp {
            case 3: pixelwise(type, row: row, prev: prev, count: n, bpp: 3)
            case 4: pixelwise(type, row: row, prev: prev, count: n, bpp: 4)
            case 6: pixelwise(type, row: row, prev: prev, count: n, bpp: 6)
            case 8: pixelwise(type, row: row, prev: prev, count: n, bpp: 8)
            case 1: bytewise(type, row: row, prev: prev, count: n)
            default: scalar(type, row: row, prev: prev, count: n, bpp: bpp)
            }
        }
    }

    /// One-byte pixels (8-bit gray, palette, sub-byte depths): the left and upper-left bytes
    /// stay in registers, so each byte does not wait for the previous store to be reloaded.
    /// Kept out of line: inlined into the row loop it lost registers to it.
    @inline(never)
    static func bytewise(_ type: UInt8, row: UnsafeMutablePointer<UInt8>, prev: UnsafePointer<UInt8>, count n: Int) {
        guard n > 0 else { return }
        switch type {
        case 1:
            var a = row[0]
            for i in 1 ..< max(n, 1) { a = row[i] &+ a; row[i] = a }
        case 3:
            var a = row[0] &+ (prev[0] >> 1)
            row[0] = a
            for i in 1 ..< max(n, 1) {
                a = row[i] &+ UInt8(truncatingIfNeeded: (UInt16(a) &+ UInt16(prev[i])) >> 1)
                row[i] = a
            }
        case 4:
            var a = row[0] &+ prev[0]
            row[0] = a
            var c = prev[0]
            for i in 1 ..< max(n, 1) {
                let b = prev[i]
                a = row[i] &+ paeth(a, b, c)
                row[i] = a
                c = b
            }
        default:
            break
        }
    }

    /// Up, 16 bytes at a time.
    static func up(row: UnsafeMutablePointer<UInt8>, prev: UnsafePointer<UInt8>, count n: Int) {
        let r = UnsafeMutableRawPointer(row), p = UnsafeRawPointer(prev)
        var i = 0
        while i &+ 16 <= n {
            let v = r.loadUnaligned(fromByteOffset: i, as: SIMD16<UInt8>.self)
                &+ p.loadUnaligned(fromByteOffset: i, as: SIMD16<UInt8>.self)
            r.storeBytes(of: v, toByteOffset: i, as: SIMD16<UInt8>.self)
            i &+= 16
        }
        while i < n { row[i] &+= prev[i]; i &+= 1 }
    }

    /// Sub, Average and Paeth one whole pixel per step: the pixel's bytes sit in the first
    /// `bpp` lanes of an 8-lane vector (Paeth in 16-bit lanes, where a + b - c fits).
    /// Only `bpp` bytes are stored, so the next pixel's load never overlaps a pending store.
    @inline(__always)
    static func pixelwise(_ type: UInt8, row: UnsafeMutablePointer<UInt8>, prev: UnsafePointer<UInt8>, count n: Int, bpp: Int) {
        let r = UnsafeMutableRawPointer(row), p = UnsafeRawPointer(prev)
        var left = SIMD8<UInt8>()
        var i = 0
        // Lane k is byte k in memory whatever the host's byte order, so halves of the vector
        // store the pixel's first bytes.
        @inline(__always) func store(_ v: SIMD8<UInt8>, _ at: Int) {
            switch bpp {
            case 3:
                r.storeBytes(of: v.lowHalf.lowHalf, toByteOffset: at, as: SIMD2<UInt8>.self)
                r.storeBytes(of: v[2], toByteOffset: at &+ 2, as: UInt8.self)
            case 4:
                r.storeBytes(of: v.lowHalf, toByteOffset: at, as: SIMD4<UInt8>.self)
            case 6:
                r.storeBytes(of: v.lowHalf, toByteOffset: at, as: SIMD4<UInt8>.self)
                r.storeBytes(of: v.highHalf.lowHalf, toByteOffset: at &+ 4, as: SIMD2<UInt8>.self)
            default:
                r.storeBytes(of: v, toByteOffset: at, as: SIMD8<UInt8>.self)
            }
        }
        switch type {
        case 1:
            while i < n {
                let v = r.loadUnaligned(fromByteOffset: i, as: SIMD8<UInt8>.self) &+ left
                store(v, i)
                left = v
                i &+= bpp
            }
        case 3:
            while i < n {
                let up = p.loadUnaligned(fromByteOffset: i, as: SIMD8<UInt8>.self)
                // floor((a + b) / 2) without leaving 8 bits.
                let average = (left & up) &+ ((left ^ up) &>> 1)
                let v = r.loadUnaligned(fromByteOffset: i, as: SIMD8<UInt8>.self) &+ average
                store(v, i)
                left = v
                i &+= bpp
            }
        case 4:
            typealias H = PaethLanes.H
            var a = H(), c = H()   // left of the row: zero (PNG 9.2)
            while i < n {
                let b = PaethLanes.widen(p.loadUnaligned(fromByteOffset: i, as: SIMD8<UInt8>.self))
                let v = r.loadUnaligned(fromByteOffset: i, as: SIMD8<UInt8>.self)
                    &+ PaethLanes.narrow(PaethLanes.predictor(a, b, c))
                store(v, i)
                a = PaethLanes.widen(v)
                c = b
                i &+= bpp
            }
        default:
            break
        }
    }
}
