// Tile pyramids from async sequences of bytes: each piece goes into a `TilePyramidBuilder` as it
// arrives, so tiles are written while the upload or download goes on.

extension TilePyramidBuilder {
    /// Builds a Deep Zoom pyramid (`directory/name.dzi` and `directory/name_files/`) from an
    /// async sequence of byte pieces, writing tiles while the bytes arrive.
    ///
    /// An error thrown by the sequence reaches the caller unchanged; cancelling the calling task
    /// stops reading at the next piece. Either way, and on a decoding error, the partial pyramid
    /// is removed.
    ///
    /// ```swift
    /// let pyramid = try await TilePyramidBuilder.build(from: request.body, directory: "tiles", name: "scan")
    /// print(pyramid.levels, pyramid.descriptorPath)
    /// ```
    public static func build<Bytes: AsyncSequence>(
        from bytes: Bytes, directory: String, name: String, options: TilePyramidOptions = .init(),
        sourceOptions: ImageSourceOptions = .init()
    ) async throws -> TilePyramid where Bytes.Element: Collection, Bytes.Element.Element == UInt8 {
        var builder = TilePyramidBuilder(directory: directory, name: name, options: options, sourceOptions: sourceOptions)
        var pieces = bytes.makeAsyncIterator()
        do {
            while true {
                try Task.checkCancellation()
                guard let piece = try await pieces.next() else { break }
                try builder.append(piece)
            }
            return try builder.finish()
        } catch {
            builder.abandon()
            throw error
        }
    }

    /// `build(from:)` for an async
    /// sequence of single bytes, gathered into pieces of `ImageSource.asyncPieceSize`.
    public static func build<Bytes: AsyncSequence>(
        from bytes: Bytes, directory: String, name: String, options: TilePyramidOptions = .init(),
        sourceOptions: ImageSourceOptions = .init()
    ) async throws -> TilePyramid where Bytes.Element == UInt8 {
        try await build(from: AsyncBytePieces(bytes), directory: directory, name: name, options: options,
                        sourceOptions: sourceOptions)
    }

    /// The progress of a pyramid built from an async sequence: one update per piece of input,
    /// the last one carrying the finished pyramid. Reads the sequence only as updates are asked
    /// for; errors and cancellation as in `build(from:directory:name:)`, and the partial pyramid
    /// is removed when the stream ends early (an error, or the consumer stops iterating).
    ///
    /// ```swift
    /// for try await update in TilePyramidBuilder.updates(from: body, directory: "tiles", name: "scan") {
    ///     progressBar.value = update.progress
    /// }
    /// ```
    public static func updates<Bytes: AsyncSequence>(
        from bytes: Bytes, directory: String, name: String, options: TilePyramidOptions = .init(),
        sourceOptions: ImageSourceOptions = .init()
    ) -> AsyncThrowingStream<TilePyramidUpdate, any Error> where Bytes.Element: Collection, Bytes.Element.Element == UInt8 {
        let state: any AsyncUpdateProducer<TilePyramidUpdate> =
            TileUpdateState(iterator: bytes.makeAsyncIterator(),
                            builder: TilePyramidBuilder(directory: directory, name: name, options: options,
                                                        sourceOptions: sourceOptions))
        return AsyncThrowingStream(unfolding: { try await state.next() })
    }

    /// `updates(from:)` for an async
    /// sequence of single bytes.
    public static func updates<Bytes: AsyncSequence>(
        from bytes: Bytes, directory: String, name: String, options: TilePyramidOptions = .init(),
        sourceOptions: ImageSourceOptions = .init()
    ) -> AsyncThrowingStream<TilePyramidUpdate, any Error> where Bytes.Element == UInt8 {
        updates(from: AsyncBytePieces(bytes), directory: directory, name: name, options: options,
                sourceOptions: sourceOptions)
    }
}

/// How far a pyramid built from an async sequence has got.
public struct TilePyramidUpdate: Sendable {
    /// The image's size and format, once its header has arrived.
    public let header: ImageHeader?
    /// Rows of the full-size image written into the pyramid so far.
    public let rowsDone: Int
    /// `rowsDone / height`, 0 before the header.
    public let progress: Double
    /// Tiles encoded and written so far.
    public let tilesWritten: Int
    /// The finished pyramid: set in the last update only.
    public let pyramid: TilePyramid?
}

/// The builder and input iterator behind an update stream; only the stream's unfolding closure
/// touches them, one call at a time. Dropping an unfinished state removes the partial pyramid.
private final class TileUpdateState<Iterator: AsyncIteratorProtocol>: AsyncUpdateProducer, @unchecked Sendable
where Iterator.Element: Collection, Iterator.Element.Element == UInt8 {
    private var iterator: Iterator
    private var builder: TilePyramidBuilder
    private var done = false

    init(iterator: Iterator, builder: TilePyramidBuilder) {
        self.iterator = iterator
        self.builder = builder
    }

    deinit {
        if !done { builder.abandon() }
    }

    func next() async throws -> TilePyramidUpdate? {
        if done { return nil }
        do {
            try Task.checkCancellation()
            var pieces = iterator
            let piece = try await pieces.next()
            iterator = pieces
            guard let piece else {
                let pyramid = try builder.finish()
                done = true
                return update(pyramid: pyramid)
            }
            try builder.append(piece)
            return update(pyramid: nil)
        } catch {
            builder.abandon()
            done = true
            throw error
        }
    }

    private func update(pyramid: TilePyramid?) -> TilePyramidUpdate {
        TilePyramidUpdate(header: builder.header, rowsDone: builder.rowsDone, progress: pyramid == nil ? builder.progress : 1,
                          tilesWritten: builder.tilesWritten, pyramid: pyramid)
    }
}
