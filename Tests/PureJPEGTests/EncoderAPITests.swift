import Foundation
import Testing
import ImageCore
@testable import PureJPEG

/// Helpers shared by the encoder API tests.
enum EncoderFixtures {
    static func photo() throws -> Image {
        try #require(NetpbmReader.read(try TestVectors.bytes("jpeg-encoder/photo_130x97.ppm")))
    }

    static func psnr(_ a: Image, _ b: Image) -> Double {
        precondition(a.pixels.count == b.pixels.count)
        var sum = 0.0
        for i in a.pixels.indices {
            let d = Double(a.pixels[i]) - Double(b.pixels[i])
            sum += d * d
        }
        let mse = sum / Double(a.pixels.count)
        return mse == 0 ? 99 : 10 * log10(255 * 255 / mse)
    }

    /// The marker segments before SOS: (marker, payload).
    static func segments(_ jpeg: [UInt8]) -> [(UInt8, [UInt8])] {
        var out: [(UInt8, [UInt8])] = []
        var i = 2
        while i + 4 <= jpeg.count, jpeg[i] == 0xFF {
            let marker = jpeg[i + 1], length = Int(jpeg[i + 2]) << 8 | Int(jpeg[i + 3])
            out.append((marker, Array(jpeg[(i + 4) ..< min(i + 2 + length, jpeg.count)])))
            if marker == 0xDA { break }
            i += 2 + length
        }
        return out
    }

    /// RSTn marker numbers in order of appearance (0xFF 0xD0...0xD7 can only be markers in
    /// entropy-coded data, since a coded 0xFF is always followed by 0x00).
    static func restartMarkers(_ jpeg: [UInt8]) -> [Int] {
        (1 ..< jpeg.count).compactMap { i in
            jpeg[i - 1] == 0xFF && (0xD0 ... 0xD7).contains(jpeg[i]) ? Int(jpeg[i] - 0xD0) : nil
        }
    }
}

@Suite("Encoder API, metadata and round trips through PureJPEG's decoder")
struct EncoderAPITests {
    struct Mode: CustomTestStringConvertible, Sendable {
        var subsampling: ChromaSubsampling
        var progressive: Bool
        var optimize: Bool?
        var testDescription: String { "\(subsampling.rawValue)\(progressive ? " progressive" : "")\(optimize == true ? " optimized" : "")" }
    }

    static let modes: [Mode] = ChromaSubsampling.allCases.flatMap { s in
        [Mode(subsampling: s, progressive: false, optimize: nil), Mode(subsampling: s, progressive: false, optimize: true),
         Mode(subsampling: s, progressive: true, optimize: nil)]
    }

    @Test(arguments: modes)
    func roundTrip(_ mode: Mode) throws {
        let image = try EncoderFixtures.photo()
        var previous = 0.0
        for quality in [50, 75, 90, 100] {
            let jpeg = try JPEGEncoder.encode(image, options: .init(quality: quality, subsampling: mode.subsampling,
                                                                     progressive: mode.progressive, optimizeHuffman: mode.optimize))
            let decoded = try JPEGDecoder.decode(jpeg)
            #expect(decoded.width == image.width && decoded.height == image.height && decoded.format == .rgb8)
            let psnr = EncoderFixtures.psnr(decoded, image)
            // What cjpeg | djpeg reaches on this photo (dB); our bytes equal cjpeg's, so the
            // round trip through our decoder must come within 0.05 dB of it.
            let cjpeg: [ChromaSubsampling: [Int: Double]] = [
                .s444: [50: 27.99, 75: 30.81, 90: 35.52, 100: 51.24],
                .s422: [50: 27.01, 75: 29.28, 90: 32.26, 100: 35.05],
                .s420: [50: 26.36, 75: 28.29, 90: 30.88, 100: 32.69],
            ]
            let expected = cjpeg[mode.subsampling]?[quality] ?? 99
            #expect(abs(psnr - expected) < 0.05, "q\(quality): \(psnr) dB, cjpeg \(expected) dB")
            #expect(psnr > previous)
            previous = psnr
        }
    }

    @Test func grayscaleRoundTrip() throws {
        let image = try EncoderFixtures.photo()
        for options in [JPEGEncodingOptions(grayscale: true), JPEGEncodingOptions(progressive: true, grayscale: true)] {
            let jpeg = try JPEGEncoder.encode(image, options: options)
            let decoded = try JPEGDecoder.decode(jpeg)
            #expect(decoded.format == .gray8)
            // cjpeg -grayscale | djpeg: 33.06 dB against Rec. 601 luma (rounding differs by at most 1).
            let luma = image.converted(to: .gray8)
            #expect(EncoderFixtures.psnr(decoded, luma) > 32.5)
        }
    }

    @Test func sixteenBitAndAlphaInputs() throws {
        let image = try EncoderFixtures.photo()
        let reference = try JPEGEncoder.encode(image)
        #expect(try JPEGEncoder.encode(image.converted(to: .rgb16)) == reference)
        #expect(try JPEGEncoder.encode(image.converted(to: .rgba8)) == reference)
        #expect(try JPEGEncoder.encode(image.converted(to: .rgba16)) == reference)
        let gray = image.converted(to: .gray8)
        let grayReference = try JPEGEncoder.encode(gray)
        #expect(try JPEGEncoder.encode(gray.converted(to: .grayAlpha8)) == grayReference)
        #expect(try JPEGEncoder.encode(gray.converted(to: .gray16)) == grayReference)
        #expect(try JPEGDecoder.decode(grayReference).format == .gray8)
        // Premultiplied input is encoded as its straight colour.
        let premultiplied = image.converted(to: .rgba8).premultiplied()
        #expect(premultiplied.isPremultiplied)
        #expect(try JPEGEncoder.encode(premultiplied) == reference)
    }

    @Test func streamEncoderMatchesOneShot() throws {
        let image = try EncoderFixtures.photo()
        for (format, options) in [(PixelFormat.rgb8, JPEGEncodingOptions()), (.rgba16, JPEGEncodingOptions(quality: 90, subsampling: .s422, restartInterval: 3)),
                                  (.gray8, JPEGEncodingOptions(quality: 60)), (.rgb8, JPEGEncodingOptions(subsampling: .s444, grayscale: true))] {
            let input = image.converted(to: format)
            let expected = try JPEGEncoder.encode(input, options: options)
            for chunk in [1, 777, input.bytesPerRow, 16 * input.bytesPerRow + 5, input.pixels.count] {
                var encoder = try JPEGStreamEncoder(width: input.width, height: input.height, format: format, options: options)
                var out: [UInt8] = []
                var offset = 0
                while offset < input.pixels.count {
                    let end = min(offset + chunk, input.pixels.count)
                    out += try input.pixels[offset ..< end].withUnsafeBytes { try encoder.append(rows: $0) }
                    offset = end
                }
                out += try encoder.finish()
                #expect(out == expected, "\(format) chunk \(chunk)")
            }
        }
    }

    @Test func streamEncoderErrors() throws {
        #expect(throws: JPEGEncoderError.invalidParameter("the stream encoder writes baseline only; progressive needs JPEGEncoder.encode")) {
            _ = try JPEGStreamEncoder(width: 8, height: 8, format: .rgb8, options: .init(progressive: true))
        }
        #expect(throws: JPEGEncoderError.self) {
            _ = try JPEGStreamEncoder(width: 8, height: 8, format: .rgb8, options: .init(optimizeHuffman: true))
        }
        var encoder = try JPEGStreamEncoder(width: 4, height: 2, format: .gray8)
        let row = [UInt8](repeating: 9, count: 4)
        _ = try row.withUnsafeBytes { try encoder.append(rows: $0) }
        #expect(throws: JPEGEncoderError.rowCountMismatch(expected: 2, received: 1)) { _ = try encoder.finish() }
        // Sticky: the same error again.
        #expect(throws: JPEGEncoderError.rowCountMismatch(expected: 2, received: 1)) { _ = try encoder.finish() }
        var tooMany = try JPEGStreamEncoder(width: 4, height: 1, format: .gray8)
        let rows = [UInt8](repeating: 9, count: 8)
        #expect(throws: JPEGEncoderError.rowCountMismatch(expected: 1, received: 2)) { _ = try rows.withUnsafeBytes { try tooMany.append(rows: $0) } }
        var finished = try JPEGStreamEncoder(width: 4, height: 1, format: .gray8)
        _ = try row.withUnsafeBytes { try finished.append(rows: $0) }
        let tail = try finished.finish()
        #expect(tail.suffix(2) == [0xFF, 0xD9])
        #expect(throws: JPEGEncoderError.alreadyFinished) { _ = try finished.finish() }
    }

    @Test func invalidOptionsAreRejected() throws {
        let image = try EncoderFixtures.photo()
        let bad: [JPEGEncodingOptions] = [
            .init(quality: 0), .init(quality: 101), .init(restartInterval: -1), .init(restartInterval: 65536),
            .init(quantizationTables: [[UInt16](repeating: 0, count: 64)]),
            .init(quantizationTables: [[UInt16](repeating: 256, count: 64)]),
            .init(quantizationTables: [[UInt16](repeating: 1, count: 63)]),
            .init(quantizationTables: []),
            .init(scanScript: [JPEGScan(components: [0, 1, 2], spectralStart: 0, spectralEnd: 63, successiveHigh: 0, successiveLow: 0)]),
        ]
        for options in bad {
            #expect(throws: JPEGEncoderError.self) { _ = try JPEGEncoder.encode(image, options: options) }
        }
        #expect(throws: JPEGEncoderError.emptyImage) { _ = try JPEGEncoder.encode(Image(width: 0, height: 5, format: .rgb8)) }
        #expect(throws: JPEGEncoderError.imageTooLarge(width: 65536, height: 1)) {
            _ = try JPEGEncoder.encode(Image(width: 65536, height: 1, format: .gray8))
        }
        #expect(JPEGEncoderError.emptyImage.description.contains("no pixels"))
        var broken = image
        broken.pixels.removeLast()
        #expect(throws: JPEGEncoderError.self) { _ = try JPEGEncoder.encode(broken) }
    }

    @Test func scanScriptValidation() throws {
        func scan(_ c: [Int], _ ss: Int, _ se: Int, _ ah: Int, _ al: Int) -> JPEGScan {
            JPEGScan(components: c, spectralStart: ss, spectralEnd: se, successiveHigh: ah, successiveLow: al)
        }
        let good = [scan([0, 1, 2], 0, 0, 0, 0), scan([0], 1, 63, 0, 0), scan([1], 1, 63, 0, 0), scan([2], 1, 63, 0, 0)]
        #expect(throws: Never.self) { try ProgressiveScript.validate(good, components: 3) }
        #expect(throws: Never.self) { try ProgressiveScript.validate(ProgressiveScript.simple(components: 3), components: 3) }
        #expect(throws: Never.self) { try ProgressiveScript.validate(ProgressiveScript.simple(components: 1), components: 1) }
        let bad: [[JPEGScan]] = [
            [],
            [scan([0], 1, 63, 0, 0), scan([0], 0, 0, 0, 0)],                   // AC before DC
            Array(good.dropLast()),                                             // Cr's AC missing
            good + [scan([0], 1, 63, 1, 0)],                                    // refines a finished band
            [scan([0, 1, 2], 0, 0, 0, 1), scan([0, 1, 2], 0, 0, 1, 1)] + good.dropFirst(), // Al must drop by one
            [scan([0, 1], 0, 0, 0, 0), scan([2], 0, 0, 0, 0), scan([0, 1], 1, 63, 0, 0)], // AC with two components
            [scan([1, 0, 2], 0, 0, 0, 0)] + good.dropFirst(),                   // components out of order
            [scan([0, 1, 3], 0, 0, 0, 0)] + good.dropFirst(),                   // no component 3
        ]
        for script in bad {
            #expect(throws: JPEGEncoderError.self) { try ProgressiveScript.validate(script, components: 3) }
        }
        // A custom script encodes and decodes.
        let image = try EncoderFixtures.photo()
        let jpeg = try JPEGEncoder.encode(image, options: .init(quality: 85, progressive: true, scanScript: good))
        #expect(EncoderFixtures.psnr(try JPEGDecoder.decode(jpeg), image) > 29)
    }

    @Test func unitQuality() {
        #expect(JPEGEncodingOptions(unitQuality: 0.8).quality == 80)
        #expect(JPEGEncodingOptions(unitQuality: 0.856).quality == 86)
        #expect(JPEGEncodingOptions(unitQuality: 0).quality == 1)
        #expect(JPEGEncodingOptions(unitQuality: 1).quality == 100)
        #expect(JPEGEncodingOptions(unitQuality: 7).quality == 100)
        #expect(JPEGEncodingOptions(unitQuality: .nan).quality == 75)
        #expect(JPEGEncodingOptions(unitQuality: 0.5, progressive: true).progressive)
    }

    @Test func customTablesEqualScaledOnes() throws {
        let image = try EncoderFixtures.photo()
        let tables = [EncoderTables.scaled(EncoderTables.luminanceQuantization, quality: 75),
                      EncoderTables.scaled(EncoderTables.chrominanceQuantization, quality: 75)]
        #expect(try JPEGEncoder.encode(image, options: .init(quantizationTables: tables)) == JPEGEncoder.encode(image))
        let flat = try JPEGEncoder.encode(image, options: .init(quantizationTables: [[UInt16](repeating: 4, count: 64)]))
        let dqt = EncoderFixtures.segments(flat).filter { $0.0 == 0xDB }
        #expect(dqt.count == 2 && dqt.allSatisfy { $0.1.dropFirst().allSatisfy { $0 == 4 } })
    }

    @Test(arguments: [false, true])
    func restartMarkersInSequence(progressive: Bool) throws {
        let image = try EncoderFixtures.photo()     // 130x97 at 4:2:0: 9 x 7 = 63 MCUs
        let jpeg = try JPEGEncoder.encode(image, options: .init(progressive: progressive, restartInterval: 2))
        let dri = EncoderFixtures.segments(jpeg).filter { $0.0 == 0xDD }
        #expect(dri.count == 1 && dri[0].1 == [0, 2])
        let markers = EncoderFixtures.restartMarkers(jpeg)
        if progressive {
            // Two DC scans of 63 MCUs (31 markers each); AC scans are single-component, their
            // MCU is one block: luma 17 x 13 = 221 blocks (110 markers) in four scans, chroma
            // 9 x 7 = 63 blocks (31) in four. Numbering restarts with each scan.
            #expect(markers.count == 2 * 31 + 4 * 110 + 4 * 31)
            #expect(zip(markers, markers.dropFirst()).allSatisfy { $1 == 0 || $1 == ($0 + 1) % 8 })
            #expect(markers.filter { $0 == 0 }.count >= 10)
        } else {
            #expect(markers.count == 31)
            #expect(markers == (0 ..< 31).map { $0 % 8 })
        }
        #expect(abs(EncoderFixtures.psnr(try JPEGDecoder.decode(jpeg), image) - 28.29) < 0.05)
    }

    @Test func iccProfileSplitsOverAPP2() throws {
        var image = try EncoderFixtures.photo()
        var profile = (0 ..< 150_000).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 9) }
        profile.replaceSubrange(16 ..< 20, with: Array("RGB ".utf8))       // an RGB profile's header field
        image.metadata.iccProfile = profile
        let jpeg = try JPEGEncoder.encode(image)
        let app2 = EncoderFixtures.segments(jpeg).filter { $0.0 == 0xE2 }
        #expect(app2.count == 3)
        var joined: [UInt8] = []
        for (i, seg) in app2.enumerated() {
            #expect(Array(seg.1.prefix(12)) == Array("ICC_PROFILE".utf8) + [0])
            #expect(seg.1[12] == UInt8(i + 1) && seg.1[13] == 3)
            #expect(seg.1.count - 14 <= 65519)
            joined += seg.1.dropFirst(14)
        }
        #expect(app2[0].1.count - 14 == 65519)
        #expect(joined == profile)
        #expect(try JPEGDecoder.decode(jpeg).metadata.iccProfile == profile)
        // Metadata off: no APP2.
        let bare = try JPEGEncoder.encode(image, options: .init(writeMetadata: false))
        #expect(!EncoderFixtures.segments(bare).contains { $0.0 == 0xE2 })
        var huge = [UInt8](repeating: 1, count: 65519 * 255 + 1)
        huge.replaceSubrange(16 ..< 20, with: Array("RGB ".utf8))
        image.metadata.iccProfile = huge
        #expect(throws: JPEGEncoderError.self) { _ = try JPEGEncoder.encode(image) }
    }

    /// A profile is written only where its colour space matches the file: RGB on a colour
    /// JPEG, GRAY on a grayscale one; a CMYK profile on RGB pixels is dropped.
    @Test func iccProfileMustMatchTheOutput() throws {
        var image = try EncoderFixtures.photo()
        func profile(_ space: String) -> [UInt8] {
            var bytes = [UInt8](repeating: 0, count: 400)
            bytes.replaceSubrange(16 ..< 20, with: Array(space.utf8))
            return bytes
        }
        for (space, grayscale, kept) in [("RGB ", false, true), ("CMYK", false, false), ("GRAY", false, false),
                                         ("GRAY", true, true), ("RGB ", true, false)] {
            image.metadata.iccProfile = profile(space)
            let jpeg = try JPEGEncoder.encode(image, options: JPEGEncodingOptions(grayscale: grayscale))
            #expect(EncoderFixtures.segments(jpeg).contains { $0.0 == 0xE2 } == kept, "\(space) grayscale \(grayscale)")
            #expect((try JPEGDecoder.decode(jpeg).metadata.iccProfile != nil) == kept)
        }
    }

    @Test func exifAndOrientation() throws {
        var image = try EncoderFixtures.photo()
        image.metadata.orientation = .right
        let synthesized = try JPEGEncoder.encode(image)
        let app1 = EncoderFixtures.segments(synthesized).filter { $0.0 == 0xE1 }
        #expect(app1.count == 1 && app1[0].1.starts(with: Array("Exif".utf8) + [0, 0]))
        let decoded = try JPEGDecoder.decode(synthesized)
        #expect(decoded.metadata.orientation == .right)
        // Stored EXIF goes out as it is.
        let tiff = JPEGWriter.orientationOnlyEXIF(.left)
        image.metadata.exif = tiff
        let stored = try JPEGEncoder.encode(image)
        #expect(EncoderFixtures.segments(stored).first { $0.0 == 0xE1 }?.1 == Array("Exif".utf8) + [0, 0] + tiff)
        #expect(try JPEGDecoder.decode(stored).metadata.exif == tiff)
        // Order as libjpeg writes: SOI, APP0, APP1, APP2, DQT...
        var rgbProfile = [UInt8](repeating: 0, count: 200)
        rgbProfile.replaceSubrange(16 ..< 20, with: Array("RGB ".utf8))
        image.metadata.iccProfile = rgbProfile
        let order = EncoderFixtures.segments(try JPEGEncoder.encode(image)).map(\.0)
        #expect(Array(order.prefix(5)) == [0xE0, 0xE1, 0xE2, 0xDB, 0xDB])
        let noJFIF = EncoderFixtures.segments(try JPEGEncoder.encode(image, options: .init(writeJFIF: false))).map(\.0)
        #expect(noJFIF.first == 0xE1)
    }

    @Test func densityGoesIntoJFIF() throws {
        var image = try EncoderFixtures.photo()
        image.metadata.density = Density(x: 300, y: 150, unit: .perInch)
        let app0 = try #require(EncoderFixtures.segments(try JPEGEncoder.encode(image)).first { $0.0 == 0xE0 })
        #expect(app0.1 == Array("JFIF".utf8) + [0, 1, 1, 1, 0x01, 0x2C, 0, 150, 0, 0])
    }
}
