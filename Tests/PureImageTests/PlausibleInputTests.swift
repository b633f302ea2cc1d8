import Foundation
import TestSupport
import PureImage
import Testing

/// `DecodingLimits.requiresPlausibleInput`: with the input size known, a header that declares
/// more pixels than its bytes can hold is refused at the header on every path, the streaming
/// ones included, where the memory ratio never trips (rows need little memory). The limits
/// here are the CLI's streaming ones (4.3 gigapixels), so only the input-size check stands in
/// the way of the three files in Vectors/regressions.
@Suite struct PlausibleInputTests {
    static let files = ["limits-jpeg-gray-40000.jpg", "limits-jpeg-rgb-40000.jpg", "limits-png-interlaced-65535.png"]

    static func options(_ size: Int) -> ImageSourceOptions {
        ImageSourceOptions(limits: DecodingLimits(maxPixels: 4_300_000_000, inputSize: size))
    }

    static func isImplausible(_ error: any Error) -> Bool {
        let violation: LimitViolation? = switch error {
        case let JPEGError.limitExceeded(v, _): v
        case let PNGError.limitExceeded(v, _): v
        default: nil
        }
        if case .implausibleSize? = violation { return true }
        return false
    }

    /// Feeds `bytes` in `pieces` to `append`, then calls `finish`; the first error.
    static func run(_ bytes: [UInt8], pieces: Int, append: (ArraySlice<UInt8>) throws -> Void, finish: () throws -> Void) -> (any Error)? {
        do {
            var i = 0
            while i < bytes.count {
                try append(bytes[i ..< min(bytes.count, i + pieces)])
                i += pieces
            }
            try finish()
            return nil
        } catch {
            return error
        }
    }

    @Test("rows, thumbnails, tiles and whole decodes refuse the header, whole and in pieces", arguments: files)
    func refused(file: String) throws {
        let bytes = try TestVectors.bytes("regressions/" + file)
        let options = Self.options(bytes.count)
        for pieces in [bytes.count, 4096, 7] {
            var rows = RowStreamDecoder(options: options)
            var rowCount = 0
            let rowError = Self.run(bytes, pieces: pieces, append: { piece in
                try piece.withUnsafeBytes { raw in _ = try rows.append(raw) { rowCount += $0.count } }
            }, finish: { try rows.finish { rowCount += $0.count } })
            #expect(rowError.map(Self.isImplausible) == true && rowCount == 0, "rows, \(pieces): \(String(describing: rowError))")

            var thumbnail = ThumbnailDecoder(maxPixelSize: 256, options: options)
            let thumbnailError = Self.run(bytes, pieces: pieces, append: { _ = try thumbnail.append($0) },
                                          finish: { _ = try thumbnail.finish() })
            #expect(thumbnailError.map(Self.isImplausible) == true, "thumbnail, \(pieces): \(String(describing: thumbnailError))")

            var source = ImageSource(options: options)
            let sourceError = Self.run(bytes, pieces: pieces, append: { _ = try source.append($0) }, finish: { _ = try source.finish() })
            #expect(sourceError.map(Self.isImplausible) == true, "ImageSource, \(pieces): \(String(describing: sourceError))")
        }
        let directory = try Scratch.folder("plausible")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var builder = TilePyramidBuilder(directory: directory, name: "t", sourceOptions: options)
        let tileError = Self.run(bytes, pieces: 4096, append: { try builder.append($0) }, finish: { _ = try builder.finish() })
        #expect(tileError.map(Self.isImplausible) == true, "tiles: \(String(describing: tileError))")
        // Without the input size (a stream of unknown length) a JPEG's header passes this check.
        if file.hasSuffix(".jpg") {
            var unknown = RowStreamDecoder(options: ImageSourceOptions(limits: DecodingLimits(maxPixels: 4_300_000_000)))
            try bytes.prefix(200).withUnsafeBytes { raw in _ = try unknown.append(raw) { _ in } }
            #expect(unknown.header?.width == 40000)
        }
    }

    @Test("every clean and damaged vector passes the check (it bounds only what no file reaches)")
    func vectorsPass() throws {
        let folders = ["jpeg/valid", "jpeg-extra", "jpeg-12bit", "jpeg-arithmetic", "jpeg-lossless", "jpeg-damaged",
                       "jpeg-smoothing", "jpeg-progressive-scaled", "png/valid", "png/pngsuite", "png/damaged", "apng", "gif"]
        var checked = 0
        for folder in folders {
            for name in TestVectors.files(in: folder) where [".jpg", ".png", ".gif"].contains(where: name.hasSuffix) {
                let bytes = try TestVectors.bytes(folder + "/" + name)
                var source = ImageSource(options: ImageSourceOptions(limits: DecodingLimits(inputSize: bytes.count)))
                do {
                    _ = try source.append(bytes)
                    _ = try source.finish()
                } catch {
                    #expect(!Self.isImplausible(error), "\(folder)/\(name): \(error)")
                }
                checked += 1
            }
        }
        #expect(checked > 700)
    }
}
