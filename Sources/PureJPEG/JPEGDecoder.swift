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
    public private(set) var options: JPEGDecodingOptions
    /// Known after the `.header` event (at SOF): the output size and pixel format.
    public private(set) var header: ImageHeader?
    /// The frame and table facts, after SOF.
    public internal(set) var info: JPEGInfo?
    /// ICC profile, EXIF (and orientation), JFIF density, COM comments, as far as read.
    public private(set) var metadata = ImageMetadata()
    /// Every `.warning` reported so far, including those of ``finish()`` (a file cut short is
    /// decoded there), which has no events of its own to return them in. At most 100 are kept.
    public private(set) var warnings: [String] = []

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
    private func renderedImage(fillingCache: Bool) -> Image? {
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

    // MARK: - The outer loop over marker segments (T.81 B.2)

    private mutating func step() throws(JPEGError) -> [DecodingEvent] {
        var events: [DecodingEvent] = []
        do {
            try run(&events)
        } catch {
            // The warnings before the error stay in `warnings` (its events are not returned).
            record(events)
            failure = error
            throw error
        }
        record(events)
        return events
    }

    /// With ``JPEGLeniencies/truncation``, for input that ends before EOI once the frame header
    /// is read: appends what libjpeg's source manager supplies at the end of a file (FF D9, as
    /// many as are read: a segment cut short reads them as its data; 64 KiB covers the longest
    /// segment) and records its warning; the scan in progress meets the marker, and the image is
    /// output as it stands. Returns where the real input ends, or nil when nothing was supplied.
    mutating func supplyEndOfImage() -> Int? {
        guard phase != .done, failure == nil, suppliedEOI == nil, options.leniencies.contains(.truncation), frame != nil else {
            return nil
        }
        let end = input.offset(input.count)
        suppliedEOI = end
        record([.warning("premature end of JPEG file at offset \(end)")])
        var supplied = [UInt8](repeating: 0xD9, count: 65_540)
        for i in stride(from: 0, to: supplied.count, by: 2) { supplied[i] = 0xFF }
        input.append(contentsOf: supplied)
        input.isFinished = true
        return end
    }

    /// ``step()`` without setting `failure` or recording warnings (``finish()`` decides what a
    /// failure after supplied EOI markers becomes).
    private mutating func stepThrowing() throws(JPEGError) -> [DecodingEvent] {
        var events: [DecodingEvent] = []
        try run(&events)
        return events
    }

    /// Keeps the warnings among `events` in ``warnings``.
    mutating func record(_ events: [DecodingEvent]) {
        for case let .warning(text) in events where warnings.count < 100 { warnings.append(text) }
    }

    mutating func run(_ events: inout [DecodingEvent]) throws(JPEGError) {
        guard options.scale == 8 || options.scale == 4 || options.scale == 2 || options.scale == 1 else { throw .invalidOption("scale \(options.scale) (use 8, 4, 2 or 1)") }
        while true {
            switch phase {
            case .start:
                guard input.count >= 2 else {
                    if input.isFinished && input.count == 1 && input[0] != 0xFF { throw .invalidMarker(marker: input[0], offset: 0) }
                    return
                }
                guard input[0] == 0xFF, input[1] == Marker.soi else {
                    throw .invalidMarker(marker: input[0] == 0xFF ? input[1] : input[0], offset: input[0] == 0xFF ? 1 : 0)
                }
                input.consume(2)
                phase = .markers
            case .markers:
                guard try readSegment(&events) else { return }
            case .scan:
                guard try runScan(&events) else { return }
            case .done:
                return
            }
        }
    }

    /// Reads one marker and its segment; false when more bytes are needed.
    private mutating func readSegment(_ events: inout [DecodingEvent]) throws(JPEGError) -> Bool {
        // Bytes that are not a marker are skipped with a warning (libjpeg's JWRN_EXTRANEOUS_DATA).
        var i = 0
        while i < input.count && input[i] != 0xFF { i += 1 }
        if i > 0 {
            extraneousBytes += i
            input.consume(i)
        }
        guard input.count >= 2 else { return false }
        var j = 1
        while j < input.count && input[j] == 0xFF { j += 1 }     // fill bytes (T.81 B.1.1.2)
        if j >= input.count {
            input.consume(j - 1)
            return false
        }
        let marker = input[j]
        if marker == 0 {
            // libjpeg's next_marker counts an FF 00 pair as two bytes, however many FF precede it.
            extraneousBytes += 2
            input.consume(j + 1)
            return true
        }
        input.consume(j - 1)
        let offset = input.offset()
        if extraneousBytes > 0 {
            if !options.leniencies.contains(.extraneousBytes) {
                throw .corruptData(reason: "\(extraneousBytes) extraneous bytes before marker 0x\(hex(marker))", offset: offset - extraneousBytes)
            }
            events.append(.warning("\(extraneousBytes) extraneous bytes before marker 0x\(hex(marker)) at offset \(offset)"))
            extraneousBytes = 0
        }
        switch marker {
        case Marker.soi:
            throw .invalidMarker(marker: marker, offset: offset)
        case Marker.eoi:
            input.consume(2)
            try endOfImage(offset: offset, &events)
            if input.count > 0 { try dataAfterEnd(count: input.count, &events) }
            return true
        case Marker.rst0 ... Marker.rst7, Marker.tem:
            // RSTn (or TEM) between segments is skipped, as libjpeg's read_markers does: silently
            // after a scan (some encoders end a scan's last interval with one), as damage before.
            if scansStarted == 0 && marker != Marker.tem {
                if !options.leniencies.contains(.extraneousBytes) { throw .invalidMarker(marker: marker, offset: offset) }
                events.append(.warning("stray marker 0x\(hex(marker)) at offset \(offset) skipped"))
            }
            input.consume(2)
            return true
        default:
            break
        }
        guard input.count >= 4 else { return false }
        var length = Int(input[2]) << 8 | Int(input[3])
        if length < 2 {
            // libjpeg skips APPn, COM and DNL segments by `length - 2` bytes, which is nothing here.
            let skippable = (Marker.app0 ... Marker.app15).contains(marker) || marker == Marker.com || marker == Marker.dnl
            guard skippable && options.leniencies.contains(.segmentLength) else { throw .invalidMarker(marker: marker, offset: offset) }
            events.append(.warning("segment FF\(hex(marker)) at offset \(offset) has length \(length); read as empty"))
            length = 2
        }
        guard let body = input.bytes(at: 4, count: length - 2) else { return false }
        input.consume(2 + length)
        try segment(marker, body: body, offset: offset + 4, &events)
        return true
    }

    private mutating func segment(_ marker: UInt8, body: [UInt8], offset: Int, _ events: inout [DecodingEvent]) throws(JPEGError) {
        switch marker {
        case _ where Marker.isSOF(marker):
            guard frame == nil else { throw .invalidMarker(marker: marker, offset: offset - 4) }
            try startFrame(try SegmentParser.frame(body, marker: marker, offset: offset), &events)
        case Marker.dht:
            for t in try SegmentParser.huffmanTables(body, offset: offset) {
                if t.isDC { dcTables[t.index] = t.table } else { acTables[t.index] = t.table }
                invalidTables[(t.isDC ? 0 : 4) + t.index] = t.problem
                standardTableSlots &= ~(1 << UInt8((t.isDC ? 0 : 4) + t.index))
                if t.isDC { losslessTableSpecs[t.index] = (t.counts, t.values) }
            }
        case Marker.dqt:
            for t in try SegmentParser.quantizationTables(body, offset: offset) {
                quantTables[t.index] = t.table
                if t.index == 0 { estimatedQuality = estimateQuality(t.table) }
            }
            info?.estimatedQuality = estimatedQuality
        case Marker.dri:
            restartInterval = try SegmentParser.restartInterval(body, offset: offset)
            info?.restartInterval = restartInterval
        case Marker.sos:
            guard let frame else { throw .invalidScan(reason: "SOS before SOF", offset: offset - 4) }
            if frame.process == .lossless {
                try startLosslessScan(try SegmentParser.scan(body, frame: frame, offset: offset), frame: frame, &events)
            } else {
                try startScan(try SegmentParser.scan(body, frame: frame, offset: offset), frame: frame, &events)
            }
        case Marker.app0 ... Marker.app15, Marker.com:
            collector.add(marker: marker, body: body, limit: limits.maxMetadataBytes)
            flushMetadata(&events, offset: offset - 4)
        case Marker.dnl:
            // DNL after a frame with a height is ignored as libjpeg does.
            break
        case Marker.dac:
            // Arithmetic conditioning (libjpeg's get_dac: JERR_DAC_INDEX, JERR_DAC_VALUE,
            // JERR_BAD_LENGTH): DC tables 0-15 take L (low nibble) and U, AC tables 16-31 take K.
            guard body.count % 2 == 0 else { throw .invalidSegment(marker: marker, reason: "DAC length", offset: offset) }
            for i in stride(from: 0, to: body.count, by: 2) {
                let index = Int(body[i]), value = body[i + 1]
                guard index < 32 else { throw .invalidSegment(marker: marker, reason: "DAC table \(index)", offset: offset + i) }
                if index < 16 {
                    if value & 0x0F > value >> 4 {
                        throw .invalidSegment(marker: marker, reason: "DAC value \(value)", offset: offset + i + 1)
                    }
                    arithmeticDCL[index] = value & 0x0F
                    arithmeticDCU[index] = value >> 4
                } else {
                    arithmeticACK[index - 16] = value
                }
            }
        default:
            throw .invalidMarker(marker: marker, offset: offset - 4)
        }
    }

    mutating func flushMetadata(_ events: inout [DecodingEvent], offset: Int? = nil) {
        metadata = collector.metadata
        if let bits = rowSignificantBits { metadata.significantBits = bits }
        for w in collector.warnings { events.append(.warning(offset.map { "\(w) at offset \($0)" } ?? w)) }
        collector.warnings.removeAll()
        if var info = self.info {
            info.adobeTransform = collector.adobeTransform
            info.isJFIF = collector.isJFIF
            info.density = metadata.density
            self.info = info
        }
    }

    // MARK: - Frame and scan set-up

    private mutating func startFrame(_ parsed: Frame, _ events: inout [DecodingEvent]) throws(JPEGError) {
        var frame = parsed
        // libjpeg-turbo accepts two components with one id, silently: a scan names the first
        // one at or after its position (get_sos), so a later one may never be scanned (its
        // coefficients stay zero). T.81 B.2.2 asks for unique ids: strict decoding refuses them.
        if let twice = frame.components.indices.first(where: { i in frame.components[..<i].contains { $0.id == frame.components[i].id } }) {
            let text = "component id \(frame.components[twice].id) declared twice in the frame"
            guard options.leniencies.contains(.scanParameters) else { throw .corruptData(reason: text, offset: frame.offset + 10 + 3 * twice) }
            events.append(.warning("\(text); scans name the first at or after their position (SOF at offset \(frame.offset))"))
        }
        if frame.components.count == 1 {
            // A lone component's sampling factors do not matter: its scan is one block per MCU (T.81 A.2.2).
            var c = frame.components[0]
            c.declaredV = c.v
            c.h = 1; c.v = 1
            let precision = frame.precision
            frame = Frame(process: frame.process, width: frame.width, height: frame.height, components: [c], offset: frame.offset)
            frame.precision = precision
        }
        let longer = max(frame.width, frame.height)
        let lossless = frame.process == .lossless
        let twelveBit = frame.precision == 12 && !lossless
        if twelveBit && frame.components.count == 4 {
            throw .unsupported(process: "12-bit CMYK or YCCK", offset: frame.offset)
        }
        if lossless {
            // A lossless frame has no DCT to scale: libjpeg-turbo 3 decodes it at full size
            // whatever scale is asked (jdmaster.c), and so does this decoder.
            options.scale = 8
        } else if let fit = options.dcScaleToFit, (longer + 7) / 8 >= fit {
            options.scale = 1
            // Strict decoding reads every scan, so damage in one is still refused.
            frame.passesOverAC = frame.isProgressive && options.leniencies == .all && !twelveBit
        } else if let fit = options.scaleToFit {
            options.scale = [1, 2, 4].first { (longer * $0 + 7) / 8 >= fit } ?? 8
        }
        let scale = options.scale
        if frame.isProgressive {
            // A scaled IDCT reads the k x k lowest coefficients: the store keeps those, and a bit
            // of history for the rest (what refinement scans need), or at 1x1 the DC alone.
            for i in frame.components.indices {
                let c = frame.components[i]
                let k = JPEGKernels.blockSize(scale: scale, h: c.h, v: c.v, maxH: frame.hMax, maxV: frame.vMax)
                frame.components[i].valuesPerBlock = CompactBlock.valuesPerBlock(idctSize: k, dcOnly: frame.passesOverAC)
            }
        }
        let outWidth = (frame.width * scale + 7) / 8, outHeight = (frame.height * scale + 7) / 8
        var format: PixelFormat = frame.components.count == 1 ? .gray8 : (frame.components.count == 4 && options.outputCMYK ? .rgba8 : .rgb8)
        if (lossless && frame.precision > 8) || twelveBit { format = frame.components.count == 1 ? .gray16 : .rgb16 }
        if frame.width * frame.height > limits.maxPixels {
            throw .limitExceeded(.pixels(requested: frame.width * frame.height, limit: limits.maxPixels), offset: frame.offset)
        }
        if let violation = limits.checkPlausible(neededBytes: frame.leastCodedBytes) {
            throw .limitExceeded(violation, offset: frame.offset)
        }
        // Progressive frames keep every coefficient; sequential ones a few MCU rows (checked again at the first scan).
        // Lossless frames keep every sample (16 bits each) beside the image.
        // 12-bit frames keep every coefficient and, at the end, a 16-bit plane per component.
        let working = lossless ? 2 * frame.width * frame.height * frame.components.count
            : twelveBit ? 2 * frame.coefficientBytes
            : frame.isProgressive ? coefficientStoreBytes(frame) : 3 * 8 * frame.vMax * frame.mcusWide * 8 * frame.hMax * frame.components.count
        let (imageBytesPerPixel, bandBytes) = lossless || twelveBit ? (format.bytesPerPixel, 0)
            : outputBytes(format: format, whole: frame.isProgressive, width: outWidth, bandRows: frame.vMax * scale)
        if let violation = limits.check(width: outWidth, height: outHeight, bytesPerPixel: imageBytesPerPixel, extraBytes: working + bandBytes) {
            throw .limitExceeded(violation, offset: frame.offset)
        }
        self.frame = frame
        let header = ImageHeader(fileFormat: .jpeg, width: outWidth, height: outHeight, pixelFormat: format,
                                 isProgressive: frame.isProgressive)
        self.header = header
        info = JPEGInfo(width: frame.width, height: frame.height, components: frame.components.count, process: frame.process,
                        precision: frame.precision, samplingFactors: frame.components.map { .init(horizontal: $0.h, vertical: $0.v) },
                        restartInterval: restartInterval, adobeTransform: collector.adobeTransform, isJFIF: collector.isJFIF,
                        density: metadata.density, scanCount: 0, estimatedQuality: estimatedQuality)
        if let bits = rowSignificantBits { metadata.significantBits = bits }
        events.append(.header(header))
    }

    /// The colour space as libjpeg-turbo's jdapimin default_decompress_parms decides it.
    func colorTransform(_ frame: Frame) -> ColorTransform {
        switch frame.components.count {
        case 1: return .gray
        case 3:
            if collector.isJFIF { return .ycbcr }
            if let t = collector.adobeTransform { return t == 0 ? .rgb : .ycbcr }
            let ids = frame.components.map(\.id)
            return ids == [0x52, 0x47, 0x42] ? .rgb : .ycbcr
        default:
            // An Adobe transform other than 0 or 2 is taken as YCCK (with JWRN_ADOBE_XFORM).
            if let t = collector.adobeTransform { return t == 0 ? .cmyk : .ycck }
            return .cmyk
        }
    }

    /// Whether this frame's coefficient store goes to a temporary file (``JPEGDecodingOptions/spillAbove``).
    func spills(_ frame: Frame) -> Bool {
        options.spillAbove.map { frame.coefficientBytes > $0 } ?? false
    }

    /// The memory the coefficient store holds: all of it, or a spilled store's window.
    func coefficientStoreBytes(_ frame: Frame) -> Int {
        spills(frame) ? min(frame.coefficientBytes, DecodedCoefficients.window) : frame.coefficientBytes
    }

    /// Every SOS: the scan counted against `maxScans`; the first ends the metadata (what came
    /// before it is the file's).
    mutating func countScan(_ scan: ScanHeader, _ events: inout [DecodingEvent]) throws(JPEGError) {
        scansStarted += 1
        if scansStarted > limits.maxScans { throw .tooManyScans(limit: limits.maxScans, offset: scan.offset) }
        info?.scanCount = scansStarted
        if mode == .undecided {
            collector.finishHeaders()
            flushMetadata(&events, offset: scan.offset)
        }
    }

    private mutating func startScan(_ scan: ScanHeader, frame: Frame, _ events: inout [DecodingEvent]) throws(JPEGError) {
        try countScan(scan, &events)
        if mode == .undecided {
            if let t = collector.adobeTransform, t > (frame.components.count == 4 ? 2 : 1) || t == 1 && frame.components.count == 4,
               frame.components.count >= 3, !(frame.components.count == 3 && collector.isJFIF) {
                let text = "unknown Adobe colour transform \(t) (scan at offset \(scan.offset)), taken as \(frame.components.count == 4 ? "YCCK" : "YCbCr")"
                guard options.leniencies.contains(.scanParameters) else { throw .invalidScan(reason: text, offset: scan.offset) }
                events.append(.warning(text))
            }
            let geometry = try OutputGeometry(frame: frame, scale: options.scale, transform: colorTransform(frame),
                                              outputCMYK: options.outputCMYK, fancy: options.fancyUpsampling)
            // 12-bit frames render from the coefficient store (TwelveBit.swift).
            let streaming = !frame.isProgressive && scan.components.count == frame.components.count && frame.precision == 8
            let extra = streaming ? geometry.workingBytes : geometry.workingBytes + coefficientStoreBytes(frame)
            let (imageBytesPerPixel, bandBytes) = outputBytes(format: geometry.format, whole: !streaming, width: geometry.width,
                                                              bandRows: geometry.bandRows)
            if let violation = limits.check(width: geometry.width, height: geometry.height,
                                            bytesPerPixel: imageBytesPerPixel, extraBytes: extra + bandBytes) {
                throw .limitExceeded(violation, offset: scan.offset)
            }
            self.geometry = geometry
            if imageBytesPerPixel > 0 {
                // Streaming writes rows in order and fills the rest before showing any; coefficient
                // mode makes its image at EOI.
                image = streaming ? Image.unfilled(width: geometry.width, height: geometry.height, format: geometry.format) : nil
            } else {
                rowOutput?.start(geometry: geometry)
            }
            if streaming {
                mode = .streaming
                pipeline = BandPipeline(geometry: geometry, useSIMD: useSIMD)
            } else {
                mode = .coefficients
                var offsets: [Int] = [], counts: [Int] = [], total = 0
                for c in frame.components {
                    offsets.append(total)
                    counts.append(c.paddedBlocksWide * c.paddedBlocksHigh * c.valuesPerBlock)
                    total += c.paddedBlocksWide * c.paddedBlocksHigh
                }
                firstBlocks = offsets
                coefficients = spills(frame)
                    ? try DecodedCoefficients(counts: counts, spillDirectory: options.spillDirectory)
                    : DecodedCoefficients(counts: counts)
            }
        }
        for c in scan.components {
            let tq = frame.components[c].quantTable
            if !quantLatched[c] {
                guard tq < quantTables.count, let q = quantTables[tq] else {
                    throw .missingTable(kind: "quantization", index: tq, offset: scan.offset)
                }
                componentQuantTables[c] = q
                let prepared = JPEGKernels.prepareQuant(q)
                for k in 0 ..< JPEGKernels.quantStride { componentQuant[c * JPEGKernels.quantStride + k] = prepared[k] }
                quantLatched[c] = true
            }
        }
        if scansStarted == 1 && !frame.isProgressive && !frame.isArithmetic && options.leniencies.contains(.standardHuffmanTables) {
            // libjpeg-turbo's jdhuff fills the empty table slots 0 and 1 with the tables of T.81
            // K.3 when decoding starts (Motion-JPEG frames leave them out).
            let standard: [(dc: Bool, index: Int, spec: HuffmanSpec)] = [
                (true, 0, EncoderTables.dcLuminance), (false, 0, EncoderTables.acLuminance),
                (true, 1, EncoderTables.dcChrominance), (false, 1, EncoderTables.acChrominance)]
            for t in standard where (t.dc ? dcTables[t.index] : acTables[t.index]) == nil && invalidTables[(t.dc ? 0 : 4) + t.index] == nil {
                guard let table = HuffmanTable(counts: t.spec.counts, values: t.spec.symbols, isDC: t.dc) else { continue }
                if t.dc { dcTables[t.index] = table } else { acTables[t.index] = table }
                standardTableSlots |= 1 << UInt8((t.dc ? 0 : 4) + t.index)
            }
        }
        if standardTableSlots != 0 && !frame.isProgressive && !frame.isArithmetic {
            // Only a slot the scan reads makes the file a Motion-JPEG frame; libjpeg fills unused
            // ones silently (a grayscale or Pillow CMYK file defines table 0 alone).
            var used: UInt8 = 0
            for i in scan.components.indices {
                if scan.dcTables[i] < 4 { used |= 1 << UInt8(scan.dcTables[i]) }
                if scan.acTables[i] < 4 { used |= 1 << UInt8(4 + scan.acTables[i]) }
            }
            if used & standardTableSlots != 0 {
                standardTableSlots = 0
                events.append(.warning("Huffman tables missing at offset \(scan.offset); the standard tables of T.81 K.3 are used (Motion-JPEG)"))
            }
        }
        let lenientScan = options.leniencies.contains(.scanParameters)
        func scanWarning(_ text: String) throws(JPEGError) {
            guard lenientScan else { throw .invalidScan(reason: text, offset: scan.offset) }
            events.append(.warning("\(text) (scan at offset \(scan.offset))"))
        }
        let kind: ScanKind
        if frame.isProgressive {
            kind = scan.ss == 0 ? (scan.ah == 0 ? .dcFirst : .dcRefine) : (scan.ah == 0 ? .acFirst : .acRefine)
            for c in scan.components {
                if scan.ss > 0 && coefficientBits[c * 64] < 0 {
                    try scanWarning("AC scan of component \(frame.components[c].id) before its DC scan")
                }
                for k in min(scan.ss, 1) ... max(scan.se, 9) {
                    previousCoefficientBits[c * 64 + k] = scansStarted > 1 ? coefficientBits[c * 64 + k] : 0
                }
                for k in scan.ss ... scan.se {
                    let expected = max(Int(coefficientBits[c * 64 + k]), 0)
                    if scan.ah != expected {
                        try scanWarning("scan refines coefficient \(k) of component \(frame.components[c].id) out of order")
                    }
                    coefficientBits[c * 64 + k] = Int8(scan.al)
                }
            }
        } else {
            kind = .sequential
            if scan.ss != 0 || scan.se != 63 || scan.ah != 0 || scan.al != 0 {
                try scanWarning("sequential scan with Ss=\(scan.ss) Se=\(scan.se) Ah=\(scan.ah) Al=\(scan.al) treated as full")
            }
        }
        var components: [ScanComponent] = []
        var tables: [HuffmanTable] = []
        var idcts: [@Sendable (UnsafePointer<Int16>, UnsafePointer<UInt16>, UnsafeMutablePointer<UInt8>, Int) -> Void] = []
        for (i, c) in scan.components.enumerated() {
            let fc = frame.components[c]
            var dc: HuffmanLookup?, ac: HuffmanLookup?
            if frame.isArithmetic {
                // Statistics for any table number 0-15; nothing to look up.
            } else if kind == .sequential || kind == .dcFirst {
                guard scan.dcTables[i] < 4, let t = dcTables[scan.dcTables[i]] else {
                    if scan.dcTables[i] < 4, let problem = invalidTables[scan.dcTables[i]] { throw problem }
                    throw .missingTable(kind: "Huffman DC", index: scan.dcTables[i], offset: scan.offset)
                }
                dc = t.lookup
                tables.append(t)
            }
            if !frame.isArithmetic && (kind == .sequential || kind == .acFirst || kind == .acRefine) {
                guard scan.acTables[i] < 4, let t = acTables[scan.acTables[i]] else {
                    if scan.acTables[i] < 4, let problem = invalidTables[4 + scan.acTables[i]] { throw problem }
                    throw .missingTable(kind: "Huffman AC", index: scan.acTables[i], offset: scan.offset)
                }
                ac = t.lookup
                tables.append(t)
            }
            var component = ScanComponent(index: c, h: fc.h, v: fc.v, dc: dc, ac: ac, paddedBlocksWide: fc.paddedBlocksWide,
                                          firstBlock: mode == .coefficients ? firstBlocks[c] : 0,
                                          quantOffset: c * JPEGKernels.quantStride)
            component.valuesPerBlock = fc.valuesPerBlock
            component.iMCURows = fc.iMCURows
            if frame.isArithmetic {
                let td = scan.dcTables[i], ta = scan.acTables[i]
                component.dcBins = ArithmeticBins.dc(td)
                component.acBins = ArithmeticBins.ac(ta)
                component.dcSmall = (1 << Int(arithmeticDCL[td])) >> 1
                component.dcLarge = (1 << Int(arithmeticDCU[td])) >> 1
                component.acK = Int(arithmeticACK[ta])
            }
            if let pipeline, let geometry {
                idcts.append(pipeline.kernels[c].idct)
                component.stride = geometry.components[c].stride
                component.blockSize = geometry.components[c].blockSize
                component.bandRows = geometry.components[c].bandRows
                component.planeOffset = pipeline.planeOffsets[c]
                component.directIDCT = pipeline.kernels[c].isSIMD8x8
            }
            components.append(component)
        }
        let skips = (kind == .acFirst || kind == .acRefine) && mode == .coefficients && frame.passesOverAC
            && scan.components.allSatisfy { frame.components[$0].valuesPerBlock == 1 }
        let interleaved = scan.components.count > 1
        let mcusWide = interleaved ? frame.mcusWide : frame.components[scan.components[0]].blocksWide
        let mcusHigh = interleaved ? frame.mcusHigh : frame.components[scan.components[0]].blocksHigh
        // libjpeg's jdinput: a sequential frame whose first scan held every component (streamed
        // here) expects EOI after it (JERR_EOI_EXPECTED), whatever the options.
        if mode == .streaming && scan.components.contains(where: { componentSeen[$0] }) {
            throw .invalidScan(reason: "a second scan after the frame's complete sequential scan", offset: scan.offset)
        }
        for c in scan.components { componentSeen[c] = true }
        plan = ScanPlan(tables: tables, idcts: idcts, kind: kind, components: components, mcusWide: mcusWide, mcuCount: mcusWide * mcusHigh,
                        restartInterval: restartInterval, ss: scan.ss, se: scan.se, ah: scan.ah, al: scan.al,
                        interleaved: interleaved, offset: scan.offset, leniencies: options.leniencies,
                        arithmetic: frame.isArithmetic)
        entropy = EntropyState()
        entropy.restartsToGo = restartInterval
        if let plan, plan.arithmetic {
            // jdarith's start_pass: the scan's statistics from zero, registers reading two bytes first.
            if arithmeticBins.count != ArithmeticBins.count { arithmeticBins = [UInt8](repeating: 0, count: ArithmeticBins.count) }
            arithmeticBins.withUnsafeMutableBufferPointer { b in b.baseAddress.map { ArithmeticBins.reset($0, plan: plan) } }
        }
        retryAt = 0
        markerScan = 0
        if skips, let plan {
            // Nothing of this scan reaches the output (1/8, DC terms only): passed over unread.
            skipped = SkippedScan(restartInterval: plan.restartInterval)
            self.plan = nil
        }
        if mode == .coefficients, let geometry {
            // A quarter of the coefficient store (the biggest scans of real files are well under
            // it), at least 64 KB, within what DecodingLimits leaves after the image, the working
            // buffers and the coefficients.
            let committed = geometry.width * geometry.height * geometry.format.bytesPerPixel + geometry.workingBytes
                + frame.coefficientBytes
            let room = limits.maxBytes > committed ? limits.maxBytes - committed : 0
            // A spilled store is written as the bytes arrive (a held scan would be as large as the window).
            heldScanLimit = holdsScans && !coefficients.isSpilled ? min(max(1 << 16, frame.coefficientBytes / 4), room) : 0
        }
        phase = .scan
    }
}
