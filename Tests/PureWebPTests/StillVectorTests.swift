import Testing
import ImageCore
@testable import PureWebP

@Suite("WebP still vectors")
struct StillVectorTests {
    @Test func manifestIsPresent() {
        #expect(WebPVector.stills.count >= 60)
        #expect(WebPVector.animations.count >= 20)
    }

    @Test("whole file, exact against dwebp -pam", arguments: WebPVector.stills)
    func whole(_ v: WebPVector) throws {
        let run = Run(try v.bytes())
        guard let image = run.image else {
            Issue.record("\(v.name): \(run.error.map { String(describing: $0).prefix(200) } ?? "no image")")
            return
        }
        #expect(image.width == v.width && image.height == v.height)
        let ref = try v.reference()
        let got = image.rgba
        #expect(got == ref, "\(v.name): \(zip(got, ref).enumerated().first { $0.element.0 != $0.element.1 }.map { "byte \($0.offset): \($0.element.0) vs \($0.element.1)" } ?? "size")")
        #expect(run.events.last == .end)
    }
}

@Suite("WebP incremental decoding")
struct IncrementalTests {
    @Test("1-, 7- and 4096-byte pieces give the same image, rows in order", arguments: WebPVector.stills)
    func pieces(_ v: WebPVector) throws {
        let bytes = try v.bytes()
        let ref = try v.reference()
        for chunk in [1, 7, 4096] {
            let run = Run(bytes, chunk: chunk)
            guard let image = run.image else { Issue.record("\(v.name) in \(chunk)-byte pieces: \(String(describing: run.error).prefix(200))"); continue }
            #expect(image.rgba == ref, "\(v.name) in \(chunk)-byte pieces")
            var next = 0
            for case let .rows(r) in run.events {
                #expect(r.lowerBound == next)
                next = r.upperBound
            }
            #expect(next == v.height)
            #expect(run.events.filter { if case .header = $0 { return true } else { return false } }.count == 1)
        }
    }

    @Test func rowsArriveBeforeTheEnd() throws {
        let bytes = try TestVectors.bytes("webp/ll_photo_z6.webp")
        var decoder = WebPDecoder()
        var rowsBeforeHalf = 0
        for event in try decoder.append(bytes.prefix(bytes.count / 2)) {
            if case let .rows(r) = event { rowsBeforeHalf = r.upperBound }
        }
        #expect(rowsBeforeHalf > 10 && rowsBeforeHalf < 80)
        let preview = try #require(decoder.preview())
        #expect(preview.width == 96 && preview.height == 80)
        _ = try decoder.append(bytes.dropFirst(bytes.count / 2))
        let image = try decoder.finish()
        #expect(Array(preview.pixels.prefix(rowsBeforeHalf * 96 * 3)) == Array(image.pixels.prefix(rowsBeforeHalf * 96 * 3)))
    }

    @Test func truncatedFileKeepsTheDecodedRows() throws {
        let bytes = try TestVectors.bytes("webp/ll_photo_z6.webp")
        let full = try WebPDecoder.decode(bytes)
        var decoder = WebPDecoder()
        _ = try decoder.append(bytes.prefix(bytes.count * 3 / 4))
        do {
            _ = try decoder.finish()
            Issue.record("a truncated file finished")
        } catch {
            guard case let .incomplete(offset, partial?) = error else { Issue.record("\(error)"); return }
            #expect(offset == bytes.count * 3 / 4)
            #expect(partial.width == 96 && partial.height == 80)
            let rows = partial.pixels.count / (96 * 3)
            #expect(partial.pixels.prefix(40 * 96 * 3) == full.pixels.prefix(40 * 96 * 3))
            #expect(rows == 80)
        }
        // Sticky.
        #expect(throws: WebPError.self) { _ = try decoder.append([0]) }
    }
}

@Suite("WebP metadata")
struct MetadataTests {
    @Test func iccProfile() throws {
        let image = try WebPDecoder.decode(try TestVectors.bytes("webp/meta_icc.webp"))
        let profile = try TestVectors.bytes("icc/profiles/compatibleWithAdobeRGB1998.icc")
        #expect(image.metadata.iccProfile == profile)
        #expect(image.metadata.exif == nil)
    }

    @Test func exifOrientation() throws {
        let image = try WebPDecoder.decode(try TestVectors.bytes("webp/meta_exif.webp"))
        #expect(image.metadata.exif?.prefix(4) == [0x49, 0x49, 0x2A, 0x00])
        #expect(image.metadata.orientation == .right)
    }

    @Test func xmp() throws {
        let image = try WebPDecoder.decode(try TestVectors.bytes("webp/meta_xmp.webp"))
        let entry = try #require(image.metadata.texts.first)
        #expect(entry.keyword == "XML:com.adobe.xmp")
        #expect(entry.text.hasPrefix("<x:xmpmeta"))
    }

    @Test func allThreeOnALossyAlphaFileReadWithoutDecoding() throws {
        let animation = try WebPAnimation(bytes: try TestVectors.bytes("webp/meta_all_lossy_alpha.webp"))
        #expect(animation.metadata.iccProfile != nil && animation.metadata.exif != nil && animation.metadata.texts.count == 1)
        #expect(animation.metadata.orientation == .right)
    }
}

@Suite("WebP lossless resumption")
struct ResumptionTests {
    /// Fed one byte at a time, the setup (transforms, codes) is parsed again only when the
    /// bytes have doubled, and the pixels resume where they stopped: the rows come out the same.
    @Test(arguments: ["ll_photo_z9", "ll_colors2_z9", "ll_noise_alpha", "ll_near40"])
    func oneByteAtATime(_ name: String) throws {
        let file = try TestVectors.bytes("webp/\(name).webp")
        let payload = Array(file[20...])
        let header = try #require(VP8LHeader(payload[...]))
        var stream = VP8LStream(width: header.width, height: header.height, headerless: false)
        var rows: [Int] = []
        for n in 1 ... payload.count {
            try payload.withUnsafeBufferPointer { all in
                try stream.advance(UnsafeBufferPointer(rebasing: all[0 ..< n]), complete: n == payload.count) { y, _ in rows.append(y) }
            }
        }
        #expect(rows == Array(0 ..< header.height))
        var bits = 0
        while 1 << bits < payload.count { bits += 1 }
        #expect(stream.setupAttempts <= bits + 2)
        #expect(stream.isComplete)
    }
}
