/// Reading the few things image decoders need from EXIF: a TIFF structure (TIFF 6.0 section 2)
/// of either byte order, as stored in ``ImageMetadata/exif`` (a leading "Exif\0\0" is accepted).
///
/// ```swift
/// if let exif = image.metadata.exif, let jpeg = EXIF.thumbnail(exif) { show(try JPEGDecoder.decode(jpeg)) }
/// ```
public enum EXIF {
    /// The orientation (IFD0 tag 0x0112); `.up` when the tag is absent or out of range, nil
    /// when the bytes are not a TIFF structure.
    public static func orientation(_ bytes: [UInt8]) -> Orientation? {
        guard let tiff = TIFF(bytes), let ifd0 = tiff.ifdOffset(0) else { return nil }
        guard let value = tiff.value(tag: 0x0112, inIFDAt: ifd0) else { return .up }
        return Orientation(rawValue: value) ?? .up
    }

    /// The embedded thumbnail (IFD1's JPEGInterchangeFormat 0x0201 and its length 0x0202), when
    /// it is present, inside the data and starts like a JPEG.
    public static func thumbnail(_ bytes: [UInt8]) -> [UInt8]? {
        guard let tiff = TIFF(bytes), let ifd1 = tiff.ifdOffset(1),
              let offset = tiff.value(tag: 0x0201, inIFDAt: ifd1),
              let length = tiff.value(tag: 0x0202, inIFDAt: ifd1),
              length > 2, offset >= 0, offset + length <= tiff.bytes.count else { return nil }
        let thumbnail = Array(tiff.bytes[offset ..< offset + length])
        return thumbnail.starts(with: [0xFF, 0xD8]) ? thumbnail : nil
    }
}

/// Bounds-checked reads of a TIFF structure.
private struct TIFF {
    let bytes: ArraySlice<UInt8>
    let little: Bool

    init?(_ data: [UInt8]) {
        var slice = data[...]
        if slice.starts(with: [0x45, 0x78, 0x69, 0x66, 0, 0]) { slice = slice.dropFirst(6) }
        slice = ArraySlice(Array(slice))   // rebase indices at 0
        guard slice.count >= 8 else { return nil }
        if slice[0] == 0x49 && slice[1] == 0x49 && slice[2] == 42 && slice[3] == 0 { little = true }
        else if slice[0] == 0x4D && slice[1] == 0x4D && slice[2] == 0 && slice[3] == 42 { little = false }
        else { return nil }
        bytes = slice
    }

    func u16(_ i: Int) -> Int? {
        guard i >= 0, i + 2 <= bytes.count else { return nil }
        let a = Int(bytes[i]), b = Int(bytes[i + 1])
        return little ? a | b << 8 : a << 8 | b
    }

    func u32(_ i: Int) -> Int? {
        guard let lo = u16(little ? i : i + 2), let hi = u16(little ? i + 2 : i) else { return nil }
        return hi << 16 | lo
    }

    /// Offset of IFD number `n` (0 or 1), following the chain from the header.
    func ifdOffset(_ n: Int) -> Int? {
        guard var offset = u32(4) else { return nil }
        for _ in 0 ..< n {
            guard let count = u16(offset), let next = u32(offset + 2 + 12 * count), next != 0, next != offset else { return nil }
            offset = next
        }
        return offset > 0 && offset < bytes.count ? offset : nil
    }

    /// A SHORT or LONG value held in the entry itself.
    func value(tag: Int, inIFDAt offset: Int) -> Int? {
        guard let count = u16(offset), count < 1000 else { return nil }
        for k in 0 ..< count {
            let entry = offset + 2 + 12 * k
            guard let entryTag = u16(entry), let type = u16(entry + 2) else { return nil }
            if entryTag == tag {
                switch type {
                case 3: return u16(entry + 8)    // SHORT
                case 4: return u32(entry + 8)    // LONG
                default: return nil
                }
            }
        }
        return nil
    }
}
