/// Every pixel-format conversion in the package lives here, so each codec returns its native
/// layout and callers ask for the one they want.
extension Image {
    /// An image whose samples run 0...2^n - 1 (``ImageMetadata/sampleBits``) scaled to the
    /// format's full range (`v * 65535 / (2^n - 1)`, or `* 255` in an 8-bit format, rounded),
    /// with n recorded as PNG's significant bits; any other image unchanged.
    ///
    /// ```swift
    /// let twelveBit = try JPEGDecoder.decode(bytes)     // samples 0...4095, sampleBits 12
    /// let display = twelveBit.fullRange()               // samples 0...65535
    /// ```
    public func fullRange() -> Image {
        guard hasNarrowSamples, let bits = metadata.sampleBits else { return self }
        var out = self
        out.metadata.sampleBits = nil
        out.metadata.significantBits = [UInt8](repeating: UInt8(bits), count: format.channels)
        let maximum = UInt32(1 << bits) - 1
        if format.is16Bit {
            out.pixels.withUnsafeMutableBytes { raw in
                let samples = raw.bindMemory(to: UInt16.self)
                for i in samples.indices {
                    let v = min(UInt32(samples[i]), maximum)
                    samples[i] = UInt16((v * 65535 + maximum / 2) / maximum)
                }
            }
        } else {
            out.pixels.withUnsafeMutableBufferPointer { samples in
                for i in samples.indices {
                    let v = min(UInt32(samples[i]), maximum)
                    samples[i] = UInt8((v * 255 + maximum / 2) / maximum)
                }
            }
        }
        return out
    }

    /// Whether ``ImageMetadata/sampleBits`` says the samples use less than the format's range
    /// (what ``fullRange()`` widens).
    var hasNarrowSamples: Bool {
        guard let bits = metadata.sampleBits else { return false }
        return bits >= 1 && bits < (format.is16Bit ? 16 : 8)
    }

    /// The image in `target` layout.
    ///
    /// Gray becomes RGB by replication and RGB becomes gray by Rec. 601 luma
    /// ((299 R + 587 G + 114 B) / 1000, rounded); a missing alpha is opaque, a dropped
    /// alpha is simply removed (straight alpha: colour is unchanged); 8-bit samples widen by
    /// `v * 257`, 16-bit samples narrow with rounding (`(v * 255 + 32895) >> 16`).
    ///
    /// ```swift
    /// let rgba = try PNGDecoder.decode(data).converted(to: .rgba8)
    /// ```
    ///
    /// An image with ``ImageMetadata/sampleBits`` is brought to the full range first
    /// (``fullRange()``), unless `target` is its own format.
    public func converted(to target: PixelFormat) -> Image {
        if target == format { return self }
        if hasNarrowSamples { return fullRange().converted(to: target) }
        var out = Image(width: width, height: height, format: target, metadata: metadata)
        out.isPremultiplied = isPremultiplied && target.hasAlpha && format.hasAlpha
        let n = width * height
        if n == 0 { return out }
        let srcChannels = format.channels, dstChannels = target.channels
        let src16 = format.is16Bit, dst16 = target.is16Bit
        pixels.withUnsafeBytes { srcRaw in
            out.pixels.withUnsafeMutableBytes { dstRaw in
                let s8 = srcRaw.bindMemory(to: UInt8.self), d8 = dstRaw.bindMemory(to: UInt8.self)
                let s16 = srcRaw.bindMemory(to: UInt16.self), d16 = dstRaw.bindMemory(to: UInt16.self)
                // Samples are handled as 16-bit values (8-bit ones widened) and narrowed at the end,
                // so one loop serves every pair of formats.
                @inline(__always) func load(_ i: Int) -> UInt32 {
                    src16 ? UInt32(s16[i]) : UInt32(s8[i]) &* 257
                }
                @inline(__always) func store(_ i: Int, _ v: UInt32) {
                    if dst16 { d16[i] = UInt16(truncatingIfNeeded: v) }
                    else { d8[i] = UInt8(truncatingIfNeeded: (v &* 255 &+ 32895) >> 16) }
                }
                let srcColor = format.isColor, dstColor = target.isColor
                let srcAlpha = format.hasAlpha, dstAlpha = target.hasAlpha
                for p in 0 ..< n {
                    let si = p * srcChannels, di = p * dstChannels
                    var r: UInt32, g: UInt32, b: UInt32
                    if srcColor { r = load(si); g = load(si + 1); b = load(si + 2) } else { r = load(si); g = r; b = r }
                    let a: UInt32 = srcAlpha ? load(si + srcChannels - 1) : 65535
                    if dstColor {
                        store(di, r); store(di + 1, g); store(di + 2, b)
                    } else if srcColor {
                        store(di, (r &* 299 &+ g &* 587 &+ b &* 114 &+ 500) / 1000)
                    } else {
                        store(di, r)
                    }
                    if dstAlpha { store(di + dstChannels - 1, a) }
                }
                // 8-to-8 conversions round-trip through 16 bits exactly: (v*257*255 + 32895) >> 16 == v.
                _ = d8; _ = d16
            }
        }
        return out
    }

    /// Colour multiplied by alpha (`c * a / max`, rounded). Images without alpha, or already
    /// premultiplied, are returned as they are.
    public func premultiplied() -> Image {
        guard format.hasAlpha, !isPremultiplied else { return self }
        var out = self
        out.isPremultiplied = true
        let channels = format.channels
        if format.is16Bit {
            out.pixels.withUnsafeMutableBytes { raw in
                let p = raw.bindMemory(to: UInt16.self)
                var i = 0
                while i < p.count {
                    let a = UInt32(p[i + channels - 1])
                    for c in 0 ..< channels - 1 { p[i + c] = UInt16((UInt32(p[i + c]) * a + 32767) / 65535) }
                    i += channels
                }
            }
        } else {
            out.pixels.withUnsafeMutableBufferPointer { p in
                var i = 0
                while i < p.count {
                    let a = UInt32(p[i + channels - 1])
                    for c in 0 ..< channels - 1 { p[i + c] = UInt8((UInt32(p[i + c]) &* a &+ 127) / 255) }
                    i += channels
                }
            }
        }
        return out
    }

    /// Colour divided by alpha: the inverse of ``premultiplied()`` (lossy where alpha is small).
    public func unpremultiplied() -> Image {
        guard format.hasAlpha, isPremultiplied else { return self }
        var out = self
        out.isPremultiplied = false
        let channels = format.channels
        let maxValue: UInt32 = format.is16Bit ? 65535 : 255
        out.pixels.withUnsafeMutableBytes { raw in
            @inline(__always) func run<T: FixedWidthInteger & UnsignedInteger>(_ p: UnsafeMutableBufferPointer<T>) {
                var i = 0
                while i < p.count {
                    let a = UInt32(p[i + channels - 1])
                    for c in 0 ..< channels - 1 {
                        p[i + c] = a == 0 ? 0 : T(min(maxValue, (UInt32(p[i + c]) * maxValue + a / 2) / a))
                    }
                    i += channels
                }
            }
            if format.is16Bit { run(raw.bindMemory(to: UInt16.self)) } else { run(raw.bindMemory(to: UInt8.self)) }
        }
        return out
    }
}

/// A colour table of up to 256 RGBA8 entries (PNG PLTE + tRNS, GIF colour tables).
public struct Palette: Sendable, Equatable {
    /// Entries as R, G, B, A bytes, 4 per entry.
    public var rgba: [UInt8]
    /// A palette from RGBA bytes, 4 per entry; `rgba.count` must be a multiple of 4.
    public init(rgba: [UInt8]) {
        precondition(rgba.count % 4 == 0)
        self.rgba = rgba
    }
    /// A palette from packed RGB triples, alpha 255, optionally with per-entry alphas (tRNS).
    public init(rgb: some Collection<UInt8>, alphas: some Collection<UInt8> = [UInt8]()) {
        let rgbArray = Array(rgb), alphaArray = Array(alphas)
        var rgba = [UInt8]()
        rgba.reserveCapacity(rgbArray.count / 3 * 4)
        for i in 0 ..< rgbArray.count / 3 {
            rgba.append(rgbArray[3 * i]); rgba.append(rgbArray[3 * i + 1]); rgba.append(rgbArray[3 * i + 2])
            rgba.append(i < alphaArray.count ? alphaArray[i] : 255)
        }
        self.rgba = rgba
    }
    /// Number of entries.
    public var count: Int { rgba.count / 4 }
    /// True when some entry is not fully opaque.
    public var hasTransparency: Bool { stride(from: 3, to: rgba.count, by: 4).contains { rgba[$0] != 255 } }

    /// Expands `indices` into `output` as RGB (3 bytes) or RGBA (4 bytes) per pixel. Indices
    /// beyond the palette give opaque black (as libpng and browsers do). Returns nothing;
    /// `output` must hold `indices.count * (alpha ? 4 : 3)` bytes.
    @inlinable
    public func expand(_ indices: UnsafeBufferPointer<UInt8>, into output: UnsafeMutableBufferPointer<UInt8>, alpha: Bool) {
        var table = [UInt8](repeating: 0, count: 256 * 4)
        for i in 0 ..< 256 { table[4 * i + 3] = 255 }
        for i in 0 ..< min(count, 256) * 4 { table[i] = rgba[i] }
        let stride = alpha ? 4 : 3
        precondition(output.count >= indices.count * stride)
        table.withUnsafeBufferPointer { t in
            var o = 0
            for index in indices {
                let e = Int(index) &* 4
                output[o] = t[e]; output[o &+ 1] = t[e &+ 1]; output[o &+ 2] = t[e &+ 2]
                if alpha { output[o &+ 3] = t[e &+ 3] }
                o &+= stride
            }
        }
    }
}
