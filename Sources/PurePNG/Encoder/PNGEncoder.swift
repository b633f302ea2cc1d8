import ImageCore

/// How scanlines are filtered before compression (PNG 9.2, 12.8).
public enum PNGFilterStrategy: String, Sendable, CaseIterable {
    /// One filter for every row: None, Sub, Up, Average or Paeth (PNG 9.2, filter types 0-4).
    case none, sub, up, average, paeth
    /// Per row, the filter whose output has the smallest sum of magnitudes (bytes read as
    /// signed), as libpng does. For palette and sub-8-bit images it means ``none``, since
    /// neighbouring bytes there are not related samples (libpng's default too).
    case adaptive
}

/// Choices for ``PNGEncoder`` and ``PNGStreamEncoder``. The defaults match libpng's.
///
/// ```swift
/// var options = PNGEncodingOptions()
/// options.compressionLevel = 9
/// options.colorType = .palette           // exact colours only, at most 256
/// let png = try PNGEncoder.encode(image, options: options)
/// ```
public struct PNGEncodingOptions: Sendable, Equatable {
    /// zlib level 0 (stored) ... 9 (smallest).
    public var compressionLevel: Int = 6
    /// Which filter each row gets; ``PNGFilterStrategy/adaptive`` (the default) picks per row.
    public var filter: PNGFilterStrategy = .adaptive
    /// Adam7 interlacing (PNG 8.2).
    public var interlaced: Bool = false
    /// nil: the colour type of the image's `PixelFormat`. Others convert losslessly or throw
    /// ``PNGError/unrepresentable(_:)``: gray needs R == G == B, dropping alpha needs an opaque
    /// image, ``PNGColorType/palette`` needs at most 2^bitDepth distinct colours (from a 16-bit
    /// image, colours 8 bits hold exactly: every sample a multiple of 257).
    public var colorType: PNGColorType? = nil
    /// nil: 8 or 16 as the image's samples (palette: the smallest depth its colours fit).
    /// 16 from an 8-bit image widens by 257; 8 from a 16-bit image rounds; gray at 1, 2 or 4
    /// bits needs every value to be exact at that depth.
    public var bitDepth: Int? = nil
    /// Write the image's `ImageMetadata` as iCCP/sRGB, gAMA, cHRM, sBIT, bKGD, pHYs, eXIf,
    /// tIME and text chunks.
    public var writeMetadata: Bool = true
    /// Threads compressing one image (``PNGEncoder`` only; ``PNGStreamEncoder`` compresses on
    /// the caller's thread, ``APNGEncoder`` spreads frames instead): nil (the default) uses the
    /// processors online, 1 the caller's thread alone. An image whose filtered data passes
    /// 256 KiB is compressed in bands of that size, each primed with the 32 KiB before it, so
    /// the bands can be deflated at once; the bands depend on the image, not on this count,
    /// so the file is the same bytes for any value.
    public var threads: Int? = nil
    /// PNG8: reduce the image to a palette first (``PNGQuantization``), lossy unless the
    /// image has no more colours than the palette holds; ``PNGEncoder`` only. nil (the
    /// default) keeps every colour. Overrides ``colorType`` and ``bitDepth``.
    public var quantization: PNGQuantization? = nil

    /// Options with libpng's defaults unless given; checked when encoding (a level outside 0...9 or
    /// a depth the colour type does not allow throws ``PNGError/invalidParameter(_:)``).
    ///
    /// ```swift
    /// let options = PNGEncodingOptions(compressionLevel: 9, colorType: .gray, bitDepth: 16)
    /// ```
    public init(compressionLevel: Int = 6, filter: PNGFilterStrategy = .adaptive, interlaced: Bool = false,
                colorType: PNGColorType? = nil, bitDepth: Int? = nil, writeMetadata: Bool = true,
                threads: Int? = nil) {
        self.compressionLevel = compressionLevel
        self.filter = filter
        self.interlaced = interlaced
        self.colorType = colorType
        self.bitDepth = bitDepth
        self.writeMetadata = writeMetadata
        self.threads = threads
    }
}

/// Encodes an `Image` as a PNG file in memory.
///
/// ```swift
/// let image = Image(width: 64, height: 64, format: .rgba8)
/// let png: [UInt8] = try PNGEncoder.encode(image)
/// let small = try PNGEncoder.encode(image, options: .init(compressionLevel: 9, interlaced: true))
/// ```
public enum PNGEncoder {
    /// Encodes `image` as a complete PNG file.
    ///
    /// Premultiplied input is unpremultiplied first (PNG stores straight alpha). The output
    /// colour type and depth follow the image unless the options ask for others; the image's
    /// metadata is written unless ``PNGEncodingOptions/writeMetadata`` is off.
    ///
    /// ```swift
    /// let png = try PNGEncoder.encode(image, options: PNGEncodingOptions(compressionLevel: 9))
    /// try Data(png).write(to: url)
    /// ```
    ///
    /// - Parameters:
    ///   - image: Any `Image`: every `PixelFormat` is accepted.
    ///   - options: Compression level, filtering, interlacing, colour type, depth, metadata.
    /// - Returns: The PNG file's bytes.
    /// - Throws: ``PNGError/invalidParameter(_:)`` for options or metadata out of range,
    ///   ``PNGError/unrepresentable(_:)`` when the requested colour type or depth cannot hold the
    ///   pixels exactly, ``PNGError/compressionFailed(status:)`` if zlib fails.
    public static func encode(_ image: Image, options: PNGEncodingOptions = .init()) throws(PNGError) -> [UInt8] {
        if let q = options.quantization {
            var plain = options
            plain.quantization = nil
            guard let reduced = try quantized(image, q, threads: options.threads) else {
                return try encode(image, options: plain)   // below the quality floor: lossless
            }
            plain.colorType = .palette
            plain.bitDepth = nil
            return try encode(reduced, options: plain)
        }
        // PNG stores straight alpha (PNG 12.4), and 16-bit samples over the full range (a
        // 12-bit JPEG's 0...4095 scaled, its depth kept as sBIT).
        let image = (image.isPremultiplied ? image.unpremultiplied() : image).fullRange()
        guard image.pixels.count == image.height * image.bytesPerRow else {
            throw .invalidParameter("pixel buffer of \(image.pixels.count) bytes does not match \(image.width)x\(image.height) \(image.format)")
        }
        let plan = try EncodingPlan(width: image.width, height: image.height, format: image.format,
                                    options: options, image: image)
        // No up-front reservation: a guess from the raw size would leave the returned array
        // holding many times its length for compressible images; doubling growth costs a
        // few milliseconds against seconds of deflate.
        var w = ChunkWriter()
        try plan.writeHeader(metadata: options.writeMetadata ? image.metadata : ImageMetadata(), into: &w)
        let rows = ImageDataRows(plan: plan)
        let bands = ImageDataBands(rows: rows)
        let threads = options.threads ?? Processors.online
        if threads > 1 && bands.count > 1 {
            try encodeBands(image, plan: plan, rows: rows, bands: bands, threads: threads, into: &w)
        } else {
            try encodeRows(image, plan: plan, rows: rows, bands: bands, into: &w)
        }
        w.append(.IEND, UnsafeRawBufferPointer(start: nil, count: 0))
        return w.take()
    }

    /// The image data on the caller's thread: one engine through every row, ending and
    /// restarting its compressor where the bands end.
    static func encodeRows(_ image: Image, plan: EncodingPlan, rows: ImageDataRows, bands: ImageDataBands,
                                   into w: inout ChunkWriter) throws(PNGError) {
        let engine = try plan.makeEngine(bands: bands)
        let packer = plan.packer
        let stride = image.bytesPerRow
        try image.pixels.withPNGBytes { (raw) throws(PNGError) in
            guard let base = raw.baseAddress else { return }
            for pass in rows.passes {
                engine.beginPass(rowBytes: pass.rowBytes)
                for k in 0 ..< pass.height {
                    let y = pass.y + k * pass.dy
                    try packer.pack(row: base + y * stride, first: pass.x, step: pass.dx, count: pass.width,
                                    y: y, into: engine.currentRow)
                    try engine.encodeRow(into: &w)
                }
            }
        }
        try engine.finish(into: &w)
    }

    /// The image data band by band on `threads` threads, written in order as each finishes:
    /// the same bytes as ``encodeRows(_:plan:rows:bands:into:)``.
    private static func encodeBands(_ image: Image, plan: EncodingPlan, rows: ImageDataRows, bands: ImageDataBands,
                                    threads: Int, into w: inout ChunkWriter) throws(PNGError) {
        var assembler = BandAssembler(level: plan.options.compressionLevel)
        var inFlight: [BackgroundWork<CompressedBand, PNGError>] = []
        var next = 0
        while next < bands.count || !inFlight.isEmpty {
            while next < bands.count && inFlight.count < threads {
                let b = next
                inFlight.append(BackgroundWork { () throws(PNGError) in
                    try ImageDataBands.compress(band: b, of: bands, rows: rows, image: image, plan: plan)
                })
                next += 1
            }
            let band = try inFlight.removeFirst().value()
            assembler.append(band, into: &w)
        }
        assembler.finish(into: &w)
    }
}

/// Everything decided before the first byte is written: output layout, palette, filtering.
struct EncodingPlan: Sendable {
    let width: Int
    let height: Int
    let format: PixelFormat
    let options: PNGEncodingOptions
    let layout: EncodedLayout
    let palette: PaletteIndex?
    let mode: ImageDataEncoder.FilterMode

    /// `image` is needed only for palette output (its colours make the palette).
    init(width: Int, height: Int, format: PixelFormat, options: PNGEncodingOptions, image: Image?) throws(PNGError) {
        guard (1 ... Int(Int32.max)).contains(width), (1 ... Int(Int32.max)).contains(height) else {
            throw .invalidParameter("image size \(width)x\(height): PNG needs 1...2^31-1 in each dimension")
        }
        guard (0 ... 9).contains(options.compressionLevel) else {
            throw .invalidParameter("compression level \(options.compressionLevel) is outside 0...9")
        }
        if options.quantization != nil {
            throw .invalidParameter("palette quantization needs the whole image; use PNGEncoder.encode")
        }
        if let threads = options.threads, threads < 1 {
            throw .invalidParameter("threads \(threads) is not at least 1")
        }
        let colorType = options.colorType ?? EncodingPlan.colorType(holding: format)
        if let depth = options.bitDepth, !colorType.allowedBitDepths.contains(depth) {
            throw .invalidParameter("bit depth \(depth) is not allowed for colour type \(colorType)")
        }
        var palette: PaletteIndex? = nil
        let depth: Int
        if colorType == .palette {
            guard let image else {
                throw .invalidParameter("palette output needs the whole image to build its palette; use PNGEncoder.encode")
            }
            let built = try PaletteIndex.build(from: image, maxColors: 1 << (options.bitDepth ?? 8))
            palette = built
            depth = options.bitDepth ?? built.minimumBitDepth
        } else {
            depth = options.bitDepth ?? format.bitsPerSample
        }
        if options.interlaced && image == nil {
            throw .invalidParameter("the stream encoder writes non-interlaced images only")
        }
        self.width = width
        self.height = height
        self.format = format
        self.options = options
        self.palette = palette
        layout = EncodedLayout(colorType: colorType, bitDepth: depth)
        mode = switch options.filter {
        case .adaptive: colorType == .palette || depth < 8 ? .fixed(ForwardFilter.none) : .adaptive
        case .none: .fixed(ForwardFilter.none)
        case .sub: .fixed(ForwardFilter.sub)
        case .up: .fixed(ForwardFilter.up)
        case .average: .fixed(ForwardFilter.average)
        case .paeth: .fixed(ForwardFilter.paeth)
        }
    }

    /// The colour type that holds `format`'s channels as they are.
    static func colorType(holding format: PixelFormat) -> PNGColorType {
        switch (format.isColor, format.hasAlpha) {
        case (false, false): .gray
        case (false, true): .grayAlpha
        case (true, false): .rgb
        case (true, true): .rgba
        }
    }

    var packer: ScanlinePacker { ScanlinePacker(source: format, layout: layout, palette: palette) }

    /// An engine for this image's data: banded as `bands` says, or one band of it (`framing`
    /// ``Deflater/Framing/raw``).
    func makeEngine(bands: ImageDataBands? = nil, framing: Deflater.Framing? = nil) throws(PNGError) -> ImageDataEncoder {
        try ImageDataEncoder(layout: layout, mode: mode, level: options.compressionLevel,
                             capacity: layout.bytesPerRow(width: width), bands: bands, framing: framing)
    }

    /// Signature, IHDR (PNG 11.2.2), the metadata chunks and PLTE/tRNS in PNG 5.6 order.
    func writeHeader(metadata: ImageMetadata, into w: inout ChunkWriter) throws(PNGError) {
        w.writeSignature()
        var ihdr: [UInt8] = []
        ihdr.appendBigEndian32(UInt32(width))
        ihdr.appendBigEndian32(UInt32(height))
        ihdr.append(UInt8(layout.bitDepth))
        ihdr.append(layout.colorType.rawValue)
        ihdr.append(0)  // compression method 0: deflate
        ihdr.append(0)  // filter method 0: the five adaptive filters
        ihdr.append(options.interlaced ? 1 : 0)
        try w.write(.IHDR, ihdr)
        let level = options.compressionLevel
        try MetadataWriter.writeBeforePalette(metadata, source: format, layout: layout, level: level, into: &w)
        if let palette {
            try w.write(.PLTE, palette.plteData)
            if palette.transparentCount > 0 { try w.write(.tRNS, palette.trnsData) }
        }
        try MetadataWriter.writeAfterPalette(metadata, layout: layout, palette: palette, level: level, into: &w)
    }
}
