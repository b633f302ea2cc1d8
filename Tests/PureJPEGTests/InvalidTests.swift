import ImageCore
import Testing
@testable import PureJPEG

@Suite("JPEG hostile and damaged input")
struct InvalidTests {
    /// Cut-short files decode as djpeg decodes them by default (DamagedFileTests); strict
    /// decoding reports `.truncated` with the partial image.
    static let strict = JPEGDecodingOptions(strict: true)

    @Test("strict: a truncated baseline file yields the decoded rows and mid-gray below")
    func truncatedPartial() throws {
        let bytes = try TestVectors.bytes("jpeg/valid/photo256_420_q90.jpg")
        let full = try JPEGDecoder.decode(bytes)
        for cut in [bytes.count / 3, bytes.count / 2, bytes.count - 10] {
            let (events, result) = decodeInPieces(Array(bytes[0 ..< cut]), size: nil, options: Self.strict)
            guard case let .failure(.truncated(_, partial?)) = result else {
                Issue.record("cut at \(cut): \(result)")
                continue
            }
            let done = events.reduce(0) { if case let .rows(r) = $1 { r.upperBound } else { $0 } }
            #expect(done > 0 && done < full.height)
            #expect(partial.width == full.width && partial.height == full.height)
            let split = done * full.bytesPerRow
            #expect(Array(partial.pixels[0 ..< split]) == Array(full.pixels[0 ..< split]))
            #expect(partial.pixels[split...].allSatisfy { $0 == 128 })
        }
    }

    @Test("strict: a truncated progressive file yields the scans so far")
    func truncatedProgressive() throws {
        let bytes = try TestVectors.bytes("jpeg-damaged/truncated_progressive_scan2.jpg")
        do {
            _ = try JPEGDecoder.decode(bytes, options: Self.strict)
            Issue.record("decoded a truncated file")
        } catch let .truncated(_, partial) {
            let image = try #require(partial)
            #expect(image.width > 0 && image.pixels.contains { $0 != 128 })
        }
    }

    @Test("errors are sticky")
    func sticky() throws {
        var decoder = JPEGDecoder()
        let bytes = try TestVectors.bytes("jpeg/invalid/dht_oversubscribed.jpg")
        #expect(throws: JPEGError.self) { _ = try decoder.append(bytes) }
        let first: JPEGError
        do { _ = try decoder.append([0xFF]); return } catch { first = error }
        #expect(first.code == "invalidHuffmanTable")
        #expect(throws: first) { _ = try decoder.finish() }
    }

    @Test("corrupt data inside a restart interval resynchronises with a warning")
    func resync() throws {
        var bytes = try TestVectors.bytes("jpeg/valid/restart_1row.jpg")
        let reference = try JPEGDecoder.decode(bytes)
        let sos = try #require(findMarker(bytes, 0xDA))
        // Runs of 1 bits are no valid code of these tables: damage 24 bytes early in the first interval.
        let at = sos + 20
        for k in at ..< at + 24 where bytes[k] != 0xFF && bytes[k - 1] != 0xFF { bytes[k] = 0xFE }
        let (events, result) = decodeInPieces(bytes, size: nil)
        let image = try result.get()
        #expect(events.contains { if case .warning = $0 { true } else { false } })
        let (maxDiff, _) = compare(image, reference)
        #expect(maxDiff > 0)
        // Rows after the damaged interval are intact.
        let lastRows = Array(image.pixels.suffix(image.bytesPerRow * 16))
        #expect(lastRows == Array(reference.pixels.suffix(reference.bytesPerRow * 16)))
    }

    @Test("a wrong restart number resynchronises as libjpeg does")
    func wrongRestartNumber() throws {
        var bytes = try TestVectors.bytes("jpeg/valid/restart_1block.jpg")
        let reference = try JPEGDecoder.decode(bytes)
        let sos = try #require(findMarker(bytes, 0xDA))
        var i = sos, seen = 0
        while i + 1 < bytes.count {
            if bytes[i] == 0xFF, (0xD0 ... 0xD7).contains(bytes[i + 1]) {
                seen += 1
                if seen == 5 { bytes[i + 1] = 0xD0 + (bytes[i + 1] - 0xD0 + 4) % 8; break }
            }
            i += 1
        }
        let (events, result) = decodeInPieces(bytes, size: 333)
        let image = try result.get()
        #expect(events.contains { if case let .warning(w) = $0 { w.contains("RST") } else { false } })
        #expect(image.width == reference.width)
    }

    @Test("corrupt data without restart markers is a typed error")
    func corruptNoRestart() throws {
        var bytes = try TestVectors.bytes("jpeg/valid/photo256_444_q75.jpg")
        let sos = try #require(findMarker(bytes, 0xDA))
        for k in sos + 30 ..< sos + 400 where bytes[k] != 0xFF && bytes[k - 1] != 0xFF { bytes[k] = 0xFE }
        do {
            _ = try JPEGDecoder.decode(bytes)
        } catch {
            #expect(error.code == "corruptData" || error.code == "truncated")
        }
    }

    @Test("limits are enforced at SOF")
    func limits() throws {
        let bytes = try TestVectors.bytes("jpeg/valid/photo256_420_q90.jpg")
        #expect(throws: JPEGError.self) { _ = try JPEGDecoder.decode(bytes, limits: DecodingLimits(maxPixels: 1000)) }
        do { _ = try JPEGDecoder.decode(bytes, limits: DecodingLimits(maxBytes: 10_000)) } catch { #expect(error.code == "limitExceeded") }
        let progressive = try TestVectors.bytes("jpeg/valid/progressive_many_bands.jpg")
        do {
            _ = try JPEGDecoder.decode(progressive, limits: DecodingLimits(maxScans: 3))
            Issue.record("scan limit not enforced")
        } catch {
            #expect(error.code == "tooManyScans")
        }
    }

    @Test("2660 tiny scans are refused quickly; 896 decode")
    func manyScans() throws {
        let clock = ContinuousClock()
        let start = clock.now
        #expect(throws: JPEGError.self) { _ = try JPEGDecoder.decode(try TestVectors.bytes("jpeg/invalid/too_many_scans.jpg")) }
        let image = try JPEGDecoder.decode(try TestVectors.bytes("jpeg/valid/progressive_896_scans.jpg"))
        #expect(image.width > 0)
        #expect(clock.now - start < .seconds(20))
    }

    @Test("strict: every truncation of a small file fails cleanly", arguments: ["valid/s420_w17.jpg", "valid/gray_progressive.jpg"])
    func everyPrefix(_ file: String) throws {
        let bytes = try TestVectors.bytes("jpeg/" + file)
        for n in stride(from: 0, to: bytes.count - 2, by: bytes.count > 2000 ? 5 : 1) {
            do {
                _ = try JPEGDecoder.decode(Array(bytes[0 ..< n]), options: Self.strict)
                Issue.record("prefix \(n) decoded")
            } catch {
                #expect(error.code == "truncated", "prefix \(n): \(error)")
            }
        }
    }

    @Test("random damage never traps", arguments: ["valid/photo256_progressive.jpg", "valid/restart_progressive.jpg",
                                                   "valid/s420_odd33x31.jpg", "valid/ycck_libjpeg.jpg"])
    func fuzz(_ file: String) throws {
        let original = try TestVectors.bytes("jpeg/" + file)
        var rng = SplitMix64(seed: UInt64(original.count))
        for _ in 0 ..< 60 {
            var bytes = original
            for _ in 0 ..< 1 + Int(rng.next() % 8) {
                let at = Int(rng.next() % UInt64(bytes.count))
                bytes[at] = UInt8(truncatingIfNeeded: rng.next())
            }
            let (_, result) = decodeInPieces(bytes, size: 500)
            if case let .success(image) = result { #expect(image.pixels.count == image.width * image.height * image.format.bytesPerPixel) }
        }
    }
}

func findMarker(_ bytes: [UInt8], _ marker: UInt8) -> Int? {
    var i = 0
    while i + 1 < bytes.count {
        if bytes[i] == 0xFF && bytes[i + 1] == marker { return i + 4 + (Int(bytes[i + 2]) << 8 | Int(bytes[i + 3])) - 2 }
        i += 1
    }
    return nil
}

