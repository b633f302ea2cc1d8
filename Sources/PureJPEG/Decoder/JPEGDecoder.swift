import ImageCore

/// A resumable JPEG decoder (baseline, extended 8-bit and progressive Huffman processes).
///
/// Bytes go in as they arrive; baseline images report rows as they become final, progressive
/// images report each completed scan and ``preview()`` renders what the scans so far give.
///
/// ```swift
/// var decoder = JPEGDecoder()
/// for chunk in download {
///     for event in try decoder.append(chunk) {
///         if case .rows(let rows) = event { print("rows \(rows) ready") }
///     }
/// }
/// let image = try decoder.finish()     // .rgb8, .gray8 (or .rgba8 CMYK on request)
/// ```
public struct JPEGDecoder: IncrementalImageDecoder {
    /// Every method throws ``JPEGError``.
    public typealias Failure = JPEGError

    /// The limits checked at SOF (pixels, memory, decompression ratio) and per scan and segment.
    public let limits: DecodingLimits
    /// Output scale, colour and upsampling choices (`scale` as ``JPEGDecodingOptions/scaleToFit``
    /// chose it, after the header).
    public internal(set) var options: JPEGDecodingOptions
    /// Known after the `.header` event (at SOF): the output size and pixel format.
    public internal(set) var header: ImageHeader?
    /// The frame and table facts, after SOF.
    public internal(set) var info: JPEGInfo?
    /// ICC profile, EXIF (and orientation), JFIF density, COM comments, as far as read.
    public internal(set) var metadata = ImageMetadata()
    /// Every `.warning` reported so far, including those of ``finish()`` (a file cut short is
    /// decoded there), which has no events of its own to return them in. At most 100 are kept.
    public internal(set) var warnings: [String] = []

    enum Phase: Sendable { case start, markers, scan, done }
    enum Mode: Sendable { case undecided, streaming, coefficients, lossless }

    var input = InputBuffer()
    var phase: Phase = .start
    var failure: JPEGError?
    var frame: Frame?
    var quantTables: [[UInt16]?] = [nil, nil, nil, nil]
    /// The quantization table each component uses, latched at its first scan as libjpeg does, prepared for the kernels (4 x `JPEGKernels.quantStride`).
    var componentQuant = [UInt16](repeating: 0, count: 4 * JPEGKernels.quantStride)
    var quantLatched = [Bool](repeating: false, count: 4)
    /// The same tables as DQT gave them (natural order), for the 12-bit IDCT.
    var componentQuantTables: [[UInt16]] = [[], [], [], []]
    var dcTables: [HuffmanTable?] = [nil, nil, nil, nil]
    var acTables: [HuffmanTable?] = [nil, nil, nil, nil]
    /// Tables defined but invalid (DC 0-3, AC 4-7): refused when a scan uses them, as libjpeg does.
    var invalidTables: [JPEGError?] = Array(repeating: nil, count: 8)
    /// Huffman slots (bits 0-3 DC, 4-7 AC) holding T.81 K.3's tables because no DHT defined
    /// them; a scan that uses one is reported once (a Motion-JPEG frame), one that does not is clean.
    var standardTableSlots: UInt8 = 0
    var restartInterval = 0
    /// Arithmetic conditioning per table number (DAC, T.81 B.2.4.3; libjpeg's `arith_dc_L`,
    /// `arith_dc_U`, `arith_ac_K`), with T.81's defaults.
    var arithmeticDCL = [UInt8](repeating: 0, count: 16)
    var arithmeticDCU = [UInt8](repeating: 1, count: 16)
    var arithmeticACK = [UInt8](repeating: 5, count: 16)
    /// Arithmetic-coded frames: the statistics bins (``ArithmeticBins``); empty otherwise.
    var arithmeticBins: [UInt8] = []
    /// The DC-class tables as DHT gave them: lossless scans build theirs from these (their
    /// categories run to 16, which a DCT scan's DC table refuses).
    var losslessTableSpecs: [(counts: [UInt8], values: [UInt8])?] = [nil, nil, nil, nil]
    /// Lossless frames: the scan in progress, each component's samples, and its rows decoded.
    var lossless: LosslessScan?
    var losslessPlanes: [[UInt16]] = []
    var losslessRows: [Int] = []
    /// A lossless frame decoded straight into the image (one 16-bit component, no point transform).
    var losslessDirect = false
    var collector = MetadataCollector()
    var estimatedQuality: Int?
    var geometry: OutputGeometry?
    var mode: Mode = .undecided
    var pipeline: BandPipeline?
    /// Streaming on two threads: the worker and its coefficient bands, kept between calls (a
    /// row decoded in part waits in its band); copied when a decoder copy shares it.
    var bandWorker: BandWorker?
    /// While a whole file given at once decodes: the workers its scans are handed to.
    var scanWorkers: ScanWorkers?
    /// Scans the last such decode handed to the workers (0 when it went on one thread).
    var scansDecodedAhead = 0
    /// Coefficient mode: the coefficients, and each component's first block in the change map
    /// (the blocks of all components one after another).
    var coefficients = DecodedCoefficients.empty
    var firstBlocks: [Int] = []
    var image: Image?
    /// Output rows final so far (streaming).
    var rowsDone = 0
    var plan: ScanPlan?
    var entropy = EntropyState()
    var scansStarted = 0
    var scansCompleted = 0
    /// Progression status per component and coefficient: the last Al sent, -1 before any (libjpeg's coef_bits).
    var coefficientBits = [Int8](repeating: -1, count: 256)
    /// libjpeg's second half of `coef_bits` (block smoothing): per component and coefficient
    /// 0...9 or the scan's band, the status before the latest scan of that component (0 when
    /// that scan was the file's first), -1 before any.
    var previousCoefficientBits = [Int8](repeating: -1, count: 256)
    /// Components that some scan has covered.
    var componentSeen = [Bool](repeating: false, count: 4)
    var extraneousBytes = 0
    /// Where the bytes of the file end when ``finish()`` supplied EOI to a file cut short (no
    /// warning about the supplied bytes after it), else nil.
    var suppliedEOI: Int?
    /// Bytes after EOI were reported (once).
    var reportedDataAfterEnd = false
    /// After the MCU loop ran short: retry once this many unread bytes are present, so an MCU is
    /// re-attempted at most once per 64 new bytes however small the pieces (linear total cost).
    var retryAt = 0
    /// Unread bytes already searched for a scan-ending marker while waiting.
    var markerScan = 0
    /// Coefficient mode: how many bytes of a scan's entropy-coded data are held back until the
    /// marker that ends the scan arrives, so that coefficients (and so ``preview()``) only ever
    /// hold completed scans. A longer scan is decoded as it arrives (see ``startScan``).
    var heldScanLimit = 0
    /// An AC scan passed over unread (``SkippedScan``) while its end is searched for, and how
    /// many scans were passed over.
    var skipped: SkippedScan?
    var scansPassedOver = 0
    /// Tests turn it off to decode scans as their bytes arrive, as a scan past `heldScanLimit` is.
    var holdsScans = true
    /// Picks the vector IDCT; tests turn it off to compare with the scalar kernels.
    var useSIMD = true
    /// Row mode (``JPEGRowDecoder``): streamable frames go to a band buffer, not an image.
    var rowOutput: RowOutput?
    /// Row mode, coefficient mode after EOI: the final pass, a band at a time.
    var finalRender: FinalRender?
    /// Coefficient mode: the renders kept for reuse, and what changed since (see ``PreviewCache``).
    var previewCache = PreviewCache()

    /// A decoder waiting for the first bytes (SOI).
    /// - Parameters:
    ///   - limits: Bounds on size, memory, scans and metadata, checked at the frame header before
    ///     the image is allocated. Set `inputSize` when the total length is known.
    ///   - options: Scale, CMYK output, orientation and upsampling.
    public init(limits: DecodingLimits = .default, options: JPEGDecodingOptions = .init()) {
        self.limits = limits
        self.options = options
    }

    /// Decodes a whole file at once.
    ///
    /// ```swift
    /// let image = try JPEGDecoder.decode([UInt8](data))
    /// ```
    public static func decode(_ bytes: [UInt8], limits: DecodingLimits = .default,
                              options: JPEGDecodingOptions = .init()) throws(JPEGError) -> Image {
        var decoder = JPEGDecoder(limits: limits.knowingInputSize(bytes.count), options: options)
        _ = try decoder.append(bytes)
        return try decoder.finish()
    }

    /// Feeds the next bytes and decodes as far as they allow; returns what became available:
    /// `.header` at SOF, `.rows` as baseline rows become final, `.scanComplete` after each
    /// progressive scan, `.warning` for recovered damage (a corrupt restart interval), `.end` at
    /// EOI. Bytes after EOI are ignored.
    ///
    /// Throws a ``JPEGError`` whose case carries the byte offset of the problem; after an error,
    /// every later call throws the same error.
    public mutating func append(_ bytes: UnsafeRawBufferPointer) throws(JPEGError) -> [DecodingEvent] {
        if let failure { throw failure }
        if phase == .done {
            var events: [DecodingEvent] = []
            if bytes.count > 0 {
                do { try dataAfterEnd(count: bytes.count, &events) } catch { failure = error; throw error }
                record(events)
            }
            return events
        }
        // The whole file at once: its scans may be decoded side by side (ParallelScans.swift).
        if let events = try appendWholeFile(bytes) { return events }
        input.append(contentsOf: bytes)
        return try step()
    }

    /// Feeds bytes from an array (avoids the generic path of the protocol extension).
    public mutating func append(_ bytes: [UInt8]) throws(JPEGError) -> [DecodingEvent] {
        var result: Result<[DecodingEvent], JPEGError> = .success([])
        bytes.withUnsafeBytes { raw in result = Result { () throws(JPEGError) in try self.append(raw) } }
        return try result.get()
    }

    /// Feeds bytes from an array slice.
    public mutating func append(_ bytes: ArraySlice<UInt8>) throws(JPEGError) -> [DecodingEvent] {
        var result: Result<[DecodingEvent], JPEGError> = .success([])
        bytes.withUnsafeBytes { raw in result = Result { () throws(JPEGError) in try self.append(raw) } }
        return try result.get()
    }

    /// Ends the input and returns the image: `.gray8` or `.rgb8` (`.rgba8` holding CMYK with
    /// ``JPEGDecodingOptions/outputCMYK``), with the file's metadata, turned upright when
    /// ``JPEGDecodingOptions/applyOrientation`` is set.
    ///
    /// Throws ``JPEGError/truncated(offset:partial:)`` when the input ended before EOI: `partial`
    /// holds the rows or scans decoded so far with the rest mid-gray, so a cut-short download still
    /// shows what arrived.
    public mutating func finish() throws(JPEGError) -> Image {
        if let failure { throw failure }
        if let end = supplyEndOfImage() {
            do {
                record(try stepThrowing())
            } catch {
                // A limit stays a limit, whatever bytes complete the file.
                switch error {
                case .limitExceeded, .tooManyScans, .invalidOption: failure = error; throw error
                default: break
                }
                // What the supplied markers could not complete (a frame whose first scan never
                // began, a segment read from them that makes no sense) is a file cut short.
                var partial = phase == .done || scansStarted == 0 || rowOutput != nil ? nil : renderedImage(fillingCache: false)
                if scansStarted == 0, rowOutput == nil { partial = preview() }
                partial?.metadata = metadata
                let cut = JPEGError.truncated(offset: end, partial: partial)
                failure = cut
                throw cut
            }
        }
        if phase != .done {
            input.isFinished = true
            _ = try step()
        }
        if phase == .done, var result = image {
            result.metadata = metadata
            result.metadata.sampleBits = outputSampleBits
            if options.applyOrientation { result = result.oriented(metadata.orientation) }
            return result
        }
        // The partial image: a decode that never asked for a preview renders it plainly (the
        // preview cache would allocate its planes for one render); one that did brings its
        // last preview up to date.
        var partial = renderedImage(fillingCache: previewCache.isTracking)
        partial?.metadata = metadata
        let error = JPEGError.truncated(offset: input.offset(input.count), partial: partial)
        failure = error
        throw error
    }

    /// The image so far: decoded rows (baseline) or the completed scans rendered (progressive,
    /// multi-scan), the rest mid-gray. Nil before the header.
    ///
    /// A scan's bytes are held until the marker after it arrives and then decoded at once, so a
    /// preview never shows part of a scan (only a scan longer than a quarter of the coefficient
    /// store, or than what `DecodingLimits.maxBytes` leaves room for, is decoded as it arrives).
    public func preview() -> Image? {
        renderedImage(fillingCache: true)
    }

    /// ``preview()``; `fillingCache` false renders coefficients without starting the preview
    /// cache (a one-off render, such as the partial image of a truncated file).
    func renderedImage(fillingCache: Bool) -> Image? {
        guard let header else { return nil }
        if mode == .coefficients, let geometry, let frame {
            if phase == .done, var final = image {
                final.metadata = metadata
                return final
            }
            if frame.precision == 12 { return renderTwelveBit(frame) }
            return cachedRender(frame: frame, geometry: geometry, fill: fillingCache)
        }
        guard var out = image else {
            var gray = Image(width: header.width, height: header.height, format: header.pixelFormat, metadata: metadata)
            gray.pixels.withUnsafeMutableBufferPointer { $0.update(repeating: 128) }
            return gray
        }
        let start = min(rowsDone, out.height) * out.bytesPerRow
        if start < out.pixels.count {
            out.pixels.withUnsafeMutableBufferPointer { p in
                UnsafeMutableBufferPointer(rebasing: p[start...]).update(repeating: 128)
            }
        }
        out.metadata = metadata
        out.metadata.sampleBits = outputSampleBits
        return out
    }
}
