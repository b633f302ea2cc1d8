import ImageCore
import Testing
@testable import PureJPEG

/// MCU rows reconstructed on a second thread (``BandWorker``, `threads` above 1) give the
/// one-thread decode: pixels, events and errors, whole and in pieces, on every vector and
/// damaged file, and on a large image whose data is cut or damaged mid-scan.
@Suite struct JPEGDecoderThreadsTests {
    static func sameOutcome(_ bytes: [UInt8], _ name: String, strict: Bool = false, sizes: [Int?] = [nil, 7, 4096]) {
        for size in sizes {
            var options = JPEGDecodingOptions(strict: strict)
            options.threads = 1
            let one = decodeInPieces(bytes, size: size, options: options)
            for threads in [2, 3, 8] {
                options.threads = threads
                let outcome = decodeInPieces(bytes, size: size, options: options)
                let label = "\(name), \(threads) threads, pieces \(size.map { "\($0)" } ?? "whole")"
                #expect(outcome.events == one.events, "\(label): events")
                switch (one.result, outcome.result) {
                case let (.success(a), .success(b)): #expect(a == b, "\(label): pixels")
                case let (.failure(a), .failure(b)): #expect(a == b, "\(label): errors")
                default: Issue.record("\(label): \(outcome.result) against \(one.result)")
                }
            }
        }
    }

    @Test(arguments: JPEGVector.all)
    func everyVector(_ vector: JPEGVector) throws {
        Self.sameOutcome(try vector.bytes(), vector.file)
    }

    /// Scaled decodes (DCT scaling 1/2, 1/4, 1/8): the decoding thread's share of the IDCTs
    /// (the first component's blocks, 4x4, 2x2 or 1x1 samples each) lands where one thread puts it.
    @Test(arguments: [4, 2, 1])
    func scaledDecodes(scale: Int) throws {
        for vector in JPEGVector.all.prefix(24) {
            let bytes = try vector.bytes()
            var options = JPEGDecodingOptions()
            options.scale = scale
            options.threads = 1
            let one = decodeInPieces(bytes, size: nil, options: options)
            options.threads = 2
            let two = decodeInPieces(bytes, size: nil, options: options)
            #expect(two.events == one.events, "\(vector.file) scale \(scale)/8: events")
            switch (one.result, two.result) {
            case let (.success(a), .success(b)):
                let same = a == b
                #expect(same, "\(vector.file) scale \(scale)/8: pixels")
            case let (.failure(a), .failure(b)): #expect(a == b, "\(vector.file) scale \(scale)/8: errors")
            default: Issue.record("\(vector.file) scale \(scale)/8: \(two.result) against \(one.result)")
            }
        }
    }

    @Test(arguments: DamagedVector.all)
    func everyDamagedFile(_ vector: DamagedVector) throws {
        let bytes = try vector.bytes()
        Self.sameOutcome(bytes, vector.file)
        Self.sameOutcome(bytes, vector.file + " strict", strict: true, sizes: [nil])
    }

    /// A 0.7 MP noisy photo-like JPEG (default threads use the second thread from half a
    /// megapixel), and damaged copies of it: cut in the middle of the scan (the rows so far, the
    /// rest filled), a stray marker mid-scan and corrupt bytes (warnings among the rows, in order).
    static func largeImage(seed: UInt32) throws -> (jpeg: [UInt8], damaged: [(name: String, bytes: [UInt8], strict: Bool, sizes: [Int?])]) {
        var image = Image(width: 1000, height: 700, format: .rgb8)
        var state = seed
        for i in 0 ..< image.pixels.count {
            state = state &* 1_103_515_245 &+ 12345
            image.pixels[i] = UInt8(truncatingIfNeeded: (i / 3) % 1000 / 4 + Int(state >> 29))
        }
        let jpeg = try JPEGEncoder.encode(image, options: JPEGEncodingOptions(quality: 85))
        var marked = jpeg
        marked[jpeg.count / 3] = 0xFF
        marked[jpeg.count / 3 + 1] = 0xD9
        var corrupt = jpeg
        for k in stride(from: jpeg.count / 2, to: jpeg.count / 2 + 400, by: 37) { corrupt[k] ^= 0x5A }
        return (jpeg, [("whole", jpeg, false, [nil, 4096, 65_537]),
                       ("cut", Array(jpeg.prefix(jpeg.count / 2)), false, [nil, 4096]),
                       ("cut strict", Array(jpeg.prefix(jpeg.count / 2)), true, [nil, 4096]),
                       ("marker", marked, false, [nil, 4096]), ("marker strict", marked, true, [nil]),
                       ("corrupt", corrupt, false, [nil, 4096])])
    }

    @Test func largeImageCutAndDamagedMidScan() throws {
        let (jpeg, damaged) = try Self.largeImage(seed: 7)
        #expect(try JPEGDecoder.decode(jpeg) == JPEGDecoder.decode(jpeg, options: {
            var o = JPEGDecodingOptions(); o.threads = 1; return o
        }()))
        for d in damaged { Self.sameOutcome(d.bytes, d.name, strict: d.strict, sizes: d.sizes) }
    }

    /// Row mode (``JPEGRowDecoder``) on two threads: the same rows, events and errors as on one.
    /// (More threads are the same two: one reconstructs, this one decodes.)
    static func sameRows(_ bytes: [UInt8], _ name: String, strict: Bool = false, sizes: [Int?] = [nil, 4096]) {
        for size in sizes {
            var options = JPEGDecodingOptions(strict: strict)
            options.threads = 1
            let one = decodeRows(bytes, size: size, options: options)
            for threads in [2] {
                options.threads = threads
                let rows = decodeRows(bytes, size: size, options: options)
                let label = "\(name), rows, \(threads) threads, pieces \(size.map { "\($0)" } ?? "whole")"
                #expect(rows.events == one.events, "\(label): events")
                #expect(rows.rows == one.rows && rows.pixels == one.pixels, "\(label): rows")
                #expect(rows.orderProblems.isEmpty, "\(label): \(rows.orderProblems)")
                #expect(String(describing: rows.error) == String(describing: one.error), "\(label): errors")
            }
        }
    }

    @Test(arguments: JPEGVector.all)
    func everyVectorInRows(_ vector: JPEGVector) throws {
        Self.sameRows(try vector.bytes(), vector.file)
    }

    @Test(arguments: DamagedVector.all)
    func everyDamagedFileInRows(_ vector: DamagedVector) throws {
        let bytes = try vector.bytes()
        Self.sameRows(bytes, vector.file, sizes: [nil, 4096])
        Self.sameRows(bytes, vector.file + " strict", strict: true, sizes: [nil])
    }

    @Test("row mode: a large image whole, cut, damaged and scaled; the rows callback throwing mid-image")
    func largeImageInRows() throws {
        let (jpeg, damaged) = try Self.largeImage(seed: 11)
        // Default threads: two (0.7 MP); batches of more than one MCU row.
        let whole = try JPEGDecoder.decode(jpeg, options: { var o = JPEGDecodingOptions(); o.threads = 1; return o }())
        let rows = decodeRows(jpeg, size: 65_537)
        #expect(rows.error == nil && rows.pixels == whole.pixels)
        for d in damaged { Self.sameRows(d.bytes, d.name, strict: d.strict, sizes: d.sizes) }
        for scale in [4, 1] {
            var options = JPEGDecodingOptions()
            options.scale = scale
            options.threads = 1
            let one = decodeRows(jpeg, size: 4096, options: options)
            options.threads = 2
            let two = decodeRows(jpeg, size: 4096, options: options)
            #expect(one.error == nil && two.pixels == one.pixels && two.events == one.events, "scale \(scale)/8")
        }
        // The caller's `rows` throws while the worker has a batch: that band is lost (as on one
        // thread), the decoder keeps going with the next call, and a copy of it decodes the same.
        struct Stop: Error {}
        var options = JPEGDecodingOptions()
        options.threads = 2
        var decoder = JPEGRowDecoder(options: options)
        var bands = 0, received: [Int: [UInt8]] = [:]
        func take(_ band: RowBand) {
            for i in 0 ..< band.count { received[band.y + i] = Array(band.row(i)) }
        }
        let half = jpeg.count / 2
        do {
            try jpeg.prefix(half).withUnsafeBytes { raw in
                _ = try decoder.append(raw) { band in
                    bands += 1
                    if bands == 2 { throw Stop() }
                    take(band)
                }
            }
            Issue.record("the rows callback's error did not come through")
        } catch is Stop {
        }
        let copy = decoder
        for var d in [decoder, copy] {
            var got = received
            try jpeg.suffix(from: half).withUnsafeBytes { raw in
                _ = try d.append(raw) { band in for i in 0 ..< band.count { got[band.y + i] = Array(band.row(i)) } }
            }
            try d.finish { band in for i in 0 ..< band.count { got[band.y + i] = Array(band.row(i)) } }
            // Every row but the lost band's, each equal to the one-thread row.
            #expect(got.count > 600 && got.count < 700)
            for (y, row) in got {
                let start = y * 3000
                #expect(row == Array(whole.pixels[start ..< start + 3000]), "row \(y)")
            }
        }
    }

    @Test("the second thread's bands and the final pass's pipelines count against maxBytes: at the one-thread minimum, more threads decode on fewer")
    func threadsWithinMemoryLimit() throws {
        var image = Image(width: 1000, height: 700, format: .rgb8)
        for i in 0 ..< image.pixels.count { image.pixels[i] = UInt8(truncatingIfNeeded: i / 3 % 1000 / 4 + i / 3000 % 7) }
        for progressive in [false, true] {
            var encoding = JPEGEncodingOptions(quality: 85)
            encoding.progressive = progressive
            let jpeg = try JPEGEncoder.encode(image, options: encoding)
            func decode(_ maxBytes: Int, threads: Int) -> Image? {
                var options = JPEGDecodingOptions()
                options.threads = threads
                return try? JPEGDecoder.decode(jpeg, limits: DecodingLimits(maxBytes: maxBytes), options: options)
            }
            // The least maxBytes a one-thread decode needs.
            var low = 0, high = 64 << 20
            while high - low > 1 {
                let mid = (low + high) / 2
                if decode(mid, threads: 1) != nil { high = mid } else { low = mid }
            }
            let one = try #require(decode(high, threads: 1))
            for threads in [2, 3, 8] {
                #expect(decode(high, threads: threads) == one, "progressive \(progressive), \(threads) threads at \(high) bytes")
            }
        }
    }
}
