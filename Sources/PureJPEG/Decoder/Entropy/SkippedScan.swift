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
}

extension JPEGDecoder {
    /// Passes over the current skipped scan as far as the input goes; true at its end.
    mutating func passOverScan(_ events: inout [DecodingEvent]) -> Bool {
        guard let scan = coefficientState.skipped else { return true }
        let (found, next) = input.withUnsafeUnread { bytes -> (Bool, Int) in
            guard let base = bytes.baseAddress else { return (false, 0) }
            return Self.findScanEnd(base, count: bytes.count, from: 0, passingCodesBelowC0: scan.restartInterval > 0)
        }
        input.consume(next)
        guard found else { return false }
        coefficientState.skipped = nil
        scansCompleted += 1
        coefficientState.scansPassedOver += 1
        events.append(.scanComplete(scansCompleted - 1))
        phase = .markers
        return true
    }
}
