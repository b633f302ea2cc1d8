/// Where a VP8L bit reader stands in its data: saved between calls so decoding resumes at the
/// same bit when more bytes arrive.
struct VP8LBitState: Sendable, Equatable {
    /// Unread bits, least significant first (bits above `count` are either zero or the bytes
    /// that follow, so reloading them is harmless).
    var value: UInt64 = 0
    /// Valid bits in `value`; negative once more bits were consumed than the data holds.
    var count = 0
    /// The next byte to load.
    var position = 0
}

/// The VP8L bit reader (least significant bit first), refilled 64 bits at a time: while eight
/// bytes remain, one unaligned little-endian load tops `value` up to 56 or more bits.
///
/// libwebp's reader lets a stream shorter than eight bytes read zeros up to 64 bits
/// (`VP8LIsEndOfStream`: `bit_pos_ > 64` once every byte is loaded); ``endPadding`` keeps that.
struct VP8LBitReader {
    let base: UnsafePointer<UInt8>
    let length: Int
    var state: VP8LBitState
    /// Zero bits readable past the end (64 minus the data's bits, when the data is under 8 bytes).
    let endPadding: Int

    /// `complete`: the buffer is the whole stream (only then does the short-stream padding apply).
    init(_ buffer: UnsafeBufferPointer<UInt8>, state: VP8LBitState, complete: Bool = true) {
        // An empty buffer still needs a valid pointer; nothing is ever loaded from it.
        base = buffer.baseAddress ?? UnsafePointer(bitPattern: 1)!
        length = buffer.count
        self.state = state
        endPadding = complete ? max(0, 8 - buffer.count) * 8 : 0
    }

    /// Tops the bit buffer up to at least 32 bits while data remains.
    @inline(__always) mutating func fill() {
        if state.count >= 32 { return }
        if state.position &+ 8 <= length {
            let word = UInt64(littleEndian: UnsafeRawPointer(base + state.position).loadUnaligned(as: UInt64.self))
            state.value |= word &<< UInt64(state.count)
            let bytes = (63 &- state.count) &>> 3
            state.position &+= bytes
            state.count &+= bytes &<< 3
        } else {
            // Out of line and by value: a mutating call would keep the reader in memory in the
            // pixel loop, stored back after every code.
            state = Self.fillSlow(state, base, length)
        }
    }

    @inline(never) static func fillSlow(_ s: VP8LBitState, _ base: UnsafePointer<UInt8>, _ length: Int) -> VP8LBitState {
        var state = s
        guard state.count >= 0 else { return state }
        // Up to 63 bits, as the 8-byte fill (the pixel loop's branch-free refill relies on a
        // count under 64).
        while state.count <= 55 && state.position < length {
            state.value |= UInt64(base[state.position]) &<< UInt64(state.count)
            state.position &+= 1
            state.count &+= 8
        }
        return state
    }

    /// The next bits without consuming them (call ``fill()`` first).
    @inline(__always) var peek: UInt64 { state.value }

    /// Consumes `n` bits (0...32).
    @inline(__always) mutating func skip(_ n: Int) {
        state.value &>>= UInt64(n)
        state.count &-= n
    }

    /// Reads `n` bits (0...32), least significant first.
    @inline(__always) mutating func read(_ n: Int) -> Int {
        fill()
        let v = Int(truncatingIfNeeded: state.value & ((1 &<< UInt64(n)) &- 1))
        skip(n)
        return v
    }

    /// True once more bits were consumed than the data (and libwebp's short-stream padding) holds.
    @inline(__always) var isPastEnd: Bool { state.count &+ endPadding < 0 }

    /// Bits not yet consumed among the bytes available.
    @inline(__always) var bitsLeft: Int { state.count &+ (length &- state.position) &* 8 }

    /// The byte offset (within the data) of the next unread bit, for error messages.
    var byteOffset: Int { Self.byteOffset(state, length: length) }

    static func byteOffset(_ state: VP8LBitState, length: Int) -> Int {
        max(0, min(length, state.position - max(state.count, 0) / 8))
    }
}
