import PureQuant

/// GIF89a structures as bytes: header and logical screen descriptor (17, 18), colour tables
/// (19, 21), graphic control (23), image descriptor (20), comment (24), the NETSCAPE2.0 loop
/// extension, trailer (27).
enum BlockWriter {
    static func littleEndian16(_ v: Int, into out: inout [UInt8]) {
        out.append(UInt8(truncatingIfNeeded: v))
        out.append(UInt8(truncatingIfNeeded: v >> 8))
    }

    /// The table size field: entries = 2^(field + 1), at least 2.
    static func sizeField(forEntries n: Int) -> Int {
        var field = 0
        while 2 << field < n { field += 1 }
        return field
    }

    static func header(width: Int, height: Int, globalTable: [RGBAColor]?, into out: inout [UInt8]) {
        out.append(contentsOf: Array("GIF89a".utf8))
        littleEndian16(width, into: &out)
        littleEndian16(height, into: &out)
        if let globalTable {
            // Global table, colour resolution 8 bits, not sorted.
            out.append(0x80 | 0x70 | UInt8(sizeField(forEntries: globalTable.count)))
        } else {
            out.append(0x70)
        }
        out.append(0)  // background colour index
        out.append(0)  // pixel aspect ratio: none given
        if let globalTable { colorTable(globalTable, into: &out) }
    }

    /// RGB triples, padded with black to the power of two the size field says.
    static func colorTable(_ colors: [RGBAColor], into out: inout [UInt8]) {
        let entries = 2 << sizeField(forEntries: colors.count)
        for k in 0 ..< entries {
            let c = k < colors.count ? colors[k] : RGBAColor(r: 0, g: 0, b: 0)
            out.append(c.r); out.append(c.g); out.append(c.b)
        }
    }

    /// NETSCAPE2.0: `count` 0 loops forever.
    static func loop(count: Int, into out: inout [UInt8]) {
        out.append(contentsOf: [0x21, 0xFF, 0x0B])
        out.append(contentsOf: Array("NETSCAPE2.0".utf8))
        out.append(contentsOf: [0x03, 0x01])
        littleEndian16(min(max(count, 0), 65535), into: &out)
        out.append(0)
    }

    /// A comment extension; text past what sub-blocks hold is kept whole (any length).
    static func comment(_ text: String, into out: inout [UInt8]) {
        let bytes = Array(text.utf8)
        guard !bytes.isEmpty else { return }
        out.append(contentsOf: [0x21, 0xFE])
        var i = 0
        while i < bytes.count {
            let n = min(255, bytes.count - i)
            out.append(UInt8(n))
            out.append(contentsOf: bytes[i ..< i + n])
            i += n
        }
        out.append(0)
    }

    /// Disposal: 1 leave in place, 2 restore to background (transparent).
    static func graphicControl(disposal: Int, delayCentiseconds: Int, transparentIndex: Int?, into out: inout [UInt8]) {
        out.append(contentsOf: [0x21, 0xF9, 0x04])
        out.append(UInt8(disposal << 2) | (transparentIndex == nil ? 0 : 1))
        littleEndian16(min(max(delayCentiseconds, 0), 65535), into: &out)
        out.append(UInt8(transparentIndex ?? 0))
        out.append(0)
    }

    static func imageDescriptor(x: Int, y: Int, width: Int, height: Int, localTable: [RGBAColor]?, into out: inout [UInt8]) {
        out.append(0x2C)
        littleEndian16(x, into: &out)
        littleEndian16(y, into: &out)
        littleEndian16(width, into: &out)
        littleEndian16(height, into: &out)
        if let localTable {
            out.append(0x80 | UInt8(sizeField(forEntries: localTable.count)))
            colorTable(localTable, into: &out)
        } else {
            out.append(0)
        }
    }

    static func trailer(into out: inout [UInt8]) { out.append(0x3B) }
}
