// Everything an app does with PureImage, through `import PureImage` alone: decode any format,
// encode JPEG, PNG and JPNG, walk a GIF's frames, tile a large image, and decode from async
// sequences of pieces and of single bytes. Exits non-zero if any result differs.
import Foundation
import PureImage

var failures = 0
@MainActor func check(_ condition: Bool, _ what: String) {
    print((condition ? "ok   " : "FAIL ") + what)
    if !condition { failures += 1 }
}

// A photograph-like RGBA image: colour ramps under a soft disc of alpha.
var image = Image(width: 300, height: 200, format: .rgba8)
for y in 0 ..< 200 {
    for x in 0 ..< 300 {
        let dx = Double(x - 150), dy = Double(y - 100)
        let i = 4 * (y * 300 + x)
        image.pixels[i] = UInt8(x * 255 / 300)
        image.pixels[i + 1] = UInt8(y * 255 / 200)
        image.pixels[i + 2] = UInt8((x + y) % 256)
        image.pixels[i + 3] = UInt8(max(0, min(255, Int((90 - (dx * dx + dy * dy).squareRoot()) * 20))))
    }
}

let png = try PNGEncoder.encode(image)
let jpeg = try JPEGEncoder.encode(image.converted(to: .rgb8), options: JPEGEncodingOptions(quality: 85))
let jpng = try JPNGEncoder.encode(image)
check(try ImageSource.decode(png) == image, "PNG round trip is lossless")
check(try ImageSource.decode(jpeg).width == 300, "JPEG decodes through ImageSource")
check(try ImageSource.decode(jpng).format == .rgba8, "JPNG keeps its alpha")

let thumbnail = try ImageSource.decode(jpeg, options: ImageSourceOptions(maxPixelSize: 64))
check(max(thumbnail.width, thumbnail.height) == 64, "a 64-pixel thumbnail")

// A GIF's frames, composited as browsers show them.
let gifPath = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("Vectors/gif/anim_local_tables_interlaced.gif")
let gif = [UInt8](try Data(contentsOf: gifPath))
let animation = try GIFAnimation(bytes: gif)
check(Array(animation).count == animation.frames.count && animation.frames.count > 1, "GIFAnimation walks every frame")
check(try ImageSource.animation(gif)?.frameInfo.count == animation.frames.count, "ImageSource hands out the animation")

// A Deep Zoom pyramid.
let folder = FileManager.default.temporaryDirectory.appendingPathComponent("quickstart-\(getpid())").path
var builder = TilePyramidBuilder(directory: folder, name: "photo", options: TilePyramidOptions(tileSize: 128))
try builder.append(jpeg)
let pyramid = try builder.finish()
check(pyramid.width == 300 && pyramid.levels == 10, "TilePyramidBuilder writes a Deep Zoom pyramid")
try? FileManager.default.removeItem(atPath: folder)

// Async: pieces (what HTTP bodies give) and single bytes (what URLSession.bytes gives).
for (name, bytes) in [("PNG", png), ("JPEG", jpeg), ("JPNG", jpng), ("GIF", gif)] {
    let expected = try ImageSource.decode(bytes)
    let pieces = AsyncStream<[UInt8]> { continuation in
        for start in stride(from: 0, to: bytes.count, by: 1000) {
            continuation.yield(Array(bytes[start ..< min(bytes.count, start + 1000)]))
        }
        continuation.finish()
    }
    check(try await ImageSource.decode(from: pieces) == expected, "\(name) from an AsyncStream<[UInt8]>")
    let singles = AsyncStream<UInt8> { continuation in
        for byte in bytes { continuation.yield(byte) }
        continuation.finish()
    }
    check(try await ImageSource.decode(from: singles) == expected, "\(name) from an AsyncStream<UInt8>")
}

print(failures == 0 ? "QuickStart: all checks passed" : "QuickStart: \(failures) checks failed")
exit(failures == 0 ? 0 : 1)
