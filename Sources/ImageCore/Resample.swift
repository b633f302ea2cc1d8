/// Area-average reduction: each output pixel is the mean of the source area it covers
/// (fractional coverage at the edges), colour weighted by alpha so transparent pixels do not
/// darken edges. Only shrinks; for the factors JPEG's DCT scaling cannot reach.
extension Image {
    /// The image shrunk (aspect kept) so its longer side is at most `maxPixelSize`.
    ///
    /// ```swift
    /// let thumbnail = image.downsampled(maxPixelSize: 256)
    /// ```
    public func downsampled(maxPixelSize: Int) -> Image {
        let longer = max(width, height)
        guard maxPixelSize > 0, longer > maxPixelSize else { return self }
        let scale = Double(maxPixelSize) / Double(longer)
        let w = max(1, Int((Double(width) * scale).rounded())), h = max(1, Int((Double(height) * scale).rounded()))
        return downsampled(width: w, height: h)
    }

    /// The image reduced to `width` x `height` by area averaging (each no larger than now).
    public func downsampled(width newWidth: Int, height newHeight: Int) -> Image {
        let outW = min(max(newWidth, 1), width), outH = min(max(newHeight, 1), height)
        if outW == width && outH == height { return self }
        var out = Image(width: outW, height: outH, format: format, metadata: metadata)
        out.isPremultiplied = isPremultiplied
        guard width > 0, height > 0 else { return out }
        let channels = format.channels, alphaIndex = format.hasAlpha && !isPremultiplied ? channels - 1 : -1
        let xTaps = Self.areaTaps(from: width, to: outW), yTaps = Self.areaTaps(from: height, to: outH)
        let maxValue = format.is16Bit ? 65535.0 : 255.0
        // Horizontal pass per source row into doubles (colour premultiplied by alpha), then
        // vertical accumulation per output row.
        var rowH = [Double](repeating: 0, count: outW * channels)
        var acc = [Double](repeating: 0, count: outW * channels)
        pixels.withUnsafeBytes { raw in
            let s8 = raw.bindMemory(to: UInt8.self), s16 = raw.bindMemory(to: UInt16.self)
            let sixteen = format.is16Bit
            out.pixels.withUnsafeMutableBytes { outRaw in
                let d8 = outRaw.bindMemory(to: UInt8.self), d16 = outRaw.bindMemory(to: UInt16.self)
                for oy in 0 ..< outH {
                    for i in acc.indices { acc[i] = 0 }
                    for (sy, wy) in yTaps[oy] {
                        for i in rowH.indices { rowH[i] = 0 }
                        let base = sy * width * channels
                        for ox in 0 ..< outW {
                            for (sx, wx) in xTaps[ox] {
                                let p = base + sx * channels
                                let a = alphaIndex >= 0 ? (sixteen ? Double(s16[p + alphaIndex]) : Double(s8[p + alphaIndex])) / maxValue : 1
                                for c in 0 ..< channels {
                                    let v = sixteen ? Double(s16[p + c]) : Double(s8[p + c])
                                    rowH[ox * channels + c] += wx * (c == alphaIndex ? v : v * a)
                                }
                            }
                        }
                        for i in 0 ..< acc.count { acc[i] += wy * rowH[i] }
                    }
                    for ox in 0 ..< outW {
                        let p = ox * channels
                        let a = alphaIndex >= 0 ? acc[p + alphaIndex] / maxValue : 1
                        for c in 0 ..< channels {
                            var v = acc[p + c]
                            if c != alphaIndex && alphaIndex >= 0 { v = a > 0 ? v / a : 0 }
                            v = min(max(v.rounded(), 0), maxValue)
                            let o = (oy * outW + ox) * channels + c
                            if sixteen { d16[o] = UInt16(v) } else { d8[o] = UInt8(v) }
                        }
                    }
                }
            }
        }
        return out
    }

    /// For each output index, the source indices it covers and their weights (summing to 1).
    static func areaTaps(from source: Int, to target: Int) -> [[(Int, Double)]] {
        let ratio = Double(source) / Double(target)
        return (0 ..< target).map { o in
            let start = Double(o) * ratio, end = Double(o + 1) * ratio
            var taps: [(Int, Double)] = []
            var s = Int(start)
            while Double(s) < end && s < source {
                let covered = min(end, Double(s + 1)) - max(start, Double(s))
                if covered > 1e-12 { taps.append((s, covered / ratio)) }
                s += 1
            }
            return taps
        }
    }
}
