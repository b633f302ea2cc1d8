import ImageCore
import Testing
@testable import PureJPEG

/// The baseline encoder's two-stage pipeline (``TransformPipeline``): 1, 2, 3 and 8 threads write
/// cjpeg's bytes on every golden case, whole (`JPEGEncoder`) and streamed in pieces
/// (`JPEGStreamEncoder`).
@Suite("JPEG encoder threads")
struct EncoderThreadsTests {
    static let baseline = GoldenCase.all.filter { !$0.progressive && !$0.optimize }

    @Test("every thread count writes cjpeg's bytes", arguments: baseline)
    func threadCounts(_ c: GoldenCase) throws {
        let image = try #require(NetpbmReader.read(try TestVectors.bytes("jpeg-encoder/" + c.input)))
        let expected = try TestVectors.bytes("jpeg-encoder/" + c.output)
        for threads in [1, 2, 3, 8] {
            var options = c.options
            options.threads = threads
            #expect(try JPEGEncoder.encode(image, options: options) == expected, "\(threads) threads, whole")
            for piece in [1, 7, image.width * image.format.bytesPerPixel * 5 + 3] {
                var encoder = try JPEGStreamEncoder(width: image.width, height: image.height, format: image.format, options: options)
                #expect(try encoder.encodeAll(image.pixels, pieces: piece) == expected, "\(threads) threads, \(piece)-byte pieces")
            }
        }
    }

    @Test("bands coded on separate threads join to the one-thread bytes (any bit offset, stuffed bytes)",
          arguments: [(PixelFormat.rgb8, 420), (.rgb8, 444), (.gray8, 0), (.rgba8, 422)])
    func segmented(_ format: PixelFormat, _ sampling: Int) throws {
        // Noise at high quality: long codes, many 0xFF bytes, bands ending at every bit offset.
        var image = Image(width: 203, height: 157, format: format)
        image.pixels.withUnsafeMutableBufferPointer { p in
            for i in p.indices { p[i] = UInt8(truncatingIfNeeded: (i &* 2654435761) >> 13 ^ i / 611) }
        }
        for quality in [50, 100] {
            var options = JPEGEncodingOptions(quality: quality)
            if sampling == 444 { options.subsampling = .s444 } else if sampling == 422 { options.subsampling = .s422 }
            options.threads = 1
            let one = try JPEGEncoder.encode(image, options: options)
            #expect(SegmentedBaseline.bands(setup: try EncoderSetup(width: 203, height: 157, format: format, options: options),
                                            options: options) == 1)
            for threads in [2, 3, 5, 8, 64] {
                options.threads = threads
                #expect(try JPEGEncoder.encode(image, options: options) == one, "\(format) q\(quality), \(threads) threads")
            }
        }
    }

    @Test("a band's coded bytes appended after any number of pending bits equal one writer's")
    func appendCodedAtEveryOffset() {
        // Symbols of 1...32 bits, many of them all ones (so 0xFF bytes, stuffed, in every
        // position of an 8-byte word), from a fixed generator.
        var seed: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next() -> UInt64 {
            seed = seed &* 6364136223846793005 &+ 1442695040888963407
            return seed >> 11
        }
        let symbols: [(UInt64, Int)] = (0 ..< 3000).map { i in
            let n = Int(next() % 32) + 1
            let value = i % 3 == 0 ? (1 << UInt64(n)) - 1 : next() & ((1 << UInt64(n)) - 1)
            return (value, n)
        }
        for headBits in 0 ..< 80 {
            for tail in [0, 1, 7, 200, 3000] {
                var whole = BitWriter(capacity: 1 << 16)
                var head = BitWriter(capacity: 1 << 16)
                var band = BitWriter(capacity: 1 << 16)
                var left = headBits
                while left > 0 {
                    let n = min(left, 13)
                    whole.put(0x1FFF >> UInt64(13 - n), n)
                    head.put(0x1FFF >> UInt64(13 - n), n)
                    left -= n
                }
                for (value, n) in symbols.prefix(tail) {
                    whole.put(value, n)
                    band.put(value, n)
                }
                band.bytes().withUnsafeBufferPointer { head.appendCoded($0, pendingBits: band.acc, count: band.bits) }
                whole.flushBits()
                head.flushBits()
                #expect(head.bytes() == whole.bytes(), "\(headBits) bits before, \(tail) symbols")
            }
        }
    }

    @Test("16-bit rows and a stream encoder dropped mid-image")
    func sixteenBitAndAbandoned() throws {
        var image = Image(width: 77, height: 53, format: .rgb16)
        image.pixels.withUnsafeMutableBytes { raw in
            for i in 0 ..< 77 * 53 * 3 { raw.storeBytes(of: UInt16(truncatingIfNeeded: i &* 2654435761 >> 9), toByteOffset: 2 * i, as: UInt16.self) }
        }
        var one = JPEGEncodingOptions(quality: 85)
        one.threads = 1
        var two = one
        two.threads = 2
        func streamed(_ options: JPEGEncodingOptions) throws -> [UInt8] {
            var encoder = try JPEGStreamEncoder(width: 77, height: 53, format: .rgb16, options: options)
            let out = try image.pixels.withUnsafeBytes { try encoder.append(rows: $0) }
            return out + (try encoder.finish())
        }
        #expect(try streamed(two) == (try streamed(one)))
        #expect(try streamed(one) == (try JPEGEncoder.encode(image, options: one)))
        // Dropped with a row still on the transform queue: its buffers outlive that row.
        for _ in 0 ..< 20 {
            var encoder = try JPEGStreamEncoder(width: 77, height: 53, format: .rgb16, options: two)
            _ = try image.pixels[0 ..< 77 * 6 * 20].withUnsafeBytes { try encoder.append(rows: $0) }
        }
    }

    @Test("threads below 1 are refused")
    func invalid() {
        var options = JPEGEncodingOptions()
        options.threads = 0
        #expect(throws: JPEGEncoderError.self) { try JPEGEncoder.encode(Image(width: 8, height: 8, format: .gray8), options: options) }
    }
}

/// The stream encoder's bands (``BandedStream``): each band coded whole on either thread and
/// joined in order writes the one-thread bytes, whoever codes which band, in any pieces.
@Suite("JPEG stream encoder bands")
struct StreamBandTests {
    static func noise(_ width: Int, _ height: Int, _ format: PixelFormat) -> Image {
        var image = Image(width: width, height: height, format: format)
        image.pixels.withUnsafeMutableBufferPointer { p in
            for i in p.indices { p[i] = UInt8(truncatingIfNeeded: (i &* 2654435761) >> 13 ^ i / 611) }
        }
        return image
    }

    @Test("bands join to the one-thread bytes", arguments: [(PixelFormat.rgb8, 420, 157), (.rgb8, 444, 157), (.gray8, 0, 300),
                                                             (.rgba8, 422, 700), (.rgb8, 420, 64 * 16 + 5)])
    func joined(_ format: PixelFormat, _ sampling: Int, _ height: Int) throws {
        let image = Self.noise(203, height, format)
        for quality in [50, 100] {
            var options = JPEGEncodingOptions(quality: quality)
            if sampling == 444 { options.subsampling = .s444 } else if sampling == 422 { options.subsampling = .s422 }
            options.threads = 1
            let one = try JPEGEncoder.encode(image, options: options)
            options.threads = 2
            let rowBytes = image.width * format.bytesPerPixel
            for dealing in [BandedStream.Dealing.whenFree, .worker, .caller] {
                for piece in [7, rowBytes * 5 + 3, image.pixels.count] {
                    var encoder = try JPEGStreamEncoder(width: image.width, height: image.height, format: format, options: options)
                    let banded = try #require(encoder.bandedCoder, "\(format) \(height) rows: no bands")
                    banded.dealing = dealing
                    #expect(try encoder.encodeAll(image.pixels, pieces: piece) == one,
                            "\(format) \(sampling) q\(quality) \(dealing) \(piece)-byte pieces")
                }
            }
        }
    }

    @Test("no bands with one thread, a restart interval, 16-bit rows or under 8 MCU rows")
    func notBanded() throws {
        var options = JPEGEncodingOptions(quality: 85)
        options.threads = 2
        #expect(try JPEGStreamEncoder(width: 64, height: 128, format: .rgb8, options: options).bandedCoder != nil)
        #expect(try JPEGStreamEncoder(width: 64, height: 112, format: .rgb8, options: options).bandedCoder == nil)
        #expect(try JPEGStreamEncoder(width: 64, height: 128, format: .rgb16, options: options).bandedCoder == nil)
        var restart = options
        restart.restartInterval = 4
        #expect(try JPEGStreamEncoder(width: 64, height: 128, format: .rgb8, options: restart).bandedCoder == nil)
        options.threads = 1
        #expect(try JPEGStreamEncoder(width: 64, height: 128, format: .rgb8, options: options).bandedCoder == nil)
    }

    @Test("an encoder dropped with a band on the worker")
    func dropped() throws {
        let image = Self.noise(203, 400, .rgb8)
        var options = JPEGEncodingOptions(quality: 85)
        options.threads = 2
        for _ in 0 ..< 20 {
            var encoder = try JPEGStreamEncoder(width: 203, height: 400, format: .rgb8, options: options)
            encoder.bandedCoder?.dealing = .worker
            _ = try image.pixels[0 ..< 203 * 3 * 200].withUnsafeBytes { try encoder.append(rows: $0) }
        }
    }
}

extension JPEGStreamEncoder {
    /// Appends `pixels` in pieces of `pieces` bytes, then finishes: the whole file.
    mutating func encodeAll(_ pixels: [UInt8], pieces: Int) throws -> [UInt8] {
        var out: [UInt8] = []
        var i = 0
        while i < pixels.count {
            let end = min(pixels.count, i + pieces)
            out += try pixels[i ..< end].withUnsafeBytes { try append(rows: $0) }
            i = end
        }
        return out + (try finish())
    }
}
