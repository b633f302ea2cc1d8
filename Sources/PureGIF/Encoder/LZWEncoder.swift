/// GIF's variable-length-code LZW (GIF89a appendix F) as giflib writes it: a clear code first,
/// codes widened after the code that makes the next free entry reach `1 << width`, and a
/// clear code (table reset) when the next free entry would be 4095, giflib's `LZ_MAX_CODE`.
/// The output is the minimum-code-size byte, the data in sub-blocks of up to 255 bytes, and
/// the block terminator.
///
/// The string table is open addressing over 8,192 `UInt32` slots, each the string's key
/// (prefix code << 8 | byte, 20 bits) above its code (12 bits), all ones for an empty slot:
/// one load and compare a probe. Codes go into a 64-bit bit buffer stored 4 bytes at a time
/// into a flat buffer, cut into sub-blocks at the end.
enum LZWEncoder {
    /// Appends one frame's image data for `indices` (each below `1 << minimumCodeSize`).
    static func encode(_ indices: UnsafeBufferPointer<UInt8>, minimumCodeSize: Int, into out: inout [UInt8]) {
        encode(indices, alternatives: indices, minimumCodeSize: minimumCodeSize, into: &out)
    }

    static let slots = 1 << 13
    static let empty: UInt32 = 0xFFFF_FFFF

    @inline(__always)
    static func slot(_ key: UInt32) -> Int { Int(truncatingIfNeeded: (key &* 0x9E37_79B1) &>> 19) }

    /// As ``encode(_:minimumCodeSize:into:)`` where a pixel may take either of two values,
    /// `indices[i]` or `alternatives[i]` (the same value where the pixel has no choice: both
    /// show alike, as the transparent index and the colour a pixel already shows). Greedy, as
    /// gifsicle's `-O2` transparency: a pixel takes the value that extends the current string
    /// in the table; when neither does, the value of the pixel before it if that is one of
    /// the two (runs stay runs), else `indices[i]`.
    ///
    /// With `limit`, coding stops once the output is sure to be at least `limit` bytes (the
    /// caller wants only a smaller one): nothing is appended and the result is false.
    @discardableResult
    static func encode(_ indices: UnsafeBufferPointer<UInt8>, alternatives: UnsafeBufferPointer<UInt8>,
                       minimumCodeSize: Int, into out: inout [UInt8], below limit: Int = .max) -> Bool {
        precondition((2 ... 8).contains(minimumCodeSize) && alternatives.count == indices.count)
        let n = indices.count
        // At most one code a pixel, a clear every 4,000 codes, the first clear and the end:
        // under 12 bits each.
        let capacity = 2 * n + 64
        let raw = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity)
        defer { raw.deallocate() }
        let table = UnsafeMutablePointer<UInt32>.allocate(capacity: slots)
        defer { table.deallocate() }
        table.initialize(repeating: empty, count: slots)
        let clear = 1 << minimumCodeSize
        var width = minimumCodeSize + 1
        var next = clear + 2
        var bits: UInt64 = 0, count = 0
        var cursor = raw
        // The output is at least its data bytes so far, their sub-block lengths, the code size
        // and the terminator: at `stop` data bytes it reaches `limit`.
        var stopAt = capacity
        if limit != .max {
            var p = max(0, (limit - 2) / 256 * 255 - 2)
            while p < capacity && p + (p + 254) / 255 + 2 < limit { p += 1 }
            stopAt = min(p, capacity)
        }
        let stop = raw + stopAt
        put(UInt32(clear), width, &bits, &count, &cursor)
        if n > 0 {
            let mask = slots - 1
            let firstIndex = indices.baseAddress!, firstAlternative = alternatives.baseAddress!
            var last = UInt32(firstIndex[0])
            var prefix = last
            var i = 1
            while i < n {
                let c = UInt32(firstIndex[i]), alt = UInt32(firstAlternative[i])
                i &+= 1
                let key = prefix &<< 8 | c
                var s = slot(key)
                var entry = table[s]
                while entry != empty && entry &>> 12 != key {
                    s = (s &+ 1) & mask
                    entry = table[s]
                }
                if entry != empty { prefix = entry & 0xFFF; last = c; continue }
                var chosen = c
                if alt != c {
                    let altKey = prefix &<< 8 | alt
                    var t = slot(altKey)
                    var found = table[t]
                    while found != empty && found &>> 12 != altKey {
                        t = (t &+ 1) & mask
                        found = table[t]
                    }
                    if found != empty { prefix = found & 0xFFF; last = alt; continue }
                    if alt == last {
                        // The slot for the new entry is the alternative's empty one.
                        chosen = alt
                        s = t
                    }
                }
                put(prefix, width, &bits, &count, &cursor)
                if cursor >= stop { return false }
                if next >= 1 &<< width && width < 12 { width &+= 1 }
                if next >= 4095 {
                    put(UInt32(clear), width, &bits, &count, &cursor)
                    next = clear + 2
                    width = minimumCodeSize + 1
                    table.update(repeating: empty, count: slots)
                } else {
                    table[s] = (prefix &<< 8 | chosen) &<< 12 | UInt32(truncatingIfNeeded: next)
                    next &+= 1
                }
                prefix = chosen
                last = chosen
            }
            put(prefix, width, &bits, &count, &cursor)
            if next >= 1 &<< width && width < 12 { width += 1 }
        }
        put(UInt32(clear + 1), width, &bits, &count, &cursor)
        while count > 0 {
            cursor.pointee = UInt8(truncatingIfNeeded: bits)
            cursor += 1
            bits &>>= 8
            count -= 8
        }
        let position = cursor - raw
        if position + (position + 254) / 255 + 2 >= limit { return false }
        // Sub-blocks of 255 bytes, the last shorter, and the terminator.
        out.reserveCapacity(out.count + position + position / 255 + 3)
        out.append(UInt8(minimumCodeSize))
        var start = 0
        while start < position {
            let length = min(255, position - start)
            out.append(UInt8(length))
            out.append(contentsOf: UnsafeBufferPointer(start: raw + start, count: length))
            start += length
        }
        out.append(0)
        return true
    }

    /// Adds `code` (`width` bits) to the bit buffer; stores 4 bytes at `cursor` once 32 are in.
    @inline(__always)
    private static func put(_ code: UInt32, _ width: Int, _ bits: inout UInt64, _ count: inout Int,
                            _ cursor: inout UnsafeMutablePointer<UInt8>) {
        bits |= UInt64(code) &<< UInt64(truncatingIfNeeded: count)
        count &+= width
        if count >= 32 {
            UnsafeMutableRawPointer(cursor).storeBytes(of: UInt32(truncatingIfNeeded: bits).littleEndian, as: UInt32.self)
            cursor += 4
            bits &>>= 32
            count &-= 32
        }
    }

    /// The smallest minimum code size for a colour table of `entries` (GIF needs at least 2).
    static func minimumCodeSize(forTableEntries entries: Int) -> Int {
        var bits = 2
        while 1 << bits < entries { bits += 1 }
        return bits
    }
}
