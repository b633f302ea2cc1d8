import ImageCore

/// The outer loop over marker segments (T.81 B.2): whole segments are read from the input
/// buffer (waiting until a segment is complete), dispatched by marker, and a scan's entropy-
/// coded data handed to the scan driver.
extension JPEGDecoder {
    mutating func step() throws(JPEGError) -> [DecodingEvent] {
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
        guard phase != .done, failure == nil, markers.suppliedEOI == nil, options.leniencies.contains(.truncation), frame != nil else {
            return nil
        }
        let end = input.offset(input.count)
        markers.suppliedEOI = end
        record([.warning("premature end of JPEG file at offset \(end)")])
        var supplied = [UInt8](repeating: 0xD9, count: 65_540)
        for i in stride(from: 0, to: supplied.count, by: 2) { supplied[i] = 0xFF }
        input.append(contentsOf: supplied)
        input.isFinished = true
        return end
    }

    /// ``step()`` without setting `failure` or recording warnings (``finish()`` decides what a
    /// failure after supplied EOI markers becomes).
    mutating func stepThrowing() throws(JPEGError) -> [DecodingEvent] {
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
    mutating func readSegment(_ events: inout [DecodingEvent]) throws(JPEGError) -> Bool {
        // Bytes that are not a marker are skipped with a warning (libjpeg's JWRN_EXTRANEOUS_DATA).
        var i = 0
        while i < input.count && input[i] != 0xFF { i += 1 }
        if i > 0 {
            markers.extraneousBytes += i
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
            markers.extraneousBytes += 2
            input.consume(j + 1)
            return true
        }
        input.consume(j - 1)
        let offset = input.offset()
        if markers.extraneousBytes > 0 {
            if !options.leniencies.contains(.extraneousBytes) {
                throw .corruptData(reason: "\(markers.extraneousBytes) extraneous bytes before marker 0x\(hex(marker))", offset: offset - markers.extraneousBytes)
            }
            events.append(.warning("\(markers.extraneousBytes) extraneous bytes before marker 0x\(hex(marker)) at offset \(offset)"))
            markers.extraneousBytes = 0
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
                events.append(.warning("stray marker 0x\(hex(marker)) at offset \(offset) coefficientState.skipped"))
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

    mutating func segment(_ marker: UInt8, body: [UInt8], offset: Int, _ events: inout [DecodingEvent]) throws(JPEGError) {
        switch marker {
        case _ where Marker.isSOF(marker):
            guard frame == nil else { throw .invalidMarker(marker: marker, offset: offset - 4) }
            try startFrame(try SegmentParser.frame(body, marker: marker, offset: offset), &events)
        case Marker.dht:
            for t in try SegmentParser.huffmanTables(body, offset: offset) {
                if t.isDC { tables.dc[t.index] = t.table } else { tables.ac[t.index] = t.table }
                tables.invalid[(t.isDC ? 0 : 4) + t.index] = t.problem
                tables.standardSlots &= ~(1 << UInt8((t.isDC ? 0 : 4) + t.index))
                if t.isDC { tables.losslessSpecs[t.index] = (t.counts, t.values) }
            }
        case Marker.dqt:
            for t in try SegmentParser.quantizationTables(body, offset: offset) {
                tables.quant[t.index] = t.table
                if t.index == 0 { markers.estimatedQuality = estimateQuality(t.table) }
            }
            info?.estimatedQuality = markers.estimatedQuality
        case Marker.dri:
            tables.restartInterval = try SegmentParser.restartInterval(body, offset: offset)
            info?.restartInterval = tables.restartInterval
        case Marker.sos:
            guard let frame else { throw .invalidScan(reason: "SOS before SOF", offset: offset - 4) }
            if frame.process == .lossless {
                try startLosslessScan(try SegmentParser.scan(body, frame: frame, offset: offset), frame: frame, &events)
            } else {
                try startScan(try SegmentParser.scan(body, frame: frame, offset: offset), frame: frame, &events)
            }
        case Marker.app0 ... Marker.app15, Marker.com:
            markers.collector.add(marker: marker, body: body, limit: limits.maxMetadataBytes)
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
                    arithmetic.dcL[index] = value & 0x0F
                    arithmetic.dcU[index] = value >> 4
                } else {
                    arithmetic.acK[index - 16] = value
                }
            }
        default:
            throw .invalidMarker(marker: marker, offset: offset - 4)
        }
    }

    mutating func flushMetadata(_ events: inout [DecodingEvent], offset: Int? = nil) {
        metadata = markers.collector.metadata
        if let bits = rowSignificantBits { metadata.significantBits = bits }
        for w in markers.collector.warnings { events.append(.warning(offset.map { "\(w) at offset \($0)" } ?? w)) }
        markers.collector.warnings.removeAll()
        if var info = self.info {
            info.adobeTransform = markers.collector.adobeTransform
            info.isJFIF = markers.collector.isJFIF
            info.density = metadata.density
            self.info = info
        }
    }
}
