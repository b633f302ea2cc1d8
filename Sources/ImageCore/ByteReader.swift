/// A cursor over bytes that are all present: reads return `nil` and leave the position
/// alone when the bytes run short (as swift-nio's `ByteBuffer` does). Byte order is in the name.
///
/// ```swift
/// var reader = ByteReader(bytes)
/// guard let length = reader.readUInt32BE(), let type = reader.readBytes(4) else { ... }
/// ```
public struct ByteReader: Sendable {
    public let bytes: [UInt8]
    /// Index of the next byte to read.
    public private(set) var position: Int
    /// Absolute offset of `bytes[0]` in the whole input (for error reports).
    public let baseOffset: Int

    public init(_ bytes: [UInt8], position: Int = 0, baseOffset: Int = 0) {
        self.bytes = bytes
        self.position = min(max(position, 0), bytes.count)
        self.baseOffset = baseOffset
    }

    @inlinable public var remaining: Int { bytes.count - position }
    @inlinable public var isAtEnd: Bool { position >= bytes.count }
    /// Absolute offset of the next byte.
    @inlinable public var offset: Int { baseOffset + position }

    public mutating func readUInt8() -> UInt8? {
        guard position < bytes.count else { return nil }
        defer { position += 1 }
        return bytes[position]
    }

    public func peekUInt8(at delta: Int = 0) -> UInt8? {
        let i = position + delta
        return i >= 0 && i < bytes.count ? bytes[i] : nil
    }

    public mutating func readUInt16BE() -> UInt16? {
        guard remaining >= 2 else { return nil }
        defer { position += 2 }
        return UInt16(bytes[position]) << 8 | UInt16(bytes[position + 1])
    }

    public mutating func readUInt16LE() -> UInt16? {
        guard remaining >= 2 else { return nil }
        defer { position += 2 }
        return UInt16(bytes[position + 1]) << 8 | UInt16(bytes[position])
    }

    public mutating func readUInt32BE() -> UInt32? {
        guard remaining >= 4 else { return nil }
        defer { position += 4 }
        return bytes.readUInt32BE(at: position)
    }

    public mutating func readUInt32LE() -> UInt32? {
        guard remaining >= 4 else { return nil }
        defer { position += 4 }
        return bytes.readUInt32LE(at: position)
    }

    public mutating func readBytes(_ count: Int) -> ArraySlice<UInt8>? {
        guard count >= 0, remaining >= count else { return nil }
        defer { position += count }
        return bytes[position ..< position + count]
    }

    @discardableResult
    public mutating func skip(_ count: Int) -> Bool {
        guard count >= 0, remaining >= count else { return false }
        position += count
        return true
    }

    public mutating func seek(to position: Int) {
        self.position = min(max(position, 0), bytes.count)
    }
}

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
