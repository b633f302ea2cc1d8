/// CRC-32 (ISO-HDLC, the polynomial of PNG, zlib and gzip), usable without zlib.
///
/// ```swift
/// var crc = CRC32()
/// crc.update(bytes)
/// crc.value      // e.g. 0xCBF43926 for "123456789"
/// ```
public struct CRC32: Sendable, Equatable {
    /// The CRC-32 of every byte passed to ``update(_:)`` so far.
    public private(set) var value: UInt32 = 0

    /// A checksum of no bytes (``value`` 0).
    public init() {}

    @usableFromInline static let table: [UInt32] = (0 ..< 256).map { n in
        var c = UInt32(n)
        for _ in 0 ..< 8 { c = c & 1 != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
        return c
    }

    /// Adds `bytes` to the checksum; feeding data in pieces gives the same ``value`` as feeding it at once.
    public mutating func update(_ bytes: some Sequence<UInt8>) {
        var c = ~value
        CRC32.table.withUnsafeBufferPointer { t in
            for b in bytes { c = t[Int((c ^ UInt32(b)) & 0xFF)] ^ (c >> 8) }
        }
        value = ~c
    }

    /// The CRC-32 of `bytes` in one call.
    ///
    /// ```swift
    /// CRC32.checksum(Array("123456789".utf8))   // 0xCBF43926
    /// ```
    public static func checksum(_ bytes: some Sequence<UInt8>) -> UInt32 {
        var crc = CRC32()
        crc.update(bytes)
        return crc.value
    }
}

extension Image {
    /// A digest of the pixels that does not depend on the storage format: the CRC-32 of the
    /// image converted to RGBA16 with each sample written big-endian. Vector tables record it
    /// (the generator script computes the same with Python's `zlib.crc32`).
    public var rgba16Checksum: UInt32 {
        let rgba = converted(to: .rgba16)
        var crc = CRC32()
        var rowBytes = [UInt8](repeating: 0, count: width * 8)
        rgba.pixels.withUnsafeBytes { raw in
            let samples = raw.bindMemory(to: UInt16.self)
            for y in 0 ..< height {
                for i in 0 ..< width * 4 {
                    let v = samples[y * width * 4 + i]
                    rowBytes[2 * i] = UInt8(v >> 8)
                    rowBytes[2 * i + 1] = UInt8(v & 0xFF)
                }
                crc.update(rowBytes)
            }
        }
        return crc.value
    }
}
