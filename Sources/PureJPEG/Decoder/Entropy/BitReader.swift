/// Reads entropy-coded bits (T.81 F.2.2.5) from bytes already in memory.
///
/// The 64-bit buffer is left-justified: the next bit is bit 63. It is refilled 8 bytes at a time
/// when none of them is 0xFF (the common case), otherwise byte by byte with unstuffing (FF 00 is
/// a data byte FF, T.81 B.1.1.5; FF FF... FF 00 counts as one data byte as in libjpeg). A marker
/// (FF followed by a non-zero byte) stops the reader before it: `position` stays on the FF, zero
/// bits are supplied from then on and `hitMarker` is set, which is libjpeg's behaviour for scans
/// cut short. Running out of bytes that may still arrive sets `starved` (the caller rolls back and
/// waits); running out at the true end of input sets `hitEnd`. In all three cases `count` keeps
/// counting down past zero, so `overran` tells whether a block really needed the missing bits.
///
/// The struct is plain data, so saving and restoring it is a copy (the MCU loop's rollback).
struct BitReader: Sendable {
    var bits: UInt64 = 0
    var count = 0
    /// Index of the next byte to load, relative to the bytes the caller passes in.
    var position = 0
    var hitMarker = false
    var starved = false
    var hitEnd = false
    /// Damage met while decoding (``Damage``), decoded past the way libjpeg decodes it; the MCU
    /// loop reports it (or, strict, fails) once the MCU is committed, and clears it.
    var damage: UInt8 = 0

    /// What ``damage`` records.
    enum Damage {
        /// A code no table entry matches: libjpeg's JWRN_HUFF_BAD_CODE (17 bits used, symbol 0).
        static let badCode: UInt8 = 1
        /// A coefficient placed past the block or band (libjpeg's padded natural order puts it
        /// at position 63; a run past the end ends the block).
        static let runPastBlock: UInt8 = 2
        /// A new coefficient of size other than 1 in an AC refinement scan (JWRN_HUFF_BAD_CODE;
        /// decoded as size 1).
        static let badRefinement: UInt8 = 4
        /// A run of zero coefficients past the band or a magnitude past 15 bits in an
        /// arithmetic-coded scan (libjpeg's JWRN_ARITH_BAD_CODE; nothing more is decoded until
        /// the next restart).
        static let badArithmeticCode: UInt8 = 8
    }

    /// Discards buffered bits (at a restart marker, T.81 F.2.1.3.1): the next read starts at `position`.
    mutating func reset() {
        bits = 0
        count = 0
        hitMarker = false
        starved = false
    }

    @inline(__always)
    mutating func refill(_ data: UnsafePointer<UInt8>, _ end: Int, _ isFinal: Bool) {
        var window = BitWindow(self)
        window.refill(&self, data, end, isFinal)
        window.store(into: &self)
    }

    @inline(never)
    mutating func refillSlow(_ data: UnsafePointer<UInt8>, _ end: Int, _ isFinal: Bool) {
        while count <= 56 {
            if hitMarker || starved || hitEnd { return }
            if position >= end {
                stop(final: isFinal)
                return
            }
            let byte = data[position]
            if byte != 0xFF {
                bits |= UInt64(byte) &<< UInt64(56 &- count)
                count &+= 8
                position &+= 1
                continue
            }
            var next = position &+ 1
            while next < end && data[next] == 0xFF { next &+= 1 }
            if next >= end {
                stop(final: isFinal)
                return
            }
            if data[next] == 0 {
                bits |= UInt64(0xFF) &<< UInt64(56 &- count)
                count &+= 8
                position = next &+ 1
            } else {
                hitMarker = true
                clearBeyondCount()
                return
            }
        }
    }

    private mutating func stop(final: Bool) {
        if final { hitEnd = true } else { starved = true }
        clearBeyondCount()
    }

    /// From here on the buffer supplies zero bits (libjpeg's fill past a marker): `count` is
    /// left as is and may go negative, which tells the MCU loop that it used bits that were
    /// not in the stream.
    private mutating func clearBeyondCount() {
        bits &= count <= 0 ? 0 : ~UInt64(0) &<< UInt64(64 &- count)
    }

    /// True when the last decode used bits past the data (a marker, the end, or missing bytes).
    var overran: Bool { count < 0 }

    /// Bits of the stream consumed but not yet used, as a byte position for error reports.
    var approximateOffset: Int { max(0, position - count / 8) }

    /// Decodes one Huffman symbol (T.81 F.2.2.3). A code no table entry matches is decoded as
    /// libjpeg decodes it: 17 bits are used, the symbol is 0, and ``damage`` records it.
    /// The caller has made at least 16 bits available (bits past the data are zeros).
    @inline(__always)
    mutating func decode(_ table: HuffmanLookup) -> Int {
        var window = BitWindow(self)
        defer { window.store(into: &self) }
        return window.decode(table, &self)
    }

    @inline(never)
    mutating func decodeSlow(_ table: HuffmanLookup) -> Int {
        let code16 = UInt32(truncatingIfNeeded: bits &>> 48)
        var length = HuffmanTable.fastBits + 1
        while code16 >= table.limit[length] { length &+= 1 }
        let code = Int(code16 &>> UInt32(16 &- min(length, 16)))
        let index = code &+ Int(table.delta[min(length, 16)])
        guard length <= 16, index >= 0, index < table.symbolCount else {
            // libjpeg's jpeg_huff_decode reaches its sentinel length 17 and fakes a zero.
            damage |= Damage.badCode
            bits &<<= 17
            count &-= 17
            return 0
        }
        bits &<<= UInt64(length)
        count &-= length
        return Int(table.symbols[index])
    }

    /// `n` raw bits (n in 0...16) as an unsigned value; the caller has made them available.
    @inline(__always)
    mutating func bits(_ n: Int) -> Int {
        var window = BitWindow(self)
        defer { window.store(into: &self) }
        return window.bits(n)
    }

    /// One bit (successive approximation refinement, T.81 G.1.2.1).
    @inline(__always)
    mutating func bit() -> Int {
        var window = BitWindow(self)
        defer { window.store(into: &self) }
        return window.bit()
    }
}

/// A ``BitReader``'s `bits` and `count` held in a local while blocks are decoded.
///
/// Through the reader's own methods the two fields stayed in memory: a store into a coefficient
/// block could alias the reader as far as the compiler knows, so every symbol reloaded `bits`
/// and paid a store-to-load forwarding delay on its dependency chain (callgrind and perf on the
/// 12 MP photo: the Huffman loop was 37% of the decode time). A local value whose address never
/// escapes lives in registers. The rare paths (a refill that meets 0xFF, a marker or the end of
/// the bytes; codes longer than 11 bits) write the window back, run the reader's out-of-line
/// method and reload it; the block decoders store it back when they return or throw.
struct BitWindow {
    var bits: UInt64
    var count: Int

    @inline(__always)
    init(_ reader: BitReader) {
        bits = reader.bits
        count = reader.count
    }

    @inline(__always)
    func store(into reader: inout BitReader) {
        reader.bits = bits
        reader.count = count
    }

    /// Tops the buffer up to at least 57 bits: 8 bytes at once when none is 0xFF, else the
    /// reader's byte-by-byte path (unstuffing, markers, end of input).
    @inline(__always)
    mutating func refill(_ reader: inout BitReader, _ data: UnsafePointer<UInt8>, _ end: Int, _ isFinal: Bool) {
        let position = reader.position
        if position &+ 8 <= end && count >= 0 && !reader.hitMarker {
            let x = UInt64(bigEndian: UnsafeRawPointer(data + position).loadUnaligned(as: UInt64.self))
            let inverted = ~x
            // No byte of x is 0xFF (no zero byte in ~x): take whole bytes without unstuffing.
            if (inverted &- 0x0101_0101_0101_0101) & ~inverted & 0x8080_8080_8080_8080 == 0 {
                let n = (64 &- count) &>> 3
                bits |= x &>> UInt64(count)
                reader.position = position &+ n
                count &+= n &<< 3
                return
            }
        }
        store(into: &reader)
        reader.refillSlow(data, end, isFinal)
        self = BitWindow(reader)
    }

    /// ``BitReader/decode(_:)``.
    @inline(__always)
    mutating func decode(_ table: HuffmanLookup, _ reader: inout BitReader) -> Int {
        let entry = table.fast[Int(truncatingIfNeeded: bits &>> UInt64(64 &- HuffmanTable.fastBits))]
        if entry != 0 {
            let length = Int(entry &>> 8)
            bits &<<= UInt64(length)
            count &-= length
            return Int(entry & 0xFF)
        }
        store(into: &reader)
        let symbol = reader.decodeSlow(table)
        self = BitWindow(reader)
        return symbol
    }

    /// ``BitReader/bits(_:)``.
    @inline(__always)
    mutating func bits(_ n: Int) -> Int {
        if n == 0 { return 0 }
        let v = Int(truncatingIfNeeded: bits &>> UInt64(64 &- n))
        bits &<<= UInt64(n)
        count &-= n
        return v
    }

    /// RECEIVE then EXTEND (T.81 F.2.2.1): an `n`-bit magnitude category (0...15) as a signed
    /// value, without branches: the sign of a value is a coin toss, and a branch on it cost the
    /// lossless decoder 40% of its time (n = 0 reads nothing and gives 0).
    @inline(__always)
    mutating func receiveExtend(_ n: Int) -> Int {
        let v = Int(truncatingIfNeeded: (bits &>> 1) &>> UInt64(63 &- n))
        bits &<<= UInt64(n)
        count &-= n
        return v &+ (((v &- ((1 &<< n) &>> 1)) &>> 63) & ((-1 &<< n) &+ 1))
    }

    /// ``BitReader/bit()``.
    @inline(__always)
    mutating func bit() -> Int {
        let v = Int(truncatingIfNeeded: bits &>> 63)
        bits &<<= 1
        count &-= 1
        return v
    }
}
