import Foundation
import TestSupport
#if canImport(FoundationXML)
import FoundationXML
#endif
@testable import PureImage
import Testing

/// The pyramid computed the plain way from the whole image: level maxLevel is the image (8-bit),
/// each level below the rounded 2x2 mean `(sum + n/2) / n` of the pixels that exist.
func referencePyramid(_ image: Image) -> [Image] {
    var level = image
    var levels = [level]
    while level.width > 1 || level.height > 1 {
        let w = (level.width + 1) / 2, h = (level.height + 1) / 2, ch = level.format.channels
        var next = Image(width: w, height: h, format: level.format)
        for y in 0 ..< h {
            for x in 0 ..< w {
                for k in 0 ..< ch {
                    var sum = 0, n = 0
                    for sy in 2 * y ..< min(2 * y + 2, level.height) {
                        for sx in 2 * x ..< min(2 * x + 2, level.width) {
                            sum += Int(level.pixels[(sy * level.width + sx) * ch + k])
                            n += 1
                        }
                    }
                    next.pixels[(y * w + x) * ch + k] = UInt8((sum + n / 2) / n)
                }
            }
        }
        levels.append(next)
        level = next
    }
    return levels.reversed()
}

func crop(_ image: Image, x: Range<Int>, y: Range<Int>) -> Image {
    let bpp = image.format.bytesPerPixel
    var pixels: [UInt8] = []
    for row in y { pixels += image.pixels[(row * image.width + x.lowerBound) * bpp ..< (row * image.width + x.upperBound) * bpp] }
    return Image(width: x.count, height: y.count, format: image.format, pixels: pixels)
}

/// Smooth colour with some texture, so JPEG tiles can be held to a PSNR bound.
func tileTestImage(width: Int, height: Int, format: PixelFormat, seed: UInt64 = 1) -> Image {
    var image = Image(width: width, height: height, format: format)
    var random = SplitMix64(seed: seed)
    let ch = format.channels
    for y in 0 ..< height {
        for x in 0 ..< width {
            for k in 0 ..< ch {
                let wave = 128 + 100 * sin(Double(x) * 0.05 * Double(k + 1) + Double(y) * 0.031 * Double(3 - k))
                let value = Int(wave) + random.below(9) - 4
                if format.is16Bit {
                    let v = UInt16(clamping: value * 257 + random.below(257))
                    let i = ((y * width + x) * ch + k) * 2
                    image.pixels[i] = UInt8(truncatingIfNeeded: v)
                    image.pixels[i + 1] = UInt8(truncatingIfNeeded: v >> 8)
                } else {
                    image.pixels[(y * width + x) * ch + k] = UInt8(clamping: value)
                }
            }
        }
    }
    return image
}

func scratchDirectory() throws -> String {
    try Scratch.folder("tiles")
}

/// Every file under `path`, relative, with its bytes.
func filesUnder(_ path: String) throws -> [String: [UInt8]] {
    var result: [String: [UInt8]] = [:]
    guard let walker = FileManager.default.enumerator(atPath: path) else { return result }
    while let relative = walker.nextObject() as? String {
        let full = path + "/" + relative
        var isDir: ObjCBool = false
        if FileManager.default.fileExists(atPath: full, isDirectory: &isDir), !isDir.boolValue {
            result[relative] = [UInt8](try Data(contentsOf: URL(fileURLWithPath: full)))
        }
    }
    return result
}

/// Writes `image` through a `TilePyramidWriter` in bands of `band` rows.
func writePyramid(_ image: Image, to dir: String, name: String = "p", options: TilePyramidOptions, band: Int = 7) throws {
    var writer = try TilePyramidWriter(directory: dir, name: name, width: image.width, height: image.height,
                                       format: image.format, options: options)
    var y = 0
    while y < image.height {
        let end = min(image.height, y + band)
        try image.withRowBand(y ..< end) { try writer.add($0) }
        y = end
    }
    try writer.finish()
}

func psnr(_ a: Image, _ b: Image) -> Double {
    var se = 0.0
    for i in 0 ..< a.pixels.count {
        let d = Double(a.pixels[i]) - Double(b.pixels[i])
        se += d * d
    }
    let mse = se / Double(max(a.pixels.count, 1))
    return mse == 0 ? 99 : 10 * log10(255 * 255 / mse)
}

/// Reads a `.dzi` with Foundation's XML parser: the Image attributes and the Size attributes.
final class DZIReader: NSObject, XMLParserDelegate {
    var image: [String: String] = [:]
    var size: [String: String] = [:]
    var namespace: String?
    func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
                attributes: [String: String] = [:]) {
        if name == "Image" { image = attributes; namespace = namespaceURI }
        if name == "Size" { size = attributes }
    }
}

struct PyramidCase: CustomStringConvertible, Sendable {
    var width: Int, height: Int, format: PixelFormat, tileSize: Int, overlap: Int
    var description: String { "\(width)x\(height) \(format) tile \(tileSize) overlap \(overlap)" }
}

@Suite struct TilePyramidTests {
    static let cases: [PyramidCase] = [
        PyramidCase(width: 1, height: 1, format: .rgb8, tileSize: 256, overlap: 1),
        PyramidCase(width: 255, height: 257, format: .gray8, tileSize: 64, overlap: 1),
        PyramidCase(width: 300, height: 200, format: .rgba8, tileSize: 64, overlap: 0),
        PyramidCase(width: 513, height: 77, format: .rgb8, tileSize: 256, overlap: 1),
        PyramidCase(width: 130, height: 67, format: .grayAlpha8, tileSize: 32, overlap: 2),
        PyramidCase(width: 97, height: 131, format: .rgb16, tileSize: 64, overlap: 1),
        PyramidCase(width: 70, height: 45, format: .rgb8, tileSize: 7, overlap: 3),
    ]

    @Test(arguments: cases)
    func everyPNGTileIsTheCropOfTheReference(_ c: PyramidCase) throws {
        let dir = try scratchDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let image = tileTestImage(width: c.width, height: c.height, format: c.format)
        try writePyramid(image, to: dir, options: .init(tileSize: c.tileSize, overlap: c.overlap, format: .png))
        let reference = referencePyramid(image.converted(to: c.format.eightBit))
        let pyramid = try TilePyramid(directory: dir, name: "p")
        #expect(pyramid.levels == reference.count)
        #expect(pyramid.width == c.width && pyramid.height == c.height)
        var expectedFiles = Set<String>()
        for level in 0 ..< pyramid.levels {
            let ref = reference[level]
            #expect(pyramid.size(ofLevel: level) == (ref.width, ref.height))
            let (columns, rows) = pyramid.tileCount(ofLevel: level)
            #expect(columns == (ref.width + c.tileSize - 1) / c.tileSize && rows == (ref.height + c.tileSize - 1) / c.tileSize)
            for row in 0 ..< rows {
                for column in 0 ..< columns {
                    expectedFiles.insert("\(level)/\(column)_\(row).png")
                    let x0 = max(column * c.tileSize - c.overlap, 0), y0 = max(row * c.tileSize - c.overlap, 0)
                    let x1 = min((column + 1) * c.tileSize + c.overlap, ref.width)
                    let y1 = min((row + 1) * c.tileSize + c.overlap, ref.height)
                    let tile = try pyramid.tile(level: level, column: column, row: row)
                    #expect(tile == crop(ref, x: x0 ..< x1, y: y0 ..< y1), "level \(level) tile \(column),\(row)")
                }
            }
        }
        #expect(Set(try filesUnder(dir + "/p_files").keys) == expectedFiles)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir).sorted() == ["p.dzi", "p_files"])
    }

    @Test(arguments: [PixelFormat.rgb8, .gray8, .rgba8])
    func jpegTilesAreCloseToTheReference(_ format: PixelFormat) throws {
        let dir = try scratchDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let image = tileTestImage(width: 200, height: 150, format: format)
        try writePyramid(image, to: dir, options: .init(tileSize: 64, overlap: 1, format: .jpeg, quality: 0.9))
        let reference = referencePyramid(image.converted(to: format.withoutAlpha))
        let pyramid = try TilePyramid(directory: dir, name: "p")
        #expect(pyramid.format == .jpeg)
        for level in 0 ..< pyramid.levels {
            let (columns, rows) = pyramid.tileCount(ofLevel: level)
            for row in 0 ..< rows {
                for column in 0 ..< columns {
                    let rect = pyramid.geometry.tileRect(level: level, column: column, row: row)
                    let tile = try pyramid.tile(level: level, column: column, row: row)
                    #expect(tile.format == format.withoutAlpha)
                    let expected = crop(reference[level], x: rect.x, y: rect.y)
                    // 4:2:0 chroma cannot follow colour detail in the tiny top levels; luma can.
                    #expect(psnr(tile.converted(to: .gray8), expected.converted(to: .gray8)) > 30, "level \(level) tile \(column),\(row)")
                    if level >= pyramid.levels - 2 {
                        #expect(psnr(tile, expected) > 30, "level \(level) tile \(column),\(row)")
                    }
                }
            }
        }
    }

    @Test func descriptorIsValidXMLWithTheRightAttributes() throws {
        let dir = try scratchDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try writePyramid(tileTestImage(width: 300, height: 200, format: .rgb8), to: dir, name: "photo",
                         options: .init(tileSize: 128, overlap: 2, format: .jpeg))
        let data = try Data(contentsOf: URL(fileURLWithPath: dir + "/photo.dzi"))
        let parser = XMLParser(data: data)
        parser.shouldProcessNamespaces = true
        let reader = DZIReader()
        parser.delegate = reader
        #expect(parser.parse())
        #expect(reader.namespace == "http://schemas.microsoft.com/deepzoom/2008")
        #expect(reader.image["Format"] == "jpg" && reader.image["Overlap"] == "2" && reader.image["TileSize"] == "128")
        #expect(reader.size["Width"] == "300" && reader.size["Height"] == "200")
        #expect(String(decoding: data, as: UTF8.self).hasPrefix("<?xml version=\"1.0\" encoding=\"UTF-8\"?>"))
    }

    @Test func geometryFollowsDeepZoom() {
        let g = TilePyramidGeometry(width: 16000, height: 12000, tileSize: 256, overlap: 1)
        #expect(g.maxLevel == 14 && g.levelCount == 15)
        #expect(g.size(ofLevel: 14) == (16000, 12000) && g.size(ofLevel: 13) == (8000, 6000))
        #expect(g.size(ofLevel: 4) == (16, 12) && g.size(ofLevel: 1) == (2, 2) && g.size(ofLevel: 0) == (1, 1))
        #expect(g.tileCount(ofLevel: 14) == (63, 47))
        #expect(g.tileRect(level: 14, column: 0, row: 0) == (0 ..< 257, 0 ..< 257))
        #expect(g.tileRect(level: 14, column: 1, row: 46) == (255 ..< 513, 11775 ..< 12000))
        #expect(g.tileRect(level: 14, column: 62, row: 0).x == 15871 ..< 16000)
        let odd = TilePyramidGeometry(width: 513, height: 77, tileSize: 256, overlap: 1)
        #expect(odd.maxLevel == 10 && odd.size(ofLevel: 9) == (257, 39) && odd.size(ofLevel: 1) == (2, 1))
        #expect(TilePyramidGeometry(width: 1, height: 1, tileSize: 256, overlap: 1).maxLevel == 0)
        #expect(TilePyramidGeometry(width: 2, height: 1, tileSize: 256, overlap: 1).maxLevel == 1)
        #expect(TilePyramidGeometry(width: 256, height: 3, tileSize: 256, overlap: 1).maxLevel == 8)
        #expect(TilePyramidGeometry(width: 257, height: 3, tileSize: 256, overlap: 1).maxLevel == 9)
        // The memory estimate is what the levels allocate, and independent of the height.
        let small = TilePyramidGeometry(width: 513, height: 300, tileSize: 64, overlap: 1)
        let levels = (0 ... small.maxLevel).map { PyramidLevel(level: $0, geometry: small, format: .rgb8) }
        #expect(levels.reduce(0) { $0 + $1.bufferBytes } == small.workingBytes(channels: 3))
        #expect(g.workingBytes(channels: 3) < 40 << 20)
        // Per level at most (T + 2*overlap + 4) rows of its width; the widths add up to under 2w + levels.
        for height in [12000, 1_000_000, 1 << 30] {
            let tall = TilePyramidGeometry(width: 16000, height: height, tileSize: 256, overlap: 1)
            #expect(tall.workingBytes(channels: 3) <= (256 + 2 + 4) * (2 * 16000 + tall.levelCount) * 3)
        }
    }

    @Test func descriptorParserTakesEitherQuoteAndRejectsNonsense() throws {
        let text = "<?xml version='1.0'?>\n<Image TileSize='254' Overlap = \"1\" Format='png' xmlns='x'>\n<Size  Height='7' Width='9' /></Image>"
        let (g, format) = try DeepZoomDescriptor.parse(text)
        #expect(g == TilePyramidGeometry(width: 9, height: 7, tileSize: 254, overlap: 1) && format == .png)
        #expect(throws: TilePyramidError.self) { try DeepZoomDescriptor.parse("<Image Format='jpg' Overlap='1'><Size Width='1' Height='1'/></Image>") }
        #expect(throws: TilePyramidError.self) { try DeepZoomDescriptor.parse("<Image Format='gif' Overlap='1' TileSize='8'><Size Width='1' Height='1'/></Image>") }
        #expect(throws: TilePyramidError.self) { try DeepZoomDescriptor.parse("<ImageX/>") }
        #expect(throws: TilePyramidError.self) { try DeepZoomDescriptor.parse("<Image Format='png' Overlap='1' TileSize='8'><Size Width='-1' Height='1'/></Image>") }
    }

    /// The builder fed whole, in 4096-byte pieces and a byte at a time writes the same files,
    /// the same as the writer fed from the decoded image, with encoders on other threads or not.
    @Test func chunkedFeedingWritesTheSameFiles() throws {
        let image = tileTestImage(width: 90, height: 70, format: .rgb8, seed: 3)
        let png = try PNGEncoder.encode(image)
        let jpeg = try JPEGEncoder.encode(image, options: .init(quality: 85))
        for (bytes, format) in [(png, TileFormat.png), (jpeg, TileFormat.jpeg)] {
            var outputs: [[String: [UInt8]]] = []
            for (piece, inFlight) in [(bytes.count, 8), (4096, 8), (1, 0), (777, 1)] {
                let dir = try scratchDirectory()
                defer { try? FileManager.default.removeItem(atPath: dir) }
                var builder = TilePyramidBuilder(directory: dir, name: "s",
                                                 options: .init(tileSize: 32, overlap: 1, format: format, tilesInFlight: inFlight))
                var i = 0
                while i < bytes.count {
                    try builder.append(bytes[i ..< min(i + piece, bytes.count)])
                    i += piece
                }
                let pyramid = try builder.finish()
                #expect(builder.rowsDone == 70 && builder.progress == 1)
                #expect(pyramid.levels == 8)
                outputs.append(try filesUnder(dir))
            }
            let direct = try scratchDirectory()
            defer { try? FileManager.default.removeItem(atPath: direct) }
            let decoded = try ImageSource.decode(bytes)
            try writePyramid(decoded, to: direct, name: "s", options: .init(tileSize: 32, overlap: 1, format: format), band: 5)
            outputs.append(try filesUnder(direct))
            #expect(outputs[0].count == 1 + (0 ... 7).reduce(0) { n, level in
                let g = TilePyramidGeometry(width: 90, height: 70, tileSize: 32, overlap: 1).tileCount(ofLevel: level)
                return n + g.columns * g.rows
            })
            for other in outputs.dropFirst() { #expect(other == outputs[0]) }
        }
    }

    /// Inputs that are decoded whole before their rows come (progressive JPEG, Adam7 PNG, GIF)
    /// give the pyramid of their decoded image.
    @Test func wholeImageInputsGiveTheSamePyramid() throws {
        let image = tileTestImage(width: 77, height: 50, format: .rgb8, seed: 9)
        let inputs: [[UInt8]] = [
            try JPEGEncoder.encode(image, options: .init(quality: 90, progressive: true)),
            try PNGEncoder.encode(image, options: .init(interlaced: true)),
            try TestVectors.bytes("gif/anim_local_tables_interlaced.gif"),
        ]
        for bytes in inputs {
            let dir = try scratchDirectory()
            defer { try? FileManager.default.removeItem(atPath: dir) }
            var builder = TilePyramidBuilder(directory: dir, name: "a", options: .init(tileSize: 32, format: .png))
            for start in stride(from: 0, to: bytes.count, by: 1000) { try builder.append(bytes[start ..< min(start + 1000, bytes.count)]) }
            let pyramid = try builder.finish()
            let decoded = try ImageSource.decode(bytes)
            let reference = referencePyramid(decoded.converted(to: decoded.format.eightBit))
            let top = pyramid.levels - 1
            #expect(pyramid.width == decoded.width && pyramid.height == decoded.height)
            #expect(try pyramid.tile(level: top, column: 0, row: 0) == crop(reference[top], x: 0 ..< min(33, decoded.width), y: 0 ..< min(33, decoded.height)))
            #expect(try pyramid.tile(level: 0, column: 0, row: 0) == reference[0])
        }
    }

    @Test func readerRejectsTilesOutsideThePyramid() throws {
        let dir = try scratchDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try writePyramid(tileTestImage(width: 40, height: 20, format: .gray8), to: dir, options: .init(tileSize: 16, format: .png))
        let pyramid = try TilePyramid(descriptorPath: dir + "/p.dzi")
        #expect(pyramid.levels == 7 && pyramid.tileCount(ofLevel: 6) == (3, 2))
        #expect(throws: TilePyramidError.noSuchTile(level: 6, column: 3, row: 0)) { try pyramid.tile(level: 6, column: 3, row: 0) }
        #expect(throws: TilePyramidError.noSuchTile(level: 7, column: 0, row: 0)) { try pyramid.tile(level: 7, column: 0, row: 0) }
        #expect(throws: TilePyramidError.noSuchTile(level: -1, column: 0, row: 0)) { try pyramid.tile(level: -1, column: 0, row: 0) }
        #expect(try pyramid.tile(level: 0, column: 0, row: 0).width == 1)
        #expect(throws: TilePyramidError.self) { try TilePyramid(directory: dir, name: "missing") }
    }

    @Test func failingInputLeavesNoPyramid() throws {
        let image = tileTestImage(width: 120, height: 90, format: .rgb8)
        let png = try PNGEncoder.encode(image)
        let dir = try scratchDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        // Truncated: rows stop early.
        var builder = TilePyramidBuilder(directory: dir, name: "t", options: .init(tileSize: 16, format: .png))
        try builder.append(png[0 ..< png.count * 2 / 3])
        #expect(throws: (any Error).self) { try builder.finish() }
        #expect(throws: (any Error).self) { try builder.finish() }
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir).isEmpty)
        // Corrupt in the middle: the decoder's error, sticky.
        var corrupt = png
        for i in png.count / 2 ..< png.count / 2 + 64 { corrupt[i] ^= 0x5A }
        var second = TilePyramidBuilder(directory: dir, name: "c", options: .init(tileSize: 16, format: .png))
        let failed = (try? { () throws -> Bool in try second.append(corrupt); try second.finish(); return false }()) ?? true
        #expect(failed)
        #expect(throws: (any Error).self) { try second.append([0]) }
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir).isEmpty)
        // Not an image at all.
        var third = TilePyramidBuilder(directory: dir, name: "n")
        #expect(throws: (any Error).self) { try third.append([UInt8](repeating: 7, count: 100)); try third.finish() }
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir).isEmpty)
    }

    @Test func writerChecksItsBandsAndCleansUp() throws {
        let dir = try scratchDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let image = tileTestImage(width: 50, height: 40, format: .rgb8)
        do {
            var writer = try TilePyramidWriter(directory: dir, name: "w", width: 50, height: 40, format: .rgb8,
                                               options: .init(tileSize: 16))
            try image.withRowBand(0 ..< 10) { try writer.add($0) }
            #expect(writer.rowsAdded == 10)
            #expect(throws: TilePyramidError.bandMismatch(expectedRow: 10, got: 20, width: 50)) {
                try image.withRowBand(20 ..< 30) { try writer.add($0) }
            }
            #expect(throws: TilePyramidError.bandMismatch(expectedRow: 10, got: 20, width: 50)) { try writer.finish() }
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir).isEmpty)
        do {
            var writer = try TilePyramidWriter(directory: dir, name: "w", width: 50, height: 40, format: .rgb8)
            try image.withRowBand(0 ..< 39) { try writer.add($0) }
            #expect(throws: TilePyramidError.incomplete(rows: 39, height: 40)) { try writer.finish() }
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir).isEmpty)
        do {
            // Dropped before finish: the partial folder goes with it.
            var writer = try TilePyramidWriter(directory: dir, name: "w", width: 50, height: 40, format: .rgb8)
            try image.withRowBand(0 ..< 20) { try writer.add($0) }
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir).isEmpty)
        #expect(throws: TilePyramidError.self) { try TilePyramidWriter(directory: dir, name: "a/b", width: 5, height: 5, format: .rgb8) }
        #expect(throws: TilePyramidError.self) { try TilePyramidWriter(directory: dir, name: "x", width: 0, height: 5, format: .rgb8) }
        #expect(throws: TilePyramidError.self) {
            try TilePyramidWriter(directory: dir, name: "x", width: 5, height: 5, format: .rgb8, options: .init(tileSize: 8, overlap: 9))
        }
        // A very wide image: refused before its row buffers are allocated.
        #expect(throws: TilePyramidError.limit(.memory(requested: TilePyramidGeometry(width: 1 << 30, height: 1, tileSize: 256, overlap: 1)
                                                            .workingBytes(channels: 3), limit: 1 << 30))) {
            try TilePyramidWriter(directory: dir, name: "x", width: 1 << 30, height: 1, format: .rgb8)
        }
        #expect(throws: TilePyramidError.self) {
            try TilePyramidWriter(directory: dir, name: "x", width: 1000, height: 1000, format: .rgb8, options: .init(maxWorkingBytes: 10_000))
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir).isEmpty)
    }

    /// Finishing over an existing pyramid of the same name replaces it whole.
    @Test func rewritingReplacesThePyramid() throws {
        let dir = try scratchDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try writePyramid(tileTestImage(width: 300, height: 300, format: .rgb8), to: dir, options: .init(tileSize: 64, format: .png))
        try writePyramid(tileTestImage(width: 20, height: 10, format: .gray8), to: dir, options: .init(tileSize: 64, format: .png))
        let pyramid = try TilePyramid(directory: dir, name: "p")
        #expect(pyramid.width == 20 && pyramid.levels == 6)
        #expect(try filesUnder(dir + "/p_files").count == 6)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir).sorted() == ["p.dzi", "p_files"])
    }

    /// The decoder gets the processors the tile encoders leave, unless the caller says.
    @Test func decoderTakesTheProcessorsTheEncodersLeave() {
        var options = TilePyramidOptions()
        let defaults = ImageSourceOptions()
        #expect(TilePyramidBuilder.decodingThreads(options: options, sourceOptions: defaults, processors: 2) == 1)
        #expect(TilePyramidBuilder.decodingThreads(options: options, sourceOptions: defaults, processors: 8) == 1)
        #expect(TilePyramidBuilder.decodingThreads(options: options, sourceOptions: defaults, processors: 1) == 1)
        options.encoderThreads = 4
        #expect(TilePyramidBuilder.decodingThreads(options: options, sourceOptions: defaults, processors: 8) == 4)
        #expect(TilePyramidBuilder.decodingThreads(options: options, sourceOptions: defaults, processors: 2) == 1)
        var explicit = ImageSourceOptions()
        explicit.threads = 3
        #expect(TilePyramidBuilder.decodingThreads(options: options, sourceOptions: explicit, processors: 8) == 3)
        options.tilesInFlight = 0
        #expect(TilePyramidBuilder.decodingThreads(options: options, sourceOptions: defaults, processors: 8) == nil,
                "tiles encoded on the calling thread leave the decoder every processor")
    }
}
