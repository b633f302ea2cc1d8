/// A cursor over bytes that are all present: reads return `nil` and leave the position
/// alone when the bytes run short (as swift-nio's `ByteBuffer` does). Byte order is in the name.
///
/// ```swift
/// var reader = ByteReader(bytes)
/// guard let length = reader.readUInt32BE(), let type = reader.readBytes(4) else { ... }
/// ```
public struct ByteReader: Sendable {
    /// The bytes being read; ``position`` indexes into them.
    public let bytes: [UInt8]
    /// Index of the next byte to read.
    public private(set) var position: Int
    /// Absolute offset of `bytes[0]` in the whole input (for error reports).
    public let baseOffset: Int

    /// A reader over `bytes` starting at `position` (clamped to `0...bytes.count`).
    /// - Parameters:
    ///   - bytes: The bytes to read, all present.
    ///   - position: Index of the first byte to read.
    ///   - baseOffset: Absolute offset of `bytes[0]` in the whole input, so ``offset`` reports
    ///     positions that a caller can put in an error.
    public init(_ bytes: [UInt8], position: Int = 0, baseOffset: Int = 0) {
        self.bytes = bytes
        self.position = min(max(position, 0), bytes.count)
        self.baseOffset = baseOffset
    }

    /// Bytes left to read.
    @inlinable public var remaining: Int { bytes.count - position }
    /// True when every byte has been read.
    @inlinable public var isAtEnd: Bool { position >= bytes.count }
    /// Absolute offset of the next byte.
    @inlinable public var offset: Int { baseOffset + position }

    /// Reads one byte, or returns nil at the end.
    public mutating func readUInt8() -> UInt8? {
        guard position < bytes.count else { return nil }
        defer { position += 1 }
        return bytes[position]
    }

    /// The byte `delta` bytes after the position (negative looks back), without moving; nil
    /// outside the bytes.
    public func peekUInt8(at delta: Int = 0) -> UInt8? {
        let i = position + delta
        return i >= 0 && i < bytes.count ? bytes[i] : nil
    }

    /// Reads a big-endian 16-bit value, or returns nil (position unchanged) when fewer than 2 bytes remain.
    public mutating func readUInt16BE() -> UInt16? {
        guard remaining >= 2 else { return nil }
        defer { position += 2 }
        return UInt16(bytes[position]) << 8 | UInt16(bytes[position + 1])
    }

    /// Reads a little-endian 16-bit value, or returns nil (position unchanged) when fewer than 2 bytes remain.
    public mutating func readUInt16LE() -> UInt16? {
        guard remaining >= 2 else { return nil }
        defer { position += 2 }
        return UInt16(bytes[position + 1]) << 8 | UInt16(bytes[position])
    }

    /// Reads a big-endian 32-bit value, or returns nil (position unchanged) when fewer than 4 bytes remain.
    public mutating func readUInt32BE() -> UInt32? {
        guard remaining >= 4 else { return nil }
        defer { position += 4 }
        return bytes.readUInt32BE(at: position)
    }

    /// Reads a little-endian 32-bit value, or returns nil (position unchanged) when fewer than 4 bytes remain.
    public mutating func readUInt32LE() -> UInt32? {
        guard remaining >= 4 else { return nil }
        defer { position += 4 }
        return bytes.readUInt32LE(at: position)
    }

    /// Reads `count` bytes as a slice of ``bytes`` (indices are those of ``bytes``), or returns nil
    /// (position unchanged) when fewer remain or `count` is negative.
    public mutating func readBytes(_ count: Int) -> ArraySlice<UInt8>? {
        guard count >= 0, remaining >= count else { return nil }
        defer { position += count }
        return bytes[position ..< position + count]
    }

    /// Moves past `count` bytes; returns false (position unchanged) when fewer remain or `count` is negative.
    @discardableResult
    public mutating func skip(_ count: Int) -> Bool {
        guard count >= 0, remaining >= count else { return false }
        position += count
        return true
    }

    /// Moves to index `position` of ``bytes``, clamped to `0...bytes.count`.
    public mutating func seek(to position: Int) {
        self.position = min(max(position, 0), bytes.count)
    }
}

/// Fixed-width reads and writes on byte arrays, in the byte order their names give, for the
/// codecs' headers, chunks and footers.
extension Array where Element == UInt8 {
    /// Big-endian 32-bit value at `index`; the caller has checked `index + 4 <= count`.
    @inlinable public func readUInt32BE(at index: Int) -> UInt32 {
        UInt32(self[index]) << 24 | UInt32(self[index + 1]) << 16 | UInt32(self[index + 2]) << 8 | UInt32(self[index + 3])
    }
    /// Little-endian 32-bit value at `index`; the caller has checked `index + 4 <= count`.
    @inlinable public func readUInt32LE(at index: Int) -> UInt32 {
        UInt32(self[index + 3]) << 24 | UInt32(self[index + 2]) << 16 | UInt32(self[index + 1]) << 8 | UInt32(self[index])
    }
    /// Appends `value` big-endian.
    @inlinable public mutating func appendUInt32BE(_ value: UInt32) {
        append(UInt8(truncatingIfNeeded: value >> 24)); append(UInt8(truncatingIfNeeded: value >> 16))
        append(UInt8(truncatingIfNeeded: value >> 8)); append(UInt8(truncatingIfNeeded: value))
    }
    /// Appends `value` big-endian.
    @inlinable public mutating func appendUInt16BE(_ value: UInt16) {
        append(UInt8(truncatingIfNeeded: value >> 8)); append(UInt8(truncatingIfNeeded: value))
    }
    /// Appends `value` little-endian.
    @inlinable public mutating func appendUInt32LE(_ value: UInt32) {
        append(UInt8(truncatingIfNeeded: value)); append(UInt8(truncatingIfNeeded: value >> 8))
        append(UInt8(truncatingIfNeeded: value >> 16)); append(UInt8(truncatingIfNeeded: value >> 24))
    }
    /// Appends `value` little-endian.
    @inlinable public mutating func appendUInt16LE(_ value: UInt16) {
        append(UInt8(truncatingIfNeeded: value)); append(UInt8(truncatingIfNeeded: value >> 8))
    }
}
