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

    // The input, and where the marker loop is in it.
    var input = InputBuffer()
    var phase: Phase = .start
    /// The error every later call throws, once one was thrown.
    var failure: JPEGError?

    // What the markers defined.
    var markers = MarkerState()
    var tables = CodingTables()
    var arithmetic = ArithmeticConditioning()
    var frame: Frame?
    /// The output's size, format and band layout, fixed at the first scan.
    var geometry: OutputGeometry?

    // The scan in progress (every process).
    var plan: ScanPlan?
    var entropy = EntropyState()
    var scansStarted = 0
    var scansCompleted = 0
    /// Components that some scan has covered.
    var componentSeen = [Bool](repeating: false, count: 4)
    /// After the MCU loop ran short: retry once this many unread bytes are present, so an MCU is
    /// re-attempted at most once per 64 new bytes however small the pieces (linear total cost).
    var retryAt = 0
    /// Unread bytes already searched for a scan-ending marker while waiting.
    var markerScan = 0

    /// The state of the process in use (streaming, coefficients or lossless).
    var process = DecodingProcess.undecided

    // The output.
    /// The image rows are written to (streaming, lossless), or the final render (coefficients).
    var image: Image?
    /// Output rows final so far (streaming, lossless).
    var rowsDone = 0
    /// Row mode (``JPEGRowDecoder``): streamable frames go to a band buffer, not an image.
    var rowOutput: RowOutput?

    // A whole file given in one call (ParallelScans.swift): the workers its scans are handed to
    // while it decodes, and how many scans the last such decode handed over (0 when it went on
    // one thread). The workers live for that one call.
    var scanWorkers: ScanWorkers?
    var scansDecodedAhead = 0

    // Switches for tests.
    /// Coefficient mode holds a scan's bytes until its end arrives; tests turn it off to decode
    /// scans as their bytes arrive, as a scan past ``CoefficientState/heldScanLimit`` is.
    var holdsScans = true
    /// Picks the vector IDCT; tests turn it off to compare with the scalar kernels.
    var useSIMD = true

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
        var partial = renderedImage(fillingCache: coefficientState.previewCache.isTracking)
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
