/// Writes a Deep Zoom tile pyramid (`NAME.dzi` + `NAME_files/LEVEL/COLUMN_ROW.jpg|png`) from
/// rows that arrive top to bottom, holding only a few tile rows per level.
///
/// Level ``TilePyramidGeometry/maxLevel`` is the image; each level below is the 2x2 area
/// average of the one above (rounded, `(sum + n/2) / n` over the n pixels that exist, so odd
/// edges average one or two pixels), down to level 0 of 1x1. A level's tiles are cut as soon
/// as the rows of a tile row (its bottom overlap included) have arrived, and encoded on other
/// threads while later rows come in (``TilePyramidOptions/tilesInFlight``).
///
/// Tiles are 8-bit: 16-bit rows are rounded to 8 bits. PNG tiles keep the alpha channel; JPEG
/// tiles drop it (the colour is written as stored, not composited on a background).
///
/// Until ``finish()`` the tiles go to a hidden folder beside the output
/// (`.NAME_files.partial-PID`); `finish` moves it into place and writes the `.dzi` last, so a
/// viewer never sees half a pyramid. A writer that fails, is abandoned or is dropped before
/// `finish` removes its partial files. Copies of a writer share one state: keep one.
///
/// ```swift
/// var writer = try TilePyramidWriter(directory: "out", name: "photo", width: image.width,
///                                    height: image.height, format: image.format)
/// try image.withRowBand(0 ..< image.height) { try writer.add($0) }
/// try writer.finish()      // out/photo.dzi, out/photo_files/0/0_0.jpg ...
/// ```
public struct TilePyramidWriter {
    /// Levels, sizes and tile layout of the pyramid being written.
    public let geometry: TilePyramidGeometry
    /// Tile size, overlap, format, quality and the bounds on memory and tiles in flight.
    public let options: TilePyramidOptions
    /// The folder the pyramid is written into.
    public let directory: String
    /// The pyramid's name: `name.dzi` and `name_files/`.
    public let name: String
    /// The layout of the tiles: the input's channels at 8 bits, without alpha for JPEG tiles.
    public let tilePixelFormat: PixelFormat
    private let state: WriterState

    /// Prepares the pyramid of a `width` x `height` image whose rows will come as `format`.
    /// Creates `directory` if it is missing (not its parents).
    public init(directory: String, name: String, width: Int, height: Int, format: PixelFormat,
                options: TilePyramidOptions = .init()) throws(TilePyramidError) {
        try options.validate()
        guard width > 0, height > 0 else { throw .invalidImage("the image is empty (\(width)x\(height))") }
        guard !name.isEmpty, name != ".", name != "..", !name.contains("/") else {
            throw .invalidImage("\"\(name)\" cannot name the pyramid's files")
        }
        self.geometry = TilePyramidGeometry(width: width, height: height, tileSize: options.tileSize, overlap: options.overlap)
        // Width alone is not bounded by a decoder's pixel limit (a 1-row image can be very wide).
        let (w, h) = (min(width, 1 << 40), min(height, 1 << 40))
        let needed = TilePyramidGeometry(width: w, height: h, tileSize: options.tileSize, overlap: options.overlap)
            .workingBytes(channels: format.channels)
        guard width <= 1 << 40, height <= 1 << 40, needed <= options.maxWorkingBytes else {
            throw .limit(.memory(requested: needed, limit: options.maxWorkingBytes))
        }
        self.options = options
        self.directory = directory
        self.name = name
        tilePixelFormat = options.format == .jpeg ? format.eightBit.withoutAlpha : format.eightBit
        state = try WriterState(directory: directory, name: name, geometry: geometry, format: tilePixelFormat,
                                options: options)
    }

    /// The descriptor a viewer opens, written by ``finish()``.
    public var descriptorPath: String { directory + "/" + name + ".dzi" }
    /// The folder of the tiles once ``finish()`` has moved them into place.
    public var tilesPath: String { directory + "/" + name + "_files" }

    /// Rows of the image received so far.
    public var rowsAdded: Int { state.nextRow }

    /// Tiles encoded and written so far (they lag the rows while encoders run).
    public var tilesWritten: Int { state.queue.tilesWritten }

    /// Takes the next rows of the image (any pixel format; converted to ``tilePixelFormat``).
    /// Tiles completed by these rows are queued for encoding; an earlier tile's failure is
    /// thrown here. After any error the partial pyramid is removed and every call throws.
    public mutating func add(_ band: RowBand) throws(TilePyramidError) {
        try state.guarded { () throws(TilePyramidError) in try state.add(band) }
    }

    /// Waits for the last tiles, then moves the pyramid into place and writes the `.dzi`.
    /// Throws ``TilePyramidError/incomplete(rows:height:)`` if rows are missing.
    public mutating func finish() throws(TilePyramidError) {
        try state.guarded { () throws(TilePyramidError) in try state.finish() }
    }

    /// Stops, waits for the tiles in flight and removes everything written so far.
    public mutating func abandon() {
        state.fail(.failed("abandoned"))
    }
}

/// The shared state of a ``TilePyramidWriter``.
final class WriterState {
    let geometry: TilePyramidGeometry
    let format: PixelFormat
    let levels: [PyramidLevel]
    let queue: TileEncodingQueue
    let staging: String
    let tilesPath: String
    let descriptorPath: String
    let tileExtension: String
    let descriptor: String
    private(set) var nextRow = 0
    private var failure: TilePyramidError?
    private var committed = false

    init(directory: String, name: String, geometry: TilePyramidGeometry, format: PixelFormat,
         options: TilePyramidOptions) throws(TilePyramidError) {
        self.geometry = geometry
        self.format = format
        levels = (0 ... geometry.maxLevel).map { PyramidLevel(level: $0, geometry: geometry, format: format) }
        queue = TileEncodingQueue(options: options)
        tileExtension = options.format.fileExtension
        descriptor = DeepZoomDescriptor.xml(geometry: geometry, format: options.format)
        staging = directory + "/." + name + "_files.partial-\(TileFiles.processID)"
        tilesPath = directory + "/" + name + "_files"
        descriptorPath = directory + "/" + name + ".dzi"
        try TileFiles.makeDirectory(directory)
        TileFiles.removeTree(staging)
        do {
            try TileFiles.makeDirectory(staging)
            for level in 0 ... geometry.maxLevel { try TileFiles.makeDirectory(staging + "/\(level)") }
        } catch {
            TileFiles.removeTree(staging)
            throw error
        }
    }

    deinit {
        if !committed {
            queue.waitQuietly()
            TileFiles.removeTree(staging)
        }
    }

    /// Runs `body` unless an earlier call failed; a failure removes the partial pyramid and sticks.
    func guarded(_ body: () throws(TilePyramidError) -> Void) throws(TilePyramidError) {
        if let failure { throw failure }
        if committed { throw .failed("the pyramid is already finished") }
        do {
            try body()
        } catch {
            fail(error)
            throw error
        }
    }

    func fail(_ error: TilePyramidError) {
        if failure == nil { failure = error }
        if !committed {
            queue.waitQuietly()
            TileFiles.removeTree(staging)
        }
    }

    func add(_ band: RowBand) throws(TilePyramidError) {
        guard band.count > 0 else { return }
        guard band.y == nextRow, band.width == geometry.width, band.count <= geometry.height - nextRow else {
            throw .bandMismatch(expectedRow: nextRow, got: band.y, width: band.width)
        }
        if band.format == format && band.bytesPerRow >= band.width * format.bytesPerPixel {
            for i in 0 ..< band.count {
                let row = (band.base + i * band.bytesPerRow).assumingMemoryBound(to: UInt8.self)
                try push(row, level: geometry.maxLevel)
                nextRow += 1
            }
            return
        }
        // Other layouts (16-bit, alpha to drop, gray for colour tiles) go through ImageCore's
        // conversions a band at a time.
        let inRow = band.width * band.format.bytesPerPixel
        var bytes: [UInt8] = []
        bytes.reserveCapacity(inRow * band.count)
        for i in 0 ..< band.count { bytes.append(contentsOf: band.row(i)) }
        let converted = Image(width: band.width, height: band.count, format: band.format, pixels: bytes).converted(to: format)
        let outRow = converted.bytesPerRow
        var failure: TilePyramidError?
        converted.pixels.withUnsafeBytes { raw in
            guard let base = raw.baseAddress else { return }
            do throws(TilePyramidError) {
                for i in 0 ..< band.count {
                    try push((base + i * outRow).assumingMemoryBound(to: UInt8.self), level: geometry.maxLevel)
                    nextRow += 1
                }
            } catch {
                failure = error
            }
        }
        if let failure { throw failure }
    }

    /// Row `levels[level].received` of `level`: store it, cut finished tile rows, and pass the
    /// 2x2 average on to the level below when a pair of rows is complete.
    private func push(_ row: UnsafePointer<UInt8>, level: Int) throws(TilePyramidError) {
        let current = levels[level]
        let y = current.received
        current.append(row)
        while current.tileRowReady {
            let (tileRow, tiles) = current.cutTileRow()
            for (column, tile) in tiles.enumerated() {
                try queue.submit(tile, to: staging + "/\(level)/\(column)_\(tileRow).\(tileExtension)")
            }
        }
        if level > 0, let smaller = current.reduce(row, y: y) {
            try push(smaller, level: level - 1)
        }
    }

    func finish() throws(TilePyramidError) {
        guard nextRow == geometry.height else { throw .incomplete(rows: nextRow, height: geometry.height) }
        try queue.drain()
        // The old descriptor goes first and the new one comes last, so at no moment does a
        // descriptor point at a tile folder that is not complete.
        let partialDescriptor = descriptorPath + ".partial-\(TileFiles.processID)"
        try TileFiles.write(Array(descriptor.utf8), to: partialDescriptor)
        TileFiles.removeTree(descriptorPath)
        let old = staging + ".old"
        if TileFiles.exists(tilesPath) { try TileFiles.rename(tilesPath, to: old) }
        do {
            try TileFiles.rename(staging, to: tilesPath)
            try TileFiles.rename(partialDescriptor, to: descriptorPath)
        } catch {
            TileFiles.removeTree(partialDescriptor)
            throw error
        }
        committed = true
        TileFiles.removeTree(old)
    }
}
