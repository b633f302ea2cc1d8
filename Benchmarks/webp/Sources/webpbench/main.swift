// PureWebP side of the WebP benchmark: decodes FILE N times and prints the median seconds, the
// size and a checksum byte, in cbench's format. By default into one kept buffer with
// `WebPDecoder.decode(_:into:bytesPerRow:format:)` (RGB for an opaque still, RGBA with alpha),
// as cbench's WebPDecodeRGBInto; with `alloc`, through the one-shot `WebPDecoder.decode`, which
// allocates a new image each time.
//
//   webpbench FILE N [threads] [alloc]
import Foundation
import ImageCore
import PureWebP

let args = CommandLine.arguments
guard args.count >= 3, let n = Int(args[2]), n > 0 else {
    FileHandle.standardError.write("usage: webpbench FILE N [threads] [alloc]\n".data(using: .utf8)!)
    exit(2)
}
let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: args[1])))
var options = WebPDecodingOptions()
if args.dropFirst(3).contains("threads") { options.useThreads = true }
let allocating = args.dropFirst(3).contains("alloc")
var times: [Double] = []
var sum: UInt32 = 0
var size = (0, 0)
if allocating {
    for _ in 0 ..< n {
        let start = DispatchTime.now().uptimeNanoseconds
        let image = try WebPDecoder.decode(bytes, options: options)
        times.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
        sum &+= UInt32(image.pixels[image.pixels.count / 2])
        size = (image.width, image.height)
    }
} else {
    // The header (size, format) from a decoder fed the file's start, as cbench's WebPGetInfo.
    var probe = WebPDecoder()
    var header: ImageHeader?
    for event in try bytes.prefix(4096).withUnsafeBytes({ try probe.append($0) }) {
        if case .header(let h) = event { header = h }
    }
    guard let header else { fatalError("no header in the first 4096 bytes") }
    let stride = header.width * header.pixelFormat.bytesPerPixel
    let out = UnsafeMutableRawBufferPointer.allocate(byteCount: stride * header.height, alignment: 16)
    for _ in 0 ..< n {
        let start = DispatchTime.now().uptimeNanoseconds
        _ = try WebPDecoder.decode(bytes, into: out, bytesPerRow: stride, format: header.pixelFormat, options: options)
        times.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
        sum &+= UInt32(out[out.count / 2])
    }
    size = (header.width, header.height)
}
times.sort()
print(String(format: "%.4f %dx%d %u", times[n / 2], size.0, size.1, sum))
