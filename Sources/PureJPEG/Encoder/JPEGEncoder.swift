import ImageCore

/// Encodes images as JPEG (T.81 baseline sequential or progressive, Huffman coded, 8-bit),
/// producing the same bytes as libjpeg-turbo's `cjpeg -dct int` for the same settings.
///
/// Gray input gives a 1-component JPEG; RGB and RGBA give YCbCr (alpha is dropped, colour
/// kept as stored); 16-bit samples are rounded to 8 bits first.
///
/// ```swift
/// let image = try PNGDecoder.decode(pngBytes)
/// let jpeg = try JPEGEncoder.encode(image, options: .init(quality: 85))
/// ```
public enum JPEGEncoder {
    /// Encodes `image` as a complete JPEG file.
    ///
    /// Premultiplied input is unpremultiplied first; the image's EXIF and ICC profile are written
    /// unless ``JPEGEncodingOptions/writeMetadata`` is off.
    ///
    /// ```swift
    /// let jpeg = try JPEGEncoder.encode(image, options: JPEGEncodingOptions(quality: 85, progressive: true))
    /// try Data(jpeg).write(to: url)
    /// ```
    ///
    /// - Parameters:
    ///   - image: Any pixel format; alpha is dropped, 16-bit samples are rounded to 8 bits.
    ///   - options: Quality, subsampling, progressive or baseline, and the rest.
    /// - Returns: The JPEG file's bytes.
    /// - Throws: ``JPEGEncoderError/invalidParameter(_:)`` for options out of range or a pixel
    ///   buffer that does not match the size, ``JPEGEncoderError/emptyImage``,
    ///   ``JPEGEncoderError/imageTooLarge(width:height:)`` over 65535 pixels a side, or
    ///   ``JPEGEncoderError/metadataTooLarge(_:)``.
    public static func encode(_ image: Image, options: JPEGEncodingOptions = .init()) throws(JPEGEncoderError) -> [UInt8] {
        try options.validate()
        guard image.width > 0, image.height > 0 else { throw .emptyImage }
        guard image.width <= 65535, image.height <= 65535 else {
            throw .imageTooLarge(width: image.width, height: image.height)
        }
        guard image.pixels.count == image.width * image.height * image.format.bytesPerPixel else {
            throw .invalidParameter("pixel buffer of \(image.pixels.count) bytes does not match \(image.width)x\(image.height) \(image.format)")
        }
        if let lossless = options.lossless { return try LosslessEncoder.encode(image, options: options, lossless: lossless) }
        if options.precision == 12 { return try encodeTwelveBit(image, options: options) }
        // Straight colour is what a JPEG without alpha must show; 16-bit rounds to 8 (ImageCore's rule).
        var source = image.isPremultiplied ? image.unpremultiplied() : image
        if source.format.is16Bit { source = source.converted(to: source.format.eightBit) }
        let setup = try EncoderSetup(width: image.width, height: image.height, format: source.format,
                                     options: options)
        var w = BitWriter(capacity: min(image.width * image.height / 4, 1 << 26) + 4096)
        w.append(try JPEGWriter.header(options: options, metadata: image.metadata, components: setup.layout.components.count))
        w.append(setup.frameHeader(progressive: options.progressive, arithmetic: options.arithmetic))
        let layout = setup.layout
        let rowBytes = image.width * source.format.bytesPerPixel

        if !options.progressive && !options.optimizes && !options.arithmetic {
            // One pass, a single MCU row of coefficients at a time.
            w.append(setup.baselineTablesAndScanHeader(dc: setup.standardDC, ac: setup.standardAC))
            let tables = EntropyTables(dc: setup.standardDC, ac: setup.standardAC)
            let bands = SegmentedBaseline.bands(setup: setup, options: options)
            if bands > 1 {
                // Bands of MCU rows coded on a thread each, joined (SegmentedBaseline.swift).
                source.pixels.withUnsafeBufferPointer { px in
                    guard let base = px.baseAddress else { return }
                    SegmentedBaseline.encode(pixels: base, rowBytes: rowBytes, setup: setup, tables: tables, bands: bands, writer: &w)
                }
                w.flushBits()
                w.append(JPEGWriter.marker(0xD9))
                return w.bytes()
            }
            var state = BaselineScanState(components: layout.components.count, restartInterval: options.restartInterval)
            // MCU row n + 1 is transformed on a second thread while row n is Huffman-coded here.
            let pipeline = TransformPipeline(setup: setup, threads: options.threads)
            source.pixels.withUnsafeBufferPointer { px in
                guard let base = px.baseAddress else { return }
                for mcuRow in 0 ..< layout.mcusDown {
                    let y0 = mcuRow * layout.mcuHeight
                    pipeline.start(slot: mcuRow & 1, rows: base + y0 * rowBytes, rowBytes: rowBytes,
                                   count: min(layout.mcuHeight, layout.height - y0), mcuRow: mcuRow)
                    if mcuRow > 0 {
                        let row = pipeline.take(slot: (mcuRow - 1) & 1)
                        state.encodeRow(row.blocks, masks: row.masks, layout: layout, tables: tables, writer: &w)
                    }
                }
                let last = pipeline.take(slot: (layout.mcusDown - 1) & 1)
                state.encodeRow(last.blocks, masks: last.masks, layout: layout, tables: tables, writer: &w)
                pipeline.drain()
            }
            w.flushBits()
            w.append(JPEGWriter.marker(0xD9))
            return w.bytes()
        }

        let store = CoefficientStore(layout: layout)
        let processor = setup.makeProcessor()
        source.pixels.withUnsafeBufferPointer { px in
            guard let base = px.baseAddress else { return }
            for mcuRow in 0 ..< layout.mcusDown {
                let y0 = mcuRow * layout.mcuHeight
                processor.process(rows: base + y0 * rowBytes, rowBytes: rowBytes,
                                  count: min(layout.mcuHeight, layout.height - y0), mcuRow: mcuRow,
                                  out: store.rowPointers(mcuRow), masks: store.rowMaskPointers(mcuRow))
            }
        }
        try codeScans(store, setup: setup, options: options, writer: &w)
        w.append(JPEGWriter.marker(0xD9))
        return w.bytes()
    }

    /// A 12-bit file: the 12-bit front half (``TwelveBitEncoder``) into the coefficient store,
    /// then the same scans as 8-bit files.
    static func encodeTwelveBit(_ image: Image, options: JPEGEncodingOptions) throws(JPEGEncoderError) -> [UInt8] {
        let source = image.isPremultiplied ? image.unpremultiplied() : image
        let color = source.format.isColor && !options.grayscale
        let setup = try EncoderSetup(width: image.width, height: image.height, format: color ? .rgb8 : .gray8, options: options)
        var w = BitWriter(capacity: min(image.width * image.height / 2, 1 << 26) + 4096)
        w.append(try JPEGWriter.header(options: options, metadata: image.metadata, components: setup.layout.components.count))
        w.append(setup.frameHeader(progressive: options.progressive, arithmetic: options.arithmetic, precision: 12))
        let store = CoefficientStore(layout: setup.layout)
        TwelveBitEncoder.transform(TwelveBitEncoder.samples(source, color: color), layout: setup.layout,
                                   quantTables: setup.quantTables, into: store)
        try codeScans(store, setup: setup, options: options, writer: &w)
        w.append(JPEGWriter.marker(0xD9))
        return w.bytes()
    }

    /// The scans of a file whose blocks are all in `store`: arithmetic-coded, progressive, or
    /// one sequential scan with optimal Huffman tables.
    private static func codeScans(_ store: CoefficientStore, setup: EncoderSetup, options: JPEGEncodingOptions,
                                  writer w: inout BitWriter) throws(JPEGEncoderError) {
        let layout = setup.layout
        if options.arithmetic {
            // One interleaved scan of every component, or the progressive script (jcarith).
            let script = options.progressive
                ? options.scanScript ?? ProgressiveScript.simple(components: layout.components.count)
                : [JPEGScan(components: Array(0 ..< layout.components.count), spectralStart: 0, spectralEnd: 63,
                            successiveHigh: 0, successiveLow: 0)]
            if options.progressive { try ProgressiveScript.validate(script, components: layout.components.count) }
            var encoder = ArithmeticScanEncoder(store: store, restartInterval: options.restartInterval)
            defer { encoder.release() }
            for (i, scan) in script.enumerated() {
                encoder.encodeScan(scan, progressive: options.progressive, writeDRI: i == 0, writer: &w)
            }
        } else if options.progressive {
            let script = options.scanScript ?? ProgressiveScript.simple(components: layout.components.count)
            try ProgressiveScript.validate(script, components: layout.components.count)
            var encoder = ProgressiveEncoder(store: store, restartInterval: options.restartInterval)
            for (i, scan) in script.enumerated() {
                encoder.encodeScan(scan, writeDRI: i == 0, writer: &w)
            }
        } else {
            let (dc, ac) = setup.optimalBaselineTables(store)
            w.append(setup.baselineTablesAndScanHeader(dc: dc, ac: ac))
            if options.precision == 12 {
                WideSequentialCoder(store: store, restartInterval: options.restartInterval).encode(dc: dc, ac: ac, writer: &w)
                return
            }
            let tables = EntropyTables(dc: dc, ac: ac)
            var state = BaselineScanState(components: layout.components.count, restartInterval: options.restartInterval)
            for mcuRow in 0 ..< layout.mcusDown {
                state.encodeRow(store.rowPointers(mcuRow).map { UnsafePointer($0) },
                                masks: store.rowMaskPointers(mcuRow).map { UnsafePointer($0) }, layout: layout,
                                tables: tables, writer: &w)
            }
            w.flushBits()
        }
    }
}

/// What one encoding needs once the image size, input format and options are known.
struct EncoderSetup {
    let layout: EncoderLayout
    let quantTables: [[UInt16]]
    let inputStride: Int
    let inputIsColor: Bool
    let restartInterval: Int

    init(width: Int, height: Int, format: PixelFormat, options: JPEGEncodingOptions) throws(JPEGEncoderError) {
        let grayscale = options.grayscale || !format.isColor
        layout = EncoderLayout(width: width, height: height, grayscale: grayscale, subsampling: options.subsampling)
        quantTables = try options.resolvedTables()
        inputStride = format.eightBit.bytesPerPixel
        inputIsColor = format.isColor
        restartInterval = options.restartInterval
    }

    func makeProcessor() -> MCURowProcessor {
        MCURowProcessor(layout: layout, inputStride: inputStride, inputIsColor: inputIsColor, quantTables: quantTables)
    }

    var tableCount: Int { layout.isColor ? 2 : 1 }
    var standardDC: [HuffmanSpec] { [EncoderTables.dcLuminance, EncoderTables.dcChrominance] }
    var standardAC: [HuffmanSpec] { [EncoderTables.acLuminance, EncoderTables.acChrominance] }

    /// DQT for each table in use, then SOF0/SOF2 or SOF9/SOF10 (libjpeg `write_frame_header`).
    func frameHeader(progressive: Bool, arithmetic: Bool = false, precision: Int = 8) -> [UInt8] {
        var out: [UInt8] = []
        for t in 0 ..< tableCount { out += JPEGWriter.dqt(index: t, table: quantTables[t]) }
        return out + JPEGWriter.sof(progressive: progressive, arithmetic: arithmetic, precision: precision, layout: layout)
    }

    /// DHT per table in component order (DC then AC), DRI, SOS (libjpeg `write_scan_header`).
    func baselineTablesAndScanHeader(dc: [HuffmanSpec], ac: [HuffmanSpec]) -> [UInt8] {
        var out: [UInt8] = []
        for t in 0 ..< tableCount {
            out += JPEGWriter.dht(isAC: false, index: t, spec: dc[t])
            out += JPEGWriter.dht(isAC: true, index: t, spec: ac[t])
        }
        if restartInterval > 0 { out += JPEGWriter.dri(restartInterval) }
        return out + JPEGWriter.sos(components: layout.components, tableBytes: layout.components.map { UInt8($0.table << 4 | $0.table) },
                                    ss: 0, se: 63, ah: 0, al: 0)
    }

    /// First pass of Huffman optimization: symbol counts over every MCU, then K.2 tables.
    func optimalBaselineTables(_ store: CoefficientStore) -> (dc: [HuffmanSpec], ac: [HuffmanSpec]) {
        var dcCounts = [Int](repeating: 0, count: 2 * 257), acCounts = [Int](repeating: 0, count: 2 * 257)
        var state = BaselineScanState(components: layout.components.count, restartInterval: restartInterval)
        EncoderTables.zigzag.withUnsafeBufferPointer { zz in
            dcCounts.withUnsafeMutableBufferPointer { dcp in
                acCounts.withUnsafeMutableBufferPointer { acp in
                    guard let z = zz.baseAddress, let d = dcp.baseAddress, let a = acp.baseAddress else { return }
                    for mcuRow in 0 ..< layout.mcusDown {
                        state.countRow(store.rowPointers(mcuRow).map { UnsafePointer($0) },
                                       masks: store.rowMaskPointers(mcuRow).map { UnsafePointer($0) }, layout: layout,
                                       zigzag: z, dcCounts: d, acCounts: a)
                    }
                }
            }
        }
        var dc: [HuffmanSpec] = [], ac: [HuffmanSpec] = []
        for t in 0 ..< 2 {
            dc.append(.optimal(frequencies: Array(dcCounts[(t * 257) ..< (t * 257 + 257)])))
            ac.append(.optimal(frequencies: Array(acCounts[(t * 257) ..< (t * 257 + 257)])))
        }
        return (dc, ac)
    }
}

extension EncoderLayout {
    /// The same components, one MCU row tall: the working set of the one-pass encoders.
    static func oneMCURow(of layout: EncoderLayout) -> EncoderLayout {
        var one = layout
        one.mcusDown = 1
        return one
    }

    /// The layout of a single MCU (one MCU row one MCU wide), for a copy of one MCU's blocks.
    static func oneMCU(of layout: EncoderLayout) -> EncoderLayout {
        var one = layout
        one.mcusDown = 1
        one.mcusAcross = 1
        for c in one.components.indices { one.components[c].blocksPerLine = one.components[c].h }
        return one
    }
}
