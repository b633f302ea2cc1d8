import Foundation
import ImageCore
import JPNG
import PureGIF
import PureJPEG
import PurePNG
import Testing

/// A deterministic PRNG (SplitMix64), so a failing mutation is reproducible from its index.
struct SeededRNG: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// The decoders under test; each maps "whatever it returned" to a verdict.
enum HostileCodec: String, CaseIterable, Sendable, CustomStringConvertible {
    case png, jpeg, gif, jpng, imageSource

    var description: String { rawValue }

    /// Vector files fed to this decoder (paths relative to `Vectors/`).
    var vectors: [String] {
        switch self {
        case .png: HostileInput.files(under: "png", ext: "png")
        case .jpeg: HostileInput.files(under: "jpeg/valid", ext: "jpg") + HostileInput.files(under: "jpeg/invalid", ext: "jpg")
        case .gif: HostileInput.files(under: "gif", ext: "gif")
        // JPNG seeds live with the fuzzers; the JPEG part alone also exercises the footer checks.
        case .jpng: HostileInput.files(under: "../Fuzz/seeds/jpng", ext: "jpng")
        case .imageSource: HostileCodec.png.vectors + HostileCodec.jpeg.vectors + HostileCodec.gif.vectors
            + HostileCodec.jpng.vectors
        }
    }
}

enum HostileInput {
    /// Tight limits: a mutated header must not be able to ask for gigabytes.
    static let limits = DecodingLimits(maxPixels: 4_000_000, maxBytes: 64 << 20, maxFrames: 200,
                                       maxScans: 200, maxMetadataBytes: 1 << 20)

    static func files(under folder: String, ext: String) -> [String] {
        let base = TestVectors.url(folder)
        guard let walker = FileManager.default.enumerator(atPath: base.path) else { return [] }
        var out: [String] = []
        while let name = walker.nextObject() as? String {
            if name.hasSuffix("." + ext) { out.append(folder + "/" + name) }
        }
        return out.sorted()
    }

    /// Why a result is unacceptable, or nil when it is a typed error or a consistent image.
    static func verdict(_ result: Result<Image, any Error>) -> String? {
        switch result {
        case let .success(image):
            let expected = image.width * image.height * image.format.bytesPerPixel
            if image.width <= 0 || image.height <= 0 { return "image with size \(image.width)x\(image.height)" }
            if image.pixels.count != expected { return "image with \(image.pixels.count) bytes, expected \(expected)" }
            return nil
        case let .failure(error):
            if error is PNGError || error is JPEGError || error is GIFError || error is JPNGError
                || error is ImageSourceError { return nil }
            return "untyped error \(type(of: error)): \(error)"
        }
    }

    /// Decodes whole, then (for the incremental decoders) in 61-byte pieces.
    static func decode(_ bytes: [UInt8], with codec: HostileCodec) -> [Result<Image, any Error>] {
        switch codec {
        case .png:
            return [Result { try PNGDecoder.decode(bytes, limits: limits) }]
        case .jpeg:
            return [Result { try JPEGDecoder.decode(bytes, limits: limits) }]
        case .gif:
            var results: [Result<Image, any Error>] = [Result {
                var decoder = GIFDecoder(limits: limits)
                _ = try decoder.append(bytes)
                return try decoder.finish()
            }]
            results.append(Result {
                let animation = try GIFAnimation(bytes: bytes, limits: limits)
                var last: Image?
                for index in animation.frames.indices { last = try animation.frame(at: index) }
                guard let last else { throw GIFError.noFrames(offset: 0) }
                return last
            })
            return results
        case .jpng:
            return [Result { try JPNGDecoder.decode(bytes, limits: limits) }, Result {
                var decoder = JPNGStreamDecoder(limits: limits)
                _ = try decoder.append(bytes)
                return try decoder.finish()
            }]
        case .imageSource:
            let options = ImageSourceOptions(limits: limits)
            return [Result { try ImageSource.decode(bytes, options: options) }, Result {
                var source = ImageSource(options: options)
                var i = 0
                while i < bytes.count {
                    _ = try source.append(bytes[i ..< min(bytes.count, i + 61)])
                    i += 61
                }
                return try source.finish()
            }]
        }
    }

    /// CPU time of the calling thread: a time bound that holds on a loaded machine (the
    /// decoders are synchronous, so the work stays on this thread).
    static func threadCPUSeconds() -> Double {
        var now = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now)
        return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
    }

    /// Decodes and reports anything that is not a typed error or a sound image, or a decode
    /// slower than `seconds` (generous: debug builds are ~10x slower than release).
    static func check(_ bytes: [UInt8], _ codec: HostileCodec, _ what: @autoclosure () -> String,
                      seconds: Double = 5) {
        let start = threadCPUSeconds()
        let results = decode(bytes, with: codec)
        let elapsed = threadCPUSeconds() - start
        for result in results {
            if let problem = verdict(result) { Issue.record("\(codec) \(what()): \(problem)") }
        }
        #expect(elapsed < seconds, "\(codec) \(what()) took \(elapsed) s")
    }
}

/// Every vector cut at 97-byte steps (sampled: see `cuts`), and 1,000 randomly corrupted vectors per decoder:
/// each must end in the codec's typed error or a well-formed image, never a trap, quickly.
@Suite("Hostile input")
struct HostileInputTests {
    @Test("vectors exist for every decoder", arguments: HostileCodec.allCases)
    func vectorsExist(codec: HostileCodec) {
        #expect(!codec.vectors.isEmpty)
    }

    /// Cut points: multiples of 97. Debug decoding is slow, so a long file gets at most 8 of
    /// them (spread evenly, always including 0 and the last), and ImageSource, which repeats
    /// the codecs' vectors, takes every 3rd vector; the fuzzers cover the rest.
    static func cuts(length: Int) -> [Int] {
        let all = Array(stride(from: 0, to: length, by: 97))
        guard all.count > 8 else { return all }
        return (0 ..< 8).map { all[$0 * (all.count - 1) / 7] }
    }

    @Test("every vector truncated at 97-byte steps (sampled)", arguments: HostileCodec.allCases)
    func truncations(codec: HostileCodec) throws {
        let vectors = codec.vectors.enumerated().filter { codec != .imageSource || $0.offset % 3 == 0 }
        for (_, path) in vectors {
            let bytes = try TestVectors.bytes(path)
            for cut in HostileInputTests.cuts(length: bytes.count) {
                HostileInput.check(Array(bytes[..<cut]), codec, "\(path) cut at \(cut)")
            }
        }
    }

    /// 1,000 mutants per decoder: a random vector with 1-8 random bytes overwritten (a seeded
    /// RNG, so a failure names a reproducible mutant).
    @Test("1,000 random byte flips", arguments: HostileCodec.allCases)
    func flips(codec: HostileCodec) throws {
        let vectors = try codec.vectors.map { ($0, try TestVectors.bytes($0)) }.filter { !$0.1.isEmpty }
        try #require(!vectors.isEmpty)
        var rng = SeededRNG(seed: 0x5EED_0000 &+ UInt64(codec.rawValue.utf8.count))
        for mutant in 0 ..< 1_000 {
            let (path, original) = vectors[Int.random(in: 0 ..< vectors.count, using: &rng)]
            var bytes = original
            let flips = Int.random(in: 1 ... 8, using: &rng)
            for _ in 0 ..< flips {
                let at = Int.random(in: 0 ..< bytes.count, using: &rng)
                bytes[at] = UInt8.random(in: 0 ... 255, using: &rng)
            }
            HostileInput.check(bytes, codec, "mutant \(mutant) of \(path) (\(flips) flips)")
        }
    }
}
