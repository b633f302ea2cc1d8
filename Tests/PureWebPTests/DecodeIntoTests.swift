import Testing
import ImageCore
@testable import PureWebP

@Suite("WebP decoding into caller memory")
struct DecodeIntoTests {
    /// Decodes `bytes` into a buffer of `rows` rows `stride` bytes apart (plus `extra` bytes),
    /// every byte 0xA5 first; returns the buffer.
    static func decodeInto(_ bytes: [UInt8], format: PixelFormat, width: Int, height: Int, stride: Int,
                           options: WebPDecodingOptions = .init()) throws -> [UInt8] {
        var out = [UInt8](repeating: 0xA5, count: max(0, (height - 1) * stride + width * format.bytesPerPixel))
        let header = try out.withUnsafeMutableBytes {
            try WebPDecoder.decode(bytes, into: $0, bytesPerRow: stride, format: format, options: options)
        }
        #expect(header.width == width && header.height == height)
        return out
    }

    @Test("RGBA with padded rows and RGB tightly packed, exact against dwebp; padding untouched",
          arguments: WebPVector.all)
    func exact(_ v: WebPVector) throws {
        let (w, h) = (v.width, v.height)
        let ref = Array(try v.reference().prefix(w * h * 4))   // an animation: the first canvas
        let stride = w * 4 + 13
        var options = WebPDecodingOptions()
        options.useThreads = v.isLossy
        let rgba = try Self.decodeInto(v.bytes(), format: .rgba8, width: w, height: h, stride: stride, options: options)
        for y in 0 ..< h {
            #expect(Array(rgba[y * stride ..< y * stride + w * 4]) == Array(ref[y * w * 4 ..< (y + 1) * w * 4]), "\(v.name) row \(y)")
            if y < h - 1 { #expect(rgba[y * stride + w * 4 ..< (y + 1) * stride].allSatisfy { $0 == 0xA5 }, "\(v.name) padding \(y)") }
        }
        let rgb = try Self.decodeInto(v.bytes(), format: .rgb8, width: w, height: h, stride: w * 3)
        let refRGB = (0 ..< w * h).flatMap { ref[4 * $0 ..< 4 * $0 + 3] }
        #expect(rgb == refRGB, "\(v.name) RGB")
    }

    @Test("lossy vectors, fancy and point upsampling, one thread and two, padded RGB rows",
          arguments: LossyVectors.names)
    func lossy(_ name: String) throws {
        for fancy in [true, false] {
            let ref = try LossyVectors.pam(name, fancy: fancy)
            let (w, h) = (ref.width, ref.height)
            for threads in [false, true] {
                var options = WebPDecodingOptions()
                options.fancyUpsampling = fancy
                options.useThreads = threads
                let stride = w * 3 + 7
                let out = try Self.decodeInto(LossyVectors.file(name), format: .rgb8, width: w, height: h, stride: stride, options: options)
                var same = true
                for y in 0 ..< h {
                    for x in 0 ..< w where out[y * stride + 3 * x ..< y * stride + 3 * x + 3] != ref.pixels[4 * (y * w + x) ..< 4 * (y * w + x) + 3] {
                        same = false
                    }
                    if y < h - 1, !out[y * stride + 3 * w ..< (y + 1) * stride].allSatisfy({ $0 == 0xA5 }) { same = false }
                }
                #expect(same, "\(name) fancy \(fancy) threads \(threads)")
            }
        }
    }

    @Test func sameAsTheAllocatingDecode() throws {
        for name in ["webp/ll_photo_z6.webp", "webp/ll_photo_alpha.webp", "webp/lossy_plain.webp"] {
            let bytes = try TestVectors.bytes(name)
            let image = try WebPDecoder.decode(bytes)
            let out = try Self.decodeInto(bytes, format: image.format, width: image.width, height: image.height,
                                          stride: image.bytesPerRow)
            #expect(out == image.pixels, "\(name)")
        }
    }

    @Test func tooSmallBufferThrowsBeforeWriting() throws {
        let v = try #require(WebPVector.stills.first { $0.isLossy })
        let bytes = try v.bytes()
        let stride = v.width * 3
        let needed = (v.height - 1) * stride + v.width * 3
        var out = [UInt8](repeating: 0xA5, count: needed - 1)
        #expect(throws: WebPError.outputTooSmall(what: "buffer", needed: needed, available: needed - 1)) {
            _ = try out.withUnsafeMutableBytes { try WebPDecoder.decode(bytes, into: $0, bytesPerRow: stride, format: .rgb8) }
        }
        #expect(out.allSatisfy { $0 == 0xA5 })
        // The last row needs only its pixels, not a whole stride.
        out = [UInt8](repeating: 0, count: (v.height - 1) * (stride + 5) + v.width * 3)
        _ = try out.withUnsafeMutableBytes { try WebPDecoder.decode(bytes, into: $0, bytesPerRow: stride + 5, format: .rgb8) }
    }

    @Test func strideUnderARowThrows() throws {
        let v = try #require(WebPVector.stills.first { !$0.isLossy })
        let bytes = try v.bytes()
        var out = [UInt8](repeating: 0, count: v.width * v.height * 4)
        #expect(throws: WebPError.outputTooSmall(what: "row stride", needed: v.width * 4, available: v.width * 4 - 1)) {
            _ = try out.withUnsafeMutableBytes { try WebPDecoder.decode(bytes, into: $0, bytesPerRow: v.width * 4 - 1, format: .rgba8) }
        }
        #expect(WebPError.outputTooSmall(what: "buffer", needed: 2, available: 1).code == "outputTooSmall")
    }

    @Test func truncatedFileThrowsIncomplete() throws {
        let v = try #require(WebPVector.stills.first { $0.isLossy })
        let bytes = try v.bytes()
        var out = [UInt8](repeating: 0, count: v.width * v.height * 3)
        let cut = Array(bytes.prefix(bytes.count * 3 / 4))
        do {
            _ = try out.withUnsafeMutableBytes { try WebPDecoder.decode(cut, into: $0, bytesPerRow: v.width * 3, format: .rgb8) }
            Issue.record("a truncated file decoded")
        } catch let error as WebPError {
            // The RIFF size past the input: refused as implausible, or the image cut short.
            #expect(["incomplete", "truncated", "limitExceeded"].contains(error.code), "\(error)")
            if case .incomplete(_, let partial) = error { #expect(partial == nil) }
        }
    }
}
