import Foundation
import ImageCore
import PurePNG
import Testing

/// Every valid vector of `Vectors/png/manifest.tsv` decodes to the size, native format and
/// RGBA16 pixel checksum that pypng and Pillow agreed on when the table was generated.
@Suite struct ConformanceTests {
    @Test func manifestCoversEveryFile() throws {
        #expect(PNGManifest.header == ["path", "width", "height", "format", "checksum", "error", "note"])
        #expect(PNGManifest.valid.count >= 250)
        #expect(PNGManifest.invalid.count >= 75)   // those libpng decodes are in damaged/
        #expect(PNGManifest.valid.filter { $0.path.hasPrefix("pngsuite/") }.count >= 26)
        let listed = Set(PNGManifest.all.map(\.path))
        #expect(listed.count == PNGManifest.all.count, "duplicate paths in the manifest")
        for folder in ["valid", "invalid", "pngsuite"] {
            for name in TestVectors.files(in: "png/" + folder, withExtension: "png") {
                #expect(listed.contains(folder + "/" + name), "\(folder)/\(name) is not in the manifest")
            }
        }
        for vector in PNGManifest.all {
            #expect(FileManager.default.fileExists(atPath: TestVectors.url("png/" + vector.path).path),
                    "\(vector.path) is listed but missing")
        }
    }

    @Test(arguments: PNGManifest.valid)
    func decodesToExpectedPixels(_ vector: PNGVector) throws {
        let bytes = try vector.bytes()
        let image = try PNGDecoder.decode(bytes)
        #expect(image.width == vector.width)
        #expect(image.height == vector.height)
        #expect(image.format.rawValue == vector.format)
        #expect(hex8(image.rgba16Checksum) == vector.checksum)
    }

    /// The events of a whole-buffer decode: the header first (matching IHDR), the end last,
    /// every row reported exactly once in order for sequential files, passes in order for Adam7.
    @Test(arguments: PNGManifest.valid)
    func reportsEventsInOrder(_ vector: PNGVector) throws {
        let bytes = try vector.bytes()
        var decoder = PNGDecoder()
        let events = try decoder.append(bytes).filter { if case .warning = $0 { false } else { true } }
        _ = try decoder.finish()
        let interlaced = bytes[28] == 1
        guard case let .header(header)? = events.first else {
            Issue.record("first event is not the header: \(events.first.map { "\($0)" } ?? "none")")
            return
        }
        #expect(header.width == vector.width && header.height == vector.height)
        #expect(header.pixelFormat.rawValue == vector.format)
        #expect(header.isInterlaced == interlaced)
        #expect(decoder.header == header)
        #expect(events.last == .end)
        #expect(events.filter { $0 == .end }.count == 1)
        let rows = mergedRows(events)
        if !interlaced {
            #expect(rows == [0 ..< (vector.height ?? 0)])
        }
        let passes = events.compactMap { if case let .passComplete(k) = $0 { k } else { nil } }
        #expect(passes == passes.sorted() && Set(passes).count == passes.count)
        #expect(passes.allSatisfy { (0 ..< 7).contains($0) })
        if interlaced {
            #expect(passes.first == 0, "Adam7 pass 1 holds pixel (0, 0), so it is never empty")
        } else {
            #expect(passes.isEmpty)
        }
    }

    /// A 16-bit PNG decodes to a 16-bit format whose samples are not merely widened 8-bit ones.
    @Test(arguments: PNGManifest.valid.filter { (try? $0.bytes()[24]) == 16 })
    func sixteenBitStaysSixteenBit(_ vector: PNGVector) throws {
        let image = try PNGDecoder.decode(try vector.bytes())
        #expect(image.format.is16Bit)
        #expect(PixelFormat(rawValue: vector.format)?.is16Bit == true)
        let samples = image.pixels.withUnsafeBytes { Array($0.bindMemory(to: UInt16.self)) }
        if image.pixelCount >= 16 {
            #expect(samples.contains { $0 % 257 != 0 }, "every sample is a multiple of 257: 8-bit data widened?")
        }
    }

    @Test func sixteenBitVectorsArePresent() {
        let count = PNGManifest.valid.filter { (try? $0.bytes()[24]) == 16 }.count
        #expect(count >= 60)
    }
}

/// The row ranges of the `.rows` events, adjacent ranges merged: decoders may batch rows differently.
func mergedRows(_ events: [DecodingEvent]) -> [Range<Int>] {
    mergeAdjacentRows(events).compactMap { if case let .rows(r) = $0 { r } else { nil } }
}

/// The events with every run of `.rows(a..<b), .rows(b..<c)` joined into `.rows(a..<c)`.
func mergeAdjacentRows(_ events: [DecodingEvent]) -> [DecodingEvent] {
    var out: [DecodingEvent] = []
    for event in events {
        if case let .rows(next) = event, case let .rows(previous)? = out.last, previous.upperBound == next.lowerBound {
            out[out.count - 1] = .rows(previous.lowerBound ..< next.upperBound)
        } else {
            out.append(event)
        }
    }
    return out
}
