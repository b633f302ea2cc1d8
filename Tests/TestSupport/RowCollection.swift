import ImageCore

/// What a row-streaming decode handed out: the rows' pixels (their order checked as they
/// arrive), the events, the codec's error, and the largest retained memory seen.
public struct RowCollection<Failure: Error> {
    public var pixels: [UInt8] = []
    public var rows = 0
    public var events: [DecodingEvent] = []
    public var error: Failure?
    public var otherError: (any Error)?
    public var header: ImageHeader?
    public var peakRetained = 0
    public var orderProblems: [String] = []
}

/// Feeds `bytes` to `decoder` in pieces of `step` bytes (nil: all at once), then finishes it,
/// collecting every band; `retained` and `header` read the decoder between pieces and at the end.
public func collectRows<D: RowStreamingDecoder, Failure: Error>(
    _ decoder: inout D, _ bytes: [UInt8], step: Int?, failure: Failure.Type,
    retained: (D) -> Int, header: (D) -> ImageHeader?
) -> RowCollection<Failure> {
    var result = RowCollection<Failure>()
    var shapes: Set<String> = []
    let take = { (band: RowBand) in
        if band.y != result.rows { result.orderProblems.append("band at row \(band.y), expected \(result.rows)") }
        // The decoder is busy (in `append`) while it lends the band: compare with the header afterwards.
        shapes.insert("\(band.width) \(band.format) \(band.bytesPerRow)")
        for i in 0 ..< band.count { result.pixels += band.row(i) }
        result.rows += band.count
    }
    let size = step ?? max(bytes.count, 1)
    var i = 0
    do {
        while i < bytes.count {
            let end = min(bytes.count, i + size)
            result.events += try decoder.append(bytes[i ..< end], rows: take)
            result.peakRetained = max(result.peakRetained, retained(decoder))
            i = end
        }
        try decoder.finish(rows: take)
    } catch let error as Failure {
        result.error = error
    } catch {
        result.otherError = error
    }
    result.header = header(decoder)
    if let header = result.header {
        let expected = "\(header.width) \(header.pixelFormat) \(header.width * header.pixelFormat.bytesPerPixel)"
        if !shapes.subtracting([expected]).isEmpty { result.orderProblems.append("bands \(shapes), header \(expected)") }
    }
    return result
}
