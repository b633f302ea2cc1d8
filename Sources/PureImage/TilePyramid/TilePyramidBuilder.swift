/// Builds a tile pyramid while the bytes of an image arrive: a ``RowStreamDecoder`` feeding a
/// ``TilePyramidWriter``.
///
/// The writer is made when the first rows are final, and every band goes straight into it, so
/// the tiles of a band are being written while later bytes are still on their way. Baseline
/// JPEG and non-interlaced PNG stream in bounded memory; progressive JPEG and interlaced PNG
/// hand out their rows at the end, from a temporary file when large (``RowStreamDecoder``'s
/// spilling), also in bounded memory; GIF is decoded whole, within the `DecodingLimits`.
///
/// ```swift
/// var builder = TilePyramidBuilder(directory: "out", name: "photo")
/// for chunk in download { try builder.append(chunk); show(builder.progress) }
/// let pyramid = try builder.finish()       // out/photo.dzi
/// ```
public struct TilePyramidBuilder {
    /// The folder the pyramid is written into.
    public let directory: String
    /// The pyramid's name: `name.dzi` and `name_files/`.
    public let name: String
    /// Tile size, overlap, format and quality, and the working-memory bound.
    public let options: TilePyramidOptions
    private var decoder: RowStreamDecoder
    private var writer: TilePyramidWriter?
    private var failure: (any Error)?
    private var done: TilePyramid?

    /// `options.maxWorkingBytes` is lowered to `sourceOptions.limits.maxBytes` if that is smaller.
    /// With `sourceOptions.threads` nil, the decoder takes the processors the tile encoders leave:
    /// one by default (``TilePyramidOptions/encoderThreads`` take the others), every processor
    /// when tiles are encoded on the calling thread (``TilePyramidOptions/tilesInFlight`` 0).
    public init(directory: String, name: String, options: TilePyramidOptions = .init(),
                sourceOptions: ImageSourceOptions = .init()) {
        self.directory = directory
        self.name = name
        var options = options
        options.maxWorkingBytes = min(options.maxWorkingBytes, sourceOptions.limits.maxBytes)
        self.options = options
        var sourceOptions = sourceOptions
        sourceOptions.threads = Self.decodingThreads(options: options, sourceOptions: sourceOptions)
        decoder = RowStreamDecoder(options: sourceOptions)
    }

    /// The decoder's threads: the caller's `sourceOptions.threads`, else the processors the tile
    /// encoders leave (all of them when tiles are encoded on the calling thread). A second
    /// decoding thread while the encoders hold the other processors only takes their time, and
    /// its hand-overs cost more when it has no core to itself: a 192 MP baseline JPEG to Deep
    /// Zoom on two processors took 1.14 s with one decoding thread and one encoder, 1.48 s with
    /// two and one (a progressive file, decoded whole before its rows come out, 2.5 s either way).
    static func decodingThreads(options: TilePyramidOptions, sourceOptions: ImageSourceOptions,
                                processors: Int = Processors.online) -> Int? {
        if let threads = sourceOptions.threads { return threads }
        guard options.tilesInFlight > 0 else { return nil }
        return max(1, processors - options.encoderThreadCount(processors: processors))
    }

    /// The image's size and format, once its header has arrived.
    public var header: ImageHeader? { decoder.header }

    /// Damage in the image decoded past so far (`sourceOptions.strict` refuses it instead).
    public var warnings: [String] { decoder.warnings }

    /// Rows of the full-size image written into the pyramid so far.
    public var rowsDone: Int { writer?.rowsAdded ?? 0 }

    /// `rowsDone / height`, 0 before the header.
    public var progress: Double {
        guard let height = header?.height, height > 0 else { return 0 }
        return min(Double(rowsDone) / Double(height), 1)
    }

    /// Tiles encoded and written so far.
    public var tilesWritten: Int { writer?.tilesWritten ?? 0 }

    /// The pyramid's geometry, once rows have started.
    public var geometry: TilePyramidGeometry? { writer?.geometry }

    /// Feeds the next bytes of the image. After any error every call throws it again and the
    /// partial pyramid is gone.
    public mutating func append(_ bytes: UnsafeRawBufferPointer) throws {
        var rest = bytes
        // Until the header is known, small pieces: rows that come in the same call as the
        // header wait in a copy (the sink cannot ask the decoder it is called from), and small
        // pieces keep that copy small.
        while writer == nil && decoder.header == nil && rest.count > Self.headerPiece {
            let piece = UnsafeRawBufferPointer(rebasing: rest[rest.startIndex ..< rest.startIndex + Self.headerPiece])
            try run { (decoder: inout RowStreamDecoder, sink: (RowBand) throws -> Void) in
                try decoder.append(piece, rows: sink)
            }
            rest = UnsafeRawBufferPointer(rebasing: rest[(rest.startIndex + Self.headerPiece)...])
        }
        let last = rest
        try run { (decoder: inout RowStreamDecoder, sink: (RowBand) throws -> Void) in
            try decoder.append(last, rows: sink)
        }
    }

    private static let headerPiece = 4096

    /// Feeds the next bytes from any collection of bytes.
    public mutating func append<C: Collection>(_ bytes: C) throws where C.Element == UInt8 {
        if try bytes.withContiguousStorageIfAvailable({ try append(UnsafeRawBufferPointer($0)) }) != nil { return }
        try Array(bytes).withUnsafeBytes { try append($0) }
    }

    /// Ends the input: the last rows are written, the tiles finished and the `.dzi` written.
    /// Returns the pyramid for reading.
    @discardableResult
    public mutating func finish() throws -> TilePyramid {
        if let done { return done }
        try run { (decoder: inout RowStreamDecoder, sink: (RowBand) throws -> Void) in
            try decoder.finish(rows: sink)
        }
        do {
            guard var writer else { throw TilePyramidError.invalidImage("the image has no rows") }
            try writer.finish()
            let pyramid = try TilePyramid(descriptorPath: writer.descriptorPath)
            done = pyramid
            return pyramid
        } catch {
            fail(error)
            throw error
        }
    }

    /// Stops and removes everything written so far.
    public mutating func abandon() {
        fail(TilePyramidError.failed("abandoned"))
    }

    /// Calls the decoder with a sink that makes the writer at the first band (once the height
    /// is known) and forwards every band to it.
    private mutating func run(_ body: (inout RowStreamDecoder, (RowBand) throws -> Void) throws -> Void) throws {
        if let failure { throw failure }
        // The writer lives in a local during the call, so the sink does not touch `self` while
        // the decoder (part of `self`) is being mutated.
        var local = writer
        var waiting: [Image] = []
        var waitingFrom = 0
        let knownHeight = decoder.header?.height
        let (directory, name, options) = (directory, name, options)
        func make(_ band: RowBand, height: Int) throws {
            local = try TilePyramidWriter(directory: directory, name: name, width: band.width, height: height,
                                          format: band.format, options: options)
        }
        do {
            try body(&decoder) { band in
                if local == nil, let knownHeight { try make(band, height: knownHeight) }
                if local != nil {
                    try local?.add(band)
                    return
                }
                if waiting.isEmpty { waitingFrom = band.y }
                var copy: [UInt8] = []
                copy.reserveCapacity(band.count * band.width * band.format.bytesPerPixel)
                for i in 0 ..< band.count { copy.append(contentsOf: band.row(i)) }
                waiting.append(Image(width: band.width, height: band.count, format: band.format, pixels: copy))
            }
            var y = waitingFrom
            for image in waiting {
                try image.pixels.withUnsafeBytes { raw in
                    guard let base = raw.baseAddress else { return }
                    let band = RowBand(y: y, count: image.height, width: image.width, format: image.format,
                                       bytesPerRow: image.bytesPerRow, base: base)
                    if local == nil { try make(band, height: decoder.header?.height ?? waitingFrom + waiting.reduce(0) { $0 + $1.height }) }
                    try local?.add(band)
                }
                y += image.height
            }
            writer = local
        } catch {
            writer = local
            fail(error)
            throw error
        }
    }

    private mutating func fail(_ error: any Error) {
        if failure == nil { failure = error }
        writer?.abandon()
    }
}
