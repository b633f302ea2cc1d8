import ImageCore
import Testing
@testable import PureJPEG

@Suite("JPEG decoder API")
struct DecoderTests {
    func bytes(_ name: String) throws -> [UInt8] { try TestVectors.bytes("jpeg/valid/" + name) }

    func decoder(_ name: String, options: JPEGDecodingOptions = .init()) throws -> JPEGDecoder {
        var d = JPEGDecoder(options: options)
        _ = try d.append(try bytes(name))
        return d
    }

    @Test("header and info describe the frame")
    func info() throws {
        let d = try decoder("photo256_420_q90.jpg")
        let info = try #require(d.info)
        #expect(info.width == 256 && info.height == 256 && info.components == 3)
        #expect(info.process == .baseline)
        #expect(info.samplingFactors.map(\.horizontal) == [2, 1, 1] && info.samplingFactors.map(\.vertical) == [2, 1, 1])
        #expect(info.estimatedQuality == 90)
        #expect(info.isJFIF)
        #expect(d.header?.pixelFormat == .rgb8)
        let p = try decoder("progressive_420.jpg")
        #expect(p.info?.process == .progressive && p.header?.isProgressive == true)
        #expect((p.info?.scanCount ?? 0) > 1)
        #expect(try decoder("s444_q75.jpg").info?.estimatedQuality == 75)
        #expect(try decoder("restart_1block.jpg").info?.restartInterval == 1)
        #expect(try decoder("gray_q75.jpg").header?.pixelFormat == .gray8)
        #expect(try decoder("cmyk_adobe.jpg").info?.adobeTransform == 0)
    }

    @Test("metadata: EXIF orientation, ICC reassembly, comments, density")
    func metadata() throws {
        let exif = try decoder("exif_orientation6.jpg")
        #expect(exif.metadata.orientation == .right)
        #expect(exif.metadata.exif?.prefix(2) == [0x49, 0x49] || exif.metadata.exif?.prefix(2) == [0x4D, 0x4D])
        #expect(try decoder("icc_150k.jpg").metadata.iccProfile?.count == 150_000)
        #expect(try decoder("icc_srgb.jpg").metadata.iccProfile?.count == 588)
        let thumb = try decoder("exif_thumbnail.jpg")
        #expect(thumb.metadata.exif != nil)
        #expect(thumb.header?.width == thumb.info?.width)
        let comment = try decoder("comment_app_segments.jpg")
        #expect(comment.metadata.texts.contains { $0.keyword == "Comment" && !$0.text.isEmpty })
        #expect(try decoder("photo256_420_q90.jpg").metadata.density != nil)
        // The image carries the metadata too.
        let image = try JPEGDecoder.decode(try bytes("icc_srgb.jpg"))
        #expect(image.metadata.iccProfile?.count == 588)
    }

    @Test("EXIF orientation in both byte orders")
    func orientationParsing() {
        let little: [UInt8] = [0x49, 0x49, 42, 0, 8, 0, 0, 0, 1, 0, 0x12, 0x01, 3, 0, 1, 0, 0, 0, 8, 0, 0, 0]
        let big: [UInt8] = [0x4D, 0x4D, 0, 42, 0, 0, 0, 8, 0, 1, 0x01, 0x12, 0, 3, 0, 0, 0, 1, 0, 3, 0, 0]
        #expect(EXIF.orientation(little) == .left)
        #expect(EXIF.orientation(big) == .down)
        // A TIFF header whose IFD is cut short says nothing: upright.
        #expect(EXIF.orientation(Array(big.prefix(12))) == .up)
    }

    @Test("applyOrientation turns the image upright")
    func applyOrientation() throws {
        let plain = try JPEGDecoder.decode(try bytes("exif_orientation6.jpg"))
        let turned = try JPEGDecoder.decode(try bytes("exif_orientation6.jpg"), options: JPEGDecodingOptions(applyOrientation: true))
        #expect(turned.width == plain.height && turned.height == plain.width)
        #expect(turned == plain.oriented(.right))
    }

    @Test("scaled output is ceil(size * scale / 8) and close to the full image", arguments: [4, 2, 1])
    func scaled(_ scale: Int) throws {
        for name in ["photo256_420_q90.jpg", "s422_odd33x31.jpg", "progressive_odd.jpg", "gray_17x13.jpg"] {
            let full = try JPEGDecoder.decode(try bytes(name))
            let small = try JPEGDecoder.decode(try bytes(name), options: JPEGDecodingOptions(scale: scale))
            #expect(small.width == (full.width * scale + 7) / 8 && small.height == (full.height * scale + 7) / 8)
            // Mean of each full-size cell against the scaled pixel (interior cells only).
            let f = 8 / scale, c = full.format.channels
            var worst = 0
            for y in 0 ..< full.height / f {
                for x in 0 ..< full.width / f {
                    for ch in 0 ..< c {
                        var sum = 0
                        for dy in 0 ..< f { for dx in 0 ..< f { sum += Int(full.pixels[((y * f + dy) * full.width + x * f + dx) * c + ch]) } }
                        worst = max(worst, abs(sum / (f * f) - Int(small.pixels[(y * small.width + x) * c + ch])))
                    }
                }
            }
            #expect(worst < 60, "\(name) at \(scale)/8 differs by \(worst)")
        }
    }

    @Test("raw CMYK on request")
    func cmyk() throws {
        let raw = try JPEGDecoder.decode(try bytes("cmyk_adobe.jpg"), options: JPEGDecodingOptions(outputCMYK: true))
        #expect(raw.format == .rgba8)
        let rgb = try JPEGDecoder.decode(try bytes("cmyk_adobe.jpg"))
        #expect(rgb.format == .rgb8 && rgb.width == raw.width)
        // Adobe CMYK is stored inverted: R = C * K / 255 on the stored values (libjpeg-turbo's cmyk_rgb).
        let (c, k) = (Int(raw.pixels[0]), Int(raw.pixels[3]))
        #expect(abs(Int(rgb.pixels[0]) - c * k / 255) <= 1)
    }

    @Test("SIMD and scalar kernels give the same image")
    func simdMatchesScalar() throws {
        for name in ["photo256_420_q90.jpg", "progressive_411.jpg"] {
            var a = JPEGDecoder(), b = JPEGDecoder()
            b.useSIMD = false
            _ = try a.append(try bytes(name)); _ = try b.append(try bytes(name))
            #expect(try a.finish() == b.finish())
        }
    }

    @Test("progressive previews refine scan by scan and end at the final image")
    func previews() throws {
        let data = try bytes("progressive_420.jpg")
        var d = JPEGDecoder()
        #expect(d.preview() == nil)
        var previews: [Image] = []
        for i in stride(from: 0, to: data.count, by: 256) {
            for event in try d.append(data[i ..< min(data.count, i + 256)]) {
                if case .scanComplete = event, let p = d.preview() { previews.append(p) }
            }
        }
        let final = try d.finish()
        #expect(previews.count == (d.info?.scanCount ?? 0))
        #expect(previews.last == final)
        let errors = previews.map { compare($0, final).psnr }
        #expect(errors.first ?? 0 < errors.last ?? 0)
    }

    /// Copies share the preview cache and the coefficients; each copy's previews and
    /// coefficients stay its own once either goes on decoding.
    @Test("previews of decoder copies stay independent")
    func previewCopies() throws {
        let data = try bytes("progressive_420.jpg")
        var a = JPEGDecoder()
        _ = try a.append(data[0 ..< data.count / 2])
        let early = try #require(a.preview())
        var b = a
        _ = try a.append(data[(data.count / 2)...])
        let final = try a.finish()
        #expect(a.preview() == final)
        #expect(b.preview() == early)
        var fresh = JPEGDecoder()
        _ = try fresh.append(data[0 ..< data.count / 2])
        #expect(fresh.preview() == early)
        #expect(early != final)
        // The copy left behind still holds the first half's coefficients: decoding the rest
        // from them gives the same image (refinement scans applied twice would not).
        _ = try b.append(data[(data.count / 2)...])
        #expect(try b.finish() == final)
    }

    @Test("baseline preview shows decoded rows over mid-gray")
    func baselinePreview() throws {
        let data = try bytes("photo256_420_q90.jpg")
        var d = JPEGDecoder()
        _ = try d.append(data[0 ..< data.count / 2])
        let preview = try #require(d.preview())
        #expect(preview.width == 256)
        #expect(preview.pixels.last == 128)
        #expect(preview.pixels.first != 128 || preview.pixels[1000] != 128)
    }

    @Test("invalid scale is an option error")
    func badScale() throws {
        #expect(throws: JPEGError.invalidOption("scale 3 (use 8, 4, 2 or 1)")) {
            _ = try JPEGDecoder.decode(try bytes("gray_q75.jpg"), options: JPEGDecodingOptions(scale: 3))
        }
    }
}
