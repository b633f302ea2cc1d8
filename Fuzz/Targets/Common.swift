#if canImport(Glibc)
import Glibc
#endif
import ImageCore

/// Tight limits so the fuzzer's 1 GiB RSS cap only trips on a real bug, not a legal big image,
/// and so a mutated header declaring a large canvas costs little: 1 MP is 80 times the largest
/// seed's pixels, and an image's size changes no code path a smaller one does not reach.
let fuzzLimits = DecodingLimits(maxPixels: 1 << 20, maxBytes: 64 << 20, maxFrames: 200,
                                maxScans: 200, maxMetadataBytes: 1 << 20)

/// Splits `bytes` into chunks whose sizes come from a small PRNG seeded by the input itself,
/// so a crash reproduces from the file alone.
func chunkSizes(count: Int, seed: UInt64) -> [Int] {
    var state = seed | 1
    var sizes: [Int] = []
    var left = count
    while left > 0 {
        state ^= state << 13; state ^= state >> 7; state ^= state << 17
        let pick = Int(state % 4)
        let size = pick == 0 ? 1 : pick == 1 ? Int(state >> 8 % 16) + 1 : pick == 2 ? Int((state >> 8) % 512) + 1 : left
        let taken = min(max(size, 1), left)
        sizes.append(taken)
        left -= taken
    }
    return sizes
}

func seed(of bytes: [UInt8]) -> UInt64 {
    var h: UInt64 = 0xcbf2_9ce4_8422_2325
    for b in bytes.prefix(64) { h = (h ^ UInt64(b)) &* 0x100_0000_01b3 }
    return h &+ UInt64(bytes.count)
}

/// Trap with a message (a fuzzer finding) when two decodes of one input disagree.
func agree(_ a: Image?, _ b: Image?, _ what: StaticString) {
    if let a, let b, a.width != b.width || a.height != b.height || a.format != b.format || !samePixels(a, b) {
        fatalError("\(what): whole and chunked decodes differ")
    }
    if (a == nil) != (b == nil) { fatalError("\(what): one decode succeeded and the other failed") }
}

/// Pixel equality through `memcmp`: the uninstrumented C routine, where `==` on the arrays would
/// run the fuzzer's comparison hook on every byte.
func samePixels(_ a: Image, _ b: Image) -> Bool {
    a.pixels.count == b.pixels.count && a.pixels.withUnsafeBytes { pa in
        b.pixels.withUnsafeBytes { pb in pa.count == 0 || memcmp(pa.baseAddress!, pb.baseAddress!, pa.count) == 0 }
    }
}
