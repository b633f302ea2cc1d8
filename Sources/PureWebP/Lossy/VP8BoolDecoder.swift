/// Where a boolean decoder stands in its partition: everything but the bytes, so a decoder can be
/// saved between calls (and copied to roll back) while the bytes move.
struct VP8BoolState: Sendable, Equatable {
    /// Bits read ahead, the top `bits + 8` of which are live.
    var value: UInt64 = 0
    /// Number of look-ahead bits beyond the 8-bit window; negative means a load is due.
    var bits: Int = -8
    /// The range minus one, in 127...254 between calls.
    var range: UInt32 = 254
    /// Offset of the next byte to load, from the payload start.
    var position: Int
    /// Offset one past the partition's last byte, from the payload start.
    var end: Int
    /// Whether the decoder needed a byte past `end` (it then reads zeros, as libwebp does).
    var eof = false

    init(position: Int, end: Int) {
        self.position = position
        self.end = end
    }
}

/// The VP8 boolean entropy decoder (RFC 6386 section 7), bit-exact with libwebp's VP8BitReader:
/// it loads 7 bytes at a time while 8 remain, then single bytes, and at the end of the partition
/// shifts in one zero byte and sets `eof` (libwebp's `eof_`), after which it keeps returning bits
/// without reading. Built on the stack from a `VP8BoolState` over the current bytes.
struct VP8BoolDecoder {
    var value: UInt64
    var bits: Int
    var range: UInt32
    var position: Int
    let end: Int
    var eof: Bool
    let bytes: UnsafePointer<UInt8>
    /// `normalization` (libwebp's kVP8Log2Range and kVP8NewRange in one table).
    let norm: UnsafePointer<UInt16>

    @inline(__always)
    init(_ state: VP8BoolState, _ bytes: UnsafePointer<UInt8>) {
        value = state.value
        bits = state.bits
        range = state.range
        position = state.position
        end = state.end
        eof = state.eof
        self.bytes = bytes
        norm = Self.normalization
    }

    /// For a range r in 1...255 after a decision: the shift that brings it to 128...255 (high
    /// byte) and the shifted range minus one (low byte). Entry 0 is never used (r >= 1).
    nonisolated(unsafe) static let normalization: UnsafePointer<UInt16> = {
        let table = UnsafeMutablePointer<UInt16>.allocate(capacity: 256)
        table[0] = 0
        for r in 1 ..< 256 {
            let shift = UInt32(r).leadingZeroBitCount - 24
            table[r] = UInt16(shift << 8 | ((r << shift) - 1))
        }
        return UnsafePointer(table)
    }()

    /// A decoder at the start of `start ..< end` (offsets into `bytes`), with its first byte loaded.
    static func start(_ bytes: UnsafePointer<UInt8>, _ start: Int, _ end: Int) -> VP8BoolState {
        var decoder = VP8BoolDecoder(VP8BoolState(position: start, end: end), bytes)
        decoder.loadNewBytes()
        return decoder.state
    }

    @inline(__always)
    var state: VP8BoolState {
        var s = VP8BoolState(position: position, end: end)
        s.value = value
        s.bits = bits
        s.range = range
        s.eof = eof
        return s
    }

    /// Takes on where `d`, a local copy of this decoder, has read to: only the fields that
    /// change (a whole-struct write-back stores the constant fields and padding too).
    @inline(__always)
    mutating func advance(to d: VP8BoolDecoder) {
        value = d.value
        bits = d.bits
        range = d.range
        position = d.position
        eof = d.eof
    }

    @inline(__always)
    mutating func loadNewBytes() {
        if position &+ 8 <= end {
            let raw = UnsafeRawPointer(bytes + position).loadUnaligned(as: UInt64.self)
            let word = UInt64(bigEndian: raw) &>> 8
            position &+= 7
            value = word | (value &<< 56)
            bits &+= 56
        } else {
            // Out of line and by value: the decoder's fields stay in registers in the token
            // loops (a mutating call would pin the struct to memory, stored at every bit).
            (value, bits, position, eof) = Self.finalBytes(value, bits, position, end, eof, bytes)
        }
    }

    @inline(never)
    static func finalBytes(_ value: UInt64, _ bits: Int, _ position: Int, _ end: Int, _ eof: Bool,
                           _ bytes: UnsafePointer<UInt8>) -> (UInt64, Int, Int, Bool) {
        if position < end {
            return ((value &<< 8) | UInt64(bytes[position]), bits &+ 8, position &+ 1, eof)
        } else if !eof {
            return (value &<< 8, bits &+ 8, position, true)
        }
        return (value, 0, position, eof)
    }

    /// One bool whose probability of being 0 is `probability / 256`.
    @inline(__always)
    mutating func bit(_ probability: UInt32) -> Bool {
        if bits < 0 { loadNewBytes() }
        let pos = UInt64(truncatingIfNeeded: bits)
        let split = (range &* probability) &>> 8
        let window = UInt32(truncatingIfNeeded: value &>> pos)
        let result = window > split
        let r: UInt32
        if result {
            r = range &- split
            value = value &- (UInt64(split &+ 1) &<< pos)
        } else {
            r = split &+ 1
        }
        // One table look-up for the normalisation shift and the new range (r is 1...255).
        let e = UInt32(norm[Int(truncatingIfNeeded: r)])
        bits &-= Int(truncatingIfNeeded: e &>> 8)
        range = e & 0xFF
        return result
    }

    @inline(__always)
    mutating func bit(_ probability: UInt8) -> Bool { bit(UInt32(probability)) }

    /// An unsigned `count`-bit literal, most significant bit first, each at probability 1/2.
    mutating func literal(_ count: Int) -> Int {
        var v = 0
        for _ in 0 ..< count { v = (v << 1) | (bit(UInt32(0x80)) ? 1 : 0) }
        return v
    }

    /// A `count`-bit magnitude followed by a sign bit.
    mutating func signedLiteral(_ count: Int) -> Int {
        let v = literal(count)
        return bit(UInt32(0x80)) ? -v : v
    }

    /// A flag, then a signed `count`-bit value if it is set (else 0).
    mutating func optionalSigned(_ count: Int) -> Int {
        bit(UInt32(0x80)) ? signedLiteral(count) : 0
    }

    /// `v` with a sign read at probability 1/2 (libwebp's VP8GetSigned).
    @inline(__always)
    mutating func signed(_ v: Int) -> Int {
        // bit(0x80) without the multiply and the normalisation (the range halves, so exactly
        // one shift), as libwebp's VP8GetSigned.
        if bits < 0 { loadNewBytes() }
        let pos = UInt64(truncatingIfNeeded: bits)
        let split = range &>> 1
        let window = UInt32(truncatingIfNeeded: value &>> pos)
        let mask = Int32(bitPattern: split &- window) &>> 31
        bits &-= 1
        range = (range &+ UInt32(bitPattern: mask)) | 1
        value = value &- (UInt64((split &+ 1) & UInt32(bitPattern: mask)) &<< pos)
        let m = Int(mask)
        return (v ^ m) &- m
    }
}
