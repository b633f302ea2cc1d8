import ImageCore
import PureQuant
import PureGIF

// GIF animation encode-then-decode round trips.
// Input: byte 0 the colour count (2...256), byte 1 the dithering (none, Floyd-Steinberg,
// ordered; strength in its high bits), byte 2 the frame count (2...5, low bits) and the thread
// count (high bit), byte 3 the width (1...32); the rest is split into one part per frame: frame
// 0 is its part's RGBA pixels, frame k keeps frame k - 1's pixel where its part's byte at that
// pixel is even and takes its part's pixel where odd (so frames change in places, repeat, turn
// pixels transparent and opaque again).
// Asserts, through `GIFAnimationEncoder` fed frame by frame and `GIFEncoder.encode(animation:)`
// re-encoding the result (the global palette from every frame):
// - the file decodes (PureGIF) to one frame per distinct consecutive source frame;
// - every decoded frame has the source's transparency (alpha below 128 transparent, the rest
//   opaque, as the encoder binarizes it);
// - a pixel whose source did not change from the frame before shows as it did (the remapping
//   is stable), unless the frame before was cleared there (restore to background);
// - the encoder's `canvas` after the last frame is the last decoded frame;
// - with at most `colours - 1` colours in all, every frame comes back exactly (as binarized),
//   and `isExact` when the source's alpha is 0 or 255.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size >= 8 else { return 0 }
    let b = Array(UnsafeBufferPointer(start: data, count: size))
    let colours = 2 + Int(b[0]) % 255
    let strength = Float(Int(b[1] >> 2) % 11) / 10
    let dithering: Dithering = b[1] % 3 == 0 ? .none : b[1] % 3 == 1 ? .floydSteinberg(strength: strength) : .ordered(strength: strength)
    let count = 2 + Int(b[2] & 0x7F) % 4
    let threads = b[2] & 0x80 != 0 ? 2 : 1
    let width = 1 + Int(b[3]) % 32
    let body = Array(b[4...])
    let part = max(4, body.count / count)
    let height = max(1, min(32, (part / 4 + width - 1) / width))
    let n = width * height * 4

    var frames: [[UInt8]] = []
    for k in 0 ..< count {
        let bytes = (0 ..< n).map { i in k * part + i < body.count ? body[k * part + i] : 0 }
        if k == 0 { frames.append(bytes); continue }
        var next = frames[k - 1]
        for p in stride(from: 0, to: n, by: 4) where bytes[p] & 1 == 1 {
            next.replaceSubrange(p ..< p + 4, with: bytes[p ..< p + 4])
        }
        frames.append(next)
    }
    // Binary alpha, transparent pixels all zero: what the encoder shows at best.
    func binary(_ px: [UInt8]) -> [UInt8] {
        var out = px
        for p in stride(from: 0, to: out.count, by: 4) {
            if out[p + 3] < 128 { out.replaceSubrange(p ..< p + 4, with: [0, 0, 0, 0]) } else { out[p + 3] = 255 }
        }
        return out
    }
    let source = frames.map(binary)
    var distinctFrames: [[UInt8]] = []
    for f in source where distinctFrames.last != f { distinctFrames.append(f) }
    var palette = Set<UInt32>()
    for f in source {
        for p in stride(from: 0, to: n, by: 4) where f[p + 3] != 0 {
            palette.insert(UInt32(f[p]) << 16 | UInt32(f[p + 1]) << 8 | UInt32(f[p + 2]))
        }
    }
    let few = palette.count < colours

    let options = GIFEncodingOptions(maxColors: colours, dithering: dithering, loopCount: 0, threads: threads)
    guard var encoder = try? GIFAnimationEncoder(width: width, height: height, options: options) else { fatalError("valid options refused") }
    var file: [UInt8] = []
    for (k, f) in frames.enumerated() {
        guard let out = try? encoder.add(Image(width: width, height: height, format: .rgba8, pixels: f), delayMilliseconds: 10 * k) else {
            fatalError("add refused")
        }
        file += out
    }
    guard let end = try? encoder.finish() else { fatalError("finish refused") }
    file += end
    let decoded = check(file, source: source, distinct: distinctFrames.count, few: few, width: width, height: height)
    precondition(encoder.canvas.pixels == decoded.last!, "canvas differs from the last decoded frame")
    // `isExact` also needs the source's alpha to be 0 or 255.
    let binaryAlpha = frames.allSatisfy { f in stride(from: 3, to: n, by: 4).allSatisfy { f[$0] == 0 || f[$0] == 255 } }
    if few && binaryAlpha { precondition(encoder.isExact, "few colours but not exact") }

    // Re-encoded from the file as an animation: one palette from every frame.
    guard let animation = try? GIFAnimation(bytes: file),
          let again = try? GIFEncoder.encode(animation: animation, options: options) else { fatalError("re-encode failed") }
    let redecoded = decoded.map { $0 }
    var squashed: [[UInt8]] = []
    for f in redecoded where squashed.last != f { squashed.append(f) }
    _ = check(again, source: redecoded, distinct: squashed.count, few: few, width: width, height: height)
    return 0
}

/// Decodes `file` and checks it against `source` (binary-alpha frames in order, repeats
/// included); returns the decoded frames.
func check(_ file: [UInt8], source: [[UInt8]], distinct: Int, few: Bool, width: Int, height: Int) -> [[UInt8]] {
    guard let animation = try? GIFAnimation(bytes: file) else { fatalError("own GIF does not decode") }
    var decoded: [[UInt8]] = []
    var it = animation.makeIterator()
    while true {
        let next: Image?
        do { next = try it.nextFrame() } catch { fatalError("own GIF frame does not decode: \(error)") }
        guard let f = next else { break }
        decoded.append(f.pixels)
    }
    precondition(decoded.count == distinct, "\(decoded.count) frames for \(distinct) distinct")
    precondition(animation.canvasWidth == width && animation.canvasHeight == height)
    // Source frames in order, repeats merged, lined up with the decoded ones.
    var shown: [[UInt8]] = []
    for f in source where shown.last != f { shown.append(f) }
    let n = width * height * 4
    for k in 0 ..< decoded.count {
        let d = decoded[k], s = shown[k]
        for p in stride(from: 0, to: n, by: 4) {
            precondition((d[p + 3] == 0) == (s[p + 3] == 0) && (d[p + 3] == 0 || d[p + 3] == 255), "transparency differs in frame \(k)")
        }
        if few { precondition(d == s, "frame \(k) not exact with few colours") }
        guard k > 0 else { continue }
        let before = animation.frames[k - 1]
        for y in 0 ..< height {
            for x in 0 ..< width {
                let p = (y * width + x) * 4
                let cleared = before.disposal == .restoreBackground
                    && (before.x ..< before.x + before.width).contains(x) && (before.y ..< before.y + before.height).contains(y)
                if !cleared && shown[k - 1][p ..< p + 4] == s[p ..< p + 4] {
                    precondition(decoded[k - 1][p ..< p + 4] == d[p ..< p + 4], "unchanged pixel (\(x), \(y)) changed in frame \(k)")
                }
            }
        }
    }
    return decoded
}
