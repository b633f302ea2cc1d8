import ImageCore

/// A resumable VP8 key-frame decoder (RFC 6386), bit-exact with libwebp 1.2.4.
///
/// A value type: a copy is a rollback point. Feed it the `VP8 ` chunk payload as it grows with
/// `decode(_:isComplete:offset:rows:)`; it waits for the whole first partition (as libwebp's
/// incremental decoder does), then decodes macroblocks as far as the token partitions reach,
/// resuming at the macroblock where the bytes ran out, and lends each batch of final rows to the
/// `rows` callback. It keeps only the macroblock rows the loop filter and the upsampler need.
struct VP8Decoder: Sendable {
    let header: VP8Header
    let fancyUpsampling: Bool
    let limits: DecodingLimits
    private(set) var frame: VP8FrameHeader?
    /// Output rows already handed out; the decode is over when this reaches `header.height`.
    private(set) var rowsDelivered = 0
    var isFinished: Bool { rowsDelivered >= header.height && mbY >= header.macroblockHeight }

    // Parsing position.
    var firstPartition = VP8BoolState(position: 0, end: 0)
    var tokenPartitions: [VP8BoolState] = []
    var mbY = 0
    var mbX = 0
    var rowModesParsed = false
    /// Payload size needed before retrying a macroblock that ran out of bytes.
    var waitForBytes = 0

    // Contexts.
    var intraTop: [UInt8]
    var rowInfo: [UInt8]
    var rowModes: [UInt8]
    var nzTop: [UInt8]
    var nzDcTop: [UInt8]
    var nzLeft: UInt8 = 0
    var nzDcLeft: UInt8 = 0

    // Pixels.
    var work: [UInt8]
    var topSamples: [UInt8]
    var coefficients: [Int16]
    var cacheY: [UInt8] = []
    var cacheU: [UInt8] = []
    var cacheV: [UInt8] = []

    /// Rows kept above the current macroblock row in the caches: 2 for the fancy upsampler's
    /// look-back plus the loop filter's delay (libwebp's kFilterExtraRows: 0, 2, 8).
    static let historyRows = 2
    static let filterExtraRows = [0, 2, 8]

    /// Reads the frame header (first 10 bytes of the payload); `payloadSize` when known.
    static func readHeader(_ payload: UnsafeRawBufferPointer, offset: Int, payloadSize: Int? = nil) throws(WebPError) -> VP8Header {
        try VP8Header.read(payload, offset: offset, payloadSize: payloadSize)
    }

    /// A decoder for a frame of `header`; checks `limits` against the picture and the decoder's
    /// working memory before allocating.
    init(header: VP8Header, limits: DecodingLimits = .default, fancyUpsampling: Bool = true) throws(WebPError) {
        self.header = header
        self.fancyUpsampling = fancyUpsampling
        self.limits = limits
        let mbW = header.macroblockWidth
        let working = mbW * 16 * (Self.historyRows + 8 + 16) * 3 / 2 + mbW * (32 + 8 + 16 + 16) + 4096
        if let violation = limits.check(width: header.width, height: header.height, bytesPerPixel: 0, extraBytes: working) {
            throw .limit(violation, offset: 0)
        }
        intraTop = [UInt8](repeating: 0, count: 4 * mbW)
        rowInfo = [UInt8](repeating: 0, count: VP8Modes.infoSize * mbW)
        rowModes = [UInt8](repeating: 0, count: 16 * mbW)
        nzTop = [UInt8](repeating: 0, count: mbW)
        nzDcTop = [UInt8](repeating: 0, count: mbW)
        work = [UInt8](repeating: 0, count: VP8MacroblockContext.workSize + 20 * 16)
        topSamples = [UInt8](repeating: 0, count: 32 * mbW + 32)
        coefficients = [Int16](repeating: 0, count: 384)
    }

    var filterType: Int { frame?.filter.type ?? 0 }
    var cacheLumaTop: Int { Self.historyRows + Self.filterExtraRows[filterType] }
    var cacheChromaTop: Int { cacheLumaTop / 2 }

    /// Decodes what `payload` (the chunk payload so far; it may move between calls) allows.
    /// `offset` is the payload's offset in the file, for errors. Calls `rows` with each batch of
    /// final rows. With `isComplete`, missing bytes throw `.truncated` after the rows before them
    /// were delivered; otherwise the decoder returns and waits for more.
    mutating func decode(_ payload: UnsafeRawBufferPointer, isComplete: Bool, offset: Int,
                         rows: (VP8RowBand) -> Void) throws(WebPError) {
        guard !isFinished else { return }
        let available = payload.count
        guard available > 0, let base = payload.baseAddress?.assumingMemoryBound(to: UInt8.self) else {
            if isComplete { throw .truncated(what: "VP8 frame", offset: offset) }
            return
        }
        if frame == nil {
            guard try startFrame(base, available: available, isComplete: isComplete, offset: offset) else { return }
        }
        if !isComplete && available < waitForBytes { return }
        try decodeMacroblocks(base, available: available, isComplete: isComplete, offset: offset, rows: rows)
    }

    /// Parses the first partition's frame header once it is all there; false when waiting.
    private mutating func startFrame(_ base: UnsafePointer<UInt8>, available: Int, isComplete: Bool,
                                     offset: Int) throws(WebPError) -> Bool {
        let start = VP8Header.size
        let end = start + header.firstPartitionSize
        guard end <= available else {
            if isComplete { throw .truncated(what: "VP8 first partition", offset: offset + available) }
            return false
        }
        var d = VP8BoolDecoder(VP8BoolDecoder.start(base, start, end), base)
        let parsed: VP8FrameHeader
        do {
            parsed = try VP8FrameHeaderParser.parse(&d, partitionsStart: end, available: available, offset: offset)
        } catch {
            if case .truncated = error, !isComplete, !d.eof { return false }
            throw error
        }
        if let violation = limits.checkPlausible(neededBytes: header.macroblockWidth * header.macroblockHeight / 8) {
            throw .limit(violation, offset: offset)
        }
        frame = parsed
        firstPartition = d.state
        tokenPartitions = parsed.partitionStarts.map { VP8BoolState(position: $0, end: $0) }
        let mbW = header.macroblockWidth
        cacheY = [UInt8](repeating: 0, count: (cacheLumaTop + 16) * mbW * 16)
        cacheU = [UInt8](repeating: 0, count: (cacheChromaTop + 8) * mbW * 8)
        cacheV = cacheU
        return true
    }

    private mutating func decodeMacroblocks(_ base: UnsafePointer<UInt8>, available: Int, isComplete: Bool,
                                            offset: Int, rows: (VP8RowBand) -> Void) throws(WebPError) {
        guard let frame else { return }
        let mbW = header.macroblockWidth, mbH = header.macroblockHeight
        // Move the working arrays out so the loops below own them (no copy unless shared).
        var intraTop = self.intraTop, rowInfo = self.rowInfo, rowModes = self.rowModes
        var nzTop = self.nzTop, nzDcTop = self.nzDcTop, work = self.work, topSamples = self.topSamples
        var coefficients = self.coefficients, cacheY = self.cacheY, cacheU = self.cacheU, cacheV = self.cacheV
        self.intraTop = []; self.rowInfo = []; self.rowModes = []; self.nzTop = []; self.nzDcTop = []
        self.work = []; self.topSamples = []; self.coefficients = []; self.cacheY = []; self.cacheU = []; self.cacheV = []
        defer {
            self.intraTop = intraTop; self.rowInfo = rowInfo; self.rowModes = rowModes; self.nzTop = nzTop
            self.nzDcTop = nzDcTop; self.work = work; self.topSamples = topSamples; self.coefficients = coefficients
            self.cacheY = cacheY; self.cacheU = cacheU; self.cacheV = cacheV
        }
        // Token partitions see the bytes present so far.
        for p in 0 ..< tokenPartitions.count {
            tokenPartitions[p].end = min(frame.partitionEnds[p], available)
        }
        let partitionMask = tokenPartitions.count - 1
        let strengths = frame.filterStrengths
        let filterType = frame.filter.type
        let yStride = mbW * 16, uvStride = mbW * 8
        let lumaTop = cacheLumaTop, chromaTop = cacheChromaTop
        let extra = Self.filterExtraRows[filterType]

        try frame.tokenProbabilities.withUnsafeBufferPointer { probs throws(WebPError) in
        try frame.quantizers.withUnsafeBufferPointer { quants throws(WebPError) in
        try intraTop.withUnsafeMutableBufferPointer { intraTop throws(WebPError) in
        try rowInfo.withUnsafeMutableBufferPointer { rowInfo throws(WebPError) in
        try rowModes.withUnsafeMutableBufferPointer { rowModes throws(WebPError) in
        try nzTop.withUnsafeMutableBufferPointer { nzTop throws(WebPError) in
        try nzDcTop.withUnsafeMutableBufferPointer { nzDcTop throws(WebPError) in
        try work.withUnsafeMutableBufferPointer { work throws(WebPError) in
        try topSamples.withUnsafeMutableBufferPointer { topSamples throws(WebPError) in
        try coefficients.withUnsafeMutableBufferPointer { coefficients throws(WebPError) in
        try cacheY.withUnsafeMutableBufferPointer { cacheY throws(WebPError) in
        try cacheU.withUnsafeMutableBufferPointer { cacheU throws(WebPError) in
        try cacheV.withUnsafeMutableBufferPointer { cacheV throws(WebPError) in
            let ctx = VP8MacroblockContext(
                probabilities: probs.baseAddress!, quantizers: quants.baseAddress!,
                useSkip: frame.skipProbability != nil, nzTop: nzTop.baseAddress!, nzDcTop: nzDcTop.baseAddress!,
                coefficients: coefficients.baseAddress!, work: work.baseAddress!, topSamples: topSamples.baseAddress!)
            let cy = cacheY.baseAddress!, cu = cacheU.baseAddress!, cv = cacheV.baseAddress!
            while mbY < mbH {
                if !rowModesParsed {
                    var d0 = VP8BoolDecoder(firstPartition, base)
                    VP8Modes.parseRow(&d0, width: mbW, frame: frame, top: intraTop.baseAddress!,
                                      info: rowInfo.baseAddress!, modes: rowModes.baseAddress!)
                    if d0.eof { throw .invalid(what: "VP8 first partition (ends early)", offset: offset + firstPartition.position) }
                    firstPartition = d0.state
                    rowModesParsed = true
                }
                let part = mbY & partitionMask
                var d = VP8BoolDecoder(tokenPartitions[part], base)
                while mbX < mbW {
                    let saved = d.state
                    let savedTop = nzTop[mbX], savedDcTop = nzDcTop[mbX], savedLeft = nzLeft, savedDcLeft = nzDcLeft
                    let info = rowInfo.baseAddress! + mbX * VP8Modes.infoSize
                    let (luma, chroma) = ctx.parseResiduals(&d, x: mbX, info: info, nzLeft: &nzLeft, nzDcLeft: &nzDcLeft)
                    if d.eof {
                        let partitionComplete = frame.partitionEnds[part] <= available
                        if isComplete || partitionComplete {
                            throw .truncated(what: "VP8 token partition \(part)", offset: offset + d.end)
                        }
                        nzTop[mbX] = savedTop; nzDcTop[mbX] = savedDcTop; nzLeft = savedLeft; nzDcLeft = savedDcLeft
                        tokenPartitions[part] = saved
                        waitForBytes = available + max(available - saved.position, 16)
                        return
                    }
                    let skip = (ctx.useSkip && info[VP8Modes.skip] != 0) || (luma | chroma) == 0
                    info[VP8Modes.inner] = (info[VP8Modes.isI4x4] != 0 || !skip) ? 1 : 0
                    ctx.reconstruct(x: mbX, y: mbY, width: mbW, height: mbH, info: info,
                                    modes: rowModes.baseAddress! + 16 * mbX, luma: luma, chroma: chroma)
                    // Into the cache.
                    let w = work.baseAddress!
                    let yDst = cy + lumaTop * yStride + mbX * 16
                    for j in 0 ..< 16 {
                        let row = UnsafeRawPointer(w + VP8MacroblockContext.lumaOffset + j * VP8Predict.stride)
                        UnsafeMutableRawPointer(yDst + j * yStride).storeBytes(
                            of: row.loadUnaligned(as: SIMD16<UInt8>.self), as: SIMD16<UInt8>.self)
                    }
                    let uDst = cu + chromaTop * uvStride + mbX * 8, vDst = cv + chromaTop * uvStride + mbX * 8
                    for j in 0 ..< 8 {
                        let u = UnsafeRawPointer(w + VP8MacroblockContext.uOffset + j * VP8Predict.stride)
                        let v = UnsafeRawPointer(w + VP8MacroblockContext.vOffset + j * VP8Predict.stride)
                        UnsafeMutableRawPointer(uDst + j * uvStride).storeBytes(of: u.loadUnaligned(as: UInt64.self), as: UInt64.self)
                        UnsafeMutableRawPointer(vDst + j * uvStride).storeBytes(of: v.loadUnaligned(as: UInt64.self), as: UInt64.self)
                    }
                    mbX += 1
                }
                tokenPartitions[part] = d.state
                // Filter the row (libwebp's FilterRow), left to right.
                if filterType > 0 {
                    for x in 0 ..< mbW {
                        let info = rowInfo.baseAddress! + x * VP8Modes.infoSize
                        let s = strengths[Int(info[VP8Modes.segment]) * 2 + Int(info[VP8Modes.isI4x4])]
                        VP8LoopFilterSIMD.filterMacroblock(
                            y: cy + lumaTop * yStride + x * 16, u: cu + chromaTop * uvStride + x * 8,
                            v: cv + chromaTop * uvStride + x * 8, yStride: yStride, uvStride: uvStride,
                            strength: s, inner: info[VP8Modes.inner] != 0, left: x > 0, top: mbY > 0,
                            simple: filterType == 1, scratch: work.baseAddress! + VP8MacroblockContext.workSize)
                    }
                }
                // Hand out the rows that are final.
                let last = mbY == mbH - 1
                let finalEnd = last ? header.height : 16 * (mbY + 1) - extra
                let readyEnd = last ? header.height : (fancyUpsampling ? finalEnd - 1 : finalEnd)
                if readyEnd > rowsDelivered {
                    let band = VP8RowBand(
                        rows: rowsDelivered ..< readyEnd, width: header.width, height: header.height,
                        fancyUpsampling: fancyUpsampling, luma: cy, lumaFirstRow: 16 * mbY - lumaTop, lumaStride: yStride,
                        u: cu, v: cv, chromaFirstRow: 8 * mbY - chromaTop, chromaStride: uvStride)
                    rows(band)
                    rowsDelivered = readyEnd
                }
                // Keep the rows above the next macroblock row.
                if !last {
                    cy.update(from: cy + 16 * yStride, count: lumaTop * yStride)
                    cu.update(from: cu + 8 * uvStride, count: chromaTop * uvStride)
                    cv.update(from: cv + 8 * uvStride, count: chromaTop * uvStride)
                }
                mbY += 1
                mbX = 0
                rowModesParsed = false
                nzLeft = 0
                nzDcLeft = 0
            }
        }}}}}}}}}}}}}
    }
}
