import ImageCore

/// Chroma subsampling of a colour JPEG: luma sampling factors 1x1 (4:4:4), 2x1 (4:2:2) or
/// 2x2 (4:2:0) against 1x1 chroma, as cjpeg's `-sample`.
public enum ChromaSubsampling: String, Sendable, CaseIterable {
    /// 4:4:4 (no subsampling: best colour, largest file), 4:2:2 (chroma halved horizontally) and
    /// 4:2:0 (chroma halved both ways: the usual choice for photographs, and the default).
    case s444 = "444", s422 = "422", s420 = "420"
}

/// Why the encoder refused.
public enum JPEGEncoderError: Error, Sendable, Equatable, CustomStringConvertible {
    /// An option or argument out of range; the text says which.
    case invalidParameter(String)
    /// Width or height is zero.
    case emptyImage
    /// Width or height over 65535, the most a frame header can hold (T.81 B.2.2).
    case imageTooLarge(width: Int, height: Int)
    /// EXIF over one APP1 segment, or an ICC profile over 255 APP2 segments.
    case metadataTooLarge(String)
    /// The stream encoder got a different number of rows than the height it was given.
    case rowCountMismatch(expected: Int, received: Int)
    /// The stream encoder was used after ``JPEGStreamEncoder/finish()``.
    case alreadyFinished

    /// A one-line English message, e.g. "invalid JPEG encoding parameter: quality 0 is not in 1...100".
    public var description: String {
        switch self {
        case .invalidParameter(let what): "invalid JPEG encoding parameter: \(what)"
        case .emptyImage: "cannot encode an image with no pixels"
        case .imageTooLarge(let w, let h): "image \(w)x\(h) is over JPEG's 65535x65535 limit"
        case .metadataTooLarge(let what): "metadata too large for JPEG: \(what)"
        case .rowCountMismatch(let expected, let received): "expected \(expected) rows, received \(received)"
        case .alreadyFinished: "the stream encoder has already finished"
        }
    }
}

/// One progressive scan (T.81 G.1.1.1): components (indices into the frame: 0 Y, 1 Cb, 2 Cr),
/// the spectral band `spectralStart...spectralEnd` and the successive-approximation bit
/// positions (`successiveHigh` 0 for a first scan, else the previous scan's low bit).
public struct JPEGScan: Sendable, Equatable {
    /// The components the scan codes, as frame indices (0 Y, 1 Cb, 2 Cr); several only for DC scans.
    public var components: [Int]
    /// First coefficient of the band in zigzag order, 0...63 (0 for a DC scan).
    public var spectralStart: Int
    /// Last coefficient of the band in zigzag order, `spectralStart...63` (0 for a DC scan).
    public var spectralEnd: Int
    /// The previous scan's low bit for a refinement scan; 0 for a band's first scan.
    public var successiveHigh: Int
    /// The bit position this scan codes down to (the point transform), 0...13.
    public var successiveLow: Int

    /// A scan as the SOS header will declare it.
    ///
    /// ```swift
    /// let dcFirst = JPEGScan(components: [0, 1, 2], spectralStart: 0, spectralEnd: 0, successiveHigh: 0, successiveLow: 1)
    /// ```
    public init(components: [Int], spectralStart: Int, spectralEnd: Int, successiveHigh: Int, successiveLow: Int) {
        self.components = components
        self.spectralStart = spectralStart
        self.spectralEnd = spectralEnd
        self.successiveHigh = successiveHigh
        self.successiveLow = successiveLow
    }
}

/// How to encode: quality, subsampling, baseline or progressive, Huffman optimization,
/// restart markers, metadata. Defaults match `cjpeg` (quality 75, 4:2:0, baseline, standard
/// Huffman tables, JFIF header).
///
/// ```swift
/// let bytes = try JPEGEncoder.encode(image, options: .init(quality: 85, progressive: true))
/// let jpng = JPEGEncodingOptions(unitQuality: 0.8)     // quality 80
/// ```
public struct JPEGEncodingOptions: Sendable, Equatable {
    /// 1...100, mapped to quantization tables exactly as libjpeg's `jpeg_set_quality`.
    public var quality: Int
    /// Chroma subsampling of colour output (ignored for gray). Default 4:2:0.
    public var subsampling: ChromaSubsampling
    /// Write a progressive JPEG (SOF2) with libjpeg's default scan script.
    public var progressive: Bool
    /// Optimal Huffman tables (two passes). `nil`: on for progressive, off for baseline (as cjpeg).
    public var optimizeHuffman: Bool?
    /// MCUs between restart markers, 0...65535; 0 writes none.
    public var restartInterval: Int
    /// Write a 1-component JPEG from the luma of a colour image.
    public var grayscale: Bool
    /// Custom tables `[luma, chroma]` (or just `[luma]`), 64 entries 1...255 each in natural
    /// (row-major) order; they replace the quality-scaled ones.
    public var quantizationTables: [[UInt16]]?
    /// A custom progressive scan script (validated as T.81 G.1.1.1.1 requires).
    public var scanScript: [JPEGScan]?
    /// Write the JFIF APP0 segment.
    public var writeJFIF: Bool
    /// Write EXIF (APP1, as stored in the metadata, orientation included) and ICC (APP2).
    public var writeMetadata: Bool
    /// Threads for a baseline encode: 1 codes on the caller's thread alone; more splits the
    /// image into that many bands of MCU rows, each transformed and Huffman-coded on a thread
    /// of its own and joined (with a restart interval, and in `JPEGStreamEncoder`: each MCU row
    /// transformed on a second thread while the caller codes the one before). nil: the
    /// processors online for images of a megapixel or more, one below (where handing rows over
    /// costs what it saves). The bytes are the same for every count.
    public var threads: Int? = nil
    /// Arithmetic coding (T.81 Annex D: SOF9, or SOF10 when progressive) instead of Huffman
    /// coding, as `cjpeg -arithmetic`: files typically 5-10% smaller, which decoders without
    /// arithmetic decoding (most browsers) cannot read. Its statistics adapt as it codes, so
    /// there are no tables to optimize: ``optimizeHuffman`` `true` is refused with it.
    public var arithmetic = false
    /// Lossless JPEG (SOF3) with these settings instead of the DCT: every sample kept (bar a
    /// point transform), 2-16 bits a sample, as libjpeg-turbo 3 writes it. Quality,
    /// subsampling, tables and scan scripts do not apply; gray or RGB (no colour transform).
    public var lossless: JPEGLossless?
    /// Bits a sample of a DCT file: 8, or 12 (SOF1, or SOF2/SOF9/SOF10) as libjpeg-turbo 3
    /// writes it, from a 16-bit image's samples (12-bit ones, `ImageMetadata.sampleBits` 12,
    /// as they are; others rescaled), always with optimized Huffman tables. 12-bit files are
    /// for medical, scientific and camera pipelines; browsers do not decode them.
    public var precision = 8

    /// Options with `cjpeg`'s defaults unless given; checked when encoding, where a value out of range
    /// throws ``JPEGEncoderError/invalidParameter(_:)``.
    ///
    /// ```swift
    /// let options = JPEGEncodingOptions(quality: 90, subsampling: .s444, restartInterval: 64)
    /// ```
    public init(quality: Int = 75, subsampling: ChromaSubsampling = .s420, progressive: Bool = false,
                optimizeHuffman: Bool? = nil, restartInterval: Int = 0, grayscale: Bool = false,
                quantizationTables: [[UInt16]]? = nil, scanScript: [JPEGScan]? = nil,
                writeJFIF: Bool = true, writeMetadata: Bool = true) {
        self.quality = quality
        self.subsampling = subsampling
        self.progressive = progressive
        self.optimizeHuffman = optimizeHuffman
        self.restartInterval = restartInterval
        self.grayscale = grayscale
        self.quantizationTables = quantizationTables
        self.scanScript = scanScript
        self.writeJFIF = writeJFIF
        self.writeMetadata = writeMetadata
    }

    /// JPNG's 0.0-1.0 quality form: 0.8 -> 80 (`round(q * 100)`, clamped to 1...100).
    public init(unitQuality: Double, subsampling: ChromaSubsampling = .s420, progressive: Bool = false,
                optimizeHuffman: Bool? = nil, restartInterval: Int = 0, grayscale: Bool = false,
                quantizationTables: [[UInt16]]? = nil, scanScript: [JPEGScan]? = nil,
                writeJFIF: Bool = true, writeMetadata: Bool = true) {
        let q = unitQuality.isFinite ? Int((unitQuality * 100).rounded()) : 75
        self.init(quality: min(max(q, 1), 100), subsampling: subsampling, progressive: progressive,
                  optimizeHuffman: optimizeHuffman, restartInterval: restartInterval, grayscale: grayscale,
                  quantizationTables: quantizationTables, scanScript: scanScript,
                  writeJFIF: writeJFIF, writeMetadata: writeMetadata)
    }

    /// Whether the Huffman tables are optimized, after defaults.
    var optimizes: Bool { !arithmetic && (optimizeHuffman ?? (progressive || precision == 12)) }

    /// The quantization tables in natural order: custom, or the K.1/K.2 tables scaled.
    func resolvedTables() throws(JPEGEncoderError) -> [[UInt16]] {
        if let custom = quantizationTables {
            guard (1 ... 2).contains(custom.count) else {
                throw .invalidParameter("quantizationTables needs 1 or 2 tables, got \(custom.count)")
            }
            for (i, t) in custom.enumerated() {
                guard t.count == 64 else { throw .invalidParameter("quantization table \(i) has \(t.count) entries, not 64") }
                guard t.allSatisfy({ (1 ... 255).contains($0) }) else {
                    throw .invalidParameter("quantization table \(i) has an entry outside 1...255")
                }
            }
            return custom.count == 2 ? custom : [custom[0], custom[0]]
        }
        return [EncoderTables.scaled(EncoderTables.luminanceQuantization, quality: quality),
                EncoderTables.scaled(EncoderTables.chrominanceQuantization, quality: quality)]
    }

    /// Checks the options that do not depend on the image.
    func validate() throws(JPEGEncoderError) {
        guard (1 ... 100).contains(quality) else { throw .invalidParameter("quality \(quality) is not in 1...100") }
        guard (0 ... 65535).contains(restartInterval) else {
            throw .invalidParameter("restartInterval \(restartInterval) is not in 0...65535")
        }
        guard precision == 8 || precision == 12 else { throw .invalidParameter("precision \(precision) is not 8 or 12") }
        if precision == 12 && optimizeHuffman == false {
            throw .invalidParameter("12-bit files always get optimized Huffman tables (the standard tables cannot code them)")
        }
        if arithmetic && optimizeHuffman == true {
            throw .invalidParameter("optimizeHuffman with arithmetic coding (it has no Huffman tables; cjpeg refuses -arithmetic -optimize)")
        }
        if scanScript != nil && !progressive {
            throw .invalidParameter("scanScript needs progressive")
        }
        if let threads, threads < 1 { throw .invalidParameter("threads \(threads) is not at least 1") }
        _ = try resolvedTables()
    }
}
