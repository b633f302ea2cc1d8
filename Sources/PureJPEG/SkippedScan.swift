import ImageCore

/// An AC scan of components decoded from their DC terms alone, passed over to its end without
/// Huffman decoding (``JPEGDecodingOptions/dcScaleToFit``): for a 192 MP progressive photo's
/// thumbnail, most of the file is only searched for markers.
///
/// The scan ends where libjpeg's entropy decoder would hand a marker to the marker reader: at
/// the first marker of 0xC0 and above other than RSTn. In a scan with restart intervals, other
/// codes below 0xC0 are passed over too (libjpeg's resync discards them); without intervals they
/// end the scan. Nothing in the data is checked: a damaged scan is passed over as if whole.
struct SkippedScan: Sendable {
    var restartInterval: Int

    /// Walks `bytes[from...]` for the scan's end. Returns where the ending marker's 0xFF is (nil
    /// when none yet) and where the next walk starts (the last byte waits for its successor).
    func walk(_ bytes: UnsafePointer<UInt8>, count: Int, from: Int) -> (end: Int?, next: Int) {
        var i = max(from, 0)
        let ff = SIMD16<UInt8>(repeating: 0xFF)
        while i &+ 1 < count {
            if i &+ 17 <= count, !any(UnsafeRawPointer(bytes + i).loadUnaligned(as: SIMD16<UInt8>.self) .== ff) {
                i &+= 16
                continue
            }
            if bytes[i] == 0xFF {
                let code = bytes[i &+ 1]
                let passed = code == 0 || code == 0xFF || (Marker.rst0 ... Marker.rst7).contains(code)
                    || (code < 0xC0 && restartInterval > 0)
                if !passed { return (i, i) }
            }
            i &+= 1
        }
        return (nil, i)
    }
}

extension JPEGDecoder {
    /// Passes over the current skipped scan as far as the input goes; true at its end.
    mutating func passOverScan(_ events: inout [DecodingEvent]) -> Bool {
        guard let scan = skipped else { return true }
        let (end, next) = input.withUnsafeUnread { bytes -> (Int?, Int) in
            guard let base = bytes.baseAddress else { return (nil, 0) }
            return scan.walk(base, count: bytes.count, from: 0)
        }
        guard let end else {
            input.consume(next)
            return false
        }
        input.consume(end)
        skipped = nil
        scansCompleted += 1
        scansPassedOver += 1
        events.append(.scanComplete(scansCompleted - 1))
        phase = .markers
        return true
    }
}
