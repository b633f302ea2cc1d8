import ImageCore

/// The sample layout the encoder writes: IHDR's colour type and bit depth (PNG 11.2.2).
struct EncodedLayout: Equatable, Sendable {
    let colorType: PNGColorType
    let bitDepth: Int

    var channels: Int { colorType.channels }
    var bitsPerPixel: Int { channels * bitDepth }
    /// PNG 9.2: the distance in bytes to the corresponding byte of the pixel on the left;
    /// 1 for pixels smaller than a byte.
    var filterBytesPerPixel: Int { max(1, bitsPerPixel / 8) }
    var hasAlpha: Bool { colorType == .grayAlpha || colorType == .rgba }
    var isColor: Bool { colorType == .rgb || colorType == .rgba }

    /// PNG 7.2: rows are padded to a whole byte.
    func bytesPerRow(width: Int) -> Int { (width * bitsPerPixel + 7) / 8 }
}

/// Turns pixels of a ``PixelFormat`` row into the bytes of one PNG scanline (PNG 7.2):
/// big-endian 16-bit samples, channels added or dropped, samples widened or narrowed,
/// sub-byte samples packed most significant bits first, colours mapped to palette indices.
///
/// Lossy requests are refused with ``PNGError/unrepresentable(_:)``: gray from colour only
/// where R == G == B, alpha dropped only where opaque, 1/2/4-bit gray only for values those
/// depths hold exactly. The one lossy step allowed is an explicit 8-bit depth for a 16-bit
/// image, which rounds as ImageCore's `converted(to:)` does.
struct ScanlinePacker: Sendable {
    let source: PixelFormat
    let layout: EncodedLayout
    let palette: PaletteIndex?

    init(source: PixelFormat, layout: EncodedLayout, palette: PaletteIndex?) {
        self.source = source
        self.layout = layout
        self.palette = palette
    }

    /// Packs `count` pixels of `row` (a row in `source` layout), starting at pixel `first`
    /// and taking every `step`-th (Adam7 passes use steps of 8, 4 and 2), into `out`.
    /// `y` only labels errors.
    func pack(row: UnsafeRawPointer, first: Int, step: Int, count: Int, y: Int,
              into out: UnsafeMutablePointer<UInt8>) throws(PNGError) {
        let srcBPP = source.bytesPerPixel
        let sameLayout = layout.colorType != .palette && source.channels == layout.channels
            && source.bitsPerSample == layout.bitDepth
        if sameLayout {
            if step == 1 && !source.is16Bit {
                out.update(from: (row + first * srcBPP).assumingMemoryBound(to: UInt8.self), count: count * srcBPP)
                return
            }
            // Adam7 passes and 16-bit rows: pixel by pixel, samples swapped to big-endian.
            let samples = source.channels
            var o = out
            for k in 0 ..< count {
                let px = row + (first + k * step) * srcBPP
                if source.is16Bit {
                    for ch in 0 ..< samples {
                        let v = px.loadUnaligned(fromByteOffset: 2 * ch, as: UInt16.self)
                        o[0] = UInt8(truncatingIfNeeded: v >> 8)
                        o[1] = UInt8(truncatingIfNeeded: v)
                        o += 2
                    }
                } else {
                    o.update(from: px.assumingMemoryBound(to: UInt8.self), count: srcBPP)
                    o += srcBPP
                }
            }
            return
        }
        switch layout.colorType {
        case .palette:
            try packPalette(row: row, first: first, step: step, count: count, y: y, into: out)
        case .gray where layout.bitDepth < 8:
            try packLowDepthGray(row: row, first: first, step: step, count: count, y: y, into: out)
        default:
            try packSamples(row: row, first: first, step: step, count: count, y: y, into: out)
        }
    }

    /// One pixel's samples at the source depth: gray (or R, G, B) and alpha (max if none).
    @inline(__always)
    private func read(_ px: UnsafeRawPointer) -> (r: UInt32, g: UInt32, b: UInt32, a: UInt32) {
        let channels = source.channels
        @inline(__always) func s(_ ch: Int) -> UInt32 {
            source.is16Bit ? UInt32(px.loadUnaligned(fromByteOffset: 2 * ch, as: UInt16.self))
                           : UInt32(px.load(fromByteOffset: ch, as: UInt8.self))
        }
        let maxValue: UInt32 = source.is16Bit ? 65535 : 255
        let a = source.hasAlpha ? s(channels - 1) : maxValue
        if source.isColor { return (s(0), s(1), s(2), a) }
        let v = s(0)
        return (v, v, v, a)
    }

    /// Checks the lossless conditions shared by every non-palette target and returns the
    /// pixel's samples.
    @inline(__always)
    private func readChecked(_ px: UnsafeRawPointer, x: Int, y: Int) throws(PNGError)
        -> (r: UInt32, g: UInt32, b: UInt32, a: UInt32) {
        let p = read(px)
        if !layout.isColor && source.isColor && (p.r != p.g || p.g != p.b) {
            throw .unrepresentable("gray output needs R == G == B, but pixel (\(x), \(y)) is (\(p.r), \(p.g), \(p.b))")
        }
        if !layout.hasAlpha && source.hasAlpha && p.a != (source.is16Bit ? 65535 : 255) {
            throw .unrepresentable("output without alpha needs an opaque image, but pixel (\(x), \(y)) has alpha \(p.a)")
        }
        return p
    }

    /// A source sample at the output's 8- or 16-bit depth.
    @inline(__always) private func convert(_ v: UInt32) -> UInt32 {
        switch (source.is16Bit, layout.bitDepth == 16) {
        case (false, true): v &* 257
        case (true, false): (v &* 255 &+ 32895) >> 16
        default: v
        }
    }

    private func packSamples(row: UnsafeRawPointer, first: Int, step: Int, count: Int, y: Int,
                             into out: UnsafeMutablePointer<UInt8>) throws(PNGError) {
        let srcBPP = source.bytesPerPixel
        let wide = layout.bitDepth == 16
        var o = 0
        @inline(__always) func put(_ v: UInt32) {
            if wide {
                out[o] = UInt8(truncatingIfNeeded: v >> 8); out[o + 1] = UInt8(truncatingIfNeeded: v); o &+= 2
            } else {
                out[o] = UInt8(truncatingIfNeeded: v); o &+= 1
            }
        }
        for k in 0 ..< count {
            let x = first + k * step
            let p = try readChecked(row + x * srcBPP, x: x, y: y)
            if layout.isColor {
                put(convert(p.r)); put(convert(p.g)); put(convert(p.b))
            } else {
                put(convert(p.r))
            }
            if layout.hasAlpha { put(convert(p.a)) }
        }
    }

    private func packLowDepthGray(row: UnsafeRawPointer, first: Int, step: Int, count: Int, y: Int,
                                  into out: UnsafeMutablePointer<UInt8>) throws(PNGError) {
        let depth = layout.bitDepth
        let levels = UInt32(1 << depth) - 1
        // A d-bit value v stands for v * max / (2^d - 1) (PNG 13.12); max / (2^d - 1) is a
        // whole number for d = 1, 2, 4 and max = 255 or 65535.
        let unit = (source.is16Bit ? 65535 : 255) / levels
        let srcBPP = source.bytesPerPixel
        var acc: UInt32 = 0, filled = 0, o = 0
        for k in 0 ..< count {
            let x = first + k * step
            let v = try readChecked(row + x * srcBPP, x: x, y: y).r
            guard v % unit == 0 else {
                throw .unrepresentable("gray value \(v) at (\(x), \(y)) is not exact at bit depth \(depth)")
            }
            acc = acc << UInt32(depth) | v / unit
            filled &+= depth
            if filled == 8 { out[o] = UInt8(truncatingIfNeeded: acc); o &+= 1; acc = 0; filled = 0 }
        }
        if filled > 0 { out[o] = UInt8(truncatingIfNeeded: acc << UInt32(8 - filled)) }
    }

    private func packPalette(row: UnsafeRawPointer, first: Int, step: Int, count: Int, y: Int,
                             into out: UnsafeMutablePointer<UInt8>) throws(PNGError) {
        guard let palette else { throw .invalidParameter("palette output without a palette") }
        let depth = layout.bitDepth
        let srcBPP = source.bytesPerPixel
        var acc: UInt32 = 0, filled = 0, o = 0
        var lastColor: UInt32 = 0, lastIndex: UInt8 = 0, haveLast = false
        for k in 0 ..< count {
            let x = first + k * step
            let color = PaletteIndex.rgba8(read(row + x * srcBPP), sixteenBit: source.is16Bit)
            let index: UInt8
            if haveLast && color == lastColor {
                index = lastIndex
            } else {
                guard let found = palette.index(of: color) else {
                    throw .unrepresentable("colour at (\(x), \(y)) is not in the palette")
                }
                index = found
                lastColor = color; lastIndex = found; haveLast = true
            }
            if depth == 8 { out[o] = index; o &+= 1; continue }
            acc = acc << UInt32(depth) | UInt32(index)
            filled &+= depth
            if filled == 8 { out[o] = UInt8(truncatingIfNeeded: acc); o &+= 1; acc = 0; filled = 0 }
        }
        if filled > 0 { out[o] = UInt8(truncatingIfNeeded: acc << UInt32(8 - filled)) }
    }
}
