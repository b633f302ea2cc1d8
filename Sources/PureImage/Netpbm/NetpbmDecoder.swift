import ImageCore

/// Decodes Netpbm images, incrementally: PGM and PPM, plain (`P2`, `P3`) and raw (`P5`, `P6`),
/// read as libjpeg-turbo's `cjpeg` reads them (rdppm.c), plus PBM (`P1`, `P4`) and PAM (`P7`).
///
/// Header fields may be separated by any whitespace and `#` comments, which end at a line
/// end; the raster of a raw file starts after the one character that ends maxval (or after the
/// comment that character starts, as in cjpeg). Samples come out at the source's depth: 8-bit
/// pixels when maxval is at most 255, 16-bit above. A maxval other than 255 or 65535 is scaled
/// to the full range as cjpeg scales it (`(v * 255 + maxval / 2) / maxval`, and the same to
/// 65535), so an 8-bit JPEG encoded from the pixels gets cjpeg's samples. A sample above maxval
/// is an error, as in cjpeg. PBM's 1 is black. PAM's depth gives the channels (1 gray, 2 gray
/// and alpha, 3 RGB, 4 RGBA; BLACKANDWHITE is gray with maxval 1). A file holding several
/// images gives its first; bytes after it are ignored.
///
/// ```swift
/// let image = try NetpbmDecoder.decode(bytes)          // a whole file
/// var decoder = NetpbmDecoder()                         // or as the bytes arrive
/// for chunk in chunks { _ = try decoder.append(chunk) } // .header, then .rows(...)
/// let image = try decoder.finish()
/// ```
public struct NetpbmDecoder: Sendable {
    /// Size and memory bounds, checked when the header is complete, before the image is allocated.
    public let limits: DecodingLimits
    /// Size and pixel format, once the header is complete.
    public private(set) var header: ImageHeader?
    /// The format number of the magic (`P1` ... `P7`), once read.
    public private(set) var magic = 0
    /// The header's maxval (1 for PBM), once read.
    public private(set) var maxval = 0
    /// PAM's TUPLTYPE lines joined by spaces (empty for the other formats or when absent).
    public private(set) var tupleType = ""

    private enum Phase: Sendable { case signature, fields, pamLine, raster, done }
    private var phase = Phase.signature
    private var offset = 0
    private var failure: NetpbmError?
    // Header numbers (P1-P6) and plain samples: the number being read and whether a `#` comment runs.
    private var fields: [Int] = []
    private var number = 0
    private var digits = 0
    private var inComment = false
    // PAM: the current header line (comment lines are skipped, not kept).
    private var line: [UInt8] = []
    private var firstLine = true
    private var pam: [String: Int] = [:]
    // The image.
    private var width = 0
    private var height = 0
    private var channels = 1
    private var wide = false
    private var pixels: [UInt8] = []
    private var samples = 0
    private var totalSamples = 0
    private var column = 0
    private var highByte = -1
    private var table: [UInt16] = []
    private var rowsReported = 0
    /// Row streaming (``RowStreamDecoder``): the rows `pixels` holds at once (0: the whole
    /// image), and the sample index of `pixels[0]`.
    private var windowRows = 0
    private var base = 0
    private var windowEnd: Int { windowRows > 0 ? min(totalSamples, base + windowRows * width * channels) : totalSamples }

    /// A decoder that refuses images beyond `limits`.
    public init(limits: DecodingLimits = .default) {
        self.limits = limits
    }

    /// Decodes a whole file.
    public static func decode(_ bytes: [UInt8], limits: DecodingLimits = .default) throws(NetpbmError) -> Image {
        var decoder = NetpbmDecoder(limits: limits.knowingInputSize(bytes.count))
        var failure: NetpbmError?
        bytes.withUnsafeBytes { raw in
            do throws(NetpbmError) { _ = try decoder.append(raw) } catch { failure = error }
        }
        if let failure { throw failure }
        return try decoder.finish()
    }

    /// Feeds the next bytes; returns what became available (`.header`, `.rows`, `.end`).
    /// After an error every call throws it.
    public mutating func append(_ bytes: UnsafeRawBufferPointer) throws(NetpbmError) -> [DecodingEvent] {
        do {
            return try append(bytes, rows: { _ in })
        } catch let error as NetpbmError {
            throw error
        } catch {
            fatalError("no row sink, no other error")
        }
    }

    /// A decoder that hands out rows (``append(_:rows:)``) instead of building the image: it
    /// holds `windowBytes` of rows (at least one row), whatever the height.
    init(streamingRowsWithin limits: DecodingLimits, windowBytes: Int = 1 << 18) {
        self.limits = limits
        windowRows = -max(windowBytes, 1)
    }

    /// ``append(_:)`` handing the rows that became complete to `rows` (streaming decoders only).
    mutating func append(_ bytes: UnsafeRawBufferPointer, rows sink: (RowBand) throws -> Void) throws -> [DecodingEvent] {
        if let failure { throw failure }
        var events: [DecodingEvent] = []
        do {
            var i = 0
            while i < bytes.count {
                switch phase {
                case .signature:
                    let c = bytes[i]
                    if offset == 0 && c != UInt8(ascii: "P") { throw NetpbmError.invalidSignature(offset: 0) }
                    if offset == 1 {
                        guard (UInt8(ascii: "1") ... UInt8(ascii: "7")).contains(c) else { throw NetpbmError.invalidSignature(offset: 0) }
                        magic = Int(c - UInt8(ascii: "0"))
                        phase = magic == 7 ? .pamLine : .fields
                    }
                    i += 1
                    offset += 1
                case .fields:
                    let used = try readFields(bytes, from: i, events: &events)
                    i += used
                    offset += used
                case .pamLine:
                    let used = try readPAMHeader(bytes, from: i, events: &events)
                    i += used
                    offset += used
                case .raster:
                    // Streaming raw 8-bit samples stored as they are: whole rows go out straight
                    // from the input, without the copy into the window.
                    let rawRows = streamsRawRows
                    let perRow = width * channels
                    if rawRows && samples == base, let format = header?.pixelFormat, let start = bytes.baseAddress {
                        let rows = min((bytes.count - i) / perRow, (totalSamples - samples) / perRow)
                        if rows > 0 {
                            try sink(RowBand(y: samples / perRow, count: rows, width: width, format: format,
                                             bytesPerRow: perRow, base: start + i))
                            samples += rows * perRow
                            base = samples
                            i += rows * perRow
                            offset += rows * perRow
                            if samples == totalSamples { phase = .done }
                            reportRows(&events)
                            continue
                        }
                    }
                    // A row split between two pieces: only its end is copied into the window,
                    // and handed out at once, so the rest of the piece goes out uncopied again.
                    var view = bytes
                    if rawRows && perRow > 0 {
                        let need = perRow - (samples - base) % perRow
                        view = UnsafeRawBufferPointer(rebasing: bytes[..<min(bytes.count, i + need)])
                    }
                    let used = try readRaster(view, from: i)
                    i += used
                    offset += used
                    reportRows(&events)
                    if windowRows > 0 && (samples == windowEnd || (rawRows && perRow > 0 && (samples - base) % perRow == 0)) {
                        try flushRows(sink)
                    }
                case .done:
                    offset += bytes.count - i
                    i = bytes.count
                }
            }
            if windowRows > 0 { try flushRows(sink) }
        } catch let error as NetpbmError {
            failure = error
            throw error
        }
        return events
    }

    /// A streaming decoder of raw 8-bit samples stored as they are (after the header): whole
    /// rows can go out straight from the input.
    private var streamsRawRows: Bool { windowRows > 0 && magic >= 5 && !wide && table.isEmpty && header != nil }

    /// Hands out the complete rows in the window and keeps the partial one at its start.
    private mutating func flushRows(_ sink: (RowBand) throws -> Void) throws {
        let perRow = width * channels, bytesPerSample = wide ? 2 : 1
        let rows = (samples - base) / perRow
        guard rows > 0, let format = header?.pixelFormat else { return }
        try pixels.withUnsafeBytes { raw in
            try sink(RowBand(y: base / perRow, count: rows, width: width, format: format,
                             bytesPerRow: perRow * bytesPerSample, base: raw.baseAddress!))
        }
        let done = rows * perRow, rest = samples - base - done
        if rest > 0 {
            pixels.withUnsafeMutableBytes { raw in
                raw.baseAddress!.copyMemory(from: raw.baseAddress! + done * bytesPerSample, byteCount: rest * bytesPerSample)
            }
        }
        base += done
    }

    /// The input has ended: a plain raster's last number may end with the file (as cjpeg reads
    /// it); before the raster, the file is cut short.
    private mutating func endRaster() throws(NetpbmError) {
        if let failure { throw failure }
        do throws(NetpbmError) {
            if phase == .raster && magic != 1 && magic <= 3 && digits > 0 && !inComment { try storePlain(offset: offset) }
            guard phase == .raster || phase == .done else { throw .truncated(offset: offset, partial: nil) }
        } catch {
            failure = error
            throw error
        }
    }

    /// ``finish()`` for a streaming decoder: the last rows to `rows`, then the truncation error
    /// (without a partial image) when the raster is short.
    mutating func finish(rows sink: (RowBand) throws -> Void) throws {
        try endRaster()
        try flushRows(sink)
        guard samples == totalSamples else {
            let error = NetpbmError.truncated(offset: offset, partial: nil)
            failure = error
            throw error
        }
        phase = .done
    }

    /// Ends the input: the image, or the error (``NetpbmError/truncated(offset:partial:)`` with
    /// the rows decoded so far when the raster is short).
    public mutating func finish() throws(NetpbmError) -> Image {
        try endRaster()
        let image = Image(width: width, height: height, format: header?.pixelFormat ?? .gray8, pixels: pixels)
        guard samples == totalSamples else {
            let error = NetpbmError.truncated(offset: offset, partial: image)
            failure = error
            throw error
        }
        phase = .done
        return image
    }

    /// The image so far (rows not yet read are zero), once the header is complete.
    public func preview() -> Image? {
        guard let header, phase == .raster || phase == .done else { return nil }
        return Image(width: width, height: height, format: header.pixelFormat, pixels: pixels)
    }

    // MARK: Header

    private static func isSpace(_ c: UInt8) -> Bool { c == 0x20 || c == 0x09 || c == 0x0A || c == 0x0D }
    private static func isDigit(_ c: UInt8) -> Bool { c >= 0x30 && c <= 0x39 }

    /// P1-P6: width, height and (not for PBM) maxval, each read as cjpeg's `read_pbm_integer`
    /// reads: whitespace and comments skipped, digits, then one character consumed.
    private mutating func readFields(_ bytes: UnsafeRawBufferPointer, from start: Int,
                                     events: inout [DecodingEvent]) throws(NetpbmError) -> Int {
        let needed = magic == 1 || magic == 4 ? 2 : 3
        var i = start
        while i < bytes.count {
            let c = bytes[i]
            let at = offset + (i - start)
            i += 1
            if inComment {
                if c == 0x0A || c == 0x0D { inComment = false }
                if inComment || fields.count < needed { continue }
                // The comment that ended the last field is over: the raster follows.
                try startRaster(at: at + 1, events: &events)
                return i - start
            }
            if Self.isDigit(c) {
                if number > 1 << 31 { throw .invalidHeader(reason: "number too large", offset: at) }
                number = number * 10 + Int(c - 0x30)
                digits += 1
                continue
            }
            if digits == 0 {
                if c == UInt8(ascii: "#") { inComment = true; continue }
                if Self.isSpace(c) { continue }
                throw .invalidHeader(reason: "a header field is not a number", offset: at)
            }
            // The character after a number is consumed with it (a `#` starts a comment).
            fields.append(number)
            number = 0
            digits = 0
            if c == UInt8(ascii: "#") { inComment = true }
            if fields.count == needed && !inComment {
                try startRaster(at: at + 1, events: &events)
                return i - start
            }
        }
        return i - start
    }

    /// PAM: `KEYWORD value` lines up to ENDHDR (`#` lines are comments).
    private mutating func readPAMHeader(_ bytes: UnsafeRawBufferPointer, from start: Int,
                                        events: inout [DecodingEvent]) throws(NetpbmError) -> Int {
        var i = start
        while i < bytes.count {
            let c = bytes[i]
            let at = offset + (i - start)
            i += 1
            if c != 0x0A {
                if inComment { continue }
                if line.isEmpty && c == UInt8(ascii: "#") && !firstLine { inComment = true; continue }
                if line.count >= 1024 { throw .invalidHeader(reason: "header line longer than 1024 bytes", offset: at) }
                line.append(c)
                continue
            }
            if inComment {
                inComment = false
                continue
            }
            let text = String(decoding: line, as: UTF8.self)
            line.removeAll(keepingCapacity: true)
            let words = text.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\r" })
            if firstLine {
                firstLine = false
                if !words.isEmpty { throw .invalidHeader(reason: "text after P7 on its line", offset: at) }
                continue
            }
            guard let keyword = words.first else { continue }
            switch keyword {
            case "ENDHDR":
                try startPAM(at: at, events: &events)
                return i - start
            case "TUPLTYPE":
                let value = words.dropFirst().joined(separator: " ")
                if tupleType.count + value.count > 256 { throw .invalidHeader(reason: "TUPLTYPE too long", offset: at) }
                tupleType += (tupleType.isEmpty ? "" : " ") + value
            case "WIDTH", "HEIGHT", "DEPTH", "MAXVAL":
                guard words.count == 2, let value = Int(words[1]), value >= 0, value <= 1 << 31 else {
                    throw .invalidHeader(reason: "\(keyword) is not a number", offset: at)
                }
                pam[String(keyword)] = value
            default:
                throw .invalidHeader(reason: "unknown header line \"\(keyword)\"", offset: at)
            }
        }
        return i - start
    }

    private mutating func startPAM(at: Int, events: inout [DecodingEvent]) throws(NetpbmError) {
        for key in ["WIDTH", "HEIGHT", "DEPTH", "MAXVAL"] where pam[key] == nil {
            throw .invalidHeader(reason: "no \(key) line before ENDHDR", offset: at)
        }
        let depth = pam["DEPTH"] ?? 0
        guard depth >= 1 else { throw .invalidHeader(reason: "DEPTH 0", offset: at) }
        guard depth <= 4 else { throw .unsupportedDepth(depth, offset: at) }
        fields = [pam["WIDTH"] ?? 0, pam["HEIGHT"] ?? 0, pam["MAXVAL"] ?? 0]
        channels = depth
        try startRaster(at: at + 1, events: &events)
    }

    /// Checks the header, allocates the image and builds the sample table.
    private mutating func startRaster(at: Int, events: inout [DecodingEvent]) throws(NetpbmError) {
        width = fields[0]
        height = fields[1]
        maxval = fields.count > 2 ? fields[2] : 1
        if magic != 7 { channels = magic == 3 || magic == 6 ? 3 : 1 }
        guard width > 0 && height > 0 else { throw .invalidHeader(reason: "zero width or height", offset: at) }
        guard maxval >= 1 && maxval <= 65535 else { throw .invalidHeader(reason: "maxval \(maxval) outside 1...65535", offset: at) }
        wide = maxval > 255
        let format = PixelFormat(color: channels >= 3, alpha: channels == 2 || channels == 4, sixteenBit: wide)
        if windowRows < 0 { windowRows = max(1, -windowRows / (width * format.bytesPerPixel)) }
        let heldRows = windowRows > 0 ? min(windowRows, height) : height
        if let violation = limits.check(width: width, height: height, bytesPerPixel: windowRows > 0 ? 0 : format.bytesPerPixel,
                                        extraBytes: windowRows > 0 ? heldRows * width * format.bytesPerPixel : 0) {
            throw .limitExceeded(violation, offset: at)
        }
        pixels = [UInt8](repeating: 0, count: width * heldRows * format.bytesPerPixel)
        totalSamples = width * height * channels
        let top = wide ? 65535 : 255
        if magic == 1 || magic == 4 {
            table = [255, 0]
        } else if maxval != top {
            table = (0 ... maxval).map { UInt16(($0 * top + maxval / 2) / maxval) }
        }
        header = ImageHeader(fileFormat: .netpbm, width: width, height: height, pixelFormat: format)
        events.append(.header(header!))
        phase = .raster
    }

    // MARK: Raster

    private mutating func readRaster(_ bytes: UnsafeRawBufferPointer, from start: Int) throws(NetpbmError) -> Int {
        let used: Int
        switch magic {
        case 1, 2, 3: used = try readPlain(bytes, from: start)
        case 4: used = readBits(bytes, from: start)
        default: used = wide ? try readWide(bytes, from: start) : try readBytes(bytes, from: start)
        }
        if samples == totalSamples { phase = .done }
        return used
    }

    /// Raw samples of one byte.
    private mutating func readBytes(_ bytes: UnsafeRawBufferPointer, from start: Int) throws(NetpbmError) -> Int {
        let n = min(bytes.count - start, windowEnd - samples)
        guard n > 0, let src = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self).advanced(by: start) else { return 0 }
        let first = samples - base, limit = maxval
        var bad = -1
        pixels.withUnsafeMutableBufferPointer { out in
            guard let dst = out.baseAddress?.advanced(by: first) else { return }
            if table.isEmpty {
                dst.update(from: src, count: n)
                return
            }
            table.withUnsafeBufferPointer { map in
                for k in 0 ..< n {
                    let v = Int(src[k])
                    if v > limit { bad = k; return }
                    dst[k] = UInt8(truncatingIfNeeded: map[v])
                }
            }
        }
        if bad >= 0 {
            throw .sampleOutOfRange(value: Int(src[bad]), maxval: maxval, offset: offset + bad)
        }
        samples += n
        return n
    }

    /// Raw samples of two bytes, big-endian, stored native-endian.
    private mutating func readWide(_ bytes: UnsafeRawBufferPointer, from start: Int) throws(NetpbmError) -> Int {
        var i = start
        let end = windowEnd
        while i < bytes.count && samples < end {
            let c = Int(bytes[i])
            i += 1
            if highByte < 0 {
                highByte = c
                continue
            }
            let v = highByte << 8 | c
            highByte = -1
            if v > maxval { throw .sampleOutOfRange(value: v, maxval: maxval, offset: offset + (i - start) - 2) }
            let out = table.isEmpty ? UInt16(v) : table[v]
            let at = (samples - base) * 2
            pixels.withUnsafeMutableBytes { $0.storeBytes(of: out, toByteOffset: at, as: UInt16.self) }
            samples += 1
        }
        return i - start
    }

    /// PBM raw: eight pixels a byte, most significant bit first, rows padded to a byte; 1 is black.
    private mutating func readBits(_ bytes: UnsafeRawBufferPointer, from start: Int) -> Int {
        var i = start
        let end = windowEnd
        while i < bytes.count && samples < end {
            let c = bytes[i]
            i += 1
            let n = min(8, width - column)
            for bit in 0 ..< n {
                pixels[samples - base + bit] = (c >> UInt8(7 - bit)) & 1 == 1 ? 0 : 255
            }
            samples += n
            column += n
            if column == width { column = 0 }
        }
        return i - start
    }

    /// Plain rasters: decimal numbers between whitespace and comments (PBM: each 0 or 1 is a
    /// pixel, with or without whitespace).
    private mutating func readPlain(_ bytes: UnsafeRawBufferPointer, from start: Int) throws(NetpbmError) -> Int {
        var i = start
        while i < bytes.count && samples < windowEnd {
            let c = bytes[i]
            let at = offset + (i - start)
            i += 1
            if inComment {
                if c == 0x0A || c == 0x0D { inComment = false }
                continue
            }
            if Self.isDigit(c) {
                if magic == 1 {
                    guard c <= 0x31 else { throw .invalidSample(offset: at) }
                    pixels[samples - base] = c == 0x31 ? 0 : 255
                    samples += 1
                    continue
                }
                number = min(number * 10 + Int(c - 0x30), 1 << 20)
                digits += 1
                continue
            }
            guard Self.isSpace(c) || c == UInt8(ascii: "#") else { throw .invalidSample(offset: at) }
            if c == UInt8(ascii: "#") { inComment = true }
            if digits > 0 { try storePlain(offset: at) }
        }
        return i - start
    }

    /// Stores the plain sample just read.
    private mutating func storePlain(offset at: Int) throws(NetpbmError) {
        let v = number
        number = 0
        digits = 0
        if v > maxval { throw .sampleOutOfRange(value: v, maxval: maxval, offset: at) }
        let out = table.isEmpty ? UInt16(v) : table[v]
        if wide {
            let byteOffset = (samples - base) * 2
            pixels.withUnsafeMutableBytes { $0.storeBytes(of: out, toByteOffset: byteOffset, as: UInt16.self) }
        } else {
            pixels[samples - base] = UInt8(truncatingIfNeeded: out)
        }
        samples += 1
        if samples == totalSamples { phase = .done }
    }

    private mutating func reportRows(_ events: inout [DecodingEvent]) {
        let perRow = width * channels
        let rows = perRow > 0 ? samples / perRow : 0
        if rows > rowsReported {
            events.append(.rows(rowsReported ..< rows))
            rowsReported = rows
        }
        if phase == .done { events.append(.end) }
    }
}
