/// Entropy coding for baseline JPEG (T.81 F.1.2, Annex C, Annex K.2): the bit writer with
/// 0xFF00 byte stuffing, code tables from DHT-style specs, optimal tables from symbol counts,
/// and the per-block coder with its counting twin (the first pass of `optimizeHuffman`).

/// A code table ready for encoding: for each symbol, `size << 16 | code` (size 0: no code).
struct HuffmanCodes: Sendable, Equatable {
    var entries: [UInt32]

    /// Codes assigned as T.81 C.1-C.2 do: by increasing length, consecutive within a length.
    init(_ spec: HuffmanSpec) {
        entries = [UInt32](repeating: 0, count: 256)
        var code: UInt32 = 0
        var k = 0
        for length in 1 ... 16 {
            for _ in 0 ..< Int(spec.counts[length - 1]) where k < spec.symbols.count {
                entries[Int(spec.symbols[k])] = UInt32(length) << 16 | code
                code += 1
                k += 1
            }
            code <<= 1
        }
    }
}

extension HuffmanSpec {
    /// The optimal table for `frequencies` (257 counts; entry 256 is reserved), built as
    /// libjpeg's `jpeg_gen_optimal_table` does (T.81 K.2): Huffman's merge with ties broken
    /// toward the larger symbol, then lengths over 16 folded back (K.2 Figure K.3), then the
    /// longest code given up so that no code is all ones. Same counts give cjpeg's table.
    static func optimal(frequencies input: [Int]) -> HuffmanSpec {
        var freq = input
        if freq.count < 257 { freq += [Int](repeating: 0, count: 257 - freq.count) }
        var codeSize = [Int](repeating: 0, count: 257)
        var others = [Int](repeating: -1, count: 257)
        var bits = [Int](repeating: 0, count: 33)
        // The reserved symbol 256 makes sure no real symbol gets the all-ones code.
        freq[256] = 1
        while true {
            var c1 = -1, c2 = -1
            var v = Int.max
            for i in 0 ... 256 where freq[i] != 0 && freq[i] <= v { v = freq[i]; c1 = i }
            v = Int.max
            for i in 0 ... 256 where freq[i] != 0 && freq[i] <= v && i != c1 { v = freq[i]; c2 = i }
            if c2 < 0 { break }
            freq[c1] += freq[c2]
            freq[c2] = 0
            codeSize[c1] += 1
            while others[c1] >= 0 { c1 = others[c1]; codeSize[c1] += 1 }
            others[c1] = c2
            codeSize[c2] += 1
            while others[c2] >= 0 { c2 = others[c2]; codeSize[c2] += 1 }
        }
        for i in 0 ... 256 where codeSize[i] != 0 { bits[min(codeSize[i], 32)] += 1 }
        var i = 32
        while i > 16 {
            while bits[i] > 0 {
                var j = i - 2
                while j > 0 && bits[j] == 0 { j -= 1 }
                bits[i] -= 2
                bits[i - 1] += 1
                bits[j + 1] += 2
                bits[j] -= 1
            }
            i -= 1
        }
        while i > 0 && bits[i] == 0 { i -= 1 }
        if i > 0 { bits[i] -= 1 }
        var symbols: [UInt8] = []
        for length in 1 ... 32 {
            for s in 0 ... 255 where codeSize[s] == length { symbols.append(UInt8(s)) }
        }
        let counts = (1 ... 16).map { UInt8(bits[$0]) }
        let total = counts.reduce(0) { $0 + Int($1) }
        return HuffmanSpec(counts: counts, symbols: Array(symbols.prefix(total)))
    }
}

/// An output buffer with a 64-bit bit accumulator. Bits collect right-aligned in `acc`; when
/// 64 are ready they go out as eight bytes at once unless one of them is 0xFF, which T.81
/// F.1.2.3 requires to be followed by a stuffed 0x00.
struct BitWriter: ~Copyable {
    private(set) var base: UnsafeMutablePointer<UInt8>
    private(set) var capacity: Int
    private(set) var count = 0
    var acc: UInt64
    var bits: Int

    init(capacity: Int = 1 << 16, acc: UInt64 = 0, bits: Int = 0) {
        self.capacity = max(capacity, 4096)
        base = .allocate(capacity: self.capacity)
        self.acc = acc
        self.bits = bits
    }

    deinit { base.deallocate() }

    /// Makes room for `extra` more bytes.
    mutating func reserve(_ extra: Int) {
        guard count &+ extra > capacity else { return }
        let newCapacity = max(capacity * 2, count + extra)
        let newBase = UnsafeMutablePointer<UInt8>.allocate(capacity: newCapacity)
        newBase.update(from: base, count: count)
        base.deallocate()
        base = newBase
        capacity = newCapacity
    }

    /// Appends bytes as they are (marker segments); the bit accumulator must be empty.
    mutating func append(_ bytes: [UInt8]) {
        reserve(bytes.count)
        bytes.withUnsafeBufferPointer { src in
            if let s = src.baseAddress { (base + count).update(from: s, count: src.count) }
        }
        count += bytes.count
    }

    /// Appends the low `n` bits of `value` (n <= 32, higher bits zero). The caller has
    /// reserved room for at least 16 more bytes.
    @inline(__always)
    mutating func put(_ value: UInt64, _ n: Int) {
        withSink { $0.put(value, n) }
    }

    /// Runs `body` on the writer's position and pending bits copied into a plain value, which
    /// LLVM keeps in registers. Through `inout self` it stored `acc` and `bits` back to memory
    /// after every `put` (the byte stores through `base` might have aliased them). The caller
    /// must have reserved the room `body` needs.
    @inline(__always)
    mutating func withSink<R>(_ body: (inout BitSink) -> R) -> R {
        var sink = BitSink(base: base, count: count, acc: acc, free: 64 &- bits)
        let result = body(&sink)
        count = sink.count
        acc = sink.acc
        bits = 64 &- sink.free
        return result
    }

    /// Pads the last byte with one bits (T.81 F.1.2.3) and writes out what is pending, as
    /// libjpeg's `flush_bits` does at the end of a scan and before each RSTn.
    mutating func flushBits() {
        reserve(32)
        put(0x7F, 7)
        count = writeWholeBytes(acc, pending: bits, to: base, at: count)
        acc = 0
        bits = 0
    }

    /// The bytes written so far.
    func bytes() -> [UInt8] { [UInt8](UnsafeBufferPointer(start: base, count: count)) }

    /// Hands back the bytes written so far and forgets them (the pending bits stay).
    mutating func take() -> [UInt8] {
        let out = bytes()
        count = 0
        return out
    }
}

extension BitWriter {
    /// Appends coded data that was written from bit 0 by another writer: its stuffed `bytes`
    /// and then its `count` pending bits (the low bits of `pending`), after this writer's own
    /// pending bits, stuffing again where the bytes now fall. Byte-aligned, the bytes are
    /// copied as they are.
    mutating func appendCoded(_ bytes: UnsafeBufferPointer<UInt8>, pendingBits pending: UInt64, count pendingCount: Int) {
        guard let src = bytes.baseAddress else {
            putPending(pending, pendingCount)
            return
        }
        let n = bytes.count
        if bits == 0 {
            reserve(n)
            (base + count).update(from: src, count: n)
            count += n
            acc = pending
            bits = pendingCount
            return
        }
        // Shifted: at most every byte becomes a stuffed pair.
        reserve(2 * n + 64)
        withSink { sink in
            var i = 0
            while i < n {
                if i &+ 8 <= n {
                    let word = UInt64(bigEndian: UnsafeRawPointer(src + i).loadUnaligned(as: UInt64.self))
                    // No 0xFF among the eight bytes (so no stuffed zero either): all 64 bits at once.
                    if (~word &- 0x0101_0101_0101_0101) & word & 0x8080_8080_8080_8080 == 0 {
                        sink.put64(word)
                        i &+= 8
                        continue
                    }
                }
                let byte = src[i]
                sink.put(UInt64(byte), 8)
                // A stuffed zero follows each 0xFF: it is not data.
                i &+= byte == 0xFF ? 2 : 1
            }
        }
        putPending(pending, pendingCount)
    }

    /// The low `count` bits of `pending` (0...63).
    private mutating func putPending(_ pending: UInt64, _ count: Int) {
        guard count > 0 else { return }
        reserve(32)
        let value = count == 64 ? pending : pending & ((1 &<< UInt64(count)) &- 1)
        if count > 32 {
            put(value &>> 32, count &- 32)
            put(value & 0xFFFF_FFFF, 32)
        } else {
            put(value, count)
        }
    }
}

/// Writes the whole bytes among the `pending` low bits of `acc` (most significant first) at
/// `base + count`, each 0xFF followed by a stuffed zero (T.81 B.1.1.5), and returns the new
/// count; fewer than 8 leftover bits are dropped (the caller has just padded with ones). Shared
/// by the end-of-scan and before-RSTn flushes of both writers; the caller has reserved room.
@inline(__always)
func writeWholeBytes(_ acc: UInt64, pending: Int, to base: UnsafeMutablePointer<UInt8>, at count: Int) -> Int {
    var bits = pending, count = count
    while bits >= 8 {
        let byte = UInt8(truncatingIfNeeded: acc &>> UInt64(bits &- 8))
        base[count] = byte
        count &+= 1
        if byte == 0xFF { base[count] = 0; count &+= 1 }
        bits &-= 8
    }
    return count
}

/// A ``BitWriter``'s state as a copyable value for hot loops (``BitWriter/withSink(_:)``).
/// It counts the free bits of the accumulator rather than the pending ones (libjpeg-turbo's
/// jchuff.c does the same): a symbol that fits is then one compare, one shift, one OR and one
/// subtract. Bits above the pending ones may hold garbage: every shift pushes them out, and
/// nothing reads them (the full-word path shifts them out, ``BitWriter/flushBits()``
/// truncates to bytes), so no mask is needed after a spill.
struct BitSink {
    let base: UnsafeMutablePointer<UInt8>
    var count: Int
    var acc: UInt64
    /// 64 minus the pending bits: 1...64 between calls.
    var free: Int

    /// Appends the low `n` bits of `value` (n <= 32, higher bits zero).
    @inline(__always)
    mutating func put(_ value: UInt64, _ n: Int) {
        if n < free {
            acc = (acc &<< UInt64(n)) | value
            free &-= n
            return
        }
        // Here free <= n <= 32, so neither shift below reaches 64.
        let spill = n &- free
        emit8((acc &<< UInt64(free)) | (value &>> UInt64(spill)))
        acc = value
        free = 64 &- spill
    }

    /// Appends all 64 bits of `value`: the pending bits and the high bits of `value` go out as
    /// eight bytes, and the rest of `value` stays pending (as many bits as before).
    @inline(__always)
    mutating func put64(_ value: UInt64) {
        if free == 64 {
            emit8(value)
        } else {
            emit8((acc &<< UInt64(free)) | (value &>> UInt64(64 &- free)))
            acc = value
        }
    }

    @inline(__always)
    private mutating func emit8(_ x: UInt64) {
        let notX = ~x
        // A zero byte in ~x is a 0xFF byte in x (the classic has-zero-byte test).
        if (notX &- 0x0101_0101_0101_0101) & x & 0x8080_8080_8080_8080 == 0 {
            UnsafeMutableRawPointer(base + count).storeBytes(of: x.bigEndian, as: UInt64.self)
            count &+= 8
        } else {
            var shift: UInt64 = 56
            for _ in 0 ..< 8 {
                let byte = UInt8(truncatingIfNeeded: x &>> shift)
                base[count] = byte
                count &+= 1
                if byte == 0xFF { base[count] = 0; count &+= 1 }
                shift &-= 8
            }
        }
    }

    /// ``BitWriter/flushBits()`` inside a sink (before a restart marker), then the two
    /// bytes of `marker`. The caller has reserved room for them.
    @inline(__always)
    mutating func flushAndMark(_ marker: UInt8) {
        put(0x7F, 7)
        count = writeWholeBytes(acc, pending: 64 &- free, to: base, at: count)
        acc = 0
        free = 64
        base[count] = 0xFF
        base[count &+ 1] = marker
        count &+= 2
    }
}

/// The number of bits in a coefficient's magnitude category (T.81 F.1.2.1, Table F.1) and the
/// extra bits that follow its Huffman code: the value itself if positive, value - 1 if negative.
@inline(__always)
func magnitudeCategory(_ v: Int32) -> (nbits: Int, extra: UInt64) {
    let m = v < 0 ? 0 &- v : v
    let nbits = 32 &- m.leadingZeroBitCount
    let pattern = UInt64(UInt32(bitPattern: v < 0 ? v &- 1 : v))
    return (nbits, pattern & ((1 &<< UInt64(nbits)) &- 1))
}

/// ``magnitudeCategory(_:)`` of `v` in -2048 ..< 2048 from ``EntropyTables/lookup``: one
/// load instead of an absolute value, a leading-zero count (three instructions without LZCNT)
/// and two masks. Every value the baseline coder sees is in that range (T.81 F.1.2.1: 8-bit
/// samples give DC differences and AC values of at most 11 bits; here |AC| <= 1024 and the DC
/// difference within +-2040 with quantizers of at least 1). The index is masked rather than
/// checked, so even a value outside could not read outside the table.
@inline(__always)
func magnitudeCategory(_ v: Int32, lookup: UnsafePointer<UInt32>) -> (nbits: Int, extra: UInt64) {
    let (offset, extra) = categoryEntry(v, lookup: lookup)
    return (offset &>> 3, extra)
}

/// ``magnitudeCategory(_:lookup:)`` with the bit count times 8: the byte offset of the
/// symbol's entry in a row of ``EntropyTables/acShifted`` (or in ``EntropyTables/dcShifted``),
/// which saves the block coder a shift per coefficient.
@inline(__always)
func categoryEntry(_ v: Int32, lookup: UnsafePointer<UInt32>) -> (offset: Int, extra: UInt64) {
    let e = lookup[Int(truncatingIfNeeded: UInt32(bitPattern: v &+ 2048) & 4095)]
    return (Int(e & 0xFF), UInt64(e &>> 8))
}

/// Everything the block coder needs, as raw pointers set up once per image. `@unchecked
/// Sendable`: written in `init` only, then read (by every band's thread in a segmented encode).
final class EntropyTables: @unchecked Sendable {
    /// For v in -2048 ..< 2048 at index v + 2048: `nbits << 3 | extra << 8` of
    /// ``magnitudeCategory(_:)``; then, at 4096 + k, the natural index of zigzag coefficient
    /// k. One pointer for both keeps the block coder's loop from spilling one of them.
    let lookup: UnsafeMutablePointer<UInt32>
    /// The codes of table slots 0 and 1 (256 symbols each) ready for a symbol's extra bits,
    /// whose count (the low four bits of an AC symbol, the whole DC symbol) the symbol
    /// already fixes: `code << nbits` in the low 32 bits, `size + nbits` in the high 32. The
    /// coder then ORs in the extra bits and puts the result, with no shift or add of its own.
    let dcShifted: UnsafeMutablePointer<UInt64>
    let acShifted: UnsafeMutablePointer<UInt64>

    init(dc specs: [HuffmanSpec], ac acSpecs: [HuffmanSpec]) {
        lookup = .allocate(capacity: 4096 + 64)
        for i in 0 ..< 4096 {
            let (nbits, extra) = magnitudeCategory(Int32(i - 2048))
            (lookup + i).initialize(to: UInt32(nbits) << 3 | UInt32(extra) << 8)
        }
        for k in 0 ..< 64 { (lookup + 4096 + k).initialize(to: UInt32(EncoderTables.zigzag[k])) }
        // `size << 16 | code` per symbol (size 0: no code), then shifted.
        var dc = [UInt32](repeating: 0, count: 512), ac = [UInt32](repeating: 0, count: 512)
        for (t, spec) in specs.prefix(2).enumerated() {
            for (s, e) in HuffmanCodes(spec).entries.enumerated() { dc[t * 256 + s] = e }
        }
        for (t, spec) in acSpecs.prefix(2).enumerated() {
            for (s, e) in HuffmanCodes(spec).entries.enumerated() { ac[t * 256 + s] = e }
        }
        dcShifted = .allocate(capacity: 512)
        acShifted = .allocate(capacity: 512)
        func shifted(_ e: UInt32, _ nbits: Int) -> UInt64 {
            UInt64(e & 0xFFFF) << UInt64(nbits) | UInt64(Int(e >> 16) + nbits) << 32
        }
        for i in 0 ..< 512 {
            // DC symbols are 0...16 (larger ones have no code and never occur).
            (dcShifted + i).initialize(to: shifted(dc[i], min(i & 255, 16)))
            (acShifted + i).initialize(to: shifted(ac[i], i & 15))
        }
    }

    deinit {
        lookup.deallocate()
        dcShifted.deallocate()
        acShifted.deallocate()
    }
}

enum BlockCoder {
    /// Codes one block (natural order, zigzag nonzero map `mask`) as T.81 F.1.2.1-F.1.2.2 (libjpeg
    /// `encode_one_block`): the map's trailing-zero count finds each next nonzero coefficient,
    /// so runs of zeros cost nothing.
    /// `dc` and `ac` are ``EntropyTables/dcShifted`` and ``EntropyTables/acShifted`` entries.
    @inline(__always)
    static func encode(_ block: UnsafePointer<Int16>, mask: UInt64, previousDC: Int32, dc: UnsafePointer<UInt64>,
                       ac: UnsafePointer<UInt64>, lookup: UnsafePointer<UInt32>, _ w: inout BitSink) {
        @inline(__always) func put(_ e: UInt64, _ extra: UInt64) {
            w.put((e & 0xFFFF_FFFF) | extra, Int(truncatingIfNeeded: e &>> 32))
        }
        // Byte offsets into the tables: nbits * 8, and run * 128 + nbits * 8.
        let dcRaw = UnsafeRawPointer(dc), acRaw = UnsafeRawPointer(ac)
        let (dcOffset, dcExtra) = categoryEntry(Int32(block[0]) &- previousDC, lookup: lookup)
        put(dcRaw.load(fromByteOffset: dcOffset, as: UInt64.self), dcExtra)
        var m = mask & ~1
        var last = 0
        while m != 0 {
            let k = m.trailingZeroBitCount
            var run = k &- last &- 1
            while run > 15 {
                put(ac[0xF0], 0)
                run &-= 16
            }
            let (offset, extra) = categoryEntry(Int32(block[Int(truncatingIfNeeded: lookup[4096 &+ k])]), lookup: lookup)
            put(acRaw.load(fromByteOffset: (run &<< 7) | offset, as: UInt64.self), extra)
            last = k
            m &= m &- 1
        }
        if last != 63 { put(ac[0], 0) }
    }

    /// Counts the symbols `encode` would emit (libjpeg `htest_one_block`).
    @inline(__always)
    static func count(_ block: UnsafePointer<Int16>, mask: UInt64, previousDC: Int32, dc: UnsafeMutablePointer<Int>,
                      ac: UnsafeMutablePointer<Int>, zigzag: UnsafePointer<Int>) {
        dc[magnitudeCategory(Int32(block[0]) &- previousDC).nbits] &+= 1
        var m = mask & ~1
        var last = 0
        while m != 0 {
            let k = m.trailingZeroBitCount
            var run = k &- last &- 1
            while run > 15 { ac[0xF0] &+= 1; run &-= 16 }
            ac[(run &<< 4) | magnitudeCategory(Int32(block[zigzag[k]])).nbits] &+= 1
            last = k
            m &= m &- 1
        }
        if last != 63 { ac[0] &+= 1 }
    }
}
