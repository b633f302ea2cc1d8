// The LZW coder as it was before its table became one UInt32 a slot and its output a flat
// buffer: hash table of keys and codes apart, bytes appended a sub-block at a time. Kept as
// the reference that LZWEncoder must match byte for byte.
// GIF's variable-length-code LZW (GIF89a appendix F) as giflib writes it: a clear code first,
/// codes widened after the code that makes the next free entry reach `1 << width`, and a
/// clear code (table reset) when the next free entry would be 4095, giflib's `LZ_MAX_CODE`.
/// The output is the minimum-code-size byte, the data in sub-blocks of up to 255 bytes, and
/// the block terminator.
enum ReferenceLZWEncoder {
    /// Appends one frame's image data for `indices` (each below `1 << minimumCodeSize`).
    static func encode(_ indices: UnsafeBufferPointer<UInt8>, minimumCodeSize: Int, into out: inout [UInt8]) {
        encode(indices, alternatives: indices, minimumCodeSize: minimumCodeSize, into: &out)
    }

    /// As ``encode(_:minimumCodeSize:into:)`` where a pixel may take either of two values,
    /// `indices[i]` or `alternatives[i]` (the same value where the pixel has no choice: both
    /// show alike, as the transparent index and the colour a pixel already shows). Greedy, as
    /// gifsicle's `-O2` transparency: a pixel takes the value that extends the current string
    /// in the table; when neither does, the value of the pixel before it if that is one of
    /// the two (runs stay runs), else `indices[i]`.
    static func encode(_ indices: UnsafeBufferPointer<UInt8>, alternatives: UnsafeBufferPointer<UInt8>,
                       minimumCodeSize: Int, into out: inout [UInt8]) {
        precondition((2 ... 8).contains(minimumCodeSize) && alternatives.count == indices.count)
        out.append(UInt8(minimumCodeSize))
        var writer = ReferenceSubBlockWriter()
        let clear = 1 << minimumCodeSize
        let end = clear + 1
        var width = minimumCodeSize + 1
        var next = clear + 2
        // Open addressing: key (prefix << 8 | byte) + 1, 0 for empty.
        let slots = 1 << 13
        var keys = [UInt32](repeating: 0, count: slots)
        var codes = [UInt16](repeating: 0, count: slots)
        keys.withUnsafeMutableBufferPointer { keys in
            codes.withUnsafeMutableBufferPointer { codes in
                writer.put(clear, width, into: &out)
                guard !indices.isEmpty else { return }
                var last = Int(indices[0])
                var prefix = last
                for i in 1 ..< indices.count {
                    let c = Int(indices[i]), alt = Int(alternatives[i])
                    let key = UInt32(prefix << 8 | c) &+ 1
                    var s = Int((key &* 0x9E37_79B1) &>> 19) & (slots - 1)
                    var found = -1
                    while keys[s] != 0 {
                        if keys[s] == key { found = Int(codes[s]); break }
                        s = (s &+ 1) & (slots - 1)
                    }
                    if found >= 0 { prefix = found; last = c; continue }
                    var chosen = c
                    if alt != c {
                        let altKey = UInt32(prefix << 8 | alt) &+ 1
                        var t = Int((altKey &* 0x9E37_79B1) &>> 19) & (slots - 1)
                        while keys[t] != 0 {
                            if keys[t] == altKey { found = Int(codes[t]); break }
                            t = (t &+ 1) & (slots - 1)
                        }
                        if found >= 0 { prefix = found; last = alt; continue }
                        if alt == last {
                            // The slot for the new entry is the alternative's empty one.
                            chosen = alt
                            s = t
                        }
                    }
                    writer.put(prefix, width, into: &out)
                    if next >= 1 << width && width < 12 { width += 1 }
                    if next >= 4095 {
                        writer.put(clear, width, into: &out)
                        next = clear + 2
                        width = minimumCodeSize + 1
                        for k in 0 ..< slots { keys[k] = 0 }
                    } else {
                        keys[s] = UInt32(prefix << 8 | chosen) &+ 1
                        codes[s] = UInt16(next)
                        next += 1
                    }
                    prefix = chosen
                    last = chosen
                }
                writer.put(prefix, width, into: &out)
                if next >= 1 << width && width < 12 { width += 1 }
            }
        }
        writer.put(end, width, into: &out)
        writer.finish(into: &out)
    }

    /// The smallest minimum code size for a colour table of `entries` (GIF needs at least 2).
    static func minimumCodeSize(forTableEntries entries: Int) -> Int {
        var bits = 2
        while 1 << bits < entries { bits += 1 }
        return bits
    }
}

/// LSB-first bits into 255-byte sub-blocks.
struct ReferenceSubBlockWriter {
    private var bits: UInt64 = 0
    private var count = 0
    private var block: [UInt8] = []

    init() { block.reserveCapacity(255) }

    @inline(__always)
    mutating func put(_ code: Int, _ width: Int, into out: inout [UInt8]) {
        bits |= UInt64(code) << UInt64(count)
        count += width
        while count >= 8 {
            block.append(UInt8(truncatingIfNeeded: bits))
            bits >>= 8
            count -= 8
            if block.count == 255 { flush(into: &out) }
        }
    }

    private mutating func flush(into out: inout [UInt8]) {
        guard !block.isEmpty else { return }
        out.append(UInt8(block.count))
        out.append(contentsOf: block)
        block.removeAll(keepingCapacity: true)
    }

    /// The last partial byte, the last sub-block and the terminator.
    mutating func finish(into out: inout [UInt8]) {
        if count > 0 {
            block.append(UInt8(truncatingIfNeeded: bits))
            bits = 0; count = 0
        }
        flush(into: &out)
        out.append(0)
    }
}
