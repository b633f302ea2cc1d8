import Foundation
import PureImage
import Testing

/// The decoders under test; each maps "whatever it returned" to a verdict.
enum HostileCodec: String, CaseIterable, Sendable, CustomStringConvertible {
    case png, jpeg, gif, jpng, imageSource

    var description: String { rawValue }

    /// Vector files fed to this decoder (paths relative to `Vectors/`).
    var vectors: [String] {
        switch self {
        case .png: HostileInput.files(under: "png", ext: "png")
        case .jpeg: HostileInput.files(under: "jpeg/valid", ext: "jpg") + HostileInput.files(under: "jpeg/invalid", ext: "jpg")
            + HostileInput.files(under: "jpeg-damaged", ext: "jpg")
        case .gif: HostileInput.files(under: "gif", ext: "gif")
        // JPNG seeds live with the fuzzers; the JPEG part alone also exercises the footer checks.
        case .jpng: HostileInput.files(under: "../Fuzz/seeds/jpng", ext: "jpng")
        case .imageSource: HostileCodec.png.vectors + HostileCodec.jpeg.vectors + HostileCodec.gif.vectors
            + HostileCodec.jpng.vectors + ["pbm", "pgm", "ppm", "pam"].flatMap { HostileInput.files(under: "netpbm", ext: $0) }
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
                || error is NetpbmError || error is ImageSourceError || error is WebPError { return nil }
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
            }, Result {
                // The thumbnail path: row streams (spilling the coefficients and interlaced
                // images to a temporary file above 64 KB) into the reducer.
                var thumbnailer = ThumbnailDecoder(maxPixelSize: 16, options: options)
                thumbnailer.spillAbove = 1 << 16
                var i = 0
                while i < bytes.count {
                    try thumbnailer.append(bytes[i ..< min(bytes.count, i + 61)])
                    i += 61
                }
                return try thumbnailer.finish()
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

    /// Feeds `bytes` to `decoder` in 97-byte pieces; at every cut (0, 97, 194, ...) finishes a
    /// copy and judges the result (typed error or sound image, within the time bound).
    static func everyCut<D>(_ bytes: [UInt8], _ path: String, _ codec: HostileCodec, _ decoder: D,
                            append: (inout D, ArraySlice<UInt8>) throws -> Void,
                            finish: (inout D) throws -> Image, seconds: Double = 5) {
        var decoder = decoder
        var cut = 0
        while cut < bytes.count {
            var copy = decoder
            let start = threadCPUSeconds()
            let result = Result { try finish(&copy) }
            let elapsed = threadCPUSeconds() - start
            if let problem = verdict(result) { Issue.record("\(codec) \(path) cut at \(cut): \(problem)") }
            #expect(elapsed < seconds, "\(codec) \(path) cut at \(cut) took \(elapsed) s")
            let next = min(cut + 97, bytes.count)
            do { try append(&decoder, bytes[cut ..< next]) } catch {
                // Errors are sticky: every later cut ends in this same error.
                if let problem = verdict(.failure(error)) { Issue.record("\(codec) \(path) at \(cut): \(problem)") }
                return
            }
            cut = next
        }
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

/// Every vector cut at every 97th byte, and 1,000 randomly corrupted vectors per decoder:
/// each must end in the codec's typed error or a well-formed image, never a trap, quickly.
@Suite("Hostile input")
struct HostileInputTests {
    @Test("vectors exist for every decoder", arguments: HostileCodec.allCases)
    func vectorsExist(codec: HostileCodec) {
        #expect(!codec.vectors.isEmpty)
    }

    /// Every vector cut at every multiple of 97 bytes, through each incremental decoder: the
    /// file is fed in 97-byte pieces and, before each piece, a copy of the decoder (a value)
    /// is finished, which is exactly a decode of the file truncated there (decoders give the
    /// same result whatever the chunking: the chunking-invariance tests). A copy costs one
    /// `finish`, not a decode from the start, so every cut point fits in a debug test run.
    @Test("every vector truncated at every 97th byte", arguments: HostileCodec.allCases)
    func truncations(codec: HostileCodec) throws {
        for path in codec.vectors {
            let bytes = try TestVectors.bytes(path)
            switch codec {
            case .png:
                HostileInput.everyCut(bytes, path, codec, PNGDecoder(limits: HostileInput.limits),
                                      append: { _ = try $0.append($1) }, finish: { try $0.finish() })
            case .jpeg:
                HostileInput.everyCut(bytes, path, codec, JPEGDecoder(limits: HostileInput.limits),
                                      append: { _ = try $0.append($1) }, finish: { try $0.finish() })
            case .gif:
                HostileInput.everyCut(bytes, path, codec, GIFDecoder(limits: HostileInput.limits),
                                      append: { _ = try $0.append($1) }, finish: { try $0.finish() })
            case .jpng:
                HostileInput.everyCut(bytes, path, codec, JPNGStreamDecoder(limits: HostileInput.limits),
                                      append: { _ = try $0.append($1) }, finish: { try $0.finish() })
            case .imageSource:
                HostileInput.everyCut(bytes, path, codec, ImageSource(options: ImageSourceOptions(limits: HostileInput.limits)),
                                      append: { _ = try $0.append($1) }, finish: { try $0.finish() })
            }
        }
    }

    /// The one-shot entry points (`decode`, `GIFAnimation`, `JPNGDecoder`) on truncated files:
    /// a long file gets 8 of its 97-byte cut points (spread evenly, always 0 and the last), as
    /// each cut decodes from the start in a debug build.
    static func sampledCuts(length: Int) -> [Int] {
        let all = Array(stride(from: 0, to: length, by: 97))
        guard all.count > 8 else { return all }
        return (0 ..< 8).map { all[$0 * (all.count - 1) / 7] }
    }

    @Test("one-shot decodes of vectors truncated at 97-byte steps (sampled)", arguments: HostileCodec.allCases)
    func oneShotTruncations(codec: HostileCodec) throws {
        let vectors = codec.vectors.enumerated().filter { codec != .imageSource || $0.offset % 3 == 0 }
        for (_, path) in vectors {
            let bytes = try TestVectors.bytes(path)
            for cut in HostileInputTests.sampledCuts(length: bytes.count) {
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
        var rng = SplitMix64(seed: 0x5EED_0000 &+ UInt64(codec.rawValue.utf8.count))
        for mutant in 0 ..< 1_000 {
            let (path, original) = vectors[Int.random(in: 0 ..< vectors.count, using: &rng)]
            var bytes = original
            let flips = Int.random(in: 1 ... 8, using: &rng)
            for _ in 0 ..< flips {
                let at = Int.random(in: 0 ..< bytes.count, using: &rng)
                bytes[at] = UInt8.random(in: 0 ... 255, using: &rng)
            }
            // Damaged files now decode to the end as libjpeg and libpng decode them (a flipped
            // size byte can make a 1.6 KB file a 55872x64 progressive image: 63 ms in release,
            // 4-8 s of CPU in a debug build), so the bound only has to catch a hang.
            HostileInput.check(bytes, codec, "mutant \(mutant) of \(path) (\(flips) flips)", seconds: 20)
        }
    }
}
