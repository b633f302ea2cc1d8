// PureWebP side of the WebP benchmark: decodes FILE N times with `WebPDecoder.decode` (the
// public one-shot API: RGB out for an opaque still, RGBA with alpha) and prints the median
// seconds, the size and a checksum byte, in cbench's format.
//
//   webpbench FILE N [threads]
import Foundation
import PureWebP

let args = CommandLine.arguments
guard args.count >= 3, let n = Int(args[2]), n > 0 else {
    FileHandle.standardError.write("usage: webpbench FILE N [threads]\n".data(using: .utf8)!)
    exit(2)
}
let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: args[1])))
var options = WebPDecodingOptions()
if args.count > 3, args[3] == "threads" { options.useThreads = true }
var times: [Double] = []
var sum: UInt32 = 0
var size = (0, 0)
for _ in 0 ..< n {
    let start = DispatchTime.now().uptimeNanoseconds
    let image = try WebPDecoder.decode(bytes, options: options)
    times.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
    sum &+= UInt32(image.pixels[image.pixels.count / 2])
    size = (image.width, image.height)
}
times.sort()
print(String(format: "%.4f %dx%d %u", times[n / 2], size.0, size.1, sum))
