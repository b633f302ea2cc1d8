import ImageCore

/// Turns one unfiltered PNG row (packed samples, big-endian, PNG 7.2) into pixels of the
/// decoder's output format: sub-byte gray widened to 8 bits by bit replication, palette
/// indices looked up, tRNS turned into an alpha channel (PNG 11.3.2.1), 16-bit samples put
/// in host byte order. Chosen once per image; `expand` runs per row with no allocation.
struct RowExpander: Sendable {
    enum Kind: Sendable, Equatable {
        /// 8-bit samples already in the output layout.
        case copy
        /// 16-bit samples: byte-swap to host order.
        case swap16
        /// 1, 2 or 4-bit gray to gray8; with a tRNS value (masked to the depth), to grayAlpha8.
        case grayLow(bits: Int, transparent: Int?)
        /// 8-bit gray + tRNS to grayAlpha8.
        case gray8Key(UInt8)
        /// 16-bit gray + tRNS to grayAlpha16.
        case gray16Key(UInt16)
        /// 8-bit RGB + tRNS to rgba8.
        case rgb8Key(UInt8, UInt8, UInt8)
        /// 16-bit RGB + tRNS to rgba16.
        case rgb16Key(UInt16, UInt16, UInt16)
        /// Palette indices of 1, 2, 4 or 8 bits to rgb8 or rgba8.
        case palette(bits: Int, alpha: Bool)
    }

    let kind: Kind
    /// 256 RGBA entries; entries past the palette are opaque black (as libpng does).
    let table: [UInt8]

    init(info: PNGInfo) {
        var table = [UInt8]()
        let depthMask = info.bitDepth == 16 ? 0xFFFF : (1 << info.bitDepth) - 1
        switch info.colorType {
        case .gray:
            if case let .gray(value)? = info.transparency {
                let key = Int(value) & depthMask
                switch info.bitDepth {
                case 16: kind = .gray16Key(UInt16(key))
                case 8: kind = .gray8Key(UInt8(key))
                default: kind = .grayLow(bits: info.bitDepth, transparent: key)
                }
            } else {
                kind = info.bitDepth == 16 ? .swap16 : info.bitDepth == 8 ? .copy : .grayLow(bits: info.bitDepth, transparent: nil)
            }
        case .rgb:
            if case let .rgb(r, g, b)? = info.transparency {
                kind = info.bitDepth == 16 ? .rgb16Key(r, g, b)
                    : .rgb8Key(UInt8(truncatingIfNeeded: r), UInt8(truncatingIfNeeded: g), UInt8(truncatingIfNeeded: b))
            } else {
                kind = info.bitDepth == 16 ? .swap16 : .copy
            }
        case .palette:
            kind = .palette(bits: info.bitDepth, alpha: info.transparency != nil)
            table = [UInt8](repeating: 0, count: 1024)
            for i in 0 ..< 256 { table[4 * i + 3] = 255 }
            if let palette = info.palette {
                for i in 0 ..< min(palette.rgba.count, 1024) { table[i] = palette.rgba[i] }
            }
        case .grayAlpha, .rgba:
            kind = info.bitDepth == 16 ? .swap16 : .copy
        }
        self.table = table
    }

    /// Expands `width` pixels from `raw` into `out`. `rawBytes` is the row's byte count.
    @inline(__always)
    func expand(_ raw: UnsafePointer<UInt8>, rawBytes: Int, width: Int, into out: UnsafeMutablePointer<UInt8>) {
        switch kind {
        case .copy:
            out.update(from: raw, count: rawBytes)
        case .swap16:
            Self.swap16(raw, samples: rawBytes / 2, into: out)
        case let .grayLow(bits, transparent):
            Self.grayLow(raw, bits: bits, transparent: transparent, width: width, into: out)
        case let .gray8Key(key):
            for x in 0 ..< width {
                let v = raw[x]
                out[2 &* x] = v
                out[2 &* x &+ 1] = v == key ? 0 : 255
            }
        case let .gray16Key(key):
            let o = UnsafeMutableRawPointer(out), r = UnsafeRawPointer(raw)
            for x in 0 ..< width {
                let v = UInt16(bigEndian: r.loadUnaligned(fromByteOffset: 2 &* x, as: UInt16.self))
                o.storeBytes(of: v, toByteOffset: 4 &* x, as: UInt16.self)
                o.storeBytes(of: v == key ? 0 : 0xFFFF, toByteOffset: 4 &* x &+ 2, as: UInt16.self)
            }
        case let .rgb8Key(kr, kg, kb):
            for x in 0 ..< width {
                let r = raw[3 &* x], g = raw[3 &* x &+ 1], b = raw[3 &* x &+ 2]
                out[4 &* x] = r; out[4 &* x &+ 1] = g; out[4 &* x &+ 2] = b
                out[4 &* x &+ 3] = r == kr && g == kg && b == kb ? 0 : 255
            }
        case let .rgb16Key(kr, kg, kb):
            let o = UnsafeMutableRawPointer(out), s = UnsafeRawPointer(raw)
            for x in 0 ..< width {
                let r = UInt16(bigEndian: s.loadUnaligned(fromByteOffset: 6 &* x, as: UInt16.self))
                let g = UInt16(bigEndian: s.loadUnaligned(fromByteOffset: 6 &* x &+ 2, as: UInt16.self))
                let b = UInt16(bigEndian: s.loadUnaligned(fromByteOffset: 6 &* x &+ 4, as: UInt16.self))
                o.storeBytes(of: r, toByteOffset: 8 &* x, as: UInt16.self)
                o.storeBytes(of: g, toByteOffset: 8 &* x &+ 2, as: UInt16.self)
                o.storeBytes(of: b, toByteOffset: 8 &* x &+ 4, as: UInt16.self)
                o.storeBytes(of: r == kr && g == kg && b == kb ? 0 : 0xFFFF, toByteOffset: 8 &* x &+ 6, as: UInt16.self)
            }
        case let .palette(bits, alpha):
            table.withUnsafeBufferPointer { t in
                guard let t = t.baseAddress else { return }
                Self.palette(raw, bits: bits, alpha: alpha, table: t, width: width, into: out)
            }
        }
    }

    /// Big-endian to host 16-bit samples, eight at a time.
    @inline(__always)
    static func swap16(_ raw: UnsafePointer<UInt8>, samples: Int, into out: UnsafeMutablePointer<UInt8>) {
        let r = UnsafeRawPointer(raw), o = UnsafeMutableRawPointer(out)
        var i = 0
        #if _endian(big)
        o.copyMemory(from: r, byteCount: 2 &* samples)
        return
        #endif
        while i &+ 8 <= samples {
            let v = r.loadUnaligned(fromByteOffset: 2 &* i, as: SIMD8<UInt16>.self)
            o.storeBytes(of: (v &<< 8) | (v &>> 8), toByteOffset: 2 &* i, as: SIMD8<UInt16>.self)
            i &+= 8
        }
        while i < samples {
            let v = UInt16(bigEndian: r.loadUnaligned(fromByteOffset: 2 &* i, as: UInt16.self))
            o.storeBytes(of: v, toByteOffset: 2 &* i, as: UInt16.self)
            i &+= 1
        }
    }

    /// 1/2/4-bit gray: the leftmost pixel in the high bits (PNG 7.2); widened by bit
    /// replication (x255, x85, x17), which equals libpng's scaling.
    @inline(__always)
    static func grayLow(_ raw: UnsafePointer<UInt8>, bits: Int, transparent: Int?, width: Int, into out: UnsafeMutablePointer<UInt8>) {
        let mask = (1 << bits) &- 1
        let scale = 255 / mask
        let perByte = 8 / bits
        let key = transparent ?? -1
        let withAlpha = transparent != nil
        var x = 0, j = 0
        while x < width {
            let byte = Int(raw[j])
            var shift = 8 &- bits
            var k = 0
            while k < perByte && x < width {
                let v = (byte &>> shift) & mask
                if withAlpha {
                    out[2 &* x] = UInt8(truncatingIfNeeded: v &* scale)
                    out[2 &* x &+ 1] = v == key ? 0 : 255
                } else {
                    out[x] = UInt8(truncatingIfNeeded: v &* scale)
                }
                shift &-= bits
                k &+= 1
                x &+= 1
            }
            j &+= 1
        }
    }

    @inline(__always)
    static func palette(_ raw: UnsafePointer<UInt8>, bits: Int, alpha: Bool, table: UnsafePointer<UInt8>,
                        width: Int, into out: UnsafeMutablePointer<UInt8>) {
        let t = UnsafeRawPointer(table), o = UnsafeMutableRawPointer(out)
        @inline(__always) func put(_ index: Int, _ x: Int) {
            let e = index &* 4
            if alpha {
                o.storeBytes(of: t.loadUnaligned(fromByteOffset: e, as: UInt32.self), toByteOffset: 4 &* x, as: UInt32.self)
            } else {
                out[3 &* x] = table[e]; out[3 &* x &+ 1] = table[e &+ 1]; out[3 &* x &+ 2] = table[e &+ 2]
            }
        }
        if bits == 8 {
            if alpha {
                for x in 0 ..< width { put(Int(raw[x]), x) }
            } else {
                // A 4-byte store per pixel, one byte spilling into the next pixel which the
                // next store overwrites; the last pixel is written bytewise to stay in bounds.
                var x = 0
                while x &+ 1 < width {
                    o.storeBytes(of: t.loadUnaligned(fromByteOffset: Int(raw[x]) &* 4, as: UInt32.self), toByteOffset: 3 &* x, as: UInt32.self)
                    x &+= 1
                }
                if x < width { put(Int(raw[x]), x) }
            }
            return
        }
        let mask = (1 << bits) &- 1
        let perByte = 8 / bits
        var x = 0, j = 0
        while x < width {
            let byte = Int(raw[j])
            var shift = 8 &- bits
            var k = 0
            while k < perByte && x < width {
                put((byte &>> shift) & mask, x)
                shift &-= bits
                k &+= 1
                x &+= 1
            }
            j &+= 1
        }
    }
}
