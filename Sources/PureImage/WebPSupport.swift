/// Whether the first bytes are a WebP file: `RIFF`, a size, `WEBP`.
@Sendable func isWebP(_ prefix: [UInt8]) -> Bool {
    prefix.count >= 12 && prefix.starts(with: Array("RIFF".utf8)) && prefix[8 ..< 12].elementsEqual("WEBP".utf8)
}

extension WebPDecoder: ImageSourceDecoder {
    /// Always WebP.
    public var detectedFormat: ImageFileFormat { .webp }

    /// Compression (lossy, lossless; with ALPH), and for an animation its loop count and
    /// background colour; where a file cut short ends.
    public var details: [ImageDetail] {
        guard header != nil else { return [] }
        var details: [ImageDetail] = []
        if isAnimated {
            let plays = loopCount.map { $0 == 0 ? "forever" : $0 == 1 ? "once" : "\($0) times" } ?? "once"
            details.append(ImageDetail("animation", "\(frames.count) frames, plays \(plays)"))
            let lossless = frames.filter(\.isLossless).count
            details.append(ImageDetail("compression", "\(lossless) lossless, \(frames.count - lossless) lossy frames"))
            if let background = backgroundColor {
                // Stored as B, G, R, A bytes in a little-endian word.
                let rgba = [background >> 16, background >> 8, background, background >> 24]
                    .map { hex2(UInt8(truncatingIfNeeded: $0)) }.joined()
                details.append(ImageDetail("background colour", "#\(rgba) (not used when compositing)"))
            }
        } else if let lossless = stillIsLossless {
            details.append(ImageDetail("compression", lossless ? "lossless (VP8L)" : stillHasALPH ? "lossy (VP8) with ALPH alpha" : "lossy (VP8)"))
        }
        if !isAtEnd { details.append(ImageDetail("truncated at byte", "\(offset)")) }
        return details
    }

    /// The animation's frames read so far, in the shared terms (empty for a still image).
    public var animationFrames: [AnimationFrameInfo] { isAnimated ? frames.map(\.animationFrameInfo) : [] }
    /// The ANIM loop count in the shared (GIF) terms: 0 forever, N plays are N - 1 loops.
    public var animationLoopCount: Int? {
        guard isAnimated, let plays = loopCount, plays != 1 else { return nil }
        return plays == 0 ? 0 : plays - 1
    }
    /// A WebP is an animation when its VP8X says so.
    public var isAnimation: Bool { isAnimated }
}

private func hex2(_ byte: UInt8) -> String {
    let digits = Array("0123456789abcdef")
    return String([digits[Int(byte >> 4)], digits[Int(byte & 15)]])
}
