/// Canonical prefix codes as lookup tables (libwebp's layout): a root table indexed by the
/// next `rootBits` bits, and for codes longer than that, second-level tables the root entry
/// points to. An entry packs the code length (bits 16...) and the symbol (bits 0-15); a root
/// entry for a longer code holds `rootBits` + its second table's bits and that table's offset.
enum HuffmanTable {
    /// The longest code length VP8L allows.
    static let maxLength = 15

    @inline(__always) static func entry(bits: Int, value: Int) -> UInt32 { UInt32(bits) << 16 | UInt32(value) }

    /// Appends the tables for `lengths` to `tables` and returns the start offset, or nil when
    /// the lengths do not make a complete prefix code (a single used symbol is always
    /// accepted, as a zero-length code: libwebp's rule).
    static func build(lengths: UnsafeBufferPointer<UInt8>, rootBits: Int, into tables: inout [UInt32]) -> Int? {
        var count = [Int](repeating: 0, count: maxLength + 1)
        for l in lengths {
            if Int(l) > maxLength { return nil }
            count[Int(l)] += 1
        }
        if count[0] == lengths.count { return nil }
        var offset = [Int](repeating: 0, count: maxLength + 2)
        for len in 1 ... maxLength {
            if count[len] > (1 << len) { return nil }
            offset[len + 1] = offset[len] + count[len]
        }
        let used = offset[maxLength + 1]
        var sorted = [Int](repeating: 0, count: max(used, 1))
        for (symbol, l) in lengths.enumerated() where l > 0 {
            sorted[offset[Int(l)]] = symbol
            offset[Int(l)] += 1
        }
        let start = tables.count
        let rootSize = 1 << rootBits
        if used == 1 {
            tables.append(contentsOf: repeatElement(entry(bits: 0, value: sorted[0]), count: rootSize))
            return start
        }
        tables.append(contentsOf: repeatElement(0, count: rootSize))
        var key = 0
        var symbol = 0
        var open = 1
        var step = 2
        for len in 1 ... rootBits {
            open <<= 1
            open -= count[len]
            if open < 0 { return nil }
            for _ in 0 ..< count[len] {
                let e = entry(bits: len, value: sorted[symbol])
                symbol += 1
                var i = key
                while i < rootSize { tables[start + i] = e; i += step }
                key = nextKey(key, len)
            }
            step <<= 1
        }
        let mask = rootSize - 1
        var low = -1
        var tableStart = start
        var tableSize = rootSize
        step = 2
        if rootBits < maxLength {
            for len in rootBits + 1 ... maxLength {
                open <<= 1
                open -= count[len]
                if open < 0 { return nil }
                while count[len] > 0 {
                    defer { count[len] -= 1 }
                    if key & mask != low {
                        tableStart += tableSize
                        let bits = nextTableBits(count, len, rootBits)
                        tableSize = 1 << bits
                        tables.append(contentsOf: repeatElement(0, count: tableSize))
                        low = key & mask
                        tables[start + low] = entry(bits: bits + rootBits, value: tableStart - start)
                    }
                    let e = entry(bits: len - rootBits, value: sorted[symbol])
                    symbol += 1
                    var i = key >> rootBits
                    while i < tableSize { tables[tableStart + i] = e; i += step }
                    key = nextKey(key, len)
                }
                step <<= 1
            }
        }
        if open != 0 { return nil }
        return start
    }

    /// The next code in bit-reversed order after `key` of length `len`.
    @inline(__always) static func nextKey(_ key: Int, _ len: Int) -> Int {
        var step = 1 << (len - 1)
        while key & step != 0 { step >>= 1 }
        return step != 0 ? (key & (step - 1)) + step : key
    }

    /// The bits of the second-level table that starts with the codes of length `len`.
    static func nextTableBits(_ count: [Int], _ length: Int, _ rootBits: Int) -> Int {
        var len = length
        var left = 1 << (len - rootBits)
        while len < maxLength {
            left -= count[len]
            if left <= 0 { break }
            len += 1
            left <<= 1
        }
        return len - rootBits
    }

    /// Decodes one symbol with the table at `tree` (8-bit root).
    @inline(__always) static func read(_ tables: UnsafePointer<UInt32>, _ tree: Int, _ reader: inout VP8LBitReader) -> Int {
        reader.fill()
        return decode(tables + tree, &reader)
    }

    /// Decodes one symbol with the table at `table` without topping the reader up: at most 15
    /// bits, so the caller has filled it (at least 32 bits after a fill, unless the data ends).
    @inline(__always) static func decode(_ table: UnsafePointer<UInt32>, _ reader: inout VP8LBitReader) -> Int {
        let bits = reader.peek
        var e = table[Int(truncatingIfNeeded: bits & 0xFF)]
        var n = Int(truncatingIfNeeded: e &>> 16)
        if n > 8 {
            reader.skip(8)
            let sub = Int(truncatingIfNeeded: (bits &>> 8) & ((1 &<< UInt64(n &- 8)) &- 1))
            e = table[Int(truncatingIfNeeded: e & 0xFFFF) &+ sub]
            n = Int(truncatingIfNeeded: e &>> 16)
        }
        reader.skip(n)
        return Int(truncatingIfNeeded: e & 0xFFFF)
    }
}
