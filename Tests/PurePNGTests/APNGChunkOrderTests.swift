import Foundation
import ImageCore
import PurePNG
import Testing

/// The static image's fcTL before acTL (Vectors/apng-chunk-order): libpng's APNG reader asks
/// only for IHDR before an fcTL and no IDAT yet, so Firefox, ImageIO and Pillow play the
/// animation. PureImage does too, with a warning; strict decoding refuses the order.
@Suite struct APNGChunkOrderTests {
    static let bytes: [UInt8] = (try? TestVectors.bytes("apng-chunk-order/fctl_before_actl_rgba8.png")) ?? []

    /// Pillow 13's composited frames, RGBA 8-bit, one after another.
    static func pillowFrames(width: Int, height: Int) throws -> [[UInt8]] {
        let all = try TestVectors.bytes("apng-chunk-order/fctl_before_actl_rgba8.rgba")
        let size = width * height * 4
        return stride(from: 0, to: all.count, by: size).map { Array(all[$0 ..< min($0 + size, all.count)]) }
    }

    /// Pillow plays as many frames, the first (the static image) the same; later frames blend
    /// OVER, where Pillow's rounding is its own, so they are checked against the same file in the
    /// specification's order (Vectors/apng, whose frames match the reference compositor).
    @Test("the frames of the file in the specification's order, as many as Pillow's, on 1 and 2 threads")
    func frames() throws {
        let animation = try APNGAnimation(bytes: Self.bytes)
        #expect(animation.isAnimated)
        let pillow = try Self.pillowFrames(width: animation.width, height: animation.height)
        #expect(animation.frames.count == pillow.count)
        #expect(try animation.frame(at: 0).converted(to: .rgba8).pixels == pillow[0])
        var ordered: [[UInt8]] = []
        try APNGAnimation(bytes: try TestVectors.bytes("apng/default_image_is_frame0_rgba8.png"))
            .forEachFrame { _, canvas in ordered.append(canvas.pixels) }
        for threads in [1, 2] {
            var frames: [[UInt8]] = []
            try APNGAnimation(bytes: Self.bytes, options: PNGDecodingOptions(threads: threads))
                .forEachFrame { _, canvas in frames.append(canvas.pixels) }
            #expect(frames == ordered, "\(threads) threads")
        }
    }

    @Test("the incremental decoder: the same frames whole and in pieces, one warning")
    func incremental() throws {
        let reference = try APNGAnimation(bytes: Self.bytes)
        var expected: [UInt32] = []
        try reference.forEachFrame { _, canvas in expected.append(canvas.rgba16Checksum) }
        for pieces in [Self.bytes.count, 1, 7] {
            let (crcs, events, _) = try apngFrames(Self.bytes, pieces: pieces)
            #expect(crcs == expected, "\(pieces)-byte pieces")
            let warnings = events.compactMap { if case let .warning(text) = $0 { text } else { nil } }
            #expect(warnings.count == 1 && warnings[0].contains("fcTL chunk at offset"), "\(warnings)")
        }
    }

    @Test("strict decoding refuses an fcTL before acTL")
    func strict() {
        #expect {
            try APNGAnimation(bytes: Self.bytes, options: PNGDecodingOptions(strict: true))
        } throws: { error in
            guard case let .apngInvalidChunk(chunk, reason, _)? = error as? PNGError else { return false }
            return chunk == "fcTL" && reason == "before acTL"
        }
    }
}
