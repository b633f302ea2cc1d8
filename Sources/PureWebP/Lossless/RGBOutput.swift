/// ARGB words to the bytes of an RGB image (lossless rows into a `WebPDecoder` image).
enum VP8LOutput {
    /// One ARGB word as the little-endian word R, G, B, A (its bytes in memory order).
    @inline(__always) static func rgba(_ argb: UInt32) -> UInt32 {
        UInt32(littleEndian: (argb & 0xFF00_FF00) | ((argb &>> 16) & 0xFF) | ((argb & 0xFF) &<< 16))
    }

    /// `count` pixels of `src` as R, G, B bytes at `dst` (3 * `count` bytes, all written, none
    /// past them): four pixels a vector while at least one more follows, then `rgbScalar`.
    static func rgb(_ src: UnsafePointer<UInt32>, count: Int, into dst: UnsafeMutableRawPointer) {
        var x = 0
        // Each group of four writes 14 bytes (two 8-byte stores, 6 apart): the two past its
        // 12 belong to the next pixel, which is written after.
        while x &+ 4 < count {
            let v = UnsafeRawPointer(src + x).loadUnaligned(as: SIMD4<UInt32>.self)
            let w = (v & 0x0000_FF00) | ((v &>> 16) & 0xFF) | ((v & 0xFF) &<< 16)
            // Per 64-bit lane (two pixels, RGB0 RGB0): the second pixel's RGB moved down a byte.
            let q = unsafeBitCast(w, to: SIMD2<UInt64>.self)
            let packed = (q & 0x00FF_FFFF) | ((q &>> 8) & 0xFFFF_FF00_0000)
            dst.storeBytes(of: UInt64(littleEndian: packed[0]), toByteOffset: 3 &* x, as: UInt64.self)
            dst.storeBytes(of: UInt64(littleEndian: packed[1]), toByteOffset: 3 &* x &+ 6, as: UInt64.self)
            x &+= 4
        }
        rgbScalar(src + x, count: count &- x, into: dst + 3 &* x)
    }

    /// The scalar twin of `rgb`: one 4-byte store a pixel (the fourth byte overwritten by the
    /// next pixel), the last pixel byte by byte.
    static func rgbScalar(_ src: UnsafePointer<UInt32>, count: Int, into dst: UnsafeMutableRawPointer) {
        guard count > 0 else { return }
        var d = dst
        for x in 0 ..< count &- 1 {
            d.storeBytes(of: rgba(src[x]), as: UInt32.self)
            d += 3
        }
        let last = rgba(src[count &- 1])
        d.storeBytes(of: UInt8(truncatingIfNeeded: last), as: UInt8.self)
        d.storeBytes(of: UInt8(truncatingIfNeeded: last >> 8), toByteOffset: 1, as: UInt8.self)
        d.storeBytes(of: UInt8(truncatingIfNeeded: last >> 16), toByteOffset: 2, as: UInt8.self)
    }
}
