import ImageCore

/// Frame and scan set-up: SOF checked against the limits and the output geometry chosen; each
/// SOS latched (quantization and Huffman tables, progression checks) and its plan made.
extension JPEGDecoder {
    mutating func startFrame(_ parsed: Frame, _ events: inout [DecodingEvent]) throws(JPEGError) {
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
                        restartInterval: tables.restartInterval, adobeTransform: markers.collector.adobeTransform, isJFIF: markers.collector.isJFIF,
                        density: metadata.density, scanCount: 0, estimatedQuality: markers.estimatedQuality)
        if let bits = rowSignificantBits { metadata.significantBits = bits }
        events.append(.header(header))
    }

    /// The colour space as libjpeg-turbo's jdapimin default_decompress_parms decides it.
    func colorTransform(_ frame: Frame) -> ColorTransform {
        switch frame.components.count {
        case 1: return .gray
        case 3:
            if markers.collector.isJFIF { return .ycbcr }
            if let t = markers.collector.adobeTransform { return t == 0 ? .rgb : .ycbcr }
            let ids = frame.components.map(\.id)
            return ids == [0x52, 0x47, 0x42] ? .rgb : .ycbcr
        default:
            // An Adobe transform other than 0 or 2 is taken as YCCK (with JWRN_ADOBE_XFORM).
            if let t = markers.collector.adobeTransform { return t == 0 ? .cmyk : .ycck }
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
            markers.collector.finishHeaders()
            flushMetadata(&events, offset: scan.offset)
        }
    }

    mutating func startScan(_ scan: ScanHeader, frame: Frame, _ events: inout [DecodingEvent]) throws(JPEGError) {
        try countScan(scan, &events)
        if mode == .undecided {
            if let t = markers.collector.adobeTransform, t > (frame.components.count == 4 ? 2 : 1) || t == 1 && frame.components.count == 4,
               frame.components.count >= 3, !(frame.components.count == 3 && markers.collector.isJFIF) {
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
                process = .streaming(StreamingState(pipeline: BandPipeline(geometry: geometry, useSIMD: useSIMD)))
            } else {
                process = .coefficients(CoefficientState())
                var offsets: [Int] = [], counts: [Int] = [], total = 0
                for c in frame.components {
                    offsets.append(total)
                    counts.append(c.paddedBlocksWide * c.paddedBlocksHigh * c.valuesPerBlock)
                    total += c.paddedBlocksWide * c.paddedBlocksHigh
                }
                coefficientState.firstBlocks = offsets
                coefficientState.store = spills(frame)
                    ? try DecodedCoefficients(counts: counts, spillDirectory: options.spillDirectory)
                    : DecodedCoefficients(counts: counts)
            }
        }
        for c in scan.components {
            let tq = frame.components[c].quantTable
            if !tables.quantLatched[c] {
                guard tq < tables.quant.count, let q = tables.quant[tq] else {
                    throw .missingTable(kind: "quantization", index: tq, offset: scan.offset)
                }
                tables.componentQuantTables[c] = q
                let prepared = JPEGKernels.prepareQuant(q)
                for k in 0 ..< JPEGKernels.quantStride { tables.componentQuant[c * JPEGKernels.quantStride + k] = prepared[k] }
                tables.quantLatched[c] = true
            }
        }
        if scansStarted == 1 && !frame.isProgressive && !frame.isArithmetic && options.leniencies.contains(.standardHuffmanTables) {
            // libjpeg-turbo's jdhuff fills the empty table slots 0 and 1 with the tables of T.81
            // K.3 when decoding starts (Motion-JPEG frames leave them out).
            let standard: [(dc: Bool, index: Int, spec: HuffmanSpec)] = [
                (true, 0, EncoderTables.dcLuminance), (false, 0, EncoderTables.acLuminance),
                (true, 1, EncoderTables.dcChrominance), (false, 1, EncoderTables.acChrominance)]
            for t in standard where (t.dc ? tables.dc[t.index] : tables.ac[t.index]) == nil && tables.invalid[(t.dc ? 0 : 4) + t.index] == nil {
                guard let table = HuffmanTable(counts: t.spec.counts, values: t.spec.symbols, isDC: t.dc) else { continue }
                if t.dc { tables.dc[t.index] = table } else { tables.ac[t.index] = table }
                tables.standardSlots |= 1 << UInt8((t.dc ? 0 : 4) + t.index)
            }
        }
        if tables.standardSlots != 0 && !frame.isProgressive && !frame.isArithmetic {
            // Only a slot the scan reads makes the file a Motion-JPEG frame; libjpeg fills unused
            // ones silently (a grayscale or Pillow CMYK file defines table 0 alone).
            var used: UInt8 = 0
            for i in scan.components.indices {
                if scan.dcTables[i] < 4 { used |= 1 << UInt8(scan.dcTables[i]) }
                if scan.acTables[i] < 4 { used |= 1 << UInt8(4 + scan.acTables[i]) }
            }
            if used & tables.standardSlots != 0 {
                tables.standardSlots = 0
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
                if scan.ss > 0 && coefficientState.coefficientBits[c * 64] < 0 {
                    try scanWarning("AC scan of component \(frame.components[c].id) before its DC scan")
                }
                for k in min(scan.ss, 1) ... max(scan.se, 9) {
                    coefficientState.previousCoefficientBits[c * 64 + k] = scansStarted > 1 ? coefficientState.coefficientBits[c * 64 + k] : 0
                }
                for k in scan.ss ... scan.se {
                    let expected = max(Int(coefficientState.coefficientBits[c * 64 + k]), 0)
                    if scan.ah != expected {
                        try scanWarning("scan refines coefficient \(k) of component \(frame.components[c].id) out of order")
                    }
                    coefficientState.coefficientBits[c * 64 + k] = Int8(scan.al)
                }
            }
        } else {
            kind = .sequential
            if scan.ss != 0 || scan.se != 63 || scan.ah != 0 || scan.al != 0 {
                try scanWarning("sequential scan with Ss=\(scan.ss) Se=\(scan.se) Ah=\(scan.ah) Al=\(scan.al) treated as full")
            }
        }
        var components: [ScanComponent] = []
        var scanTables: [HuffmanTable] = []
        var idcts: [@Sendable (UnsafePointer<Int16>, UnsafePointer<UInt16>, UnsafeMutablePointer<UInt8>, Int) -> Void] = []
        for (i, c) in scan.components.enumerated() {
            let fc = frame.components[c]
            var dc: HuffmanLookup?, ac: HuffmanLookup?
            if frame.isArithmetic {
                // Statistics for any table number 0-15; nothing to look up.
            } else if kind == .sequential || kind == .dcFirst {
                guard scan.dcTables[i] < 4, let t = tables.dc[scan.dcTables[i]] else {
                    if scan.dcTables[i] < 4, let problem = tables.invalid[scan.dcTables[i]] { throw problem }
                    throw .missingTable(kind: "Huffman DC", index: scan.dcTables[i], offset: scan.offset)
                }
                dc = t.lookup
                scanTables.append(t)
            }
            if !frame.isArithmetic && (kind == .sequential || kind == .acFirst || kind == .acRefine) {
                guard scan.acTables[i] < 4, let t = tables.ac[scan.acTables[i]] else {
                    if scan.acTables[i] < 4, let problem = tables.invalid[4 + scan.acTables[i]] { throw problem }
                    throw .missingTable(kind: "Huffman AC", index: scan.acTables[i], offset: scan.offset)
                }
                ac = t.lookup
                scanTables.append(t)
            }
            var component = ScanComponent(index: c, h: fc.h, v: fc.v, dc: dc, ac: ac, paddedBlocksWide: fc.paddedBlocksWide,
                                          firstBlock: mode == .coefficients ? coefficientState.firstBlocks[c] : 0,
                                          quantOffset: c * JPEGKernels.quantStride)
            component.valuesPerBlock = fc.valuesPerBlock
            component.iMCURows = fc.iMCURows
            if frame.isArithmetic {
                let td = scan.dcTables[i], ta = scan.acTables[i]
                component.dcBins = ArithmeticBins.dc(td)
                component.acBins = ArithmeticBins.ac(ta)
                component.dcSmall = (1 << Int(arithmetic.dcL[td])) >> 1
                component.dcLarge = (1 << Int(arithmetic.dcU[td])) >> 1
                component.acK = Int(arithmetic.acK[ta])
            }
            if let pipeline = streamState.pipeline, let geometry {
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
        plan = ScanPlan(tables: scanTables, idcts: idcts, kind: kind, components: components, mcusWide: mcusWide, mcuCount: mcusWide * mcusHigh,
                        restartInterval: tables.restartInterval, ss: scan.ss, se: scan.se, ah: scan.ah, al: scan.al,
                        interleaved: interleaved, offset: scan.offset, leniencies: options.leniencies,
                        arithmetic: frame.isArithmetic)
        entropy = EntropyState()
        entropy.restartsToGo = tables.restartInterval
        if let plan, plan.arithmetic {
            // jdarith's start_pass: the scan's statistics from zero, registers reading two bytes first.
            if arithmetic.bins.count != ArithmeticBins.count { arithmetic.bins = [UInt8](repeating: 0, count: ArithmeticBins.count) }
            arithmetic.bins.withUnsafeMutableBufferPointer { b in b.baseAddress.map { ArithmeticBins.reset($0, plan: plan) } }
        }
        retryAt = 0
        markerScan = 0
        if skips, let plan {
            // Nothing of this scan reaches the output (1/8, DC terms only): passed over unread.
            coefficientState.skipped = SkippedScan(restartInterval: plan.restartInterval)
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
            coefficientState.heldScanLimit = holdsScans && !coefficientState.store.isSpilled ? min(max(1 << 16, frame.coefficientBytes / 4), room) : 0
        }
        phase = .scan
    }
}
