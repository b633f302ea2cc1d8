/// The entropy-coded image (VP8L spec section 5.2): literals, LZ77 backward references with
/// the 120-entry distance map, and colour cache hits.
enum VP8LImageData {
    /// VP8L's distance map: the first 120 distance codes name a neighbour (dy << 4 | 8 - dx).
    static let codeToPlane: [UInt8] = [
        0x18, 0x07, 0x17, 0x19, 0x28, 0x06, 0x27, 0x29, 0x16, 0x1a, 0x26, 0x2a,
        0x38, 0x05, 0x37, 0x39, 0x15, 0x1b, 0x36, 0x3a, 0x25, 0x2b, 0x48, 0x04,
        0x47, 0x49, 0x14, 0x1c, 0x35, 0x3b, 0x46, 0x4a, 0x24, 0x2c, 0x58, 0x45,
        0x4b, 0x34, 0x3c, 0x03, 0x57, 0x59, 0x13, 0x1d, 0x56, 0x5a, 0x23, 0x2d,
        0x44, 0x4c, 0x55, 0x5b, 0x33, 0x3d, 0x68, 0x02, 0x67, 0x69, 0x12, 0x1e,
        0x66, 0x6a, 0x22, 0x2e, 0x54, 0x5c, 0x43, 0x4d, 0x65, 0x6b, 0x32, 0x3e,
        0x78, 0x01, 0x77, 0x79, 0x53, 0x5d, 0x11, 0x1f, 0x64, 0x6c, 0x42, 0x4e,
        0x76, 0x7a, 0x21, 0x2f, 0x75, 0x7b, 0x31, 0x3f, 0x63, 0x6d, 0x52, 0x5e,
        0x00, 0x74, 0x7c, 0x41, 0x4f, 0x10, 0x20, 0x62, 0x6e, 0x30, 0x73, 0x7d,
        0x51, 0x5f, 0x40, 0x72, 0x7e, 0x61, 0x6f, 0x50, 0x71, 0x7f, 0x60, 0x70,
    ]

    /// The multiplier of the colour cache hash.
    static let hashMultiplier: UInt32 = 0x1e35_a7bd

    /// A sub-image (transform data or entropy image): colour cache, codes without an entropy
    /// image, then the pixels, all of which must be present.
    static func decodeSubImage(_ reader: inout VP8LBitReader, width: Int, height: Int) throws(VP8LFailure) -> [UInt32] {
        let at = reader.byteOffset
        var cacheBits = 0
        if reader.read(1) == 1 {
            cacheBits = reader.read(4)
            if reader.isPastEnd { throw .needMoreData }
            guard cacheBits >= 1 && cacheBits <= 11 else { throw .invalid("colour cache size", byte: at) }
        }
        let codes = try VP8LCodes.read(&reader, width: width, height: height, cacheBits: cacheBits, allowMeta: false)
        var pixels = [UInt32](repeating: 0, count: width * height)
        var cache = [UInt32](repeating: 0, count: cacheBits > 0 ? 1 << cacheBits : 0)
        var position = 0
        try pixels.withUnsafeMutableBufferPointer { (out: inout UnsafeMutableBufferPointer<UInt32>) throws(VP8LFailure) in
            try cache.withUnsafeMutableBufferPointer { (c: inout UnsafeMutableBufferPointer<UInt32>) throws(VP8LFailure) in
                try decode(codes: codes, reader: &reader, pixels: out, width: width, position: &position,
                           cache: c, complete: true)
            }
        }
        return pixels
    }

    /// Decodes pixels from `position` on into `pixels` (rows of `width`). With `complete`
    /// false it stops, between codes, when fewer than 64 bits are left (no code takes more
    /// than 60), so it can resume there when more bytes come; with `complete` true, running
    /// out of bits throws `.needMoreData`, with `reader` and `position` back at the start of the
    /// code that ran out (so the decode can go on there when the data turns out to be longer).
    /// With `complete`, the decode may stop at the first code at or past pixel `limit` (the
    /// start of a row); running out of data still reports where it happened.
    static func decode(codes: VP8LCodes, reader: inout VP8LBitReader, pixels: UnsafeMutableBufferPointer<UInt32>,
                       width: Int, position: inout Int, cache: UnsafeMutableBufferPointer<UInt32>,
                       complete: Bool, limit: Int = .max) throws(VP8LFailure) {
        guard complete else {
            try run(codes: codes, reader: &reader, pixels: pixels, width: width, position: &position, cache: cache, mode: 0)
            return
        }
        // The loop without a check (a complete stream runs out only when damaged or when it
        // goes on past its chunk); when a code does run out, the decode starts over with each
        // code's start kept (mode 2), from the same position and colour cache: keeping it in
        // the loop every time cost 6% of a lossless decode.
        let startState = reader.state, startPosition = position
        let savedCache = Array(cache)
        do {
            try runComplete(codes: codes, reader: &reader, pixels: pixels, width: width, position: &position, cache: cache,
                            limit: limit)
        } catch {
            guard case .needMoreData = error else { throw error }
            reader.state = startState
            position = startPosition
            for i in savedCache.indices { cache[i] = savedCache[i] }
            try run(codes: codes, reader: &reader, pixels: pixels, width: width, position: &position, cache: cache, mode: 2)
        }
    }

    /// The exact pixel loop (a complete stream's first attempt is `runComplete`). Mode 0
    /// (incremental) returns between codes once fewer than 64 bits are left; mode 1 checks
    /// nothing (running out throws `.needMoreData`; unused); mode 2 keeps each
    /// code's start and, when a code runs out, throws `.needMoreData` with `reader` there.
    @inline(__always)
    private static func run(codes: VP8LCodes, reader: inout VP8LBitReader, pixels: UnsafeMutableBufferPointer<UInt32>,
                            width: Int, position: inout Int, cache: UnsafeMutableBufferPointer<UInt32>,
                            mode: Int) throws(VP8LFailure) {
        // Nothing is left once every pixel is in (a later call, e.g. with the rest of the file,
        // must not look up the group of the row past the end).
        guard let out = pixels.baseAddress, width > 0, position < pixels.count else { return }
        let total = pixels.count
        let cacheShift = UInt32(32 - codes.cacheBits)
        let cachePointer = cache.baseAddress
        let useCache = codes.cacheBits > 0 && cachePointer != nil
        let cacheLimit = VP8LCodes.literalCodes + VP8LCodes.lengthCodes + (useCache ? 1 << codes.cacheBits : 0)
        let tileMask = codes.tileBits == 0 ? ~0 : (1 << codes.tileBits) - 1
        try codes.tables.withUnsafeBufferPointer { (tableBuffer: UnsafeBufferPointer<UInt32>) throws(VP8LFailure) in
            guard let tables = tableBuffer.baseAddress else { return }
            try codes.trees.withUnsafeBufferPointer { (treeBuffer: UnsafeBufferPointer<Int32>) throws(VP8LFailure) in
                // The reader and the position in locals of this closure (an inout, or a local
                // the closures capture, is stored back at every read), written back on every exit.
                var rd = reader
                var pos = position
                defer { reader = rd; position = pos }
                var x = pos % width, y = pos / width
                // The group's five tables as pointers.
                var green = tables, red = tables, blue = tables, alpha = tables, distance = tables
                var trivialPixel: UInt32? = nil, trivialLiteral: UInt32? = nil
                @inline(__always) func select(_ g: Int) {
                    green = tables + Int(treeBuffer[g &* 5]); red = tables + Int(treeBuffer[g &* 5 &+ 1])
                    blue = tables + Int(treeBuffer[g &* 5 &+ 2]); alpha = tables + Int(treeBuffer[g &* 5 &+ 3])
                    distance = tables + Int(treeBuffer[g &* 5 &+ 4])
                    trivialPixel = codes.trivialPixel[g]; trivialLiteral = codes.trivialLiteral[g]
                }
                select(codes.group(x: x, y: y))
                @inline(__always) func insert(_ argb: UInt32) {
                    if useCache { cachePointer.unsafelyUnwrapped[Int(truncatingIfNeeded: (argb &* hashMultiplier) &>> cacheShift)] = argb }
                }
                var resume = rd.state
                while pos < total {
                    if mode == 0 && rd.bitsLeft < 64 { return }
                    if mode == 2 { resume = rd.state }
                    if x & tileMask == 0 && codes.tileBits > 0 { select(codes.group(x: x, y: y)) }
                    if let p = trivialPixel {
                        out[pos] = p
                        insert(p)
                        pos &+= 1; x &+= 1
                        if x >= width { x = 0; y &+= 1 }
                        continue
                    }
                    // A fill leaves at least 32 bits (unless the data ends, when the bits past
                    // it read as zeros and the end check below catches them): enough for two
                    // codes of at most 15 bits.
                    rd.fill()
                    let code = HuffmanTable.decode(green, &rd)
                    if code < VP8LCodes.literalCodes {
                        let argb: UInt32
                        if let arb = trivialLiteral {
                            argb = arb | UInt32(truncatingIfNeeded: code) &<< 8
                        } else {
                            let r = HuffmanTable.decode(red, &rd)
                            rd.fill()
                            let b = HuffmanTable.decode(blue, &rd)
                            let a = HuffmanTable.decode(alpha, &rd)
                            argb = UInt32(truncatingIfNeeded: a &<< 24 | r &<< 16 | code &<< 8 | b)
                        }
                        if rd.isPastEnd { if mode == 2 { rd.state = resume }; throw .needMoreData }
                        out[pos] = argb
                        insert(argb)
                        pos &+= 1; x &+= 1
                        if x >= width { x = 0; y &+= 1 }
                    } else if code < VP8LCodes.literalCodes + VP8LCodes.lengthCodes {
                        let length = prefixValue(code &- VP8LCodes.literalCodes, &rd)
                        rd.fill()
                        let distanceSymbol = HuffmanTable.decode(distance, &rd)
                        let distanceCode = prefixValue(distanceSymbol, &rd)
                        if rd.isPastEnd { if mode == 2 { rd.state = resume }; throw .needMoreData }
                        let d = planeDistance(distanceCode, width: width)
                        if pos < d || total &- pos < length {
                            throw .invalid("backward reference", byte: rd.byteOffset)
                        }
                        var src = out + (pos &- d), dst = out + pos
                        if useCache {
                            for _ in 0 ..< length { let v = src.pointee; dst.pointee = v; insert(v); src += 1; dst += 1 }
                        } else {
                            for _ in 0 ..< length { dst.pointee = src.pointee; src += 1; dst += 1 }
                        }
                        pos &+= length
                        x &+= length
                        while x >= width { x &-= width; y &+= 1 }
                        if codes.tileBits > 0 && pos < total { select(codes.group(x: x, y: y)) }
                    } else if code < cacheLimit {
                        if rd.isPastEnd { if mode == 2 { rd.state = resume }; throw .needMoreData }
                        let v = cachePointer.unsafelyUnwrapped[code &- (VP8LCodes.literalCodes + VP8LCodes.lengthCodes)]
                        out[pos] = v
                        insert(v)
                        pos &+= 1; x &+= 1
                        if x >= width { x = 0; y &+= 1 }
                    } else {
                        if rd.isPastEnd { if mode == 2 { rd.state = resume }; throw .needMoreData }
                        throw .invalid("pixel code", byte: rd.byteOffset)
                    }
                }
            }
        }
    }

    /// A length or distance from its prefix symbol and extra bits (section 5.2.2).
    @inline(__always) static func prefixValue(_ symbol: Int, _ reader: inout VP8LBitReader) -> Int {
        if symbol < 4 { return symbol &+ 1 }
        let extra = (symbol &- 2) &>> 1
        let offset = (2 &+ (symbol & 1)) &<< extra
        return offset &+ reader.read(extra) &+ 1
    }

    /// The distance in pixels of distance code `code` (section 5.2.2's map for the first 120).
    @inline(__always) static func planeDistance(_ code: Int, width: Int) -> Int {
        if code > 120 { return code &- 120 }
        let v = Int(codeToPlane[code &- 1])
        let d = (v &>> 4) &* width &+ (8 &- (v & 0xF))
        return d >= 1 ? d : 1
    }
}
