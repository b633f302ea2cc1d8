// Times PureQuant in process: `Quantizer.quantize` (histogram, median cut, k-means, the
// undithered remap, the dither map and Floyd-Steinberg), 256 colours, full dithering, one
// thread: what libimagequant's liq_image_quantize + liq_write_remapped_image do.
// Usage: QuantBench serve [runs]    reads PNG paths on stdin, prints the best of `runs` (3)
//                                   timings in ms per line (decode not timed)
//        QuantBench once a.png ...  quantizes each file once (for callgrind)
//        QuantBench write DIR a.png ...  writes each remapped image to DIR as an RGBA PNG
#if canImport(Glibc)
import Glibc
#endif
import ImageCore
import PurePNG
import PureQuant

func load(_ path: String) -> Image {
    guard let file = fopen(path, "rb") else { fatalError("cannot open \(path)") }
    defer { fclose(file) }
    var bytes: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 65536)
    while true {
        let n = fread(&buffer, 1, buffer.count, file)
        if n <= 0 { break }
        bytes += buffer[0 ..< n]
    }
    do {
        let image = try PNGDecoder.decode(bytes)
        return image.format == .rgba8 ? image : image.converted(to: .rgba8)
    } catch { fatalError("\(path): \(error)") }
}

func now() -> Double {
    var t = timespec()
    clock_gettime(CLOCK_MONOTONIC, &t)
    return Double(t.tv_sec) + Double(t.tv_nsec) * 1e-9
}

let options = QuantizationOptions(maxColors: 256, dithering: .floydSteinberg(strength: 1), threads: 1)
let args = CommandLine.arguments
if args.count > 1 && args[1] == "once" {
    var check = 0
    for path in args.dropFirst(2) {
        let q = try Quantizer.quantize(load(path), options: options)
        check &+= q.palette.count &+ Int(q.indices[q.indices.count / 2])
    }
    print(check)
} else if args.count > 2 && args[1] == "write" {
    for path in args.dropFirst(3) {
        let q = try Quantizer.quantize(load(path), options: options)
        let bytes = try PNGEncoder.encode(q.rgbaImage())
        let name = String(path.split(separator: "/").last!)
        guard let file = fopen(args[2] + "/" + name, "wb") else { fatalError("cannot write \(name)") }
        _ = bytes.withUnsafeBytes { fwrite($0.baseAddress, 1, $0.count, file) }
        fclose(file)
    }
} else {
    let runs = args.count > 2 ? Int(args[2]) ?? 3 : 3
    var cache: [String: Image] = [:]
    while let line = readLine() {
        let image = cache[line] ?? load(line)
        cache[line] = image
        var best = Double.infinity
        for _ in 0 ..< runs {
            let t = now()
            let q = try Quantizer.quantize(image, options: options)
            best = min(best, now() - t)
            if q.indices.isEmpty { print("empty") }
        }
        print(best * 1000)
        fflush(nil)
    }
}
