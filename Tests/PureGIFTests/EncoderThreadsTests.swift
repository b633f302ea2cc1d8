import Testing
import ImageCore
import PureQuant
@testable import PureGIF

/// The encoder's threads (LZW data coded beside the next frame, the dither map and plain remap
/// beside each other) must not change a byte: a dithered animation, large enough for every
/// thread to run, on one thread and on two.
@Suite struct GIFEncoderThreadsTests {
    /// `Vectors/gif-encode/mandelbrot_144x128x6.rgba` (ffmpeg's lavfi mandelbrot, see make.sh).
    static func frames() throws -> [Image] {
        let bytes = try TestVectors.bytes("gif-encode/mandelbrot_144x128x6.rgba")
        let size = 144 * 128 * 4
        #expect(bytes.count == 6 * size)
        return (0 ..< bytes.count / size).map { k in
            Image(width: 144, height: 128, format: .rgba8, pixels: Array(bytes[k * size ..< (k + 1) * size]))
        }
    }

    private func encode(_ frames: [Image], threads: Int, palette: [RGBAColor]?) throws -> [UInt8] {
        let options = GIFEncodingOptions(threads: threads)
        var encoder = if let palette {
            try GIFAnimationEncoder(width: 144, height: 128, options: options, globalPalette: palette)
        } else {
            try GIFAnimationEncoder(width: 144, height: 128, options: options)
        }
        var gif: [UInt8] = []
        for f in frames { gif += try encoder.add(f, delayMilliseconds: 100) }
        gif += try encoder.finish()
        return gif
    }

    @Test func sameBytesOnOneThreadAndTwo() throws {
        let frames = try Self.frames()
        // Frame by frame (the first frame's palette), and with one palette for all frames (as
        // `encode(animation:)` makes it).
        var palette = try Quantizer.palette(for: frames[3], options: QuantizationOptions(maxColors: 255))
        palette.append(RGBAColor(r: 0, g: 0, b: 0, a: 0))
        for preset in [nil, palette] {
            let one = try encode(frames, threads: 1, palette: preset)
            let two = try encode(frames, threads: 2, palette: preset)
            let four = try encode(frames, threads: 4, palette: preset)
            #expect(one == two)
            #expect(one == four)
            let animation = try GIFAnimation(bytes: two)
            #expect(animation.frames.count == 6)
            // Lossy but close: every decoded frame within 30 dB of its source.
            var iterator = animation.makeIterator()
            var k = 0
            while let decoded = try iterator.nextFrame() {
                var sum = 0
                for i in 0 ..< decoded.pixels.count { let d = Int(decoded.pixels[i]) - Int(frames[k].pixels[i]); sum += d * d }
                #expect(Double(sum) / Double(decoded.pixels.count) < 65)
                k += 1
            }
            #expect(k == 6)
        }
    }
}
