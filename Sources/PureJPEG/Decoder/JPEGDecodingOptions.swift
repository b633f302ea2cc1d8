import ImageCore

/// Choices for ``JPEGDecoder``.
///
/// ```swift
/// let thumb = try JPEGDecoder.decode(bytes, options: JPEGDecodingOptions(scale: 2))   // 1/4 size
/// ```
public struct JPEGDecodingOptions: Sendable, Equatable {
    /// Output size in eighths: 8 (full size), 4 (1/2), 2 (1/4) or 1 (1/8); the output is
    /// ceil(size * scale / 8), as libjpeg's `scale_num/8`. 12-bit frames scale as 8-bit ones;
    /// lossless frames have no DCT to scale and decode at full size (libjpeg-turbo 3 too), and
    /// `scale` after the header says so.
    public var scale: Int = 8
    /// Shrink-on-load: when set, `scale` is chosen at the frame header as the smallest DCT scale
    /// (1/8, 1/4, 1/2, full) whose longer side is still at least this many pixels, the cheapest
    /// start of a thumbnail that fits this size. `scale` after the header tells which was taken.
    public var scaleToFit: Int? = nil
    /// Shrink-on-load to block averages: when set, 1/8 is taken whenever its longer side is at
    /// least this many pixels, before ``scaleToFit`` chooses. At 1/8 each full-resolution sample
    /// is its block's DC term, the average of its 8x8 samples: for thumbnailers that filter the
    /// image as cell averages (`RowReducer(sourceIsCellAverages:)`).
    ///
    /// A progressive file decoded so (with every leniency, the default) passes over the AC scans
    /// of those components unread, and keeps 2 bytes a block of them: a 192 MP photo's thumbnail
    /// reads its DC scans and chroma. The pixels are `scale: 1`'s for a whole file; damage inside
    /// a passed-over scan is not reported, and a file cut inside one may be smoothed differently
    /// from djpeg past the cut (its last good row is not known). `scale: 1` itself decodes every
    /// scan (keeping a DC term and a 64-bit history a block) and matches djpeg.
    public var dcScaleToFit: Int? = nil
    /// Progressive and multi-scan files keep every coefficient until their last scan (2 bytes
    /// a coefficient: 576 MB for a 192 MP 4:2:0 photo). Above this many bytes the store spills
    /// to a temporary file in ``spillDirectory`` (unlinked as soon as it is made), of which a
    /// 16 MB window is held in memory; `DecodingLimits.maxBytes` then counts the window, not the
    /// store. nil: always in memory. Pixels are the same either way.
    public var spillAbove: Int? = nil
    /// Where a spilled store's temporary file goes: `TMPDIR`, else `/var/tmp` (disk-backed
    /// where `/tmp` may be memory).
    public var spillDirectory: String = SpillBuffer.defaultDirectory
    /// For 4-component (CMYK/YCCK) files: return the CMYK samples as stored (Adobe files store
    /// them inverted) in an `.rgba8` image (C, M, Y, K in the R, G, B, A slots) instead of RGB.
    public var outputCMYK: Bool = false
    /// Turn the finished image upright per its EXIF orientation (the header keeps the stored size).
    public var applyOrientation: Bool = false
    /// libjpeg's triangle ("fancy") upsampling of chroma; false replicates samples.
    public var fancyUpsampling: Bool = true
    /// Threads for one image: a sequential file decoded whole has each MCU row reconstructed
    /// (IDCT, upsampling, colour conversion) on a second thread while the first entropy-decodes
    /// the next. A progressive (or multi-scan) file given to one `append` call whole has its scans
    /// decoded side by side, each following the scans before it down the image, and its final
    /// pass rendered in pieces behind them; decoded whole from pieces, it renders its final pass
    /// in that many parts at once. nil (the default): with a second processor, from half a
    /// megapixel up; 1: the caller's thread alone; above 1: for any size. Pixels, events and
    /// errors are the same whatever the count: a damaged file whose scans cannot be decoded
    /// apart (a warning inside a scan) is decoded again on one thread. ``JPEGRowDecoder`` hands
    /// a sequential file's rows out the same way: the second thread reconstructs the next batch
    /// of MCU rows while the caller takes the one before. Arithmetic-coded scans, a spilled
    /// store and a progressive file's rows stay on one thread.
    public var threads: Int? = nil
    /// The damage decoded past the way libjpeg-turbo decodes it, each reported as a `.warning`
    /// event with its byte offset; a leniency left out makes that damage throw its
    /// ``JPEGError``. All of them by default (djpeg's behaviour).
    public var leniencies: JPEGLeniencies = .all
    /// Every leniency off: damage libjpeg-turbo decodes with a warning throws instead.
    public var strict: Bool {
        get { leniencies.isEmpty }
        set { leniencies = newValue ? [] : .all }
    }

    /// Options with libjpeg-turbo's `djpeg` defaults (full size, RGB, fancy upsampling, stored
    /// orientation, damaged files decoded as djpeg decodes them). A `scale` other than 8, 4, 2
    /// or 1 makes decoding throw ``JPEGError/invalidOption(_:)``.
    public init(scale: Int = 8, outputCMYK: Bool = false, applyOrientation: Bool = false, fancyUpsampling: Bool = true,
                strict: Bool = false, threads: Int? = nil) {
        self.threads = threads
        self.scale = scale
        self.outputCMYK = outputCMYK
        self.applyOrientation = applyOrientation
        self.fancyUpsampling = fancyUpsampling
        self.leniencies = strict ? [] : .all
    }
}

/// The kinds of damage ``JPEGDecoder`` decodes past as libjpeg-turbo does (its `JWRN_*`
/// warnings), each reported as a `.warning` event with its byte offset. Leave one out and that
/// damage throws its ``JPEGError`` instead.
///
/// ```swift
/// var options = JPEGDecodingOptions()
/// options.leniencies.remove(.truncation)     // a cut-short file throws .truncated
/// ```
public struct JPEGLeniencies: OptionSet, Sendable, Hashable {
    public let rawValue: Int
    /// Creates a set from its raw bits.
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// Entropy-coded data that decodes to no valid code, a coefficient run past the block, a
    /// refinement coefficient of size above 1: decoded as libjpeg does (17 bits make a zero
    /// symbol; the coefficient goes to position 63). Off: ``JPEGError/corruptData(reason:offset:)``.
    public static let corruptData = JPEGLeniencies(rawValue: 1 << 0)
    /// A marker inside entropy-coded data (JWRN_HIT_MARKER): the MCU is finished with zero bits
    /// and the rest of the restart interval keeps zero coefficients (mid-gray). Off: `.corruptData`.
    public static let prematureMarker = JPEGLeniencies(rawValue: 1 << 1)
    /// The input ends before EOI after the first scan began (JWRN_JPEG_EOF): decoded as if EOI
    /// followed, as libjpeg's source manager supplies one. Off: ``JPEGError/truncated(offset:partial:)``.
    public static let truncation = JPEGLeniencies(rawValue: 1 << 2)
    /// Bytes that are not a marker where one is due (JWRN_EXTRANEOUS_DATA) are skipped. Off: `.corruptData`.
    public static let extraneousBytes = JPEGLeniencies(rawValue: 1 << 3)
    /// A restart marker out of sequence or missing (JWRN_MUST_RESYNC): libjpeg's
    /// `jpeg_resync_to_restart`. Off: `.corruptData`.
    public static let restartMarkers = JPEGLeniencies(rawValue: 1 << 4)
    /// An APPn, COM or DNL segment whose length is below 2: read as empty, as libjpeg skips it.
    /// Off: ``JPEGError/invalidMarker(marker:offset:)``.
    public static let segmentLength = JPEGLeniencies(rawValue: 1 << 5)
    /// Bytes after EOI are ignored (libjpeg never reads them; JPNG masks, MPF images and
    /// camera trailers live there). Off: ``JPEGError/dataAfterEnd(offset:)``.
    public static let dataAfterEnd = JPEGLeniencies(rawValue: 1 << 6)
    /// A sequential frame without Huffman tables 0 and 1 (Motion-JPEG, AVI1) uses the example
    /// tables of T.81 K.3, as libjpeg-turbo does. Off: ``JPEGError/missingTable(kind:index:offset:)``.
    public static let standardHuffmanTables = JPEGLeniencies(rawValue: 1 << 7)
    /// Progression inconsistencies between scans (JWRN_BOGUS_PROGRESSION), sequential scans with
    /// progressive parameters (JWRN_NOT_SEQUENTIAL), an unknown Adobe transform
    /// (JWRN_ADOBE_XFORM) and a frame declaring one component id twice (which libjpeg accepts
    /// silently). Off: ``JPEGError/invalidScan(reason:offset:)`` (the duplicate id:
    /// ``JPEGError/corruptData(reason:offset:)``).
    public static let scanParameters = JPEGLeniencies(rawValue: 1 << 8)

    /// Every leniency: what libjpeg-turbo decodes, decoded the same way.
    public static let all: JPEGLeniencies = [.corruptData, .prematureMarker, .truncation, .extraneousBytes, .restartMarkers,
                                             .segmentLength, .dataAfterEnd, .standardHuffmanTables, .scanParameters]
}
