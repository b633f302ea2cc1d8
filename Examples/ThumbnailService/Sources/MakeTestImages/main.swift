// Writes the end-to-end test's inputs with PureImage's own encoders:
//   photo-12mp.jpg  4000x3000 baseline JPEG: gradients with noise (photo-like size, ~q90)
//   alpha.png       1600x1200 RGBA PNG: colour with a radial alpha falloff to fully transparent
// Usage: make-test-images OUTPUT_DIRECTORY
//        make-test-images --mean-difference A B   (prints the mean |A - B| of their RGB samples)
import PureImage

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A small deterministic generator (xorshift64*), so every run writes the same files.
struct NoiseGenerator {
    var state: UInt64 = 0x9E37_79B9_7F4A_7C15

    mutating func next() -> UInt64 {
        state ^= state >> 12
        state ^= state << 25
        state ^= state >> 27
        return state &* 0x2545_F491_4F6C_DD1D
    }

    /// A value in -amplitude...amplitude.
    mutating func noise(_ amplitude: Int) -> Int {
        Int(next() >> 33) % (2 * amplitude + 1) - amplitude
    }
}

func clamp(_ value: Int) -> UInt8 { UInt8(min(max(value, 0), 255)) }

func makePhoto(width: Int, height: Int) -> Image {
    var image = Image(width: width, height: height, format: .rgb8)
    var random = NoiseGenerator()
    image.pixels.withUnsafeMutableBufferPointer { pixels in
        for y in 0 ..< height {
            for x in 0 ..< width {
                let i = (y * width + x) * 3
                // Diagonal gradients with rings and noise: detail enough for a photo-like file size.
                let ring = ((x - width / 2) * (x - width / 2) + (y - height / 2) * (y - height / 2)) / 9000 % 64
                pixels[i] = clamp(x * 255 / width + ring + random.noise(12))
                pixels[i + 1] = clamp(y * 255 / height - ring / 2 + random.noise(12))
                pixels[i + 2] = clamp((x + y) * 255 / (width + height) + random.noise(12))
            }
        }
    }
    return image
}

func makeAlpha(width: Int, height: Int) -> Image {
    var image = Image(width: width, height: height, format: .rgba8)
    let cx = Double(width) / 2, cy = Double(height) / 2, radius = Double(min(width, height)) / 2
    image.pixels.withUnsafeMutableBufferPointer { pixels in
        for y in 0 ..< height {
            for x in 0 ..< width {
                let i = (y * width + x) * 4
                let dx = Double(x) - cx, dy = Double(y) - cy
                let distance = (dx * dx + dy * dy).squareRoot() / radius
                pixels[i] = clamp(x * 255 / width)
                pixels[i + 1] = clamp(200 - y * 150 / height)
                pixels[i + 2] = 180
                pixels[i + 3] = clamp(Int((1.2 - distance) * 255))
            }
        }
    }
    return image
}

/// Prints `message` on standard error and exits with `status`.
func fail(_ message: String, status: Int32 = 1) -> Never {
    let line = Array("make-test-images: \(message)\n".utf8)
    _ = line.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
    exit(status)
}

func write(_ bytes: [UInt8], to path: String) {
    guard let file = fopen(path, "wb") else { fail("cannot write \(path)") }
    defer { fclose(file) }
    guard fwrite(bytes, 1, bytes.count, file) == bytes.count else { fail("short write to \(path)") }
    print("\(path): \(bytes.count) bytes")
}

let arguments = CommandLine.arguments
if arguments.count == 4 && arguments[1] == "--mean-difference" {
    // make-test-images --mean-difference A B: the mean absolute difference of two images' RGB
    // samples (decoded as stored), or "size" when their sizes differ.
    func load(_ path: String) -> Image {
        guard let file = fopen(path, "rb") else { fail("cannot read \(path)") }
        defer { fclose(file) }
        var bytes: [UInt8] = [], buffer = [UInt8](repeating: 0, count: 65536)
        while case let n = fread(&buffer, 1, buffer.count, file), n > 0 { bytes += buffer[0 ..< n] }
        do { return try ImageSource.decode(bytes).converted(to: .rgb8) } catch { fail("\(path): \(error)") }
    }
    let a = load(arguments[2]), b = load(arguments[3])
    guard a.width == b.width && a.height == b.height else { print("size \(a.width)x\(a.height) \(b.width)x\(b.height)"); exit(0) }
    let total = zip(a.pixels, b.pixels).reduce(0) { $0 + abs(Int($1.0) - Int($1.1)) }
    print(Double(total) / Double(max(a.pixels.count, 1)))
    exit(0)
}
guard arguments.count == 2 else { fail("usage: make-test-images OUTPUT_DIRECTORY", status: 2) }
let directory = arguments[1]
do {
    write(try JPEGEncoder.encode(makePhoto(width: 4000, height: 3000), options: JPEGEncodingOptions(quality: 90)),
          to: directory + "/photo-12mp.jpg")
    write(try PNGEncoder.encode(makeAlpha(width: 1600, height: 1200)), to: directory + "/alpha.png")
} catch {
    fail("\(error)")
}
