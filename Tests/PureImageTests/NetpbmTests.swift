import Foundation
import PureImage
import Testing
import TestSupport

/// One row of `Vectors/netpbm/manifest.tsv` (written by `Vectors/netpbm/generate.py`).
struct NetpbmVector: Sendable, CustomTestStringConvertible {
    var file: String
    var width: Int
    var height: Int
    var format: String
    var raw: String
    var cjpeg: String?
    var testDescription: String { file }

    static let all: [NetpbmVector] = {
        guard let text = try? String(contentsOf: TestVectors.url("netpbm/manifest.tsv"), encoding: .utf8) else { return [] }
        return text.split(separator: "\n").dropFirst().compactMap { line in
            let f = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard f.count == 7, let w = Int(f[1]), let h = Int(f[2]) else { return nil }
            return NetpbmVector(file: f[0], width: w, height: h, format: f[3], raw: f[4], cjpeg: f[5] == "-" ? nil : f[5])
        }
    }()
}

@Suite("Netpbm decoding")
struct NetpbmTests {
    /// The pixels with 16-bit samples big-endian, as the `.raw` files hold them.
    static func bigEndian(_ image: Image) -> [UInt8] {
        guard image.format.is16Bit else { return image.pixels }
        var out = image.pixels
        for i in stride(from: 0, to: out.count - 1, by: 2) {
            let v = UInt16(out[i]) | UInt16(out[i + 1]) << 8
            out[i] = UInt8(v >> 8)
            out[i + 1] = UInt8(v & 0xFF)
        }
        return out
    }

    /// Fed in `size`-byte pieces: the image (or the error's code), and the events in order.
    static func decode(_ bytes: [UInt8], pieces size: Int) -> (image: Image?, error: String?, events: [DecodingEvent]) {
        var decoder = NetpbmDecoder()
        var events: [DecodingEvent] = []
        do throws(NetpbmError) {
            var i = 0
            while i < bytes.count {
                let end = min(bytes.count, i + size)
                var failure: NetpbmError?
                bytes[i ..< end].withUnsafeBytes { raw in
                    do throws(NetpbmError) { events += try decoder.append(raw) } catch { failure = error }
                }
                if let failure { throw failure }
                i = end
            }
            return (try decoder.finish(), nil, events)
        } catch {
            return (nil, error.code, events)
        }
    }

    @Test func manifestIsThere() {
        #expect(NetpbmVector.all.count == 22)
        #expect(NetpbmVector.all.filter { $0.cjpeg != nil }.count == 13)
    }

    @Test("each file decodes to its pixels, whole and in pieces, through ImageSource too", arguments: NetpbmVector.all)
    func decodesToItsPixels(_ vector: NetpbmVector) throws {
        let bytes = try TestVectors.bytes("netpbm/" + vector.file)
        let expected = try TestVectors.bytes("netpbm/" + vector.raw)
        let image = try NetpbmDecoder.decode(bytes)
        #expect(image.width == vector.width && image.height == vector.height)
        #expect(image.format.description == vector.format)
        #expect(Self.bigEndian(image) == expected)
        for size in [1, 7, 4096] {
            let pieces = Self.decode(bytes, pieces: size)
            #expect(pieces.image?.pixels == image.pixels, "pieces of \(size): \(pieces.error ?? "")")
            // .header first, rows in order covering the image, .end last.
            guard case .header = pieces.events.first, case .end = pieces.events.last else {
                // A plain raster's last number may end with the file: its rows come at finish().
                #expect(vector.file.hasPrefix("gray_p2") || vector.file.hasPrefix("rgb_p3"), "\(pieces.events)")
                continue
            }
            let rows = pieces.events.compactMap { event -> Range<Int>? in if case let .rows(r) = event { r } else { nil } }
            #expect(rows.first?.lowerBound == 0 && rows.last?.upperBound == vector.height)
            #expect(zip(rows, rows.dropFirst()).allSatisfy { $0.upperBound == $1.lowerBound })
        }
        let viaSource = try ImageSource.decode(bytes)
        #expect(viaSource.pixels == image.pixels && viaSource.format == image.format)
        #expect(try ImageSource.describe(bytes).format == .netpbm)
    }

    @Test("PureImage's JPEG of each PGM/PPM is cjpeg's, byte for byte (cjpeg's scaling of maxval)",
          arguments: NetpbmVector.all.filter { $0.cjpeg != nil })
    func encodesAsCjpeg(_ vector: NetpbmVector) throws {
        let image = try NetpbmDecoder.decode(try TestVectors.bytes("netpbm/" + vector.file))
        let eight = image.format.is16Bit ? image.converted(to: image.format.withoutAlpha.eightBit) : image
        let jpeg = try JPEGEncoder.encode(eight, options: JPEGEncodingOptions(quality: 85, subsampling: .s420))
        #expect(jpeg == (try TestVectors.bytes("netpbm/" + (vector.cjpeg ?? ""))))
    }

    @Test("damaged and hostile headers and rasters throw typed errors with offsets")
    func errors() {
        func code(_ text: String, _ tail: [UInt8] = []) -> String? {
            Self.decode(Array(text.utf8) + tail, pieces: 3).error
        }
        #expect(code("Q6\n1 1\n255\n", [0, 0, 0]) == "invalidSignature")
        #expect(code("P8\n1 1\n255\n", [0, 0, 0]) == "invalidSignature")
        #expect(code("P6\n0 1\n255\n") == "invalidHeader")
        #expect(code("P6\n1 1\n0\n") == "invalidHeader")
        #expect(code("P6\n1 1\n65536\n") == "invalidHeader")
        #expect(code("P6\nx 1\n255\n") == "invalidHeader")
        #expect(code("P6\n99999999999999999999 1\n255\n") == "invalidHeader")
        #expect(code("P5\n2 1\n100\n", [100, 101]) == "sampleOutOfRange")
        #expect(code("P5\n1 1\n1000\n", [0x03, 0xE9]) == "sampleOutOfRange")
        #expect(code("P2\n2 1\n9\n3 10\n") == "sampleOutOfRange")
        #expect(code("P2\n2 1\n9\n3 x\n") == "invalidSample")
        #expect(code("P1\n2 1\n0 2\n") == "invalidSample")
        #expect(code("P6\n2 2\n255\n", [1, 2, 3]) == "truncated")
        #expect(code("P6\n2 2") == "truncated")
        #expect(code("P7\nWIDTH 2\nHEIGHT 2\nMAXVAL 255\nENDHDR\n") == "invalidHeader")
        #expect(code("P7\nWIDTH 1\nHEIGHT 1\nDEPTH 5\nMAXVAL 255\nENDHDR\n", [1, 2, 3, 4, 5]) == "unsupportedDepth")
        #expect(code("P7\nWIDTH 1\nHEIGHT 1\nDEPTH 1\nMAXVAL 255\nCOLOUR red\nENDHDR\n", [1]) == "invalidHeader")
        #expect(code("P7 junk\nWIDTH 1\n") == "invalidHeader")
        #expect(code("P7\n" + String(repeating: "W", count: 2000)) == "invalidHeader")
        // Limits are checked before the image is allocated.
        var small = NetpbmDecoder(limits: DecodingLimits(maxPixels: 100))
        let header = Array("P6\n100 100\n255\n".utf8)
        #expect(throws: NetpbmError.self) { _ = try header.withUnsafeBytes { try small.append($0) } }
        // The offset of a sample out of range is the sample's.
        if case let .sampleOutOfRange(value, maxval, offset)? = Self.failure(Array("P5\n3 1\n100\n".utf8) + [5, 200, 7]) {
            #expect(value == 200 && maxval == 100 && offset == 12)
        } else {
            Issue.record("no sampleOutOfRange")
        }
    }

    static func failure(_ bytes: [UInt8]) -> NetpbmError? {
        do throws(NetpbmError) { _ = try NetpbmDecoder.decode(bytes) } catch { return error }
        return nil
    }

    @Test("a short raster gives the rows so far as the partial image")
    func truncatedKeepsRows() throws {
        let bytes = try TestVectors.bytes("netpbm/rgb_p6.ppm")
        guard case let .truncated(_, partial?)? = Self.failure(Array(bytes.dropLast(13 * 3 * 2 + 5))) else {
            Issue.record("no partial image")
            return
        }
        let whole = try NetpbmDecoder.decode(bytes)
        let keep = 13 * 3 * 4
        #expect(partial.width == 13 && partial.height == 7)
        #expect(partial.pixels[..<keep] == whole.pixels[..<keep])
    }

    @Test("the first image of a file with several; bytes after it are ignored")
    func firstOfSeveral() throws {
        let one = try TestVectors.bytes("netpbm/gray_p5.pgm")
        let image = try NetpbmDecoder.decode(one + one + [1, 2, 3])
        #expect(image.pixels == (try NetpbmDecoder.decode(one)).pixels)
    }
}
