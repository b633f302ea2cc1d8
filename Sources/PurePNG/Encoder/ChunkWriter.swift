import CZlib

/// Appends PNG chunks to a byte buffer (PNG 5.3): a 4-byte big-endian length, the 4-byte type,
/// the data, and the CRC-32 of type and data (zlib's `crc32`, table-driven and vectorised,
/// several times faster than a byte-at-a-time loop on multi-megabyte IDAT output).
struct ChunkWriter {
    /// Everything written and not yet taken.
    private(set) var bytes: [UInt8] = []

    /// PNG 5.3: a chunk's length is at most 2^31 - 1.
    static let maxChunkLength = Int(Int32.max)

    init() {}

    mutating func writeSignature() { bytes.append(contentsOf: pngSignature) }

    mutating func write(_ type: ChunkType, _ data: UnsafeRawBufferPointer) throws(PNGError) {
        guard data.count <= Self.maxChunkLength else {
            throw .unrepresentable("\(type) chunk of \(data.count) bytes exceeds 2^31-1")
        }
        append(type, data)
    }

    /// Writes a chunk the caller knows to be under the length limit (IDAT blocks of a few KiB).
    mutating func append(_ type: ChunkType, _ data: UnsafeRawBufferPointer) {
        appendBigEndian(UInt32(data.count))
        let typeBytes = type.bytes
        bytes.append(contentsOf: typeBytes)
        bytes.append(contentsOf: data)
        var crc = typeBytes.withUnsafeBufferPointer { crc32(0, $0.baseAddress, 4) }
        if let base = data.baseAddress, data.count > 0 {
            crc = crc32(crc, base.assumingMemoryBound(to: Bytef.self), uInt(data.count))
        }
        appendBigEndian(UInt32(truncatingIfNeeded: crc))
    }

    mutating func write(_ type: ChunkType, _ data: [UInt8]) throws(PNGError) {
        try data.withPNGBytes { (raw) throws(PNGError) in try write(type, raw) }
    }

    /// Returns the bytes written so far and empties the buffer (for streaming output).
    mutating func take() -> [UInt8] {
        let out = bytes
        bytes = []
        return out
    }

    private mutating func appendBigEndian(_ v: UInt32) {
        bytes.append(UInt8(truncatingIfNeeded: v >> 24))
        bytes.append(UInt8(truncatingIfNeeded: v >> 16))
        bytes.append(UInt8(truncatingIfNeeded: v >> 8))
        bytes.append(UInt8(truncatingIfNeeded: v))
    }
}

/// Big-endian field builders for chunk payloads.
extension Array where Element == UInt8 {
    mutating func appendBigEndian32(_ v: UInt32) {
        append(UInt8(truncatingIfNeeded: v >> 24)); append(UInt8(truncatingIfNeeded: v >> 16))
        append(UInt8(truncatingIfNeeded: v >> 8)); append(UInt8(truncatingIfNeeded: v))
    }

    mutating func appendBigEndian16(_ v: UInt16) {
        append(UInt8(truncatingIfNeeded: v >> 8)); append(UInt8(truncatingIfNeeded: v))
    }
}

extension Array where Element == UInt8 {
    /// `withUnsafeBytes` for a body with typed throws (the standard one only `rethrows`,
    /// which widens the error to `any Error`).
    func withPNGBytes<R>(_ body: (UnsafeRawBufferPointer) throws(PNGError) -> R) throws(PNGError) -> R {
        let result: Result<R, PNGError> = withUnsafeBytes { raw in
            Result { () throws(PNGError) -> R in try body(raw) }
        }
        return try result.get()
    }
}
