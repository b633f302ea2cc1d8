import Dispatch

// Decoding from async sequences of bytes: what `URLSession.bytes(from:)`, AsyncHTTPClient and
// Hummingbird/Vapor request bodies hand out. Each piece goes into the same incremental decoder
// as `append`, as it arrives; nothing is buffered beyond the piece in hand.

extension ImageSource {
    /// Decodes an image from an async sequence of byte pieces (`[UInt8]`, `ArraySlice<UInt8>`,
    /// `Data`, a server's body buffers, ...), feeding each piece to the decoder as it arrives.
    ///
    /// The result equals ``decode(_:registry:options:)`` on the concatenated bytes. An error
    /// thrown by the sequence reaches the caller unchanged; cancelling the calling task stops
    /// reading at the next piece (`CancellationError`); input that ends early throws the
    /// codec's truncation error, as ``finish()`` does. Set `options.limits.inputSize` from a
    /// Content-Length to have the decompression-ratio limit checked from the header.
    ///
    /// ```swift
    /// let (stream, continuation) = AsyncStream<[UInt8]>.makeStream()
    /// // ... a producer yields pieces and finishes the continuation
    /// let image = try await ImageSource.decode(from: stream)
    /// ```
    public static func decode<Bytes: AsyncSequence>(
        from bytes: Bytes, registry: ImageDecoderRegistry = .standard, options: ImageSourceOptions = .init()
    ) async throws -> Image where Bytes.Element: Collection, Bytes.Element.Element == UInt8 {
        var source = try await fed(from: bytes, registry: registry, options: options)
        return try source.finish()
    }

    /// Describes a file read from an async sequence of byte pieces, as ``describe(_:registry:options:)``
    /// does for bytes in hand: the whole file is decoded on the way (piece by piece, never held
    /// whole), so a damaged file throws its error.
    public static func describe<Bytes: AsyncSequence>(
        from bytes: Bytes, registry: ImageDecoderRegistry = .standard, options: ImageSourceOptions = .init()
    ) async throws -> ImageDescription where Bytes.Element: Collection, Bytes.Element.Element == UInt8 {
        var source = try await fed(from: bytes, registry: registry, options: options)
        _ = try source.finish()
        guard let description = source.describe() else { throw ImageSourceError.noData }
        return description
    }

    /// `describe(from:)` for an async sequence of single bytes.
    public static func describe<Bytes: AsyncSequence>(
        from bytes: Bytes, registry: ImageDecoderRegistry = .standard, options: ImageSourceOptions = .init()
    ) async throws -> ImageDescription where Bytes.Element == UInt8 {
        try await describe(from: AsyncBytePieces(bytes), registry: registry, options: options)
    }

    /// A source fed every piece of the sequence, checking for cancellation before each.
    private static func fed<Bytes: AsyncSequence>(
        from bytes: Bytes, registry: ImageDecoderRegistry, options: ImageSourceOptions
    ) async throws -> ImageSource where Bytes.Element: Collection, Bytes.Element.Element == UInt8 {
        var source = ImageSource(registry: registry, options: options)
        var pieces = bytes.makeAsyncIterator()
        while true {
            try Task.checkCancellation()
            guard let piece = try await pieces.next() else { break }
            _ = try source.append(piece)
        }
        return source
    }

    /// Decodes an image from an async sequence of single bytes (`URLSession.AsyncBytes`):
    /// the bytes are gathered into pieces of ``asyncPieceSize`` (or fewer at the end), so the
    /// decoder sees a few calls per piece, not one per byte.
    ///
    /// ```swift
    /// let (bytes, _) = try await URLSession.shared.bytes(from: url)
    /// let image = try await ImageSource.decode(from: bytes)
    /// ```
    public static func decode<Bytes: AsyncSequence>(
        from bytes: Bytes, registry: ImageDecoderRegistry = .standard, options: ImageSourceOptions = .init()
    ) async throws -> Image where Bytes.Element == UInt8 {
        try await decode(from: AsyncBytePieces(bytes), registry: registry, options: options)
    }

    /// The updates of an incremental decode from an async sequence of byte pieces: one update
    /// per piece that produced events, the last one carrying the finished image.
    ///
    /// The stream reads the sequence only when the next update is asked for (nothing is read
    /// ahead), so a consumer that renders ``ImageSourceUpdate/preview()`` sees the decoder as it
    /// stood at that update. Errors and cancellation behave as in `decode(from:)`.
    ///
    /// ```swift
    /// for try await update in ImageSource.updates(from: body) {
    ///     if let header = update.header, update.events.contains(.header(header)) { layout(header) }
    ///     if let image = update.image { show(image) }
    ///     else if update.events.contains(where: \.refinesPreview), let preview = update.preview() { show(preview) }
    /// }
    /// ```
    public static func updates<Bytes: AsyncSequence>(
        from bytes: Bytes, registry: ImageDecoderRegistry = .standard, options: ImageSourceOptions = .init()
    ) -> AsyncThrowingStream<ImageSourceUpdate, any Error> where Bytes.Element: Collection, Bytes.Element.Element == UInt8 {
        // Erased, so the @Sendable closure captures no generic (non-Sendable) metatype.
        let state: any AsyncUpdateProducer<ImageSourceUpdate> =
            UpdateState(iterator: bytes.makeAsyncIterator(), source: ImageSource(registry: registry, options: options))
        return AsyncThrowingStream(unfolding: { try await state.next() })
    }

    /// `updates(from:)` for an async sequence of single bytes,
    /// gathered into pieces of ``asyncPieceSize``.
    public static func updates<Bytes: AsyncSequence>(
        from bytes: Bytes, registry: ImageDecoderRegistry = .standard, options: ImageSourceOptions = .init()
    ) -> AsyncThrowingStream<ImageSourceUpdate, any Error> where Bytes.Element == UInt8 {
        updates(from: AsyncBytePieces(bytes), registry: registry, options: options)
    }

    /// Bytes gathered from a sequence of single bytes before they are handed to the decoder.
    public static let asyncPieceSize = 32 * 1024
}

/// What one piece of input changed, from `ImageSource.updates(from:)`.
public struct ImageSourceUpdate: Sendable {
    /// The events of this piece (empty in the last update when the piece before it ended the
    /// image's data).
    public let events: [DecodingEvent]
    /// Size, pixel format and frame count, once the header has arrived.
    public let header: ImageHeader?
    /// The format, once the first bytes told it.
    public let format: ImageFileFormat?
    /// The finished image (with the options' orientation, size and premultiplication applied):
    /// set in the last update only.
    public let image: Image?
    private let state: any PreviewRendering

    init(events: [DecodingEvent], header: ImageHeader?, format: ImageFileFormat?, image: Image?,
         state: any PreviewRendering) {
        self.events = events
        self.header = header
        self.format = format
        self.image = image
        self.state = state
    }

    /// The best displayable image so far, rendered now (not unless asked): the decoder's state
    /// at this update as long as the next update has not been asked for, a later state after.
    /// Nil before the header.
    public func preview() -> Image? {
        image ?? state.renderPreview()
    }
}

extension DecodingEvent {
    /// Whether the event makes more of the image displayable: rows, a pass, a scan or a frame.
    public var refinesPreview: Bool {
        switch self {
        case .rows, .passComplete, .scanComplete, .frameComplete: true
        default: false
        }
    }
}

/// The producer behind an `AsyncThrowingStream(unfolding:)` of updates.
protocol AsyncUpdateProducer<Update>: Sendable {
    associatedtype Update: Sendable
    func next() async throws -> Update?
}

/// Renders the preview of a decode that goes on in another task.
protocol PreviewRendering: Sendable {
    func renderPreview() -> Image?
}

/// The decoder and the input iterator behind an update stream. The stream's unfolding closure is
/// its only caller of `next()` (one at a time, as for any async iterator); `preview()` may come
/// from another task, so the source is touched under a lock.
private final class UpdateState<Iterator: AsyncIteratorProtocol>: AsyncUpdateProducer, PreviewRendering, @unchecked Sendable
where Iterator.Element: Collection, Iterator.Element.Element == UInt8 {
    private var iterator: Iterator
    private var source: ImageSource
    private var done = false
    private let lock = DispatchSemaphore(value: 1)

    init(iterator: Iterator, source: ImageSource) {
        self.iterator = iterator
        self.source = source
    }

    func next() async throws -> ImageSourceUpdate? {
        while !done {
            try Task.checkCancellation()
            var pieces = iterator
            let piece = try await pieces.next()
            iterator = pieces
            guard let piece else {
                done = true
                let image = try locked { try $0.finish() }
                return update(events: [], image: image)
            }
            let events = try locked { try $0.append(piece) }
            if !events.isEmpty { return update(events: events, image: nil) }
        }
        return nil
    }

    func renderPreview() -> Image? {
        lock.wait()
        defer { lock.signal() }
        return source.preview()
    }

    private func locked<R>(_ body: (inout ImageSource) throws -> R) throws -> R {
        lock.wait()
        defer { lock.signal() }
        do {
            return try body(&source)
        } catch {
            done = true
            throw error
        }
    }

    private func update(events: [DecodingEvent], image: Image?) -> ImageSourceUpdate {
        ImageSourceUpdate(events: events, header: source.header, format: source.format, image: image, state: self)
    }
}

/// Single bytes gathered into pieces of `ImageSource.asyncPieceSize`.
struct AsyncBytePieces<Base: AsyncSequence>: AsyncSequence where Base.Element == UInt8 {
    let base: Base

    init(_ base: Base) { self.base = base }

    func makeAsyncIterator() -> Iterator { Iterator(base: base.makeAsyncIterator()) }

    struct Iterator: AsyncIteratorProtocol {
        var base: Base.AsyncIterator
        var ended = false

        mutating func next() async throws -> [UInt8]? {
            if ended { return nil }
            var piece: [UInt8] = []
            piece.reserveCapacity(ImageSource.asyncPieceSize)
            while piece.count < ImageSource.asyncPieceSize {
                guard let byte = try await base.next() else {
                    ended = true
                    break
                }
                piece.append(byte)
            }
            return piece.isEmpty ? nil : piece
        }
    }
}
