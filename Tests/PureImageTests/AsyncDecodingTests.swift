import Foundation
import TestSupport
import PureImage
import Testing

/// The bytes as an async sequence of pieces of `size`, yielded by a producer task so that the
/// decoder really waits on the sequence between pieces.
func asyncPieces(_ bytes: [UInt8], size: Int) -> AsyncStream<[UInt8]> {
    AsyncStream { continuation in
        var i = 0
        while i < bytes.count {
            let end = min(bytes.count, i + size)
            continuation.yield(Array(bytes[i ..< end]))
            i = end
        }
        continuation.finish()
    }
}

/// The bytes one `UInt8` at a time, as `URLSession.AsyncBytes` hands them out.
func asyncSingleBytes(_ bytes: [UInt8]) -> AsyncStream<UInt8> {
    AsyncStream { continuation in
        for byte in bytes { continuation.yield(byte) }
        continuation.finish()
    }
}

/// A sequence that hands out `count` pieces and then throws.
struct FailingPieces: AsyncSequence, Sendable {
    struct PieceError: Error, Equatable { let after: Int }
    let bytes: [UInt8]
    let pieceSize: Int
    let failAfter: Int

    struct AsyncIterator: AsyncIteratorProtocol {
        let source: FailingPieces
        var index = 0

        mutating func next() async throws -> ArraySlice<UInt8>? {
            if index == source.failAfter { throw PieceError(after: index) }
            let start = index * source.pieceSize
            guard start < source.bytes.count else { return nil }
            index += 1
            return source.bytes[start ..< Swift.min(source.bytes.count, start + source.pieceSize)]
        }
    }

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(source: self) }
}

/// Pieces handed out forever (counted), for cancellation: reading must stop when the task is
/// cancelled, whatever the sequence would still give.
final class EndlessPieces: AsyncSequence, @unchecked Sendable {
    private let lock = NSLock()
    private var handedOut = 0
    let piece: [UInt8]

    init(prefix: [UInt8]) { piece = prefix }

    var count: Int { lock.withLock { handedOut } }

    struct AsyncIterator: AsyncIteratorProtocol {
        let owner: EndlessPieces
        var first = true

        mutating func next() async throws -> [UInt8]? {
            owner.lock.withLock { owner.handedOut += 1 }
            try await Task.sleep(nanoseconds: 1_000_000)
            defer { first = false }
            // The header first, then bytes that keep the decoder waiting for more (a comment
            // segment's body never ends).
            return first ? owner.piece : [UInt8](repeating: 0x20, count: 64)
        }
    }

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(owner: self) }
}

@Suite struct AsyncDecodingTests {
    static func files() throws -> [(String, [UInt8])] { try ImageSourceTests.files() }

    @Test(arguments: [1, 7, 4096])
    func piecesGiveTheSamePixels(size: Int) async throws {
        for (name, bytes) in try Self.files() {
            let expected = try ImageSource.decode(bytes)
            let image = try await ImageSource.decode(from: asyncPieces(bytes, size: size))
            #expect(image == expected, "\(name) in pieces of \(size)")
        }
    }

    @Test func singleBytesGiveTheSamePixels() async throws {
        for (name, bytes) in try Self.files() {
            let expected = try ImageSource.decode(bytes)
            let image = try await ImageSource.decode(from: asyncSingleBytes(bytes))
            #expect(image == expected, "\(name) byte by byte")
        }
        // Longer than one gathered piece: the pieces join up across their boundary.
        let big = try JPEGEncoder.encode(sampleRGBA(width: 400, height: 300).converted(to: .rgb8),
                                         options: JPEGEncodingOptions(quality: 100, subsampling: .s444))
        #expect(big.count > ImageSource.asyncPieceSize)
        #expect(try await ImageSource.decode(from: asyncSingleBytes(big)) == ImageSource.decode(big))
    }

    @Test func optionsApply() async throws {
        let jpeg = try JPEGEncoder.encode(sampleRGBA(width: 160, height: 96).converted(to: .rgb8))
        let options = ImageSourceOptions(maxPixelSize: 40)
        let image = try await ImageSource.decode(from: asyncPieces(jpeg, size: 100), options: options)
        #expect(image == (try ImageSource.decode(jpeg, options: options)))
        #expect(image.width == 40)
    }

    @Test func updatesCarryEventsPreviewsAndTheImage() async throws {
        for (name, bytes) in try Self.files() {
            var sync = ImageSource()
            var expectedEvents: [DecodingEvent] = []
            var i = 0
            while i < bytes.count {
                expectedEvents += try sync.append(bytes[i ..< min(bytes.count, i + 97)])
                i += 97
            }
            let expected = try sync.finish()
            var events: [DecodingEvent] = []
            var last: ImageSourceUpdate?
            var previews = 0
            for try await update in ImageSource.updates(from: asyncPieces(bytes, size: 97)) {
                #expect(last?.image == nil, "\(name): the finished image comes last")
                events += update.events
                if update.events.contains(where: \.refinesPreview), update.preview() != nil { previews += 1 }
                last = update
            }
            #expect(events == expectedEvents, "\(name)")
            #expect(last?.image == expected, "\(name)")
            #expect(last?.header == sync.header && last?.format == sync.format, "\(name)")
            #expect(previews > 0, "\(name)")
        }
    }

    @Test func updatesFromSingleBytes() async throws {
        let bytes = try PNGEncoder.encode(sampleRGBA())
        var last: ImageSourceUpdate?
        for try await update in ImageSource.updates(from: asyncSingleBytes(bytes)) { last = update }
        #expect(last?.image == (try ImageSource.decode(bytes)))
    }

    @Test func describeFromAsyncSequence() async throws {
        for (name, bytes) in try Self.files() {
            let described = try await ImageSource.describe(from: asyncPieces(bytes, size: 13))
            #expect(described == (try ImageSource.describe(bytes)), "\(name)")
        }
    }

    @Test func theSequencesErrorReachesTheCaller() async throws {
        let bytes = try PNGEncoder.encode(sampleRGBA())
        await #expect(throws: FailingPieces.PieceError(after: 3)) {
            _ = try await ImageSource.decode(from: FailingPieces(bytes: bytes, pieceSize: 50, failAfter: 3))
        }
        await #expect(throws: FailingPieces.PieceError(after: 2)) {
            for try await _ in ImageSource.updates(from: FailingPieces(bytes: bytes, pieceSize: 50, failAfter: 2)) {}
        }
    }

    @Test func truncationGivesTheCodecsError() async throws {
        let png = try PNGEncoder.encode(sampleRGBA())
        let cut = Array(png.prefix(png.count / 2))
        var source = ImageSource()
        _ = try source.append(cut)
        let syncError = #expect(throws: PNGError.self) { try source.finish() }
        let asyncError = await #expect(throws: PNGError.self) { try await ImageSource.decode(from: asyncPieces(cut, size: 64)) }
        #expect("\(String(describing: syncError))" == "\(String(describing: asyncError))")
        await #expect(throws: ImageSourceError.noData) { try await ImageSource.decode(from: asyncPieces([], size: 1)) }
    }

    @Test func cancellationStopsReading() async throws {
        // A JPEG header followed by a comment segment that never ends: the decoder waits forever.
        let header: [UInt8] = [0xFF, 0xD8, 0xFF, 0xFE, 0xFF, 0xFF]
        let endless = EndlessPieces(prefix: header)
        let task = Task { try await ImageSource.decode(from: endless) }
        // Cancel once the decode is well under way (however slow the machine is today).
        for _ in 0 ..< 1000 where endless.count < 3 { try await Task.sleep(nanoseconds: 10_000_000) }
        task.cancel()
        let result = await task.result
        #expect(throws: CancellationError.self) { try result.get() }
        let atCancel = endless.count
        try await Task.sleep(nanoseconds: 30_000_000)
        #expect(endless.count == atCancel, "no piece read after the task ended")
        #expect(atCancel >= 3)
    }

    @Test func tilePyramidFromAsyncSequence() async throws {
        let jpeg = try JPEGEncoder.encode(sampleRGBA(width: 600, height: 400).converted(to: .rgb8))
        let directory = try Scratch.folder("async-pyramid")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let pyramid = try await TilePyramidBuilder.build(from: asyncPieces(jpeg, size: 1000), directory: directory, name: "a")
        var sync = TilePyramidBuilder(directory: directory, name: "b")
        try sync.append(jpeg)
        let expected = try sync.finish()
        #expect(pyramid.geometry == expected.geometry)
        for level in 0 ..< pyramid.levels {
            let (columns, rows) = pyramid.tileCount(ofLevel: level)
            for c in 0 ..< columns { for r in 0 ..< rows {
                #expect(try pyramid.tile(level: level, column: c, row: r) == expected.tile(level: level, column: c, row: r))
            } }
        }
        var progress: [Double] = []
        var last: TilePyramidUpdate?
        for try await update in TilePyramidBuilder.updates(from: asyncSingleBytes(jpeg), directory: directory, name: "c") {
            progress.append(update.progress)
            last = update
        }
        #expect(progress == progress.sorted() && progress.last == 1)
        #expect(last?.pyramid?.geometry == expected.geometry && (last?.tilesWritten ?? 0) > 0)
        // A sequence that fails leaves no partial pyramid behind.
        await #expect(throws: FailingPieces.PieceError(after: 2)) {
            _ = try await TilePyramidBuilder.build(from: FailingPieces(bytes: jpeg, pieceSize: 4000, failAfter: 2),
                                                   directory: directory, name: "d")
        }
        let left = try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasPrefix("d") || $0.hasPrefix(".d_") }
        #expect(left.isEmpty, "\(left)")
    }
}
