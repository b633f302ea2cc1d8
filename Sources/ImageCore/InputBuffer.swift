/// The bytes an incremental decoder has received but not yet consumed.
///
/// `append` adds bytes as they arrive; the decoder reads from ``unread`` and calls
/// ``consume(_:)`` for what it is done with. Consumed bytes are discarded (the storage is
/// compacted once they are the larger part), so a decoder owns only the bytes it still needs
/// and the total cost of feeding stays linear in the input, whatever the chunking.
public struct InputBuffer: Sendable {
    @usableFromInline var storage: [UInt8] = []
    @usableFromInline var start = 0
    /// Bytes consumed since the beginning of the input: the absolute offset of `unread.first`.
    @usableFromInline var _consumed = 0
    /// Bytes consumed since the beginning of the input: the absolute offset of the first unread byte.
    public var consumedTotal: Int { _consumed }
    /// True once the caller said no more bytes will come.
    public var isFinished = false

    /// An empty buffer.
    public init() {}

    /// Number of unread bytes.
    @inlinable public var count: Int { storage.count - start }
    /// True when no bytes are unread.
    @inlinable public var isEmpty: Bool { count == 0 }

    /// Absolute offset of the byte `delta` bytes into the unread part.
    @inlinable public func offset(_ delta: Int = 0) -> Int { _consumed + delta }

    /// Adds bytes that arrived, compacting away the consumed ones first when they are at least half
    /// of the storage (amortized linear cost).
    public mutating func append<C: Collection>(contentsOf bytes: C) where C.Element == UInt8 {
        if start > 0 && start >= storage.count / 2 {
            storage.removeSubrange(0 ..< start)
            start = 0
        }
        storage.append(contentsOf: bytes)
    }

    /// ``append(contentsOf:)`` for an array: when no byte is held the array's storage is shared,
    /// not copied (a whole file handed over in one piece costs no copy).
    public mutating func append(_ bytes: [UInt8]) {
        if storage.isEmpty { storage = bytes } else { append(contentsOf: bytes) }
    }

    /// The unread bytes.
    @inlinable public var unread: ArraySlice<UInt8> { storage[start...] }

    /// Unread byte at `delta`; the caller has checked `delta < count`.
    @inlinable public subscript(delta: Int) -> UInt8 { storage[start + delta] }

    /// Calls `body` with a pointer to the unread bytes.
    @inlinable public func withUnsafeUnread<R>(_ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
        try storage.withUnsafeBufferPointer { buffer in
            try body(UnsafeBufferPointer(rebasing: buffer[start...]))
        }
    }

    /// Big-endian 32-bit value at `delta`, or nil when fewer than `delta + 4` bytes are unread.
    @inlinable public func uint32BE(at delta: Int) -> UInt32? {
        guard delta >= 0, count >= delta + 4 else { return nil }
        return storage.readUInt32BE(at: start + delta)
    }

    /// Copies `length` unread bytes from `delta`, or nil when they have not all arrived.
    public func bytes(at delta: Int, count length: Int) -> [UInt8]? {
        guard delta >= 0, length >= 0, count >= delta + length else { return nil }
        return Array(storage[start + delta ..< start + delta + length])
    }

    /// Marks `n` bytes as consumed.
    @inlinable public mutating func consume(_ n: Int) {
        precondition(n >= 0 && n <= count, "consume past the unread bytes")
        start += n
        _consumed += n
        if start == storage.count {
            storage.removeAll(keepingCapacity: true)
            start = 0
        }
    }
}
