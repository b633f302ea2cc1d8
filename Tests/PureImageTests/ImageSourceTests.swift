@testable import PureImage
import Testing

/// Feeds `bytes` in pieces of `size`, returning the events (adjacent row ranges merged) and the result.
func feed(_ bytes: [UInt8], pieces size: Int, options: ImageSourceOptions = .init()) throws -> ([DecodingEvent], Image, ImageFileFormat?) {
    var source = ImageSource(options: options)
    var events: [DecodingEvent] = []
    var i = 0
    while i < bytes.count {
        let end = min(bytes.count, i + size)
        events += try source.append(bytes[i ..< end])
        i = end
    }
    let image = try source.finish()
    var merged: [DecodingEvent] = []
    for event in events {
        if case let .rows(r) = event, case let .rows(p)? = merged.last, p.upperBound == r.lowerBound {
            merged[merged.count - 1] = .rows(p.lowerBound ..< r.upperBound)
        } else {
            merged.append(event)
        }
    }
    return (merged, image, source.format)
}

@Suite struct ImageSourceTests {
    static let rgba = sampleRGBA(width: 40, height: 24)

    static func files() throws -> [(String, [UInt8])] {
        let gif = try TestVectors.bytes("gif/" + (TestVectors.files(in: "gif", withExtension: "gif").first { $0.hasPrefix("anim") } ?? "none.gif"))
        return [
            ("png", try PNGEncoder.encode(rgba)),
            ("png-adam7", try PNGEncoder.encode(rgba, options: PNGEncodingOptions(interlaced: true))),
            ("jpeg", try JPEGEncoder.encode(rgba)),
            ("jpeg-progressive", try JPEGEncoder.encode(rgba, options: JPEGEncodingOptions(progressive: true))),
            ("jpng", try JPNGEncoder.encode(rgba)),
            ("jpng-progressive", try JPNGEncoder.encode(rgba, options: JPNGEncodingOptions(progressive: true))),
            ("gif", gif),
        ]
    }

    @Test func sniffsEveryFormatAndMatchesItsDecoder() throws {
        for (name, bytes) in try Self.files() {
            let image = try ImageSource.decode(bytes)
            let expected: Image = switch name {
            case "png", "png-adam7": try PNGDecoder.decode(bytes)
            case "jpeg", "jpeg-progressive": try JPEGDecoder.decode(bytes)
            case "jpng", "jpng-progressive": try JPNGDecoder.decode(bytes)
            default: try GIFAnimation(bytes: bytes).frame(at: 0)
            }
            #expect(image == expected, "\(name)")
        }
    }

    @Test func chunkingDoesNotChangePixelsOrEvents() throws {
        for (name, bytes) in try Self.files() {
            let (wholeEvents, whole, format) = try feed(bytes, pieces: bytes.count)
            #expect(wholeEvents.last == .end, "\(name): \(wholeEvents)")
            if name.hasPrefix("jpng") { #expect(format == .jpng) }
            for size in [1, 7, 13, 787, 4096] {
                let (events, image, _) = try feed(bytes, pieces: size)
                #expect(image == whole, "\(name) in \(size)-byte pieces")
                #expect(events.filter { if case .rows = $0 { false } else { true } }
                    == wholeEvents.filter { if case .rows = $0 { false } else { true } }, "\(name) in \(size)-byte pieces")
            }
        }
    }

    @Test func jpngPreviewShowsColourBeforeTheMaskArrives() throws {
        let bytes = try JPNGEncoder.encode(Self.rgba)
        let footer = try JPNGFooter(file: bytes)
        var source = ImageSource()
        _ = try source.append(bytes[0 ..< Int(footer.imageSize)])
        #expect(source.format == .jpeg)
        #expect(source.preview()?.format == .rgb8)
        let events = try source.append(bytes[Int(footer.imageSize)...])
        #expect(events.count == 2 && events.last == .end && source.format == .jpng)
        #expect(source.header?.pixelFormat == .rgba8 && source.header?.fileFormat == .jpng)
        #expect(source.preview()?.format == .rgba8)
    }

    @Test func truncatedJPNGReportsThePartialImage() throws {
        let bytes = try JPNGEncoder.encode(Self.rgba)
        var source = ImageSource()
        _ = try source.append(bytes.dropLast(20))
        #expect {
            try source.finish()
        } throws: { error in
            guard case let .truncated(_, partial)? = error as? JPNGError else { return false }
            return partial?.width == 40
        }
    }

    @Test func truncatedJPEGIsAJPEGError() throws {
        let bytes = try JPEGEncoder.encode(Self.rgba)
        var source = ImageSource()
        _ = try source.append(bytes.prefix(bytes.count / 2))
        #expect {
            try source.finish()
        } throws: { error in
            guard case let .truncated(_, partial)? = error as? JPEGError else { return false }
            return partial?.width == 40
        }
        #expect(throws: JPEGError.self) { try ImageSource.decode([0xFF, 0xD8, 0xFF, 0xC0, 0, 4, 0, 0, 0xFF, 0xD9]) }
    }

    @Test func unknownAndEmptyInputs() throws {
        var source = ImageSource()
        #expect(throws: ImageSourceError.unknownFormat(prefix: Array("hello, world".utf8))) {
            _ = try source.append(Array("hello, world".utf8))
        }
        var empty = ImageSource()
        #expect(throws: ImageSourceError.noData) { try empty.finish() }
        // Too few bytes to tell, then the end: the short prefix is judged as it is.
        var short = ImageSource()
        _ = try short.append([0x89, 0x50])
        #expect(throws: (any Error).self) { try short.finish() }
    }

    @Test func registeredFormatsAreCheckedFirst() throws {
        struct Constant: ImageSourceDecoder {
            var header: ImageHeader? = ImageHeader(fileFormat: ImageFileFormat(rawValue: "TEST"), width: 1, height: 1, pixelFormat: .gray8)
            var metadata = ImageMetadata()
            var detectedFormat: ImageFileFormat { ImageFileFormat(rawValue: "TEST") }
            mutating func append(_ bytes: UnsafeRawBufferPointer) throws -> [DecodingEvent] { [] }
            mutating func finish() throws -> Image { Image(width: 1, height: 1, format: .gray8, pixels: [42]) }
            func preview() -> Image? { nil }
        }
        var registry = ImageDecoderRegistry.standard
        registry.register(ImageDecoderRegistry.Entry(format: ImageFileFormat(rawValue: "TEST"), minimumBytes: 4,
                                                      matches: { $0.starts(with: Array("TEST".utf8)) },
                                                      make: { _ in Constant() }))
        #expect(try ImageSource.decode(Array("TEST....".utf8), registry: registry).pixels == [42])
        #expect(try ImageSource.decode(try PNGEncoder.encode(Self.rgba), registry: registry) == Self.rgba)
    }

    @Test func maxPixelSizeUsesDCTScalingThenAreaAverage() throws {
        let big = sampleRGBA(width: 160, height: 96).converted(to: .rgb8)
        let jpeg = try JPEGEncoder.encode(big)
        for (target, size) in [(40, (40, 24)), (30, (30, 18)), (160, (160, 96)), (500, (160, 96))] {
            let image = try ImageSource.decode(jpeg, options: ImageSourceOptions(maxPixelSize: target))
            #expect(image.width == size.0 && image.height == size.1, "target \(target)")
            let (_, chunked, _) = try feed(jpeg, pieces: 13, options: ImageSourceOptions(maxPixelSize: target))
            #expect(chunked == image)
        }
        // 1/4 DCT scaling of a flat image is flat: the reduction path keeps colours.
        let png = try PNGEncoder.encode(Image(width: 30, height: 20, format: .rgb8, pixels: [UInt8](repeating: 77, count: 1800)))
        let small = try ImageSource.decode(png, options: ImageSourceOptions(maxPixelSize: 7))
        #expect(small.width == 7 && small.height == 5 && small.pixels.allSatisfy { $0 == 77 })
    }

    @Test func orientationAndPremultiplicationOnRequest() throws {
        var image = Self.rgba
        image.metadata.exif = exifWithOrientation(6)
        image.metadata.orientation = .right
        let png = try PNGEncoder.encode(image)
        let upright = try ImageSource.decode(png, options: ImageSourceOptions(applyOrientation: true, premultiplyAlpha: true))
        #expect(upright.width == 24 && upright.height == 40 && upright.isPremultiplied)
    }
}

/// A minimal little-endian TIFF with IFD0 holding the orientation, and optionally an IFD1
/// pointing at a thumbnail.
func exifWithOrientation(_ value: UInt16, thumbnail: [UInt8]? = nil) -> [UInt8] {
    var t: [UInt8] = [0x49, 0x49, 42, 0, 8, 0, 0, 0]
    t.appendUInt16LE(1)
    t.appendUInt16LE(0x0112); t.appendUInt16LE(3); t.appendUInt32LE(1); t.appendUInt16LE(value); t.appendUInt16LE(0)
    guard let thumbnail else { t.appendUInt32LE(0); return t }
    let ifd1 = UInt32(t.count + 4)
    t.appendUInt32LE(ifd1)
    t.appendUInt16LE(2)
    let dataOffset = UInt32(Int(ifd1) + 2 + 24 + 4)
    t.appendUInt16LE(0x0201); t.appendUInt16LE(4); t.appendUInt32LE(1); t.appendUInt32LE(dataOffset)
    t.appendUInt16LE(0x0202); t.appendUInt16LE(4); t.appendUInt32LE(1); t.appendUInt32LE(UInt32(thumbnail.count))
    t.appendUInt32LE(0)
    return t + thumbnail
}

@Suite struct EXIFTests {
    @Test func orientationAndThumbnail() throws {
        let thumb = try JPEGEncoder.encode(Image(width: 8, height: 8, format: .gray8))
        let exif = exifWithOrientation(8, thumbnail: thumb)
        #expect(EXIF.orientation(exif) == .left)
        #expect(EXIF.thumbnail(exif) == thumb)
        #expect(EXIF.orientation([0x45, 0x78, 0x69, 0x66, 0, 0] + exif) == .left)
        #expect(EXIF.thumbnail(exifWithOrientation(1)) == nil)
        #expect(EXIF.orientation([1, 2, 3]) == nil)
        // Offsets pointing outside the data are ignored, not trusted.
        var broken = exif
        broken.removeLast(thumb.count / 2)
        #expect(EXIF.thumbnail(broken) == nil)
    }
}

@Suite struct ImageSourceAgreementTests {
    /// Whole-buffer and chunked decoding are the same decoder, so they agree on every fuzzer
    /// finding (FUZZING.md: a JPNG footer whose parts do not match the bytes after EOI).
    @Test func wholeAndChunkedAgreeOnRegressions() throws {
        for name in TestVectors.files(in: "regressions").filter({ !$0.hasSuffix(".tsv") }) {
            let bytes = try TestVectors.bytes("regressions/" + name)
            let whole = try? ImageSource.decode(bytes)
            for size in [1, 7, 64, 512] {
                var source = ImageSource()
                var chunked: Image?
                do {
                    var i = 0
                    while i < bytes.count { _ = try source.append(bytes[i ..< min(bytes.count, i + size)]); i += size }
                    chunked = try source.finish()
                } catch { chunked = nil }
                #expect(chunked == whole, "\(name) in \(size)-byte pieces")
            }
        }
    }

    /// Bytes after a complete JPNG: the footer seen mid-stream is not the last, so the result
    /// must be what the whole file gives, not what the first footer gave.
    @Test func bytesAfterACompleteJPNGAreJudgedAtTheEnd() throws {
        let jpng = try JPNGEncoder.encode(sampleRGBA(width: 16, height: 8))
        let withJunk = jpng + [1, 2, 3]
        let whole = try? ImageSource.decode(withJunk)
        var source = ImageSource()
        _ = try source.append(jpng)
        #expect(source.format == .jpng)
        _ = try source.append([1, 2, 3])
        let chunked = try? source.finish()
        #expect(chunked == whole)
    }
}

@Suite struct ImageSourceDescriptionTests {
    static let rgba = sampleRGBA(width: 40, height: 24)

    @Test func describesEveryFormatWithItsOwnFacts() throws {
        let png = try ImageSource.describe(try PNGEncoder.encode(Self.rgba))
        #expect(png.format == .png && png.header.width == 40 && png.details.contains(ImageDetail("colour type", "rgba (6)")))
        #expect(!png.isAnimation && png.frames.isEmpty)
        let jpeg = try ImageSource.describe(try JPEGEncoder.encode(Self.rgba, options: JPEGEncodingOptions(progressive: true)))
        #expect(jpeg.format == .jpeg && jpeg.header.isProgressive)
        #expect(jpeg.details.contains(ImageDetail("process", "progressive")))
        #expect(jpeg.details.contains(ImageDetail("precision", "8 bits")))
        let jpngBytes = try JPNGEncoder.encode(Self.rgba)
        let jpng = try ImageSource.describe(jpngBytes)
        #expect(jpng.format == .jpng && jpng.header.pixelFormat == .rgba8 && jpng.fileSize == jpngBytes.count)
        #expect(jpng.details.first?.label == "JPNG version" && jpng.details.contains { $0.label == "process" })
    }

    @Test func animationsComeThroughTheSharedProtocol() throws {
        let name = try #require(TestVectors.files(in: "gif", withExtension: "gif").first { $0.hasPrefix("anim") })
        let bytes = try TestVectors.bytes("gif/" + name)
        let gif = try GIFAnimation(bytes: bytes)
        let animation = try #require(try ImageSource.animation(bytes))
        #expect(animation.canvasWidth == gif.width && animation.frameInfo.count == gif.frames.count)
        #expect(animation.loopCount == gif.loopCount)
        var frames: [Image] = []
        try animation.forEachFrame { index, frame in
            #expect(index == frames.count)
            frames.append(frame)
        }
        #expect(frames == Array(gif))
        #expect(try animation.frame(at: frames.count - 1) == frames.last)
        let described = try ImageSource.describe(bytes)
        #expect(described.isAnimation && described.frames == animation.frameInfo && described.header.frameCount == frames.count)
        #expect(described.frames.first?.delayMilliseconds == gif.frames.first.map { $0.delayCentiseconds * 10 })
        #expect(try ImageSource.animation(try PNGEncoder.encode(Self.rgba)) == nil)
        #expect(throws: ImageSourceError.self) { try ImageSource.animation([1, 2, 3, 4, 5, 6, 7, 8, 9]) }
    }

    @Test func subsampleFactorOnEveryFormat() throws {
        let big = sampleRGBA(width: 83, height: 45)
        for factor in [1, 2, 4, 8] {
            let size = ((83 + factor - 1) / factor, (45 + factor - 1) / factor)
            let options = ImageSourceOptions(subsampleFactor: factor)
            let jpegBytes = try JPEGEncoder.encode(big.converted(to: .rgb8))
            let jpeg = try ImageSource.decode(jpegBytes, options: options)
            #expect(jpeg == (try JPEGDecoder.decode(jpegBytes, options: JPEGDecodingOptions(scale: 8 / factor))), "DCT scaling, 1/\(factor)")
            for bytes in [try PNGEncoder.encode(big), try JPNGEncoder.encode(big), jpegBytes] {
                let image = try ImageSource.decode(bytes, options: options)
                #expect(image.width == size.0 && image.height == size.1, "1/\(factor)")
                let (_, chunked, _) = try feed(bytes, pieces: 7, options: options)
                #expect(chunked == image)
            }
        }
        // The JPNG mask follows the colour part's DCT scale, also under a size target.
        let jpng = try ImageSource.decode(try JPNGEncoder.encode(big), options: ImageSourceOptions(maxPixelSize: 20))
        #expect(jpng.format == .rgba8 && max(jpng.width, jpng.height) == 20)
    }
}
