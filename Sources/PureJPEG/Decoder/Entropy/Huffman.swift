/// A canonical Huffman table from DHT (T.81 C, annex F.2.2.3) prepared for decoding.
///
/// Codes of up to `fastBits` (11) bits resolve with one lookup of the next 11 bits; longer codes
/// walk the per-length limits (T.81 F.16 with left-justified codes). AC tables also get a
/// combined table that decodes run, size and the extra bits at once when code plus extra bits
/// fit in 11 bits (97% of the AC symbols of a q85 photo; 9 bits covered 91%), and
/// whose entries for EOB and ZRL let the sequential block loop stay on its fast path.
///
/// The tables live in manually allocated memory so the MCU loop reads them through plain
/// pointers; the object is immutable once built.
final class HuffmanTable: @unchecked Sendable {
    @inline(__always) static var fastBits: Int { 11 }

    /// The run field of a `fastAC` EOB entry: past any block, so the block loop's bounds test
    /// catches it and tells it from a real overrun by this value.
    @inline(__always) static var eobRun: Int { 0x80 }

    /// Index: the next 11 bits. Value: length << 8 | symbol, or 0 when the code is longer.
    let fast: UnsafeMutablePointer<UInt16>
    /// AC only: value << 16 | run << 8 | (code length + size), or 0 (T.81 F.2.2.1 decoded at once).
    /// ZRL is run 15 with value 0 (the sixteenth zero written as a coefficient), EOB (any run
    /// with size 0 except 15, as the block loop reads it) is ``eobRun`` << 8 | code length.
    let fastAC: UnsafeMutablePointer<Int32>
    /// For lengths 1...16: one past the last code of that length, left-justified in 16 bits
    /// (index 17 is a sentinel above every 16-bit value).
    let limit: UnsafeMutablePointer<UInt32>
    /// For lengths 1...16: index of the first symbol minus the first code of that length.
    let delta: UnsafeMutablePointer<Int32>
    let symbols: UnsafeMutablePointer<UInt8>
    let symbolCount: Int
    /// The 16 code-length counts and symbols as DHT gave them (for tests and re-encoding).
    let counts: [UInt8]
    let values: [UInt8]

    /// Builds the table; nil when the counts describe more codes than fit, or use a code of all
    /// 1 bits (T.81 C.2 reserves it; libjpeg refuses such a table), or a DC table has a symbol
    /// above 15 (libjpeg's check).
    init?(counts: [UInt8], values: [UInt8], isDC: Bool) {
        guard counts.count == 16, values.count == counts.reduce(0, { $0 + Int($1) }), values.count <= 256 else { return nil }
        if isDC, values.contains(where: { $0 > 15 }) { return nil }
        // Codes up to the all-ones one of some length is libjpeg's JERR_BAD_HUFF_TABLE
        // (jpeg_make_d_derived_tbl: one past the last code must still fit in the length).
        var next = 0
        for length in 1 ... 16 {
            next += Int(counts[length - 1])
            if next >= (1 << length) { return nil }
            next <<= 1
        }
        self.counts = counts
        self.values = values
        symbolCount = values.count
        fast = .allocate(capacity: 1 << Self.fastBits)
        fast.initialize(repeating: 0, count: 1 << Self.fastBits)
        // DC tables never read the combined table: one entry, so the pointer stays valid.
        let acEntries = isDC ? 1 : 1 << Self.fastBits
        fastAC = .allocate(capacity: acEntries)
        fastAC.initialize(repeating: 0, count: acEntries)
        limit = .allocate(capacity: 18)
        limit.initialize(repeating: 0, count: 18)
        delta = .allocate(capacity: 18)
        delta.initialize(repeating: 0, count: 18)
        symbols = .allocate(capacity: max(values.count, 1))
        symbols.initialize(repeating: 0, count: max(values.count, 1))
        for (i, v) in values.enumerated() { symbols[i] = v }

        // Canonical code assignment (T.81 C.2): codes of each length are consecutive, and the
        // next length starts at twice one past the last code. Each short code fills its range
        // of the lookup tables directly (a decode of a small image is mostly this set-up: the
        // tables are 2048 entries each).
        var code = 0, index = 0
        for length in 1 ... 16 {
            let n = Int(counts[length - 1])
            delta[length] = Int32(index - code)
            if n > 0 {
                for j in 0 ..< n where length <= Self.fastBits && code + j < (1 << length) {
                    let shift = Self.fastBits - length
                    let first = (code + j) << shift
                    let symbol = Int(values[index + j])
                    (fast + first).update(repeating: UInt16(length << 8) | UInt16(symbol), count: 1 << shift)
                    if !isDC { Self.fillCombined(fastAC + first, length: length, symbol: symbol) }
                }
                code += n
                index += n
            }
            limit[length] = UInt32(code) << (16 - length)
            code <<= 1
        }
        limit[17] = UInt32.max
    }

    /// The `fastAC` entries of one AC code of `length` bits (its 2^(fastBits - length) entries
    /// start at `entries`): EOB and ZRL, or run, size and the extra bits decoded when code and
    /// extra bits fit in `fastBits` and the size is at most 9; zero (the slow path) otherwise.
    /// Values of up to nine bits (-511...511) always fit a band record's ten-bit field
    /// (``BlockWriter/putShort(_:_:_:)``); larger ones are rare enough for the slow path.
    private static func fillCombined(_ entries: UnsafeMutablePointer<Int32>, length: Int, symbol: Int) {
        let run = symbol >> 4, size = symbol & 15
        let span = 1 << (fastBits - length)
        if size == 0 {
            entries.update(repeating: Int32(run == 15 ? 15 : eobRun) << 8 | Int32(length), count: span)
            return
        }
        guard length + size <= fastBits, size <= 9 else { return }
        // The extra bits follow the code inside the same window (T.81 F.2.2.1 EXTEND): each
        // value of them covers 2^(fastBits - length - size) entries.
        let each = 1 << (fastBits - length - size)
        for extra in 0 ..< (1 << size) {
            let value = extra < (1 << (size - 1)) ? extra - (1 << size) + 1 : extra
            (entries + extra * each).update(repeating: Int32(value) << 16 | Int32(run) << 8 | Int32(length + size), count: each)
        }
    }

    /// The raw pointers, for the MCU loop (a plain struct: no reference counting per block).
    var lookup: HuffmanLookup {
        HuffmanLookup(fast: fast, fastAC: fastAC, limit: limit, delta: delta, symbols: symbols, symbolCount: symbolCount)
    }

    deinit {
        fast.deallocate(); fastAC.deallocate(); limit.deallocate(); delta.deallocate(); symbols.deallocate()
    }
}

/// A ``HuffmanTable``'s lookup pointers; valid while the table object is alive (the scan plan
/// keeps it).
struct HuffmanLookup: @unchecked Sendable {
    let fast: UnsafeMutablePointer<UInt16>
    let fastAC: UnsafeMutablePointer<Int32>
    let limit: UnsafeMutablePointer<UInt32>
    let delta: UnsafeMutablePointer<Int32>
    let symbols: UnsafeMutablePointer<UInt8>
    let symbolCount: Int
}
