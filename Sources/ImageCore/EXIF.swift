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
        guard let tiff = TIFF(bytes) else { return nil }
        guard let ifd0 = tiff.ifdOffset(0), let value = tiff.value(tag: 0x0112, inIFDAt: ifd0) else { return .up }
        return Orientation(rawValue: value) ?? .up
    }

    /// The same EXIF block saying the pixels are upright: IFD0's Orientation (0x0112) set to 1,
    /// and the Exif IFD's PixelXDimension and PixelYDimension (0xA002, 0xA003) set to `width`
    /// and `height`, as exiftran leaves a file it has turned. Entries are patched in place (a
    /// SHORT dimension that cannot hold the value stays); bytes that are not a TIFF structure
    /// come back unchanged.
    ///
    /// ```swift
    /// upright.metadata.exif = EXIF.upright(exif, width: upright.width, height: upright.height)
    /// ```
    public static func upright(_ bytes: [UInt8], width: Int, height: Int) -> [UInt8] {
        guard var tiff = TIFF(bytes) else { return bytes }
        let prefix = bytes.count - tiff.bytes.count
        if let ifd0 = tiff.ifdOffset(0) {
            tiff.set(tag: 0x0112, inIFDAt: ifd0, to: 1)
            if let exifIFD = tiff.value(tag: 0x8769, inIFDAt: ifd0), exifIFD > 0, exifIFD < tiff.bytes.count {
                tiff.set(tag: 0xA002, inIFDAt: exifIFD, to: width)
                tiff.set(tag: 0xA003, inIFDAt: exifIFD, to: height)
            }
        }
        return Array(bytes[0 ..< prefix]) + Array(tiff.bytes)
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
    var bytes: ArraySlice<UInt8>
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

    /// Writes `value` into the entry for `tag` in the IFD at `offset`, if it is a SHORT or LONG
    /// held in the entry and the value fits the type.
    mutating func set(tag: Int, inIFDAt offset: Int, to value: Int) {
        guard let count = u16(offset), count < 1000 else { return }
        for k in 0 ..< count {
            let entry = offset + 2 + 12 * k
            guard let entryTag = u16(entry), let type = u16(entry + 2), entry + 12 <= bytes.count else { return }
            guard entryTag == tag else { continue }
            let at = bytes.startIndex + entry + 8
            switch type {
            case 3 where value >= 0 && value <= 0xFFFF:
                let v = UInt16(value)
                bytes[at] = UInt8(little ? v & 0xFF : v >> 8)
                bytes[at + 1] = UInt8(little ? v >> 8 : v & 0xFF)
            case 4 where value >= 0 && value <= 0xFFFF_FFFF:
                let v = UInt32(value)
                for i in 0 ..< 4 {
                    let shift = little ? 8 * i : 8 * (3 - i)
                    bytes[at + i] = UInt8(truncatingIfNeeded: v >> UInt32(shift))
                }
            default:
                break
            }
            return
        }
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
