import ImageCore

/// The VP8L header (spec section 3): signature 0x2F, 14-bit width and height minus one, the
/// alpha hint and a 3-bit version that must be 0.
struct VP8LHeader: Sendable, Equatable {
    var width: Int
    var height: Int
    var alphaHint: Bool

    static let byteCount = 5

    /// Parses the first five bytes of a VP8L bitstream; nil when they are not a VP8L header
    /// (`VP8LCheckSignature` and `ReadImageInfo`).
    init?(_ b: ArraySlice<UInt8>) {
        guard b.count >= 5 else { return nil }
        let s = b.startIndex
        guard b[s] == 0x2F, b[s + 4] >> 5 == 0 else { return nil }
        let bits = UInt32(b[s + 1]) | UInt32(b[s + 2]) << 8 | UInt32(b[s + 3]) << 16 | UInt32(b[s + 4]) << 24
        width = Int(bits & 0x3FFF) + 1
        height = Int((bits >> 14) & 0x3FFF) + 1
        alphaHint = (bits >> 28) & 1 == 1
    }
}

/// A resumable VP8L decoder for one image, fed a growing prefix of its bitstream.
///
/// The header part (transforms, colour cache, prefix codes and their sub-images) is parsed
/// whole: when the bytes run out it is parsed again from the start, but only once the bytes
/// available have doubled (or the stream is complete), so the cost stays linear in the input.
/// The pixels are decoded code by code and stop between codes when fewer than 64 bits are
/// left, so they resume where they stopped. Rows are handed out as soon as every transform
/// can be undone on them.
struct VP8LStream: Sendable {
    let width: Int
    let height: Int
    /// An ALPH chunk's stream: no 5-byte header, the size comes from the VP8 frame.
    let headerless: Bool

    private struct Setup: Sendable {
        var transforms: [VP8LTransform]
        var codes: VP8LCodes
        /// Width of the coded pixels (narrower than the image after colour-index packing).
        var codedWidth: Int
    }
    private var setup: Setup?
    private var bits = VP8LBitState()
    private var bytesAtLastAttempt = 0
    /// How many times the setup part has been parsed (tests check it stays logarithmic in the bytes).
    private(set) var setupAttempts = 0
    private var pixels: [UInt32] = []
    private var cache: [UInt32] = []
    private var position = 0
    /// Rows handed out so far.
    private(set) var rowsDone = 0
    private var previousRows: [[UInt32]] = []
    private var rowA: [UInt32] = []
    private var rowB: [UInt32] = []

    init(width: Int, height: Int, headerless: Bool) {
        self.width = width
        self.height = height
        self.headerless = headerless
    }

    var isComplete: Bool { rowsDone == height }
    /// True once the header part (transforms and codes) has been read.
    var hasSetup: Bool { setup != nil }

    /// Decodes what `data` (the stream so far; `complete` when it is whole) allows and calls
    /// `emit(y, row)` with every row that became final (ARGB, `width` pixels).
    mutating func advance(_ data: UnsafeBufferPointer<UInt8>, complete: Bool,
                          emit: (Int, UnsafeBufferPointer<UInt32>) -> Void) throws(VP8LFailure) {
        if setup == nil {
            guard complete || bytesAtLastAttempt == 0 || data.count >= 2 * bytesAtLastAttempt else { return }
            bytesAtLastAttempt = max(data.count, 1)
            setupAttempts += 1
            var reader = VP8LBitReader(data, state: VP8LBitState(), complete: complete)
            do {
                try readSetup(&reader)
            } catch .needMoreData {
                if complete { throw .needMoreData }
                return
            }
            bits = reader.state
        }
        guard let setup else { return }
        var reader = VP8LBitReader(data, state: bits, complete: complete)
        let total = pixels.count
        var failure: VP8LFailure?
        // A complete stream is decoded `Self.chunkRows` rows at a time, each chunk's rows undone
        // and handed out while they are still in the cache.
        repeat {
            let limit = complete ? min(total, (position / setup.codedWidth + Self.chunkRows) * setup.codedWidth) : total
            pixels.withUnsafeMutableBufferPointer { out in
                cache.withUnsafeMutableBufferPointer { c in
                    do throws(VP8LFailure) {
                        try VP8LImageData.decode(codes: setup.codes, reader: &reader, pixels: out, width: setup.codedWidth,
                                                 position: &position, cache: c, complete: complete, limit: limit)
                    } catch {
                        failure = error
                    }
                }
            }
            bits = reader.state
            let finalRows = position == total ? height : position / setup.codedWidth
            if finalRows > rowsDone { emitRows(upTo: finalRows, emit) }
        } while complete && failure == nil && position < total
        if let failure { throw failure }
    }

    /// Rows decoded between two hand-outs of a complete stream.
    static let chunkRows = 16

    private mutating func readSetup(_ reader: inout VP8LBitReader) throws(VP8LFailure) {
        if !headerless {
            _ = reader.read(8); _ = reader.read(14); _ = reader.read(14); _ = reader.read(1); _ = reader.read(3)
        }
        var transforms: [VP8LTransform] = []
        var seen = 0
        var codedWidth = width
        while reader.read(1) == 1 {
            let at = reader.byteOffset
            let kind = VP8LTransform.Kind(rawValue: reader.read(2))!
            if reader.isPastEnd { throw .needMoreData }
            guard seen & (1 << kind.rawValue) == 0 else { throw .invalid("repeated transform", byte: at) }
            seen |= 1 << kind.rawValue
            var t = VP8LTransform(kind: kind, width: codedWidth, bits: 0, data: [])
            switch kind {
            case .predictor, .crossColor:
                t.bits = reader.read(3) + 2
                t.data = try VP8LImageData.decodeSubImage(&reader, width: VP8LCodes.subsample(codedWidth, t.bits),
                                                          height: VP8LCodes.subsample(height, t.bits))
            case .colorIndexing:
                let colors = reader.read(8) + 1
                t.bits = colors > 16 ? 0 : colors > 4 ? 1 : colors > 2 ? 2 : 3
                let palette = try VP8LImageData.decodeSubImage(&reader, width: colors, height: 1)
                t.data = VP8LInverse.expandPalette(palette, bits: t.bits)
                codedWidth = VP8LCodes.subsample(codedWidth, t.bits)
            case .subtractGreen:
                break
            }
            transforms.append(t)
        }
        var cacheBits = 0
        let at = reader.byteOffset
        if reader.read(1) == 1 {
            cacheBits = reader.read(4)
            if reader.isPastEnd { throw .needMoreData }
            guard cacheBits >= 1 && cacheBits <= 11 else { throw .invalid("colour cache size", byte: at) }
        }
        let codes = try VP8LCodes.read(&reader, width: codedWidth, height: height, cacheBits: cacheBits, allowMeta: true)
        if reader.isPastEnd { throw .needMoreData }
        setup = Setup(transforms: transforms, codes: codes, codedWidth: codedWidth)
        // Uninitialised: a pixel is read (by a backward reference or a row hand-out) only
        // once it is decoded. Huge pages where Linux offers them (fewer page faults).
        pixels = [UInt32](unsafeUninitializedCapacity: codedWidth * height) { buffer, count in
            if let base = buffer.baseAddress { PageHints.preferHugePages(UnsafeMutableRawPointer(base), count: 4 * codedWidth * height) }
            count = codedWidth * height
        }
        cache = [UInt32](repeating: 0, count: cacheBits > 0 ? 1 << cacheBits : 0)
        previousRows = transforms.map { $0.kind == .predictor ? [UInt32](repeating: 0, count: $0.width) : [] }
        rowA = [UInt32](repeating: 0, count: width)
        rowB = [UInt32](repeating: 0, count: width)
    }

    /// Undoes the transforms on rows `rowsDone ..< end` and hands them out.
    private mutating func emitRows(upTo end: Int, _ emit: (Int, UnsafeBufferPointer<UInt32>) -> Void) {
        guard let setup else { return }
        let codedWidth = setup.codedWidth
        var a = rowA, b = rowB
        rowA = []; rowB = []
        defer { rowA = a; rowB = b }
        // A cross-colour transform undone first reads the coded pixels itself (no copy).
        let last = setup.transforms.count - 1
        let crossColorFirst = last >= 0 && setup.transforms[last].kind == .crossColor
        for y in rowsDone ..< end {
            var index = last
            a.withUnsafeMutableBufferPointer { ab in
                pixels.withUnsafeBufferPointer { p in
                    let source = p.baseAddress! + y * codedWidth
                    if crossColorFirst {
                        VP8LInverseSIMD.crossColor(setup.transforms[last], y: y, row: ab.baseAddress!, from: source)
                    } else {
                        ab.baseAddress!.update(from: source, count: codedWidth)
                    }
                }
            }
            if crossColorFirst { index -= 1 }
            while index >= 0 {
                let t = setup.transforms[index]
                switch t.kind {
                case .predictor:
                    // Add-green undone right after goes in the same pass as the copy of the
                    // predictor's output row.
                    let addGreenNext = index > 0 && setup.transforms[index - 1].kind == .subtractGreen
                        && setup.transforms[index - 1].width == t.width
                    a.withUnsafeMutableBufferPointer { ab in
                        previousRows[index].withUnsafeMutableBufferPointer { prev in
                            VP8LInverse.predictor(t, y: y, row: ab.baseAddress!, previous: UnsafePointer(prev.baseAddress!))
                            if addGreenNext {
                                let r = ab.baseAddress!, p = prev.baseAddress!
                                for x in 0 ..< t.width { let v = r[x]; p[x] = v; r[x] = VP8LInverse.addGreenPixel(v) }
                            } else {
                                for x in 0 ..< t.width { prev[x] = ab[x] }
                            }
                        }
                    }
                    if addGreenNext { index -= 1 }
                case .crossColor:
                    a.withUnsafeMutableBufferPointer { VP8LInverseSIMD.crossColor(t, y: y, row: $0.baseAddress!) }
                case .subtractGreen:
                    a.withUnsafeMutableBufferPointer { VP8LInverse.addGreen(row: $0.baseAddress!, count: t.width) }
                case .colorIndexing:
                    a.withUnsafeBufferPointer { ab in
                        b.withUnsafeMutableBufferPointer { bb in
                            VP8LInverse.colorIndexing(t, input: ab.baseAddress!, output: bb.baseAddress!)
                        }
                    }
                    swap(&a, &b)
                }
                index -= 1
            }
            a.withUnsafeBufferPointer { emit(y, UnsafeBufferPointer(rebasing: $0[0 ..< width])) }
        }
        rowsDone = end
    }
}
