import Foundation
@testable import PureImage
import Testing

/// WebP through every PureImage path: ImageSource (sniff, decode, append in pieces, describe,
/// animation), RowStreamDecoder, thumbnails, tiles, limits.
@Suite struct WebPIntegrationTests {
    /// Stills (lossy, lossy with ALPH, ICC and EXIF, lossless with alpha, tall ones) and animations.
    static let stills = ["lossy/blocks40x24_q50_strong.webp", "webp/meta_all_lossy_alpha.webp", "webp/ll_photo_alpha.webp",
                         "webp/meta_icc.webp", "webp/int_tall_lossy.webp", "webp/int_tall_lossless.webp"]
    static let animations = ["webp/anim_img2webp_mixed.webp", "webp/gif_disposal_chain_mixed_mixed.webp"]

    static func bytes(_ name: String) throws -> [UInt8] {
        try TestVectors.bytes(name.hasPrefix("lossy/") ? "webp/" + name : name)
    }

    @Test func sniffsAndDecodesAsWebPDecoderDoes() throws {
        for name in Self.stills + Self.animations {
            let bytes = try Self.bytes(name)
            var source = ImageSource()
            _ = try source.append(bytes.prefix(11))
            #expect(source.format == nil, "\(name): 11 bytes do not decide")
            _ = try source.append(bytes.dropFirst(11))
            #expect(source.format == .webp)
            let image = try source.finish()
            #expect(image == (try WebPDecoder.decode(bytes)), "\(name)")
            #expect(try ImageSource.decode(bytes) == image, "\(name)")
        }
    }

    @Test("ImageSource's threads reach lossy WebP as they reach JPEG: nil from half a megapixel, above 1 for any size")
    func threadsReachLossyWebP() throws {
        #expect(ImageSourceOptions(threads: 1).webpOptions.useThreads == false)
        let two = ImageSourceOptions(threads: 2).webpOptions
        #expect(two.useThreads && two.minimumThreadedPixels == 0)
        let auto = ImageSourceOptions().webpOptions
        #expect(auto.useThreads == (Processors.online > 1) && auto.minimumThreadedPixels == 1 << 19)
        // Two threads through ImageSource (the small vectors take the pipeline at `threads: 2`):
        // the one-thread pixels and events, whole and in pieces.
        for name in Self.stills + Self.animations {
            let bytes = try Self.bytes(name)
            for size in [bytes.count, 333] {
                let one = try feed(bytes, pieces: size, options: ImageSourceOptions(threads: 1))
                let results = [one, try feed(bytes, pieces: size, options: ImageSourceOptions(threads: 2))]
                #expect(results[0].0 == results[1].0 && results[0].1 == results[1].1, "\(name) in \(size)-byte pieces")
            }
        }
    }

    @Test func piecesGiveTheSamePixelsAndEvents() throws {
        for name in Self.stills.prefix(4) + Self.animations {
            let bytes = try Self.bytes(name)
            let (wholeEvents, whole, format) = try feed(bytes, pieces: bytes.count)
            #expect(format == .webp && wholeEvents.last == .end, "\(name)")
            for size in [1, 7, 333] {
                let (events, image, _) = try feed(bytes, pieces: size)
                #expect(image == whole, "\(name) in \(size)-byte pieces")
                #expect(events.filter { if case .rows = $0 { false } else { true } }
                    == wholeEvents.filter { if case .rows = $0 { false } else { true } }, "\(name) in \(size)-byte pieces")
            }
        }
    }

    @Test func describesStills() throws {
        let lossy = try ImageSource.describe(Self.bytes("webp/meta_all_lossy_alpha.webp"))
        #expect(lossy.format == .webp && !lossy.isAnimation && lossy.frames.isEmpty)
        #expect(lossy.header.width == 80 && lossy.header.height == 64 && lossy.header.pixelFormat == .rgba8)
        #expect(lossy.header.frameCount == 1)
        #expect(lossy.metadata.iccProfile != nil && lossy.metadata.exif != nil)
        #expect(lossy.details.contains(ImageDetail("compression", "lossy (VP8) with ALPH alpha")))
        let lossless = try ImageSource.describe(Self.bytes("webp/ll_photo_alpha.webp"))
        #expect(lossless.details.contains(ImageDetail("compression", "lossless (VP8L)")))
        #expect(lossless.header.pixelFormat.hasAlpha)
        let opaque = try ImageSource.describe(Self.bytes("webp/lossy/blocks40x24_q50_strong.webp"))
        #expect(opaque.header.pixelFormat == .rgb8 && opaque.details.contains(ImageDetail("compression", "lossy (VP8)")))
        let json = lossy.jsonDocument()
        #expect(json.contains("\"format\" : \"WebP\"") || json.contains("\"format\": \"WebP\""), "\(json)")
    }

    @Test func describesAnimationsAndHandsOutTheirFrames() throws {
        for name in Self.animations {
            let bytes = try Self.bytes(name)
            let webp = try WebPAnimation(bytes: bytes)
            let description = try ImageSource.describe(bytes)
            #expect(description.isAnimation && description.header.frameCount == webp.frames.count)
            #expect(description.frames == webp.frameInfo, "\(name)")
            #expect(description.loopCount == webp.loopCount)
            #expect(description.details.contains { $0.label == "animation" })
            guard let animation = try ImageSource.animation(bytes) else {
                Issue.record("\(name): no animation")
                continue
            }
            #expect(animation is WebPAnimation)
            #expect(animation.frameInfo == webp.frameInfo && animation.canvasWidth == webp.width)
            // Frame N on request equals the N-th of the sequential walk.
            var walked: [Image] = []
            try animation.forEachFrame { _, frame in walked.append(frame) }
            #expect(walked.count == webp.frames.count)
            for index in [walked.count - 1, 0, walked.count / 2] {
                #expect(try animation.frame(at: index) == walked[index], "\(name) frame \(index)")
            }
        }
        #expect(try ImageSource.animation(Self.bytes("webp/ll_photo_alpha.webp")) == nil, "a still is no animation")
    }

    @Test func loopCountsAreInTheSharedTerms() throws {
        // img2webp writes loop 0 (forever) unless told; the shared terms keep 0 for forever.
        let animation = try WebPAnimation(bytes: Self.bytes("webp/anim_img2webp_mixed.webp"))
        if animation.animLoopCount == 0 {
            #expect(animation.loopCount == 0 && animation.playCount == nil)
        } else if let plays = animation.animLoopCount {
            #expect(animation.playCount == plays && animation.loopCount == (plays == 1 ? nil : plays - 1))
        }
    }

    @Test func rowStreamDecoderStreamsStillsAndHandsAnimationsOutAtTheEnd() throws {
        for name in Self.stills + Self.animations {
            let bytes = try Self.bytes(name)
            let expected = try WebPDecoder.decode(bytes)
            for size in [bytes.count, 7, 4096] {
                let (image, beforeFinish, decoder) = try streamRows(bytes, pieces: size)
                #expect(image == Image(width: expected.width, height: expected.height, format: expected.format, pixels: expected.pixels),
                        "\(name) in \(size)-byte pieces")
                #expect(decoder.format == .webp)
                let animated = Self.animations.contains(name)
                #expect(decoder.isStreaming == !animated, "\(name)")
                #expect(beforeFinish == (animated ? 0 : expected.height), "\(name): rows before finish")
            }
        }
    }

    @Test func stillRowsComeAsTheBytesArriveInSmallBands() throws {
        for name in ["webp/int_tall_lossy.webp", "webp/ll_photo_alpha.webp"] {
            let bytes = try Self.bytes(name)
            var decoder = WebPRowDecoder()
            var rows = 0, largestBand = 0
            var seenBeforeHalf = 0
            let half = bytes.count / 2
            var i = 0
            while i < bytes.count {
                let end = min(bytes.count, i + 512)
                try decoder.append(bytes[i ..< end]) { band in
                    #expect(band.y == rows)
                    rows += band.count
                    largestBand = max(largestBand, band.count)
                }
                if end <= half { seenBeforeHalf = rows }
                i = end
            }
            try decoder.finish { rows += $0.count }
            let height = decoder.header?.height ?? 0
            #expect(rows == height)
            #expect(largestBand <= WebPRowDecoder.bandRows, "\(name)")
            if name.contains("tall") { #expect(seenBeforeHalf > 0 && seenBeforeHalf < height, "\(name): \(seenBeforeHalf) rows by half the bytes") }
        }
    }

    @Test func truncatedWebPThrowsAfterItsRows() throws {
        let bytes = try Self.bytes("webp/int_tall_lossy.webp")
        var decoder = RowStreamDecoder()
        var rows = 0
        try decoder.append(bytes.prefix(bytes.count / 2)) { rows += $0.count }
        #expect(rows > 0)
        #expect(throws: WebPError.self) { try decoder.finish { rows += $0.count } }
        // Whole-file decodes know the input's size: a RIFF size past it is refused at once.
        #expect {
            try ImageSource.decode(Array(bytes.prefix(bytes.count / 2)))
        } throws: { error in
            if case .limit? = error as? WebPError { true } else { false }
        }
    }

    /// The thumbnail of `bytes` equals the thumbnail of a PNG of the same pixels and metadata
    /// (PNG rows stream into the same reducer).
    func expectThumbnailAsPNG(_ bytes: [UInt8], of image: Image, size: Int, _ name: String) throws {
        let thumbnail = try ImageSource.thumbnail(bytes, maxPixelSize: size)
        let png = try PNGEncoder.encode(image)
        let reference = try ImageSource.thumbnail(png, maxPixelSize: size)
        #expect(thumbnail.width == reference.width && thumbnail.height == reference.height, "\(name)")
        #expect(thumbnail.pixels == reference.pixels, "\(name)")
        #expect(thumbnail.metadata.iccProfile == reference.metadata.iccProfile && thumbnail.metadata.exif == nil, "\(name)")
    }

    @Test func thumbnailsOfStillsReduceTheDecodedRows() throws {
        for name in Self.stills {
            let bytes = try Self.bytes(name)
            try expectThumbnailAsPNG(bytes, of: try WebPDecoder.decode(bytes), size: 16, name)
        }
    }

    @Test func thumbnailsTakeOrientationAndColourFromTheMetadata() throws {
        let bytes = try Self.bytes("webp/meta_all_lossy_alpha.webp")
        let decoded = try WebPDecoder.decode(bytes)
        let thumbnail = try ImageSource.thumbnail(bytes, maxPixelSize: 40)
        let upright = decoded.oriented(decoded.metadata.orientation)
        #expect(thumbnail.width == (upright.width >= upright.height ? 40 : 40 * upright.width / upright.height))
        #expect(thumbnail.metadata.iccProfile == nil, "converted to sRGB, the profile dropped")
        let asStored = try ImageSource.thumbnail(bytes, maxPixelSize: 40, options: ImageSourceOptions(colorSpace: .asStored))
        #expect(asStored.metadata.iccProfile == decoded.metadata.iccProfile)
    }

    @Test func thumbnailOfAnAnimationIsItsFirstFrame() throws {
        for name in Self.animations {
            let bytes = try Self.bytes(name)
            let first = try WebPAnimation(bytes: bytes).frame(at: 0)
            try expectThumbnailAsPNG(bytes, of: first, size: 12, name)
        }
    }

    @Test func tilesOfAWebPEqualTheTilesOfItsPixels() throws {
        for name in ["webp/int_tall_lossy.webp", "webp/ll_photo_alpha.webp"] {
            let bytes = try Self.bytes(name)
            let png = try PNGEncoder.encode(try WebPDecoder.decode(bytes))
            var outputs: [[String: [UInt8]]] = []
            for input in [bytes, png] {
                let dir = try scratchDirectory()
                defer { try? FileManager.default.removeItem(atPath: dir) }
                var builder = TilePyramidBuilder(directory: dir, name: "p", options: .init(tileSize: 64, overlap: 1, format: .png))
                try builder.append(input)
                let pyramid = try builder.finish()
                #expect(pyramid.width == (try WebPDecoder.decode(bytes)).width)
                outputs.append(try filesUnder(dir))
            }
            #expect(outputs[0] == outputs[1], "\(name)")
        }
    }
}
