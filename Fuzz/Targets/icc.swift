import ImageCore
import PureColor

/// ICC profile parsing and the transforms built from it: a profile either throws `ICCError` or
/// parses; a parsed profile either throws building a transform or gives one whose results are
/// the same in place and into another buffer for every format it supports (CMYK sources: the
/// same with and without threads, plain and Adobe-inverted). The 16-bit tables (a few
/// milliseconds to build) are tried on one input in eight.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    guard let profile = try? ICCProfile(bytes) else { return 0 }
    _ = profile.summary.description
    for intent in [RenderingIntent.perceptual, .relativeColorimetric] {
        guard var transform = try? ColorTransform(source: profile, intent: intent) else { continue }
        var formats: [PixelFormat] = profile.model == .grayTRC ? [.gray8, .grayAlpha8] : [.rgb8, .rgba8]
        if size % 8 == 0 {
            transform = transform.withSixteenBitTables()
            formats += profile.model == .grayTRC ? [.gray16, .grayAlpha16] : [.rgb16, .rgba16]
        }
        if transform.inputChannels == 4 {
            let cmyk = (0 ..< 300 * 4).map { UInt8(truncatingIfNeeded: $0 &* 53 &+ size) }
            for inverted in [false, true] {
                let one = transform.convertCMYK(cmyk, inverted: inverted, threads: 1)
                if one != transform.convertCMYK(cmyk, inverted: inverted, threads: 3) { fatalError("ICC: CMYK differs by threads") }
            }
            continue
        }
        for format in formats where transform.supports(format) {
            var pixels = (0 ..< 300 * format.bytesPerPixel).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ size) }
            var separate = [UInt8](repeating: 0, count: pixels.count)
            pixels.withUnsafeBytes { i in
                separate.withUnsafeMutableBytes { o in transform.apply(from: i, to: o, format: format) }
            }
            transform.apply(toPixels: &pixels, format: format)
            if pixels != separate { fatalError("ICC: in place and separate output differ") }
        }
    }
    return 0
}
