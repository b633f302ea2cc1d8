import ImageCore

/// The caller's memory a still image is decoded into (``WebPDecoder/decode(_:into:bytesPerRow:format:limits:options:)``).
/// `@unchecked Sendable`: only the private decoder of that call holds it, for the call's length.
struct DirectOutput: @unchecked Sendable {
    let base: UnsafeMutablePointer<UInt8>
    let count: Int
    let bytesPerRow: Int
    let bytesPerPixel: Int

    /// Throws unless a `width` x `height` image fits.
    func check(width: Int, height: Int) throws(WebPError) {
        let row = width * bytesPerPixel
        guard bytesPerRow >= row else { throw .outputTooSmall(what: "row stride", needed: row, available: bytesPerRow) }
        let needed = height == 0 ? 0 : (height - 1) * bytesPerRow + row
        guard count >= needed else { throw .outputTooSmall(what: "buffer", needed: needed, available: count) }
    }
}

extension WebPDecoder {
    /// Decodes a whole WebP held in memory into caller memory, as libwebp's
    /// `WebPDecodeRGBInto` and `WebPDecodeRGBAInto`: no image is allocated, and the same
    /// buffer can take picture after picture.
    ///
    /// `format` is `.rgb8` (alpha dropped) or `.rgba8` (alpha 255 for an image without alpha);
    /// another format is a programming error and traps. Row `y` starts at byte
    /// `y * bytesPerRow`; bytes between the rows are left as they are. An animation gives its
    /// first frame composited on its canvas (the buffer takes the canvas). Returns the header
    /// (its `pixelFormat` is the file's own, as ``decode(_:limits:options:)`` would give).
    /// Throws ``WebPError/outputTooSmall(what:needed:available:)`` when the image does not
    /// fit (for a still, before decoding any pixel), and ``WebPError/incomplete(offset:partial:)`` (without a
    /// partial image; the rows decoded are in the buffer) when the file is cut short.
    ///
    /// ```swift
    /// var pixels = [UInt8](repeating: 0, count: width * height * 3)
    /// let header = try pixels.withUnsafeMutableBytes {
    ///     try WebPDecoder.decode(bytes, into: $0, bytesPerRow: width * 3, format: .rgb8)
    /// }
    /// ```
    public static func decode(_ bytes: [UInt8], into pixels: UnsafeMutableRawBufferPointer, bytesPerRow: Int,
                              format: PixelFormat, limits: DecodingLimits = .default,
                              options: WebPDecodingOptions = .init()) throws(WebPError) -> ImageHeader {
        precondition(format == .rgb8 || format == .rgba8, "WebP decodes into .rgb8 or .rgba8 memory, not \(format)")
        let out = DirectOutput(base: pixels.baseAddress?.assumingMemoryBound(to: UInt8.self) ?? UnsafeMutablePointer(bitPattern: 1)!,
                               count: pixels.count, bytesPerRow: bytesPerRow, bytesPerPixel: format.bytesPerPixel)
        var decoder = WebPDecoder(limits: limits.knowingInputSize(bytes.count), options: options)
        decoder.directOutput = out
        _ = try decoder.append(bytes)
        if decoder.isAnimated {
            // The first frame is composited on the decoder's canvas; copied over at the end.
            let image = try decoder.finish()
            try out.check(width: image.width, height: image.height)
            image.pixels.withUnsafeBufferPointer { src in
                for y in 0 ..< image.height {
                    let s = src.baseAddress! + y * image.width * 4, d = out.base + y * bytesPerRow
                    if out.bytesPerPixel == 4 {
                        d.update(from: s, count: image.width * 4)
                    } else {
                        for x in 0 ..< image.width { d[3 * x] = s[4 * x]; d[3 * x + 1] = s[4 * x + 1]; d[3 * x + 2] = s[4 * x + 2] }
                    }
                }
            }
            return decoder.header!
        }
        _ = try decoder.endInput()
        guard decoder.state == .ended, decoder.imageDone, let header = decoder.header else {
            let error = WebPError.incomplete(offset: decoder.endOffset, partial: nil)
            decoder.failure = error
            throw error
        }
        return header
    }
}
