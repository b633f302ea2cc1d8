import Testing
import ImageCore
@testable import PureWebP

/// Builds small WebP files in the test.
enum TinyWebP {
    static func le32(_ v: Int) -> [UInt8] { [UInt8(v & 255), UInt8(v >> 8 & 255), UInt8(v >> 16 & 255), UInt8(v >> 24 & 255)] }
    static func le24(_ v: Int) -> [UInt8] { Array(le32(v).prefix(3)) }
    static func chunk(_ tag: String, _ payload: [UInt8]) -> [UInt8] {
        Array(tag.utf8) + le32(payload.count) + payload + (payload.count & 1 == 1 ? [0] : [])
    }
    static func riff(_ chunks: [UInt8]) -> [UInt8] { Array("RIFF".utf8) + le32(chunks.count + 4) + Array("WEBP".utf8) + chunks }
    static func vp8x(flags: UInt8, width: Int, height: Int) -> [UInt8] {
        chunk("VP8X", [flags, 0, 0, 0] + le24(width - 1) + le24(height - 1))
    }
    /// A VP8L header declaring `width` x `height` and nothing after it.
    static func vp8lHeader(width: Int, height: Int) -> [UInt8] {
        let bits = UInt32(width - 1) | UInt32(height - 1) << 14
        return [0x2F] + le32(Int(bits))
    }
}

@Suite("WebP damaged input and limits")
struct RobustnessTests {
    static let sources = ["ll_photo_z6", "ll_colors4", "ll_noise_alpha", "alpha_filter_best", "alpha_method1",
                          "meta_all_lossy_alpha", "anim_img2webp_lossless", "gif_disposal_chain_mixed", "ll_odd1x1"]

    @Test("every truncation throws a typed error or finishes; never traps", arguments: sources)
    func truncations(_ name: String) throws {
        let bytes = try TestVectors.bytes("webp/\(name).webp")
        let step = max(1, bytes.count / 300)
        for cut in stride(from: 0, to: bytes.count, by: step) {
            let run = Run(Array(bytes.prefix(cut)), chunk: 97)
            #expect(run.image == nil || cut >= bytes.count - 1, "\(name) cut at \(cut)")
            _ = try? WebPAnimation(bytes: Array(bytes.prefix(cut)))
        }
    }

    @Test("bit flips throw typed errors or decode; never trap", arguments: sources)
    func bitFlips(_ name: String) throws {
        let bytes = try TestVectors.bytes("webp/\(name).webp")
        var rng = SplitMix64(seed: 0xC0FFEE ^ UInt64(bytes.count))
        for _ in 0 ..< 150 {
            var damaged = bytes
            for _ in 0 ..< 1 + rng.below(3) {
                let i = rng.below(damaged.count)
                damaged[i] ^= UInt8(1 << rng.below(8))
            }
            _ = Run(damaged, chunk: 4096)
            if let animation = try? WebPAnimation(bytes: damaged) {
                var iterator = animation.makeIterator()
                while iterator.next() != nil {}
            }
        }
    }

    @Test func hugeVP8XCanvasIsRefusedAtTheHeader() {
        let file = TinyWebP.riff(TinyWebP.vp8x(flags: 0, width: 20000, height: 20000) + TinyWebP.chunk("VP8L", TinyWebP.vp8lHeader(width: 1, height: 1)))
        let run = Run(file)
        guard case let .limit(violation, offset)? = run.error else { Issue.record("\(String(describing: run.error))"); return }
        #expect(violation == .pixels(requested: 20000 * 20000, limit: DecodingLimits.default.maxPixels))
        #expect(offset == 20)
        // libwebp refuses a canvas of 2^32 pixels or more outright.
        let area = TinyWebP.riff(TinyWebP.vp8x(flags: 0, width: 1 << 24, height: 1 << 24) + TinyWebP.chunk("VP8L", TinyWebP.vp8lHeader(width: 1, height: 1)))
        #expect(Run(area).error?.code == "invalid")
    }

    @Test func largeLosslessHeaderIsCheckedBeforeAllocating() {
        let file = TinyWebP.riff(TinyWebP.chunk("VP8L", TinyWebP.vp8lHeader(width: 16384, height: 16384) + [0, 0, 0]))
        var limits = DecodingLimits()
        limits.maxPixels = 1 << 20
        let run = Run(file, limits: limits)
        #expect(run.error == .limit(.pixels(requested: 16384 * 16384, limit: 1 << 20), offset: 20))
        // Known input size: a few bytes cannot hold a 1 GiB decode.
        let known = Run(file, limits: DecodingLimits().knowingInputSize(file.count))
        #expect(known.error?.code == "limitExceeded")
    }

    @Test func riffSizeLargerThanTheInputIsImplausible() throws {
        var file = try TestVectors.bytes("webp/ll_grad.webp")
        file.replaceSubrange(4 ..< 8, with: TinyWebP.le32(1 << 20))
        let run = Run(file, limits: DecodingLimits().knowingInputSize(file.count))
        #expect(run.error == .limit(.implausibleSize(needed: 8 + (1 << 20), inputBytes: file.count), offset: 4))
        // Unknown size: the decoder waits for the rest, then finish() reports the truncation.
        #expect(Run(file).error?.code == "incomplete")
    }

    @Test func frameCountLimit() throws {
        let bytes = try TestVectors.bytes("webp/anim_img2webp_lossless.webp")
        var limits = DecodingLimits()
        limits.maxFrames = 2
        let run = Run(bytes, limits: limits)
        #expect(run.error?.code == "limitExceeded")
        if case let .limit(violation, _)? = run.error { #expect(violation == .frames(limit: 2)) }
    }

    @Test func containerErrors() {
        #expect(Run(TinyWebP.riff(TinyWebP.chunk("JUNK", [1, 2]))).error?.code == "invalid")
        // A VP8X canvas that does not match the image.
        let mismatch = TinyWebP.riff(TinyWebP.vp8x(flags: 0, width: 5, height: 4) + TinyWebP.chunk("VP8L", TinyWebP.vp8lHeader(width: 4, height: 4) + [0, 0, 0]))
        #expect(Run(mismatch).error?.code == "invalid")
        // A chunk reaching past the RIFF size.
        var long = TinyWebP.riff(TinyWebP.chunk("VP8L", TinyWebP.vp8lHeader(width: 4, height: 4) + [0, 0, 0]))
        long.replaceSubrange(16 ..< 20, with: TinyWebP.le32(100))
        #expect(Run(long).error?.code == "invalid")
        // VP8L version bits.
        var version = TinyWebP.riff(TinyWebP.chunk("VP8L", TinyWebP.vp8lHeader(width: 4, height: 4) + [0, 0, 0]))
        version[24] |= 0x20
        #expect(Run(version).error == .invalid(what: "VP8L header", offset: 20))
    }

    @Test func unknownChunksAreSkippedAndOddSizesPadded() throws {
        let bytes = try TestVectors.bytes("webp/ll_grad.webp")
        let image = try WebPDecoder.decode(bytes)
        // Re-wrap as VP8X with an odd-sized unknown chunk before and after the image.
        let vp8l = Array(bytes[12...])
        let file = TinyWebP.riff(TinyWebP.vp8x(flags: 0, width: 64, height: 48) + TinyWebP.chunk("ABCD", [1, 2, 3]) + vp8l + TinyWebP.chunk("EFGH", [9]))
        let run = Run(file, chunk: 5)
        #expect(run.image?.pixels == image.pixels)
        // A metadata chunk without its VP8X flag: ignored with a warning, an error when strict.
        let unflagged = TinyWebP.riff(TinyWebP.vp8x(flags: 0, width: 64, height: 48) + vp8l + TinyWebP.chunk("XMP ", [0x3C]))
        let lenient = Run(unflagged)
        #expect(lenient.image != nil && lenient.image?.metadata.texts.isEmpty == true)
        #expect(lenient.events.contains { if case .warning = $0 { return true } else { return false } })
        #expect(Run(unflagged, options: WebPDecodingOptions(strict: true)).error?.code == "invalid")
    }
    /// A fuzzer finding (Vectors/regressions): a lossless image with an entropy image whose
    /// height is a multiple of the tile size. Once its last pixel was in, a later append looked
    /// up the prefix-code group of the row below the image (out of range: a trap).
    @Test func finishedLosslessStreamTakesMoreBytes() throws {
        let bytes = try TestVectors.bytes("regressions/webp-lossless-entropy-image-resumed-after-last-row.webp")
        let whole = try WebPDecoder.decode(bytes)
        #expect(whole.width == 80 && whole.height == 64)
        for chunk in [1, 2, 3, 7, 64, 97, 1000, bytes.count - 1] {
            #expect(Run(bytes, chunk: chunk).image?.pixels == whole.pixels, "chunk \(chunk)")
        }
    }
    /// The top-level chunks of a RIFF WebP file (tag, payload).
    static func chunks(_ file: [UInt8]) -> [(String, [UInt8])] {
        var out: [(String, [UInt8])] = []
        var at = 12
        while at + 8 <= file.count {
            let size = Int(file[at + 4]) | Int(file[at + 5]) << 8 | Int(file[at + 6]) << 16 | Int(file[at + 7]) << 24
            out.append((String(decoding: file[at ..< at + 4], as: UTF8.self), Array(file[at + 8 ..< at + 8 + size])))
            at += 8 + size + (size & 1)
        }
        return out
    }

    static func canvases(_ bytes: [UInt8], strict: Bool = false) throws -> [[UInt8]] {
        let animation = try WebPAnimation(bytes: bytes, options: WebPDecodingOptions(strict: strict))
        return try (0 ..< animation.frames.count).map { try animation.frame(at: $0).pixels }
    }

    /// libwebp's demuxer reads an ANMF's chunks up to the first one that is not its ALPH or
    /// image, and goes on from there at the top level (diff-webp's "unknown chunk inside an
    /// ANMF before its image" class): a frame without an image is dropped, with a warning
    /// (an error when strict); a frame with ALPH and no image is an error.
    @Test func anmfChunksEndAtTheFirstOtherChunk() throws {
        let source = try TestVectors.bytes("webp/anim_img2webp_lossless.webp")
        let parts = Self.chunks(source)
        #expect(parts.map(\.0) == ["VP8X", "ANIM", "ANMF", "ANMF", "ANMF", "ANMF"])
        func file(_ list: [(String, [UInt8])]) -> [UInt8] { TinyWebP.riff(list.flatMap { TinyWebP.chunk($0.0, $0.1) }) }
        // Frame 2's image chunk renamed: the frame is dropped; the chunk is skipped as unknown.
        var renamed = parts
        let frame2 = parts[3].1
        renamed[3].1 = Array(frame2.prefix(16)) + TinyWebP.chunk("VP2L", Self.chunks(TinyWebP.riff(Array(frame2.dropFirst(16)))).first!.1)
        var dropped = parts
        dropped.remove(at: 3)
        let lenient = Run(file(renamed))
        #expect(lenient.error == nil)
        #expect(lenient.events.contains { if case .warning = $0 { return true } else { return false } })
        #expect(try Self.canvases(file(renamed)) == (try Self.canvases(file(dropped))))
        #expect(try Self.canvases(file(renamed)).count == 3)
        #expect(Run(file(renamed), options: WebPDecodingOptions(strict: true)).error?.code == "invalid")
        // ALPH and then another chunk: a partial frame, an error.
        var partial = parts
        partial[3].1 = Array(frame2.prefix(16)) + TinyWebP.chunk("ALPH", [0, 0]) + TinyWebP.chunk("JUNK", [1, 2, 3, 4])
        #expect(Run(file(partial)).error?.code == "invalid")
        // After the image, the rest of the ANMF payload is read as top-level chunks: an unknown
        // chunk there is skipped, a second image is an error.
        var trailing = parts
        trailing[3].1 = frame2 + TinyWebP.chunk("JUNK", [1, 2, 3])
        #expect(try Self.canvases(file(trailing)) == (try Self.canvases(source)))
        var second = parts
        second[3].1 = frame2 + Array(frame2.dropFirst(16))
        #expect(Run(file(second)).error?.code == "invalid")
    }

    /// libwebp's still decoder never reads past the image: a damaged chunk header after it (a
    /// size past the RIFF end) leaves the image decoded, with a warning (an error when strict).
    @Test func damagedChunkAfterAStillsImage() throws {
        let bytes = try TestVectors.bytes("webp/ll_grad.webp")
        let image = try WebPDecoder.decode(bytes)
        let vp8l = Array(bytes[12...])
        for extended in [false, true] {
            let head = extended ? TinyWebP.vp8x(flags: 0, width: 64, height: 48) : []
            for claimed in [100, Int(UInt32.max - 1)] {
                let file = TinyWebP.riff(head + vp8l + Array("EXIF".utf8) + TinyWebP.le32(claimed) + [1, 2, 3, 4])
                let run = Run(file, chunk: 7)
                #expect(run.image?.pixels == image.pixels, "\(extended) \(claimed)")
                #expect(run.events.contains { if case .warning = $0 { return true } else { return false } })
                #expect(Run(file, options: WebPDecodingOptions(strict: true)).error?.code == "invalid")
            }
        }
    }
}
