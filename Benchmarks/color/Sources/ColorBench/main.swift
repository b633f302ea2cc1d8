// Times PureColor on a 4000 x 3000 buffer of random pixels, one thread:
//   matrix/TRC: AdobeRGB1998.icc, RGB 8-bit (one scalar kernel)
//   CMYK LUT:   each CMYK profile given, CMYK 8-bit -> RGB 8-bit (SIMD and scalar kernels)
// Usage: ColorBench <Vectors/icc/profiles directory>            every transform, worst of 5 runs
//        ColorBench <directory> --pair <rounds> [PREFIX]        every transform (or those whose file name
//                                                               starts with PREFIX) against liblcms2 in
//                                                               this process, a run of each in turn
import Dispatch
#if canImport(Glibc)
import Glibc
#endif
import CLcms2
import PureColor

let directory = CommandLine.arguments.count > 1 ? CommandLine.arguments[1] : "../../Vectors/icc/profiles"
let width = 4000, height = 3000, pixels = width * height

func load(_ path: String) -> [UInt8] {
    guard let file = fopen(path, "rb") else { fatalError("cannot open \(path)") }
    defer { fclose(file) }
    var bytes: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 65536)
    while true {
        let n = fread(&buffer, 1, buffer.count, file)
        if n <= 0 { break }
        bytes += buffer[0 ..< n]
    }
    return bytes
}

func random(_ count: Int) -> [UInt8] {
    var state: UInt64 = 0x9E37_79B9_7F4A_7C15
    return (0 ..< count).map { _ in
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        return UInt8(truncatingIfNeeded: state >> 56)
    }
}

func f1(_ x: Double) -> String { "\(Double(Int(x * 10 + 0.5)) / 10)" }

/// Worst (slowest) of 5 runs, in megapixels a CPU second.
func worst(_ body: () -> Void) -> Double {
    var slowest = 0.0
    for _ in 0 ..< 5 { slowest = max(slowest, seconds(body)) }
    return Double(pixels) / 1e6 / slowest
}

/// The calling thread's CPU seconds `body` takes (CLOCK_THREAD_CPUTIME_ID: the time this thread
/// ran, not the time it waited while other processes had the core; both sides run on the
/// calling thread).
func seconds(_ body: () -> Void) -> Double {
    func now() -> Double {
        var t = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t)
        return Double(t.tv_sec) + Double(t.tv_nsec) / 1e9
    }
    let start = now()
    body()
    return now() - start
}

/// PureColor and liblcms2 (default flags, perceptual, the profile to its built-in sRGB: what
/// Pillow's ImageCms builds) on the same buffers, one run of each in turn, `rounds` pairs per
/// transform: each pair's ratio, the worst last.
func pairs(_ rounds: Int) throws {
    print("transform\tPureColor MP/s (min-max)\tliblcms2 \(cmsGetEncodedCMMversion()) MP/s\tratio per pair\tworst pair")
    let srgb = cmsCreate_sRGBProfile()
    defer { cmsCloseProfile(srgb) }
    let only = CommandLine.arguments.count > 4 ? CommandLine.arguments[4] : ""
    for name in ["AdobeRGB1998.icc", "default_cmyk.icc", "ps_cmyk.icc", "ISOcoated_v2_300_bas.icc"] where name.hasPrefix(only) {
        let bytes = load(directory + "/" + name)
        let transform = try ColorTransform(iccProfile: bytes)
        let rgbSource = transform.supports(.rgb8)
        let profile = bytes.withUnsafeBytes { cmsOpenProfileFromMem($0.baseAddress, cmsUInt32Number($0.count)) }
        let inFormat: cmsUInt32Number = rgbSource ? 262169 : 393249   // TYPE_RGB_8, TYPE_CMYK_8
        let reference = cmsCreateTransform(profile, inFormat, srgb, 262169, cmsUInt32Number(INTENT_PERCEPTUAL), 0)
        defer { cmsDeleteTransform(reference); cmsCloseProfile(profile) }
        let input = random(pixels * (rgbSource ? 3 : 4))
        var output = [UInt8](repeating: 0, count: pixels * 3)
        var ours: [Double] = [], theirs: [Double] = []
        for _ in 0 ..< rounds {
            ours.append(seconds {
                input.withUnsafeBytes { i in
                    output.withUnsafeMutableBytes { o in
                        if rgbSource { transform.apply(from: i, to: o, format: .rgb8, threads: 1) }
                        else { transform.applyCMYK(from: i, to: o, threads: 1) }
                    }
                }
            })
            theirs.append(seconds {
                input.withUnsafeBytes { i in
                    output.withUnsafeMutableBytes { o in cmsDoTransform(reference, i.baseAddress, o.baseAddress, cmsUInt32Number(pixels)) }
                }
            })
        }
        let ratios = zip(theirs, ours).map { $0 / $1 }
        let rate = { (t: Double) in Double(pixels) / 1e6 / t }
        print("\(name)\t\(f1(rate(ours.max()!)))-\(f1(rate(ours.min()!)))\t\(f1(rate(theirs.max()!)))-\(f1(rate(theirs.min()!)))\t"
              + ratios.map { "\(Double(Int($0 * 100 + 0.5)) / 100)" }.joined(separator: " ")
              + "\t\(Double(Int(ratios.min()! * 100 + 0.5)) / 100)")
    }
}

if CommandLine.arguments.count > 3, CommandLine.arguments[2] == "--pair", let rounds = Int(CommandLine.arguments[3]), rounds > 0 {
    try pairs(rounds)
    exit(0)
}

let rgb = random(pixels * 3)
do {
    let transform = try ColorTransform(iccProfile: load(directory + "/AdobeRGB1998.icc"))
    // A buffer of its own (a copy of `rgb` would share its storage until the first write,
    // which would then copy 36 MB inside the first timed run).
    var output = [UInt8](repeating: 0, count: rgb.count)
    let rate = worst {
        rgb.withUnsafeBytes { i in output.withUnsafeMutableBytes { o in transform.apply(from: i, to: o, format: .rgb8, threads: 1) } }
    }
    print("PureColor\tAdobeRGB1998.icc\trgb8\tscalar\t\(f1(rate)) MP/s")
}
let cmyk = random(pixels * 4)
for name in ["default_cmyk.icc", "ps_cmyk.icc", "ISOcoated_v2_300_bas.icc"] {
    let start = DispatchTime.now().uptimeNanoseconds
    var transform = try ColorTransform(iccProfile: load(directory + "/" + name))
    let build = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6
    var output = [UInt8](repeating: 0, count: pixels * 3)
    for simd in [true, false] {
        transform.useSIMD = simd
        let rate = worst {
            cmyk.withUnsafeBytes { i in output.withUnsafeMutableBytes { o in transform.applyCMYK(from: i, to: o, threads: 1) } }
        }
        print("PureColor\t\(name)\tcmyk8->rgb8\t\(simd ? "simd" : "scalar")\t\(f1(rate)) MP/s\tbuild \(Int(build)) ms")
    }
}
