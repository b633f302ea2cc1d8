import ImageCore

/// The IDAT stage: compressed bytes in, finished output rows out (PNG 10 -> 9 -> 7.2).
///
/// zlib inflates straight into `block`, a buffer of whole filtered rows (at least two rows,
/// normally 64 KiB). Each complete row is unfiltered in place, using the row before it in
/// the block (or the saved `prevRow` for the first row of a block), then expanded into the
/// output image (Adam7: into `passRow` and scattered). A partial row left at the end of a
/// block moves to its front. So memory is the output plus the block, a row and zlib's window.
struct ImageDataDecoder: Sendable {
    let info: PNGInfo
    let format: PixelFormat
    let expander: RowExpander
    let outBytesPerPixel: Int
    let filterBytesPerPixel: Int
    /// The output image's samples, rows not yet decoded zero. Row mode: the rows of one block,
    /// the first being ``pendingRows``' lower bound.
    private(set) var pixels: [UInt8]
    /// Row mode (non-interlaced only): no image, each block's rows go to `pixels` and wait there.
    let rowMode: Bool
    /// Row mode: rows in `pixels` the caller has not taken; decoding pauses while there are any.
    var pendingRows: Range<Int> = 0 ..< 0
    private var inflater = Inflater()
    private var block: [UInt8]
    private let blockCapacity: Int
    private var filled = 0
    /// The last unfiltered row of the current pass, or zeros at a pass's start.
    private var prevRow: [UInt8]
    /// One expanded row of an Adam7 pass before it is scattered.
    private var passRow: [UInt8]

    /// Current pass (always 0 without interlacing); 7 once every pass is done.
    private(set) var pass = 0
    /// Rows finished in the current pass.
    private(set) var row = 0
    private var passWidth = 0
    private var passHeight = 0
    private var passRowBytes = 0
    /// Every row has been decoded.
    private(set) var rowsComplete = false
    var streamEnded: Bool { inflater.streamEnded }

    /// Working memory beside the output image, for the limits check.
    static func workingBytes(info: PNGInfo) -> Int {
        let stride = info.rowBytes(width: info.width) + 1
        return max(2 * stride, 1 << 16) + 2 * stride + info.width * 8 + 2 * Unfilter.slack + (64 << 10)
    }

    /// Bytes per output pixel of the image and extra bytes a decode allocates, for the limits
    /// check: row mode (non-interlaced) holds one block's rows instead of the image.
    static func outputBytes(info: PNGInfo, rowMode: Bool) -> (imageBytesPerPixel: Int, extraBytes: Int) {
        let working = workingBytes(info: info)
        guard rowMode && !info.interlaced else { return (info.outputFormat.bytesPerPixel, working) }
        return (0, working + bandRows(info: info) * info.width * info.outputFormat.bytesPerPixel)
    }

    /// Row mode: most rows one block of filtered rows can hold.
    static func bandRows(info: PNGInfo) -> Int {
        let stride = info.rowBytes(width: info.width) + 1
        return max(2 * stride, 1 << 16) / stride
    }

    init(info: PNGInfo, rowMode: Bool = false) {
        self.info = info
        self.rowMode = rowMode && !info.interlaced
        format = info.outputFormat
        expander = RowExpander(info: info)
        outBytesPerPixel = format.bytesPerPixel
        filterBytesPerPixel = info.filterBytesPerPixel
        let outputRows = self.rowMode ? Self.bandRows(info: info) : info.height
        pixels = [UInt8](repeating: 0, count: info.width * outputRows * format.bytesPerPixel)
        let stride = info.rowBytes(width: info.width) + 1
        blockCapacity = max(2 * stride, 1 << 16)
        block = [UInt8](repeating: 0, count: blockCapacity + Unfilter.slack)
        prevRow = [UInt8](repeating: 0, count: stride + Unfilter.slack)
        passRow = info.interlaced ? [UInt8](repeating: 0, count: info.width * format.bytesPerPixel) : []
        pass = info.interlaced ? -1 : 0
        if info.interlaced {
            var ignored: [DecodingEvent] = []
            startNextPass(events: &ignored)
        } else {
            passWidth = info.width
            passHeight = info.height
            passRowBytes = stride - 1
        }
    }

    /// Moves to the next pass with any pixels, reporting empty passes as complete too.
    private mutating func startNextPass(events: inout [DecodingEvent]) {
        while true {
            pass += 1
            row = 0
            if pass >= 7 {
                rowsComplete = true
                return
            }
            let (w, h) = Adam7.size(pass: pass, width: info.width, height: info.height)
            if w > 0 && h > 0 {
                passWidth = w
                passHeight = h
                passRowBytes = info.rowBytes(width: w)
                for i in 0 ..< passRowBytes { prevRow[i] = 0 }
                return
            }
            events.append(.passComplete(pass))
        }
    }

    /// Bytes of the inflate block and the row buffers beside `pixels`.
    var blockBytes: Int { block.count + prevRow.count + passRow.count }

    /// Rows decoded so far in a non-interlaced image.
    var rowsDecoded: Int { info.interlaced ? 0 : row }

    /// The best image so far: decoded rows (Adam7: replicated blocks), the rest zero.
    func previewPixels() -> [UInt8] {
        guard info.interlaced else { return pixels }
        return Adam7.preview(pixels, width: info.width, height: info.height, bytesPerPixel: outBytesPerPixel,
                             passesDone: max(pass, 0), rowsDone: row)
    }

    /// Feeds compressed IDAT bytes; `fileOffset` is the file offset of `input`'s first byte.
    /// Returns the bytes used: all of them, except in row mode when a block's rows are waiting
    /// (``pendingRows``); the rest must be fed again once they are taken.
    @discardableResult
    mutating func feed(_ input: UnsafeRawBufferPointer, fileOffset: Int, events: inout [DecodingEvent]) throws(PNGError) -> Int {
        var consumed = 0
        while true {
            if rowsComplete {
                // Past the last row only the end of the zlib stream (its Adler-32) may follow.
                if inflater.streamEnded {
                    if consumed < input.count { throw .tooMuchImageData(offset: fileOffset + consumed) }
                    return input.count
                }
                if consumed == input.count { return input.count }
                let step = block.withUnsafeMutableBytes { buffer in
                    inflater.inflate(UnsafeRawBufferPointer(rebasing: input[consumed...]),
                                     into: UnsafeMutableRawBufferPointer(rebasing: buffer[0 ..< 64]))
                }
                consumed += step.consumed
                if let failure = step.failure { throw .corruptImageData(message: failure, offset: fileOffset + consumed) }
                if step.produced > 0 { throw .tooMuchImageData(offset: fileOffset + consumed) }
                if step.consumed == 0 && !step.streamEnded { return input.count }
                continue
            }
            let space = blockCapacity - filled
            let start = filled
            let step = block.withUnsafeMutableBytes { buffer in
                inflater.inflate(UnsafeRawBufferPointer(rebasing: input[consumed...]),
                                 into: UnsafeMutableRawBufferPointer(rebasing: buffer[start ..< start + space]))
            }
            consumed += step.consumed
            filled += step.produced
            // Rows inflated before a zlib error are unfiltered first, so that the error reported
            // is the first in stream order whatever the chunking (a bad filter byte, then the zlib fault).
            try processRows(events: &events, offset: fileOffset + consumed)
            if let failure = step.failure { throw .corruptImageData(message: failure, offset: fileOffset + consumed) }
            if rowsComplete && filled > 0 { throw .tooMuchImageData(offset: fileOffset + consumed) }
            if step.streamEnded {
                if !rowsComplete { throw .notEnoughImageData(offset: fileOffset + consumed) }
                if !pendingRows.isEmpty { return consumed }
                continue
            }
            if !pendingRows.isEmpty { return consumed }
            // zlib stops with output space left only when it has used all the input.
            if step.produced < space { return input.count }
        }
    }

    /// Unfilters and expands every complete row in the block, then moves the partial row
    /// that remains to the front.
    private mutating func processRows(events: inout [DecodingEvent], offset: Int) throws(PNGError) {
        var pos = 0
        var lastRow = -1
        var failure: PNGError?
        let interlaced = info.interlaced
        let imageWidth = info.width
        let outBpp = outBytesPerPixel, filterBpp = filterBytesPerPixel
        let outRowBytes = imageWidth * outBpp
        // Row mode: this call's rows start at the front of `pixels`.
        let origin = rowMode ? row : 0
        while !rowsComplete {
            let rowBytes = passRowBytes, stride = rowBytes + 1
            if filled - pos < stride { break }
            let width = passWidth, height = passHeight, currentPass = pass
            var r = row
            let expander = self.expander
            let available = filled
            block.withUnsafeMutableBufferPointer { blockBuffer in
                prevRow.withUnsafeBufferPointer { prevBuffer in
                    pixels.withUnsafeMutableBufferPointer { outBuffer in
                        passRow.withUnsafeMutableBufferPointer { passBuffer in
                            guard let blk = blockBuffer.baseAddress, let saved = prevBuffer.baseAddress,
                                  let out = outBuffer.baseAddress else { return }
                            while r < height && available - pos >= stride {
                                let filter = blk[pos]
                                if filter > 4 {
                                    let y = interlaced ? Adam7.passes[currentPass].y0 + r * Adam7.passes[currentPass].dy : r
                                    failure = .invalidFilterType(filter, row: y, offset: offset)
                                    return
                                }
                                let cur = blk + pos + 1
                                let prev = lastRow >= 0 ? UnsafePointer(blk + lastRow) : saved
                                Unfilter.apply(filter, row: cur, prev: prev, count: rowBytes, bpp: filterBpp)
                                if interlaced {
                                    guard let tmp = passBuffer.baseAddress else { return }
                                    expander.expand(cur, rawBytes: rowBytes, width: width, into: tmp)
                                    Adam7.scatter(tmp, count: width, pass: currentPass, passRow: r, imageWidth: imageWidth,
                                                  bytesPerPixel: outBpp, into: out)
                                } else {
                                    expander.expand(cur, rawBytes: rowBytes, width: width, into: out + (r &- origin) &* outRowBytes)
                                }
                                lastRow = pos + 1
                                pos += stride
                                r += 1
                            }
                        }
                    }
                }
            }
            if rowMode && r > row { pendingRows = origin ..< r }
            row = r
            if let failure { throw failure }
            if row == passHeight {
                lastRow = -1
                if interlaced {
                    events.append(.passComplete(pass))
                    startNextPass(events: &events)
                } else {
                    rowsComplete = true
                }
            }
        }
        if lastRow >= 0 {
            let n = passRowBytes, from = lastRow
            block.withUnsafeBufferPointer { src in
                prevRow.withUnsafeMutableBufferPointer { dst in
                    guard let s = src.baseAddress, let d = dst.baseAddress else { return }
                    d.update(from: s + from, count: n)
                }
            }
        }
        if pos > 0 {
            let remaining = filled - pos, from = pos
            block.withUnsafeMutableBufferPointer { buffer in
                guard let b = buffer.baseAddress else { return }
                UnsafeMutableRawPointer(b).copyMemory(from: b + from, byteCount: remaining)
            }
            filled = remaining
        }
    }
}
