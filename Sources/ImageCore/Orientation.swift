/// EXIF orientation (tag 0x0112): how the stored pixels must be turned to appear upright.
public enum Orientation: Int, Sendable, Equatable, CaseIterable {
    /// Stored upright.
    case up = 1
    /// Stored mirrored left to right; display flips it horizontally.
    case upMirrored = 2
    /// Stored upside down; display turns it 180 degrees.
    case down = 3
    /// Stored mirrored top to bottom; display flips it vertically.
    case downMirrored = 4
    /// Stored transposed (mirrored about the top-left to bottom-right diagonal); display transposes it.
    case leftMirrored = 5
    /// Stored rotated; display turns it 90 degrees clockwise.
    case right = 6
    /// Stored transversed (mirrored about the top-right to bottom-left diagonal); display transverses it.
    case rightMirrored = 7
    /// Stored rotated; display turns it 90 degrees counter-clockwise.
    case left = 8

    /// True for the four orientations that swap width and height.
    public var swapsDimensions: Bool { rawValue >= 5 }
}

extension Image {
    /// The image turned so that it appears upright, per `orientation` (EXIF semantics);
    /// the result's metadata says ``Orientation/up``, its EXIF block too (``EXIF/upright(_:width:height:)``),
    /// so an encoder writing it does not make viewers turn the pixels a second time.
    ///
    /// ```swift
    /// let upright = image.oriented(image.metadata.orientation)
    /// ```
    public func oriented(_ orientation: Orientation) -> Image {
        if orientation == .up { return self }
        let w = width, h = height, bpp = format.bytesPerPixel
        let outW = orientation.swapsDimensions ? h : w
        let outH = orientation.swapsDimensions ? w : h
        var out = Image(width: outW, height: outH, format: format, metadata: metadata)
        out.metadata.orientation = .up
        if let exif = metadata.exif { out.metadata.exif = EXIF.upright(exif, width: outW, height: outH) }
        out.isPremultiplied = isPremultiplied
        if w == 0 || h == 0 { return out }
        pixels.withUnsafeBufferPointer { src in
            out.pixels.withUnsafeMutableBufferPointer { dst in
                for oy in 0 ..< outH {
                    for ox in 0 ..< outW {
                        // Source coordinate that lands at (ox, oy) after the transform.
                        let (sx, sy): (Int, Int)
                        switch orientation {
                        case .up: (sx, sy) = (ox, oy)
                        case .upMirrored: (sx, sy) = (w - 1 - ox, oy)
                        case .down: (sx, sy) = (w - 1 - ox, h - 1 - oy)
                        case .downMirrored: (sx, sy) = (ox, h - 1 - oy)
                        case .leftMirrored: (sx, sy) = (oy, ox)
                        case .right: (sx, sy) = (oy, h - 1 - ox)
                        case .rightMirrored: (sx, sy) = (w - 1 - oy, h - 1 - ox)
                        case .left: (sx, sy) = (w - 1 - oy, ox)
                        }
                        let s = (sy * w + sx) * bpp, d = (oy * outW + ox) * bpp
                        for k in 0 ..< bpp { dst[d + k] = src[s + k] }
                    }
                }
            }
        }
        return out
    }
}
