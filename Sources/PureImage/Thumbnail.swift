import Dispatch

/// Makes a thumbnail while the bytes arrive, holding a few rows of the image, never the image:
/// shrink-on-load, then a high-quality reduction, then orientation.
///
/// - A JPEG (and a JPNG's colour part) decodes at 1/8 when that is at least `maxPixelSize` on
///   its longer side (`JPEGDecodingOptions.dcScaleToFit`): each pixel is a block's average, and
///   the reducer filters them as averages (`RowReducer(sourceIsCellAverages:)`). Otherwise at
///   the smallest DCT scale whose longer side is still at least twice `maxPixelSize`
///   (`JPEGDecodingOptions.scaleToFit`, libvips' shrink-on-load rule, which leaves the filter at
///   least 2x). A 192 MP photo is reconstructed at 1/8 for a 1024-pixel thumbnail, and a
///   progressive one's AC scans of luma are skipped unread.
/// - Sequential JPEGs and non-interlaced PNGs stream (``RowStreamDecoder``): each row goes into a
///   `RowReducer` (libvips' recipe: box average, then Lanczos-3) as soon as it is decoded, so
///   memory does not depend on the input's height. Progressive JPEGs, interlaced PNGs and the
///   other formats are decoded whole within `options.limits`, then reduced.
/// - A JPNG's mask (kept as it arrives after the JPEG) is reduced to the same size and becomes
///   the alpha channel.
/// - The result's longer side is `maxPixelSize` (never enlarged), turned upright per its EXIF
///   orientation when `options.applyOrientation` is set (the default here), its EXIF then
///   saying Orientation 1.
/// - Its colours are converted from the embedded ICC profile to sRGB and the profile dropped
///   (`options.colorSpace`, by default ``OutputColorSpace/sRGB``), and it keeps colour metadata
///   only (`options.metadata`, by default `MetadataPolicy.colorOnly`: no EXIF, so no GPS
///   position or camera serial in a published thumbnail).
///
/// - With a second processor (and `options.threads` not 1) the reduction runs on a thread of its
///   own while the caller decodes; the pixels are the same.
///
/// ```swift
/// var thumbnailer = ThumbnailDecoder(maxPixelSize: 1024)
/// for chunk in chunks { try thumbnailer.append(chunk) }
/// let thumbnail = try thumbnailer.finish()
/// ```
///
/// Use one value of it: copies made mid-stream share the reducer.
public struct ThumbnailDecoder: Sendable {
    /// The longer side of the result.
    public let maxPixelSize: Int
    /// Limits, strictness and orientation (`maxPixelSize`, `subsampleFactor` and
    /// `premultiplyAlpha` do not apply).
    public let options: ImageSourceOptions
    private var rows: RowStreamDecoder
    private var reducer: ReducerStage?
    /// Bytes after the JPEG's EOI (a JPNG's mask and footer), and the input's length.
    private var tail: [UInt8] = []
    private var received = 0
    /// The result's exact size (a JPNG mask reduced to its colour thumbnail's size).
    private var targetSize: (width: Int, height: Int)?
    /// Whether the reducer runs on a thread of its own (`options.threads` other than 1, and a
    /// second processor), so the reduction overlaps the decoding.
    private var background: Bool { (options.threads ?? Processors.online) > 1 && Processors.online > 1 }

    /// A thumbnailer for images reduced to at most `maxPixelSize` on the longer side.
    public init(maxPixelSize: Int, options: ImageSourceOptions = ImageSourceOptions(applyOrientation: true)) {
        self.maxPixelSize = max(maxPixelSize, 1)
        self.options = options
        rows = RowStreamDecoder(options: ImageSourceOptions(limits: options.limits, strict: options.strict))
        // libvips' shrink-on-load rule: the DCT scale leaves at least 2x for the filter, which
        // a scaled IDCT would otherwise alias. 1/8 is the exception: its pixels are the blocks'
        // averages, which the reducer filters as such (closer to the full decode's reduction
        // than libvips' 1/4), and a progressive file's AC scans then go unread.
        rows.jpegScaleToFit = 2 * self.maxPixelSize
        rows.jpegDCScaleToFit = self.maxPixelSize
        // An sRGB thumbnail of a CMYK JPEG reduces the C, M, Y, K samples (four channels, no
        // alpha among them) and converts the small result through the file's CMYK profile.
        rows.jpegOutputCMYK = (options.colorSpace ?? .sRGB) == .sRGB
        // A thumbnailer is often one of many running at once: a store over 64 MB (a 192 MP
        // progressive photo's at 1/8 takes 93 MB, a 12 MP one's whole 36 MB) goes to a
        // temporary file.
        rows.spillAbove = 64 << 20
    }

    /// Above this many bytes (64 MB unless set) a progressive JPEG's coefficients or an
    /// interlaced PNG's image go to a temporary file (``RowStreamDecoder/spillAbove``). Set
    /// before the first bytes.
    public var spillAbove: Int? {
        get { rows.spillAbove }
        set { rows.spillAbove = newValue }
    }

    /// The format, once the first bytes have told it.
    public var format: ImageFileFormat? { rows.format }

    /// The size and pixel format rows are decoded at (a JPEG's after DCT scaling).
    public var header: ImageHeader? { rows.header }

    /// The metadata read so far.
    public var metadata: ImageMetadata { rows.metadata }

    /// Damage decoded past so far.
    public var warnings: [String] { rows.warnings + colorWarnings }
    /// What the colour conversion at the end reported (a profile it could not use).
    private var colorWarnings: [String] = []
    /// Colour conversions `finish` made (0 for sRGB and untagged sources: no transform built).
    private(set) var colorConversions = 0

    /// Feeds the next bytes.
    @discardableResult
    public mutating func append(_ bytes: UnsafeRawBufferPointer) throws -> [DecodingEvent] {
        // Until the header is known, small pieces: the reducer needs the image's height, and
        // rows that come in the same call as the header wait in a copy (the sink cannot ask the
        // decoder it is called from), so that copy stays a few rows.
        var events: [DecodingEvent] = []
        var rest = bytes
        while reducer == nil && rows.header == nil && rest.count > Self.headerPiece {
            events += try feed(UnsafeRawBufferPointer(rebasing: rest[rest.startIndex ..< rest.startIndex + Self.headerPiece]))
            rest = UnsafeRawBufferPointer(rebasing: rest[(rest.startIndex + Self.headerPiece)...])
        }
        events += try feed(rest)
        return events
    }

    private static let headerPiece = 4096

    /// Feeds the next bytes.
    @discardableResult
    public mutating func append<C: Collection>(_ bytes: C) throws -> [DecodingEvent] where C.Element == UInt8 {
        if let events = try bytes.withContiguousStorageIfAvailable({ try append(UnsafeRawBufferPointer($0)) }) {
            return events
        }
        return try Array(bytes).withUnsafeBytes { try append($0) }
    }

    /// Ends the input and returns the thumbnail. Throws the codec's error (a file cut short
    /// throws its truncation error, as the codec's `finish` does).
    public mutating func finish() throws -> Image {
        var sink = Sink(reducer: reducer, header: rows.header, cellAverages: rows.jpegScale == 1, maxPixelSize: maxPixelSize,
                        target: targetSize, background: background, isJPEG: rows.format == .jpeg)
        defer { reducer = sink.reducer }
        try rows.finish { band in sink.take(band) }
        sink.drain(header: rows.header, cellAverages: rows.jpegScale == 1)
        guard let stage = sink.reducer else { throw ImageSourceError.noData }
        let metadata = rows.metadata
        var image = stage.finish(metadata: metadata)
        if rows.format == .jpeg && image.format == .rgba8 {
            // CMYK samples (only a 4-component JPEG gives `.rgba8`): through the CMYK profile,
            // or the inverted formula without a usable one; the profile is dropped.
            let (rgb, warning) = image.cmykInSRGB(threads: options.threads)
            if let warning { colorWarnings.append(warning) }
            colorConversions += 1
            image = rgb
        }
        if image.format == .rgb8, let mask = try jpngMask(width: image.width, height: image.height) {
            image = try JPNGDecoder.combine(color: image, mask: mask)
            image.metadata = metadata
        }
        if options.applyOrientation { image = image.oriented(metadata.orientation) }
        // Colour after the reduction, so its cost follows the thumbnail's size, not the image's.
        let (converted, warning, didConvert) = image.convertedToSRGB(options.colorSpace ?? .sRGB, threads: options.threads)
        if didConvert { colorConversions += 1 }
        if let warning { colorWarnings.append(warning) }
        image = converted
        image.metadata = image.metadata.kept(options.metadata ?? .colorOnly)
        return image
    }

    private mutating func feed(_ piece: UnsafeRawBufferPointer) throws -> [DecodingEvent] {
        let start = received
        received += piece.count
        var sink = Sink(reducer: reducer, header: rows.header, cellAverages: rows.jpegScale == 1, maxPixelSize: maxPixelSize,
                        target: targetSize, background: background, isJPEG: rows.format == .jpeg)
        defer { reducer = sink.reducer }
        let events = try rows.append(piece) { band in sink.take(band) }
        sink.drain(header: rows.header, cellAverages: rows.jpegScale == 1)
        reducer = sink.reducer
        keepTail(piece, start: start)
        return events
    }

    /// Where bands go during one call into the row decoder: the reducer, or (before the header
    /// was known when the call began) a copy handed to the reducer after the call.
    private struct Sink {
        var reducer: ReducerStage?
        let header: ImageHeader?
        /// The rows are a JPEG's blocks' averages (decoded at 1/8).
        var cellAverages: Bool
        let maxPixelSize: Int
        let target: (width: Int, height: Int)?
        let background: Bool
        /// The rows are a JPEG's: `.rgba8` ones are C, M, Y, K, reduced alike (no alpha).
        let isJPEG: Bool
        var waiting: [UInt8] = []
        var waitingRows = 0, waitingWidth = 0
        var waitingFormat: PixelFormat = .rgb8

        mutating func take(_ band: RowBand) {
            if reducer == nil, let header { start(header, format: band.format) }
            if reducer != nil {
                reducer?.add(band)
                return
            }
            waitingWidth = band.width
            waitingFormat = band.format
            for i in 0 ..< band.count { waiting.append(contentsOf: band.row(i)) }
            waitingRows += band.count
        }

        mutating func drain(header: ImageHeader?, cellAverages: Bool) {
            guard waitingRows > 0 else { return }
            self.cellAverages = cellAverages
            if reducer == nil {
                start(header ?? ImageHeader(fileFormat: .jpeg, width: waitingWidth, height: waitingRows, pixelFormat: waitingFormat),
                      format: waitingFormat)
            }
            let rowBytes = waitingWidth * waitingFormat.bytesPerPixel
            waiting.withUnsafeBytes { raw in
                guard let base = raw.baseAddress else { return }
                reducer?.add(RowBand(y: 0, count: waitingRows, width: waitingWidth, format: waitingFormat,
                                     bytesPerRow: rowBytes, base: base))
            }
            waiting = []
            waitingRows = 0
        }

        private mutating func start(_ header: ImageHeader, format: PixelFormat) {
            let size = target ?? RowReducer.size(width: header.width, height: header.height, maxPixelSize: maxPixelSize)
            let cmyk = isJPEG && format == .rgba8
            reducer = ReducerStage(RowReducer(sourceWidth: header.width, sourceHeight: header.height, format: format,
                                              isPremultiplied: cmyk, width: size.width, height: size.height, sourceIsCellAverages: cellAverages),
                                   background: background)
        }
    }

    /// Keeps the bytes after a JPEG's EOI: a JPNG's mask and footer come there.
    private mutating func keepTail(_ bytes: UnsafeRawBufferPointer, start: Int) {
        guard rows.format == .jpeg, let consumed = rows.jpegBytesConsumed, reducer?.isComplete == true else { return }
        let from = max(consumed - start, 0)
        guard from < bytes.count else { return }
        // Bounded by the limits: a mask larger than what the whole decode may allocate is not read.
        guard tail.count + bytes.count - from <= options.limits.maxBytes else { tail = []; return }
        tail.append(contentsOf: bytes[from...])
    }

    /// The JPNG mask reduced to `width` x `height`, when the bytes after the JPEG end in a JPNG
    /// footer whose mask lies in them; nil for a plain JPEG.
    private func jpngMask(width: Int, height: Int) throws -> Image? {
        guard rows.format == .jpeg, tail.count > JPNGFooter.size,
              let footer = try? JPNGFooter(end: tail[...], fileLength: received) else { return nil }
        let tailStart = received - tail.count
        let range = footer.maskRange
        guard range.lowerBound >= tailStart, range.upperBound <= received - Int(footer.footerSize) else { return nil }
        let maskBytes = tail[(range.lowerBound - tailStart) ..< (range.upperBound - tailStart)]
        guard maskBytes.starts(with: pngSignature) else { throw JPNGError.maskPartNotPNG(offset: range.lowerBound) }
        var mask = ThumbnailDecoder(maxPixelSize: max(width, height), options: ImageSourceOptions(limits: options.limits, strict: options.strict))
        mask.targetSize = (width, height)
        do {
            try mask.append(maskBytes)
            return JPNGDecoder.maskToGray8(try mask.finish())
        } catch let error as PNGError {
            throw JPNGError.maskPart(error, maskOffset: range.lowerBound)
        }
    }
}

/// The reducer of a ``ThumbnailDecoder``, fed on a serial queue of its own when it runs in the
/// background: each band is copied (the decoder's band buffer is reused at once) and reduced
/// there in order while the caller decodes the next, at most four bands ahead. The same pixels
/// either way: one reducer takes the rows in the same order.
final class ReducerStage: @unchecked Sendable {
    // `@unchecked`: `reducer` is touched only on `queue` (or, without one, by the caller), and
    // `finish` waits for the queue before reading it.
    private var reducer: RowReducer
    private let queue: DispatchQueue?
    private let slots = DispatchSemaphore(value: 4)
    /// Rows handed over so far (the caller's count).
    private(set) var rowsAdded = 0
    private let sourceHeight: Int

    init(_ reducer: RowReducer, background: Bool) {
        self.reducer = reducer
        sourceHeight = reducer.sourceHeight
        queue = background ? DispatchQueue(label: "PureImage.thumbnail.reducer") : nil
    }

    /// True once every source row has been handed over.
    var isComplete: Bool { rowsAdded >= sourceHeight }

    func add(_ band: RowBand) {
        rowsAdded += band.count
        guard let queue else {
            reducer.add(band)
            return
        }
        let rowBytes = band.width * band.format.bytesPerPixel
        var rows = [UInt8]()
        rows.reserveCapacity(rowBytes * band.count)
        for i in 0 ..< band.count { rows.append(contentsOf: band.row(i)) }
        let (copy, width, format, count) = (rows, band.width, band.format, band.count)
        slots.wait()
        queue.async {
            copy.withUnsafeBytes { raw in
                guard let base = raw.baseAddress else { return }
                self.reducer.add(RowBand(y: 0, count: count, width: width, format: format, bytesPerRow: rowBytes, base: base))
            }
            self.slots.signal()
        }
    }

    /// The reduced image, once every band handed over is reduced.
    func finish(metadata: ImageMetadata) -> Image {
        queue?.sync {}
        return reducer.finish(metadata: metadata)
    }
}

extension ImageSource {
    /// A thumbnail whose longer side is `maxPixelSize` (never enlarged), turned upright unless
    /// `options.applyOrientation` is false: see ``ThumbnailDecoder``.
    ///
    /// ```swift
    /// let thumbnail = try ImageSource.thumbnail([UInt8](data), maxPixelSize: 256)
    /// ```
    public static func thumbnail(_ bytes: [UInt8], maxPixelSize: Int,
                                 options: ImageSourceOptions = ImageSourceOptions(applyOrientation: true)) throws -> Image {
        var thumbnailer = ThumbnailDecoder(maxPixelSize: maxPixelSize, options: options.knowingInputSize(bytes.count))
        try thumbnailer.append(bytes)
        return try thumbnailer.finish()
    }

    /// A thumbnail of an image read from an async sequence of byte pieces, each fed to a
    /// ``ThumbnailDecoder`` as it arrives (cancelling the task stops at the next piece).
    ///
    /// ```swift
    /// let thumbnail = try await ImageSource.thumbnail(from: request.body, maxPixelSize: 512)
    /// ```
    public static func thumbnail<Bytes: AsyncSequence>(
        from bytes: Bytes, maxPixelSize: Int, options: ImageSourceOptions = ImageSourceOptions(applyOrientation: true)
    ) async throws -> Image where Bytes.Element: Collection, Bytes.Element.Element == UInt8 {
        var thumbnailer = ThumbnailDecoder(maxPixelSize: maxPixelSize, options: options)
        var pieces = bytes.makeAsyncIterator()
        while true {
            try Task.checkCancellation()
            guard let piece = try await pieces.next() else { break }
            try thumbnailer.append(piece)
        }
        return try thumbnailer.finish()
    }
}
