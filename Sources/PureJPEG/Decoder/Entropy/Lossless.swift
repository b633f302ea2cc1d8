import ImageCore

/// Lossless JPEG (T.81 Annex H; SOF3, Huffman-coded): each sample predicted from its decoded
/// neighbours and corrected by a Huffman-coded difference, with the output libjpeg-turbo 3
/// gives (jdlossls.c, jdlhuff.c, jddiffct.c).
///
/// Samples are decoded into a 16-bit plane per component, a row at a time over the bytes
/// present: a row that runs out of bytes is undone (the bit reader goes back to the row's
/// start; the samples it wrote are written again) and decoded when more arrive, so any
/// chunking gives the same samples. Finished rows go to the output image (`sample << Pt`):
/// 8-bit formats up to 8 bits of precision, 16-bit formats above with the samples as they are
/// (0...2^P - 1, ``ImageMetadata/sampleBits``).
extension Optional where Wrapped == Image {
    /// The 16-bit samples of the wrapped image, or nil.
    mutating func withUnsafeMutablePixels(_ body: (UnsafeMutablePointer<UInt16>?) -> Void) {
        guard var image = self else { return body(nil) }
        self = nil
        image.pixels.withUnsafeMutableBytes { raw in body(raw.bindMemory(to: UInt16.self).baseAddress) }
        self = image
    }
}

struct LosslessScan {
    /// Frame component indices, in scan order.
    var components: [Int]
    var tables: [HuffmanTable]
    /// The predictor (T.81 table H.1): 1 Ra, 2 Rb, 3 Rc, 4 Ra + Rb - Rc, 5 Ra + (Rb - Rc) / 2,
    /// 6 Rb + (Ra - Rc) / 2, 7 (Ra + Rb) / 2 (halvings as arithmetic shifts).
    var predictor: Int
    var pointTransform: Int
    /// The restart bookkeeping and resynchronisation of the DCT scans (``MCULoop/restart``).
    var plan: ScanPlan
    var state = EntropyState()
    /// The next row of the scan.
    var row = 0
    /// The row starts the scan or a restart interval: its first sample is predicted from
    /// 2^(P - Pt - 1), the others from their left neighbour.
    var intervalStart = true
}

extension JPEGDecoder {
    /// Rows a lossless frame's `.rows` events cover (each but the last).
    static let losslessBand = 16

    /// 16-bit output of a lossless or 12-bit frame below 16 bits: its precision (the samples
    /// are not scaled); nil otherwise, and in row mode, which scales them to the full range.
    var outputSampleBits: Int? {
        guard let frame, frame.precision != 8, frame.precision < 16, rowOutput == nil else { return nil }
        return frame.precision
    }

    /// Row mode hands out 12-bit and lossless samples above 8 bits scaled to the full 16-bit
    /// range (as `Image.fullRange()` does): the metadata says from how many bits, so a writer
    /// of the stored values (Netpbm with MAXVAL 2^P - 1) can take them back exactly.
    var rowSignificantBits: [UInt8]? {
        guard rowOutput != nil, let frame, frame.precision != 8, frame.precision < 16 else { return nil }
        return [UInt8](repeating: UInt8(frame.precision), count: frame.components.count == 1 ? 1 : 3)
    }

    /// SOS of a lossless frame: the scan's tables, predictor and point transform.
    mutating func startLosslessScan(_ scan: ScanHeader, frame: Frame, _ events: inout [DecodingEvent]) throws(JPEGError) {
        try countScan(scan, &events)
        if mode == .undecided {
            if frame.components.count == 3 {
                // libjpeg-turbo 3 converts no colour space in lossless mode (JERR_CONVERSION_NOTIMPL).
                let rgb = markers.collector.adobeTransform == 0
                    || (!markers.collector.isJFIF && markers.collector.adobeTransform == nil && frame.components.map(\.id) == [0x52, 0x47, 0x42])
                guard rgb else {
                    throw .unsupported(process: "lossless YCbCr (libjpeg-turbo converts no colour in lossless mode)", offset: scan.offset)
                }
            }
            let samples = frame.width * frame.height
            let format = header?.pixelFormat ?? .gray8
            // One 16-bit component without a point transform is its own output: decoded in place.
            var state = LosslessState()
            state.direct = frame.components.count == 1 && format.is16Bit && scan.al == 0
            state.planes = frame.components.map { _ in state.direct ? [] : [UInt16](repeating: 0, count: samples) }
            state.rows = [Int](repeating: 0, count: frame.components.count)
            process = .lossless(state)
            // Every row is written before it is shown (rows no scan reaches are cleared at EOI).
            var out = Image.unfilled(width: frame.width, height: frame.height, format: format, metadata: metadata)
            out.metadata.sampleBits = outputSampleBits
            image = out
        }
        if losslessState.direct && scan.al != 0 {
            throw .unsupported(process: "a lossless component scanned twice with different point transforms", offset: scan.offset)
        }
        guard (1 ... 7).contains(scan.ss), scan.se == 0, scan.ah == 0, scan.al < frame.precision else {
            throw .invalidScan(reason: "lossless scan with predictor \(scan.ss), Se \(scan.se), Ah \(scan.ah), point transform \(scan.al)",
                               offset: scan.offset)
        }
        var scanTables: [HuffmanTable] = []
        for (i, _) in scan.components.enumerated() {
            let index = scan.dcTables[i]
            guard index < 4, let spec = tables.losslessSpecs[index] else {
                throw .missingTable(kind: "Huffman", index: index, offset: scan.offset)
            }
            // Differences take categories 0...16 (T.81 H.1.2.2).
            guard let table = HuffmanTable(counts: spec.counts, values: spec.values, isDC: false),
                  !spec.values.contains(where: { $0 > 16 }) else {
                throw .invalidHuffmanTable(reason: "lossless table \(index) with a category above 16 or bad code lengths", offset: scan.offset)
            }
            scanTables.append(table)
        }
        let interleaved = scan.components.count > 1
        if tables.restartInterval > 0 && tables.restartInterval % frame.width != 0 {
            // libjpeg-turbo 3 restarts lossless scans on whole rows (restart_rows_to_go).
            throw .unsupported(process: "a lossless restart interval of \(tables.restartInterval) samples, not whole rows of \(frame.width)",
                               offset: scan.offset)
        }
        let plan = ScanPlan(tables: scanTables, idcts: [], kind: .sequential, components: [], mcusWide: frame.width,
                            mcuCount: frame.width * frame.height, restartInterval: tables.restartInterval, ss: scan.ss, se: 0,
                            ah: 0, al: scan.al, interleaved: interleaved, offset: scan.offset, leniencies: options.leniencies)
        var state = EntropyState()
        state.restartsToGo = tables.restartInterval
        losslessState.scan = LosslessScan(components: scan.components, tables: scanTables, predictor: scan.ss, pointTransform: scan.al,
                                plan: plan, state: state)
        retryAt = 0
        markerScan = 0
        phase = .scan
    }

    /// Decodes the rows the bytes present complete; true when the scan is complete.
    mutating func runLosslessScan(_ events: inout [DecodingEvent]) throws(JPEGError) -> Bool {
        guard var scan = losslessState.scan, let frame else { return false }
        let isFinal = input.isFinished
        if !isFinal && input.count < retryAt && !markerArrived() { return false }
        var planes = losslessState.planes
        losslessState.planes = []
        var direct = losslessState.direct ? image : nil
        if direct != nil { image = nil }
        var warnings: [String] = []
        var step = ScanStep.needMore
        let baseOffset = input.offset()
        let precision = frame.precision
        planes.withUnsafeMutableBufferPointer { planeArrays in
          direct.withUnsafeMutablePixels { directPixels in
            var pointers: [UnsafeMutablePointer<UInt16>] = []
            if let directPixels {
                pointers = [directPixels]
            } else {
                for c in scan.components {
                    planeArrays[c].withUnsafeMutableBufferPointer { p in if let b = p.baseAddress { pointers.append(b) } }
                }
            }
            guard pointers.count == scan.components.count else { return }
            input.withUnsafeUnread { bytes in
                let empty: [UInt8] = [0]
                empty.withUnsafeBufferPointer { stand in
                    guard let data = bytes.baseAddress ?? stand.baseAddress else { return }
                    step = LosslessRows.decode(&scan, planes: pointers, width: frame.width, height: frame.height,
                                               precision: precision, data: data, end: bytes.baseAddress == nil ? 0 : bytes.count,
                                               isFinal: isFinal, baseOffset: baseOffset, warnings: &warnings)
                }
            }
          }
        }
        losslessState.planes = planes
        if let direct { image = direct }
        input.consume(min(scan.state.reader.position, input.count))
        scan.state.reader.position = 0
        for w in warnings { events.append(.warning(w)) }
        for c in scan.components { losslessState.rows[c] = scan.row }
        emitLosslessRows(frame: frame, pointTransform: scan.pointTransform, &events)
        switch step {
        case .reached:
            markers.extraneousBytes += max(scan.state.reader.count, 0) / 8
            scansCompleted += 1
            losslessState.scan = nil
            phase = .markers
            retryAt = 0
            markerScan = 0
            return true
        case .needMore, .truncated:
            losslessState.scan = scan
            retryAt = input.count + 64
            markerScan = max(0, input.count - 1)
            return false
        case let .failed(error):
            losslessState.scan = scan
            throw error
        }
    }

    /// Rows every component has decoded go to the output image (`sample << Pt`), in bands of
    /// ``losslessBand`` rows (the last band shorter), so the events do not depend on how the
    /// bytes were split.
    private mutating func emitLosslessRows(frame: Frame, pointTransform pt: Int, _ events: inout [DecodingEvent]) {
        let decoded = losslessState.rows.min() ?? 0
        let final = decoded >= frame.height ? frame.height : decoded / Self.losslessBand * Self.losslessBand
        guard final > rowsDone, var out = image else { return }
        if losslessState.direct {
            // Decoded in place.
            appendLosslessBands(to: final, &events)
            return
        }
        image = nil
        let width = frame.width, channels = frame.components.count
        let planes = losslessState.planes
        let sixteen = out.format.is16Bit
        out.pixels.withUnsafeMutableBytes { raw in
            for c in 0 ..< channels {
                planes[c].withUnsafeBufferPointer { plane in
                    if sixteen {
                        let o = raw.bindMemory(to: UInt16.self)
                        for i in rowsDone * width ..< final * width {
                            o[i &* channels &+ c] = UInt16(truncatingIfNeeded: Int(plane[i]) &<< pt)
                        }
                    } else {
                        let o = raw.bindMemory(to: UInt8.self)
                        for i in rowsDone * width ..< final * width {
                            o[i &* channels &+ c] = UInt8(truncatingIfNeeded: Int(plane[i]) &<< pt)
                        }
                    }
                }
            }
        }
        image = out
        appendLosslessBands(to: final, &events)
    }

    /// `.rows` for the rows from `rowsDone` to `final`, a band of ``losslessBand`` at a time.
    private mutating func appendLosslessBands(to final: Int, _ events: inout [DecodingEvent]) {
        var y = rowsDone
        while y < final {
            let next = min(y + Self.losslessBand, final)
            events.append(.rows(y ..< next))
            y = next
        }
        rowsDone = final
    }

    /// EOI of a lossless frame: rows no scan reached stay zero.
    mutating func endLosslessImage(_ events: inout [DecodingEvent]) {
        if var out = image, rowsDone < out.height {
            events.append(.rows(rowsDone ..< out.height))
            let start = rowsDone * out.bytesPerRow
            rowsDone = out.height
            image = nil
            out.pixels.withUnsafeMutableBufferPointer { p in UnsafeMutableBufferPointer(rebasing: p[start...]).update(repeating: 0) }
            out.metadata = metadata
            out.metadata.sampleBits = outputSampleBits
            image = out
        }
        losslessState.planes = []
        if rowOutput != nil, var out = image, let frame, frame.precision != 8, frame.precision < 16 {
            // Row mode hands rows to encoders and resamplers, which read the format's full range.
            out.metadata.sampleBits = frame.precision
            image = out.fullRange()
        }
        events.append(.end)
        phase = .done
    }
}

/// The row loop of a lossless scan.
enum LosslessRows {
    /// Decodes rows from `scan.row` to the end of the scan over `data[0..<end]`; on `.needMore`
    /// and `.truncated` the state is the last complete row's.
    static func decode(_ scan: inout LosslessScan, planes: [UnsafeMutablePointer<UInt16>], width: Int, height: Int,
                       precision: Int, data: UnsafePointer<UInt8>, end: Int, isFinal: Bool, baseOffset: Int,
                       warnings: inout [String]) -> ScanStep {
        let n = planes.count
        let initial = 1 << max(precision - scan.pointTransform - 1, 0)
        return planes.withUnsafeBufferPointer { planePointers in
            scan.tables.map { $0.lookup }.withUnsafeBufferPointer { lookups in
                guard let planeBase = planePointers.baseAddress, let tableBase = lookups.baseAddress else { return .failed(.invalidOption("no planes")) }
                while scan.row < height {
                    if scan.plan.restartInterval > 0 && scan.state.restartsToGo == 0 {
                        let r = MCULoop.restart(&scan.state, plan: scan.plan, data: data, end: end, isFinal: isFinal,
                                                baseOffset: baseOffset, warnings: &warnings)
                        if r != .reached { return r }
                        scan.intervalStart = true
                    }
                    scan.state.reader.starved = false
                    let saved = scan.state
                    let skipping = scan.state.skipping
                    switch scan.predictor {
                    case 1: row(&scan, 1, planeBase, tableBase, n, width, initial, skipping, data, end, isFinal)
                    case 2: row(&scan, 2, planeBase, tableBase, n, width, initial, skipping, data, end, isFinal)
                    case 3: row(&scan, 3, planeBase, tableBase, n, width, initial, skipping, data, end, isFinal)
                    case 4: row(&scan, 4, planeBase, tableBase, n, width, initial, skipping, data, end, isFinal)
                    case 5: row(&scan, 5, planeBase, tableBase, n, width, initial, skipping, data, end, isFinal)
                    case 6: row(&scan, 6, planeBase, tableBase, n, width, initial, skipping, data, end, isFinal)
                    default: row(&scan, 7, planeBase, tableBase, n, width, initial, skipping, data, end, isFinal)
                    }
                    let reader = scan.state.reader
                    if reader.overran && (reader.starved || reader.hitEnd) {
                        let starved = reader.starved
                        scan.state = saved
                        return starved ? .needMore : .truncated
                    }
                    if reader.damage != 0 {
                        let offset = baseOffset + reader.approximateOffset
                        scan.state.reader.damage = 0
                        if !scan.plan.leniencies.contains(.corruptData) {
                            return .failed(.corruptData(reason: "bad Huffman code", offset: offset))
                        }
                        if scan.state.damageReports < 10 {
                            scan.state.damageReports += 1
                            warnings.append("corrupt JPEG data at offset \(offset): bad Huffman code")
                        }
                    }
                    if reader.hitMarker && reader.overran && !scan.state.skipping {
                        // libjpeg's JWRN_HIT_MARKER: the rest of the interval gets no differences.
                        if !scan.plan.leniencies.contains(.prematureMarker) {
                            return .failed(.corruptData(reason: "premature end of entropy-coded data (a marker inside the scan)",
                                                        offset: baseOffset + reader.position))
                        }
                        warnings.append("premature end of entropy-coded data at offset \(baseOffset + reader.position); the rest of the interval is predicted")
                        scan.state.skipping = true
                        scan.state.reader.count = 0
                        scan.state.reader.bits = 0
                    }
                    scan.intervalStart = false
                    scan.row &+= 1
                    scan.state.restartsToGo &-= width
                }
                return .reached
            }
        }
    }

    /// A difference (T.81 H.1.2.2: category 16 is 32768 with no extra bits). One refill covers
    /// it: a code of at most 16 bits and at most 15 extra bits.
    @inline(__always)
    static func decodeDifference(_ w: inout BitWindow, _ reader: inout BitReader, _ table: HuffmanLookup,
                           _ data: UnsafePointer<UInt8>, _ end: Int, _ isFinal: Bool) -> Int {
        if w.count < 32 { w.refill(&reader, data, end, isFinal) }
        let s = w.decode(table, &reader)
        // Category 16 (n = 0 for RECEIVE and EXTEND, which reads nothing) is 32768.
        let extended = w.receiveExtend(s & 15)
        return s == 16 ? 32768 : extended
    }

    /// One row of every scan component: a difference per sample (none while `skipping`), added
    /// to the prediction, modulo 2^16 (T.81 H.1.2). `predictor` is a constant in each caller's
    /// copy, so the switch below folds away.
    @inline(__always)
    private static func row(_ scan: inout LosslessScan, _ predictor: Int, _ planes: UnsafePointer<UnsafeMutablePointer<UInt16>>,
                            _ tables: UnsafePointer<HuffmanLookup>, _ n: Int, _ width: Int, _ initial: Int, _ skipping: Bool,
                            _ data: UnsafePointer<UInt8>, _ end: Int, _ isFinal: Bool) {
        let y = scan.row
        let first = scan.intervalStart
        var reader = scan.state.reader
        var w = BitWindow(reader)
        @inline(__always) func difference(_ table: HuffmanLookup) -> Int {
            skipping ? 0 : LosslessRows.decodeDifference(&w, &reader, table, data, end, isFinal)
        }
        @inline(__always) func predict(_ ra: Int, _ rb: Int, _ rc: Int) -> Int {
            switch predictor {
            case 1: return ra
            case 2: return rb
            case 3: return rc
            case 4: return ra &+ rb &- rc
            case 5: return ra &+ ((rb &- rc) &>> 1)
            case 6: return rb &+ ((ra &- rc) &>> 1)
            default: return (ra &+ rb) &>> 1
            }
        }
        if n == 1 && !skipping {
            // One component: the bit buffer and the left neighbour stay in registers (the
            // difference is decoded through inout parameters, which a closure's captures are not).
            let plane = planes[0] + y &* width, above = plane - width
            let table = tables[0]
            var ra = (decodeDifference(&w, &reader, table, data, end, isFinal) &+ (first ? initial : Int(above[0]))) & 0xFFFF
            plane[0] = UInt16(truncatingIfNeeded: ra)
            if first {
                for x in 1 ..< max(width, 1) {
                    ra = (decodeDifference(&w, &reader, table, data, end, isFinal) &+ ra) & 0xFFFF
                    plane[x] = UInt16(truncatingIfNeeded: ra)
                }
            } else {
                var rb = Int(above[0])
                for x in 1 ..< max(width, 1) {
                    let rc = rb
                    rb = Int(above[x])
                    ra = (decodeDifference(&w, &reader, table, data, end, isFinal) &+ predict(ra, rb, rc)) & 0xFFFF
                    plane[x] = UInt16(truncatingIfNeeded: ra)
                }
            }
        } else {
            for x in 0 ..< width {
                for i in 0 ..< n {
                    let d = difference(tables[i])
                    let plane = planes[i] + y &* width
                    let prediction: Int
                    if first {
                        prediction = x == 0 ? initial : Int(plane[x &- 1])
                    } else if x == 0 {
                        prediction = Int(plane[x &- width])
                    } else {
                        prediction = predict(Int(plane[x &- 1]), Int(plane[x &- width]), Int(plane[x &- width &- 1]))
                    }
                    plane[x] = UInt16(truncatingIfNeeded: d &+ prediction)
                }
            }
        }
        w.store(into: &reader)
        scan.state.reader = reader
    }
}
