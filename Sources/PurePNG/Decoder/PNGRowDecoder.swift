import ImageCore

/// A PNG decoder that hands out finished rows instead of building the image, so a huge
/// non-interlaced PNG decodes in memory independent of its height.
///
/// A non-interlaced row is final once it is unfiltered: each block of inflated rows (64 KiB of
/// filtered data, or two rows if they are longer) is expanded into a buffer of that many output
/// rows and handed out before the next block is inflated. Memory: that buffer, the block, the
/// previous row and zlib's 32 KiB window, plus the unread input. The rows are the decoder's
/// output format, the same bytes as ``PNGDecoder/decode(_:limits:options:)``. An interlaced
/// (Adam7) image is decoded whole and handed out at IEND: within the limits, or above
/// ``PNGDecodingOptions/spillAbove`` bytes in a temporary file of which 16 MB is in memory.
///
/// Rows arrive top to bottom, each exactly once. A truncated file hands out the rows decoded so
/// far, then throws ``PNGError/truncated(offset:partial:)``, its partial image nil unless the
/// file is interlaced.
///
/// ```swift
/// var decoder = PNGRowDecoder()
/// for chunk in chunks {
///     try decoder.append(chunk) { band in
///         for i in 0 ..< band.count { write(row: band.y + i, band.row(i)) }
///     }
/// }
/// try decoder.finish { band in write(band) }
/// ```
public struct PNGRowDecoder: RowStreamingDecoder, Sendable {
    var decoder: PNGDecoder
    private var handedWhole = false

    /// A row decoder waiting for the signature; `limits` apply as for ``PNGDecoder``.
    public init(limits: DecodingLimits = .default, options: PNGDecodingOptions = .init()) {
        decoder = PNGDecoder(limits: limits, options: options)
        decoder.rowMode = true
    }

    /// Size and pixel format of the rows, after the `.header` event (at the first IDAT).
    public var header: ImageHeader? { decoder.header }
    /// IHDR, PLTE and tRNS as parsed so far.
    public var info: PNGInfo? { decoder.info }
    /// The ancillary chunks parsed so far.
    public var metadata: ImageMetadata { decoder.metadata }
    /// Every warning so far (see ``PNGDecoder/warnings``).
    public var warnings: [String] { decoder.warnings }

    /// True when rows come out as the bytes arrive, false when they come at IEND (Adam7);
    /// known at the `.header` event.
    public var isStreaming: Bool { decoder.imageData?.rowMode == true }

    /// True when an interlaced image is kept in a temporary file (``PNGDecodingOptions/spillAbove``).
    var isSpilled: Bool { decoder.imageData?.spill != nil }

    /// Memory held beside the unread input and zlib's window (row buffer, block, previous row;
    /// the image when interlaced). Tests check that it does not depend on the height.
    var retainedBytes: Int { decoder.imageData?.retainedBytes ?? 0 }

    /// Feeds the next bytes; `rows` receives every band that became final, before this returns.
    /// Throws a `PNGError`, or what `rows` throws.
    @discardableResult
    public mutating func append(_ bytes: UnsafeRawBufferPointer, rows: (RowBand) throws -> Void) throws -> [DecodingEvent] {
        var events = try decoder.append(bytes)
        try drain(&events, rows)
        return events
    }

    /// Ends the input: `rows` receives what is left. A file cut short throws
    /// ``PNGError/truncated(offset:partial:)`` after the rows decoded so far.
    public mutating func finish(rows: (RowBand) throws -> Void) throws {
        if let failure = decoder.failed { throw failure }
        var events: [DecodingEvent] = []
        try drain(&events, rows)
        if decoder.hasEnded { return }
        if decoder.endInputKeepingImage() {
            // The image is complete as libpng reads it (see PNGDecoder.finish): the rest is handed out.
            try drain(&events, rows)
            return
        }
        if decoder.info?.interlaced == true && decoder.imageData?.spill == nil {
            _ = try decoder.finish()     // throws the truncation error with the partial image
        }
        throw decoder.failTruncated()
    }

    private mutating func drain(_ events: inout [DecodingEvent], _ rows: (RowBand) throws -> Void) throws {
        // Nothing of `decoder` is held across the resuming `append`, so its buffers are not copied.
        while let header = decoder.header, let pending = decoder.imageData?.pendingRows, !pending.isEmpty {
            decoder.takePendingRows()
            let rowBytes = header.width * header.pixelFormat.bytesPerPixel
            try decoder.imageData?.pixels.withUnsafeBytes { raw in
                guard let base = raw.baseAddress else { return }
                try rows(RowBand(y: pending.lowerBound, count: pending.count, width: header.width, format: header.pixelFormat,
                                 bytesPerRow: rowBytes, base: base))
            }
            events += try decoder.append(UnsafeRawBufferPointer(start: nil, count: 0))
        }
        if decoder.hasEnded, !handedWhole, let spill = decoder.imageData?.spill, let header = decoder.header {
            // A spilled interlaced image: its rows from the file, a band at a time.
            handedWhole = true
            let rowBytes = header.width * header.pixelFormat.bytesPerPixel
            let band = max(1, (1 << 20) / max(rowBytes, 1))
            var y = 0
            while y < header.height {
                let n = min(band, header.height - y)
                try rows(RowBand(y: y, count: n, width: header.width, format: header.pixelFormat, bytesPerRow: rowBytes,
                                 base: spill.base + y * rowBytes))
                spill.noteTouched(bytes: n * rowBytes)
                y += n
            }
            return
        }
        if decoder.hasEnded, !handedWhole, decoder.imageData?.rowMode == false {
            handedWhole = true
            let image = try decoder.finish()
            try image.withRowBand(0 ..< image.height, rows)
        }
    }
}

extension ImageDataDecoder {
    /// See ``PNGRowDecoder``'s `retainedBytes`.
    var retainedBytes: Int { pixels.count + blockBytes + (spill == nil ? 0 : SpillBuffer.window) }
}
