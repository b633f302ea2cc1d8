@testable import PureImage
import Testing

/// Rows handed out by a `RowStreamDecoder` fed in pieces of `size`, checked for order, and how
/// many of them came before `finish`.
func streamRows(_ bytes: [UInt8], pieces size: Int) throws -> (image: Image, beforeFinish: Int, decoder: RowStreamDecoder) {
    var decoder = RowStreamDecoder()
    var pixels: [UInt8] = []
    var rows = 0
    var width = 0
    var format = PixelFormat.gray8
    let take = { (band: RowBand) in
        #expect(band.y == rows, "band at row \(band.y), expected \(rows)")
        width = band.width
        format = band.format
        for i in 0 ..< band.count { pixels += band.row(i) }
        rows += band.count
    }
    var i = 0
    while i < bytes.count {
        let end = min(bytes.count, i + size)
        try decoder.append(bytes[i ..< end], rows: take)
        i = end
    }
    let beforeFinish = rows
    try decoder.finish(rows: take)
    return (Image(width: width, height: rows, format: format, pixels: pixels), beforeFinish, decoder)
}

@Suite struct RowStreamDecoderTests {
    static let rgba = sampleRGBA(width: 40, height: 24)

    @Test func everyFormatGivesItsDecodersPixels() throws {
        for (name, bytes) in try ImageSourceTests.files() {
            let expected: Image = switch name {
            case "png", "png-adam7": try PNGDecoder.decode(bytes)
            // A JPNG streams its colour: the JPEG part as the JPEG decoder gives it.
            case "jpeg", "jpeg-progressive", "jpng", "jpng-progressive": try JPEGDecoder.decode(bytes)
            default: try ImageSource.decode(bytes)
            }
            for size in [bytes.count, 1, 7, 4096] {
                let (image, _, decoder) = try streamRows(bytes, pieces: size)
                #expect(image.pixels == expected.pixels, "\(name) in \(size)-byte pieces")
                #expect(image.width == expected.width && image.height == expected.height && image.format == expected.format, "\(name)")
                #expect(decoder.header?.width == expected.width, "\(name)")
                let streams = name == "png" || name == "jpeg" || name == "jpng"
                #expect(decoder.isStreaming == streams, "\(name)")
            }
        }
    }

    @Test func rowsComeBeforeTheEnd() throws {
        var image = Image(width: 48, height: 400, format: .rgb8)
        for i in image.pixels.indices { image.pixels[i] = UInt8(truncatingIfNeeded: i / 7) }
        for bytes in [try JPEGEncoder.encode(image), try PNGEncoder.encode(image)] {
            var decoder = RowStreamDecoder()
            var rows = 0
            try decoder.append(bytes.prefix(bytes.count * 3 / 4)) { rows += $0.count }
            #expect(rows > 100 && rows < 400, "\(rows) rows after three quarters of the bytes")
            try decoder.append(bytes.dropFirst(bytes.count * 3 / 4)) { rows += $0.count }
            try decoder.finish { rows += $0.count }
            #expect(rows == 400)
        }
    }

    @Test func truncatedAndUnknownInputThrowTheCodecsErrors() throws {
        let jpeg = try JPEGEncoder.encode(Self.rgba)
        // Strict: a file cut short is the codec's truncation error.
        var decoder = RowStreamDecoder(options: ImageSourceOptions(strict: true))
        try decoder.append(jpeg.prefix(jpeg.count - 30)) { _ in }
        #expect {
            try decoder.finish { _ in }
        } throws: { error in
            if case .truncated(_, nil)? = error as? JPEGError { true } else { false }
        }
        // By default it is completed as libjpeg completes it, with a warning.
        var lenient = RowStreamDecoder()
        var rows = 0
        try lenient.append(jpeg.prefix(jpeg.count - 30)) { rows += $0.count }
        try lenient.finish { rows += $0.count }
        #expect(rows == Self.rgba.height)
        #expect(lenient.warnings.contains { $0.hasPrefix("premature end of JPEG file") })
        let png = try PNGEncoder.encode(Self.rgba)
        var pngDecoder = RowStreamDecoder()
        try pngDecoder.append(png.prefix(png.count / 2)) { _ in }
        #expect(throws: PNGError.self) { try pngDecoder.finish { _ in } }

        var unknown = RowStreamDecoder()
        #expect(throws: ImageSourceError.self) {
            try unknown.append(Array("hello, world".utf8)) { _ in }
            try unknown.finish { _ in }
        }
        var empty = RowStreamDecoder()
        #expect(throws: ImageSourceError.noData) { try empty.finish { _ in } }
    }

    @Test func aRowsErrorStopsTheDecode() throws {
        struct Stop: Error {}
        let bytes = try JPEGEncoder.encode(Self.rgba)
        var decoder = RowStreamDecoder()
        #expect(throws: Stop.self) { try decoder.append(bytes) { _ in throw Stop() } }
    }

    @Test func multiScanSequentialJPEGComesAtTheEnd() throws {
        let bytes = try TestVectors.bytes("jpeg-extra/seq_3scans_420.jpg")
        let (image, beforeFinish, decoder) = try streamRows(bytes, pieces: 256)
        #expect(!decoder.isStreaming)
        #expect(image.pixels == (try JPEGDecoder.decode(bytes)).pixels)
        #expect(beforeFinish == image.height, "handed out at EOI, during the last append")
    }

    @Test func metadataAndHeaderAreKept() throws {
        let bytes = try TestVectors.bytes("jpeg/valid/exif_orientation6.jpg")
        let (_, _, decoder) = try streamRows(bytes, pieces: 512)
        #expect(decoder.metadata.orientation == (try JPEGDecoder.decode(bytes)).metadata.orientation)
        #expect(decoder.format == .jpeg)
        #expect(decoder.header?.fileFormat == .jpeg)
    }
}

/// Netpbm rows stream through a window of rows: every vector, windows of one row, three rows
/// and the default, fed in pieces, gives the whole decode's rows in order.
@Suite struct NetpbmRowStreamTests {
    static let files = TestVectors.files(in: "netpbm").filter { !$0.hasSuffix(".py") && !$0.hasSuffix(".tsv") && !$0.hasSuffix(".raw") && !$0.hasSuffix(".jpg") }

    @Test("streamed rows equal the whole decode", arguments: files)
    func streamedEqualsWhole(_ file: String) throws {
        let bytes = try TestVectors.bytes("netpbm/" + file)
        guard let whole = try? NetpbmDecoder.decode(bytes) else { return }
        let rowBytes = whole.width * whole.format.bytesPerPixel
        for window in [1, 3 * rowBytes, 1 << 18] {
            for piece in [1, 7, 4096] {
                var decoder = NetpbmDecoder(streamingRowsWithin: .default, windowBytes: window)
                var pixels: [UInt8] = [], next = 0
                let take = { (band: RowBand) in
                    #expect(band.y == next)
                    for i in 0 ..< band.count { pixels += band.row(i) }
                    next += band.count
                }
                var i = 0
                while i < bytes.count {
                    try bytes[i ..< min(bytes.count, i + piece)].withUnsafeBytes { _ = try decoder.append($0, rows: take) }
                    i += piece
                }
                try decoder.finish(rows: take)
                #expect(pixels == whole.pixels, "\(file), window \(window), pieces of \(piece)")
            }
        }
        // One byte short: streaming fails exactly when the whole decode does.
        let short = Array(bytes.dropLast())
        let wholeFails = (try? NetpbmDecoder.decode(short)) == nil
        var cut = NetpbmDecoder(streamingRowsWithin: .default, windowBytes: rowBytes)
        var streamFails = false
        do {
            try short.withUnsafeBytes { raw -> Void in _ = try cut.append(raw, rows: { _ in }) }
            try cut.finish(rows: { _ in })
        } catch {
            streamFails = true
        }
        #expect(streamFails == wholeFails, "\(file) one byte short")
    }
}
