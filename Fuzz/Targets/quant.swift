import ImageCore
import PureQuant
import PureGIF
import PurePNG

// The quantizer and the encode-then-decode round trips of its two users.
// Input: byte 0 picks the colour count (2...256), byte 1 the dithering (none, Floyd-Steinberg,
// ordered), byte 2 the strength (low bits) and the thread count (high bit), byte 3 the width
// (1...64); the rest is RGBA pixels (the last row padded with zeros).
// Asserts: palette size and index bounds; the same result on one thread; the exact mapping
// when the image has no more colours than asked for; a GIF decodes (PureGIF) to the quantized
// pixels of the image with alpha made binary; a PNG8 decodes to the quantized pixels; a
// two-frame animation with few colours decodes to its frames exactly.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size >= 4 else { return 0 }
    let b = Array(UnsafeBufferPointer(start: data, count: size))
    let colors = 2 + Int(b[0]) % 255
    let strength = Float(b[2] & 0x0F % 11) / 10
    let dithering: Dithering = b[1] % 3 == 0 ? .none : b[1] % 3 == 1 ? .floydSteinberg(strength: strength) : .ordered(strength: strength)
    let width = 1 + Int(b[3]) % 64
    let body = b[4...]
    let height = max(1, (body.count / 4 + width - 1) / width)
    var pixels = [UInt8](repeating: 0, count: width * height * 4)
    for (i, v) in body.enumerated() where i < pixels.count { pixels[i] = v }
    let image = Image(width: width, height: height, format: .rgba8, pixels: pixels)
    let options = QuantizationOptions(maxColors: colors, dithering: dithering, threads: b[2] & 0x80 != 0 ? 3 : 1)
    guard let q = try? Quantizer.quantize(image, options: options) else { fatalError("valid options refused") }
    precondition(!q.palette.isEmpty && q.palette.count <= colors, "palette of \(q.palette.count) for \(colors)")
    precondition(q.indices.count == width * height && q.indices.allSatisfy { Int($0) < q.palette.count })
    var single = options
    single.threads = 1
    precondition((try? Quantizer.quantize(image, options: single)) == q, "thread count changed the result")
    // Colours with fully transparent ones as one.
    func normalized(_ px: [UInt8], binary: Bool) -> [UInt8] {
        var out = px
        for p in stride(from: 0, to: out.count, by: 4) {
            let a = out[p + 3]
            if binary ? a < 128 : a == 0 { out[p] = 0; out[p + 1] = 0; out[p + 2] = 0; out[p + 3] = 0 } else if binary { out[p + 3] = 255 }
        }
        return out
    }
    let plain = normalized(pixels, binary: false)
    var distinct = Set<UInt32>()
    for p in stride(from: 0, to: plain.count, by: 4) {
        distinct.insert(UInt32(plain[p]) << 24 | UInt32(plain[p + 1]) << 16 | UInt32(plain[p + 2]) << 8 | UInt32(plain[p + 3]))
    }
    if distinct.count <= colors { precondition(q.rgbaImage().pixels == plain, "not exact with few colours") }

    // GIF: decoded = quantized binary-alpha image.
    let gifOptions = GIFEncodingOptions(maxColors: colors, dithering: dithering, threads: 1)
    guard let gif = try? GIFEncoder.encode(image, options: gifOptions) else { fatalError("GIF encode failed") }
    guard let decoded = try? GIFAnimation(bytes: gif).frame(at: 0) else { fatalError("own GIF does not decode") }
    let binary = Image(width: width, height: height, format: .rgba8, pixels: normalized(pixels, binary: true))
    guard let expected = try? Quantizer.quantize(binary, options: single) else { fatalError("quantize refused") }
    precondition(decoded.pixels == expected.rgbaImage().pixels, "GIF round trip differs")

    // PNG8: decoded = quantized image.
    var png = PNGEncodingOptions(compressionLevel: 1, threads: 1)
    png.quantization = PNGQuantization(maxColors: colors, dithering: dithering)
    guard let file = try? PNGEncoder.encode(image, options: png) else { fatalError("PNG8 encode failed") }
    guard let back = try? PNGDecoder.decode(file).converted(to: .rgba8) else { fatalError("own PNG8 does not decode") }
    precondition(back.pixels == q.rgbaImage().pixels, "PNG8 round trip differs")

    // Animation: the image's halves as two frames; with few colours the frames come back exactly.
    if height >= 2 {
        let h = height / 2
        let top = Image(width: width, height: h, format: .rgba8, pixels: Array(binary.pixels[0 ..< width * h * 4]))
        let bottom = Image(width: width, height: h, format: .rgba8, pixels: Array(binary.pixels[width * h * 4 ..< width * 2 * h * 4]))
        guard var encoder = try? GIFAnimationEncoder(width: width, height: h, options: GIFEncodingOptions(maxColors: colors, dithering: .none, threads: 1)),
              let a = try? encoder.add(top, delayMilliseconds: 30), let c = try? encoder.add(bottom, delayMilliseconds: 30),
              let end = try? encoder.finish() else { fatalError("animation encode failed") }
        guard let animation = try? GIFAnimation(bytes: a + c + end) else { fatalError("own animation does not decode") }
        var frames: [Image] = []
        var it = animation.makeIterator()
        while let f = try? it.nextFrame() { frames.append(f) }
        precondition(frames.count == (top.pixels == bottom.pixels ? 1 : 2), "frame count")
        var few = Set<UInt32>()
        for p in stride(from: 0, to: width * 2 * h * 4, by: 4) {
            few.insert(UInt32(binary.pixels[p]) << 24 | UInt32(binary.pixels[p + 1]) << 16 | UInt32(binary.pixels[p + 2]) << 8 | UInt32(binary.pixels[p + 3]))
        }
        // Each frame's palette holds colors - 1 colours and the transparent entry.
        if few.count < colors {
            precondition(frames[0].pixels == top.pixels, "first frame not exact")
            precondition(frames.last!.pixels == bottom.pixels, "last frame not exact")
        }
    }
    return 0
}
