/// The pixel loop of a complete stream (`VP8LImageData.decode`'s first attempt): runs of
/// pixels that share a Huffman group (up to the row's end or the next tile), each decoded by a
/// literal loop specialised for the group's kind, with the bit reader in a few locals.
///
/// Running out of data is checked only where it matters for what is written outside the run
/// (before a backward reference, a cache hit, an invalid code) and at the end of each run:
/// past the end the codes read zeros, the table reads stay inside the tables and the writes
/// inside the run, and the caller starts over with the exact loop when this one throws
/// `.needMoreData`.
extension VP8LImageData {
    /// The bit reader in the pixel loop: 64 bits, least significant first, and a cursor into
    /// the data; `limit` is the last position an 8-byte load may start at.
    struct FastBits {
        var value: UInt64
        var count: Int
        var cursor: UnsafePointer<UInt8>
        let base: UnsafePointer<UInt8>
        let limit: UnsafePointer<UInt8>
        let length: Int

        @inline(__always) init(_ reader: VP8LBitReader) {
            value = reader.state.value
            count = reader.state.count
            base = reader.base
            length = reader.length
            cursor = base + reader.state.position
            // Below `base` when the data is under 8 bytes: no load then takes the fast path.
            limit = base + (length &- 8)
        }

        @inline(__always) var state: VP8LBitState {
            VP8LBitState(value: value, count: count, position: cursor - base)
        }

        /// Tops the bits up to at least 32 while data remains (as `VP8LBitReader.fill`).
        @inline(__always) mutating func fill() {
            if count >= 32 { return }
            if cursor <= limit {
                let word = UInt64(littleEndian: UnsafeRawPointer(cursor).loadUnaligned(as: UInt64.self))
                value |= word &<< UInt64(truncatingIfNeeded: count)
                let bytes = (63 &- count) &>> 3
                cursor += bytes
                count &+= bytes &<< 3
            } else {
                let s = VP8LBitReader.fillSlow(state, base, length)
                value = s.value; count = s.count; cursor = base + s.position
            }
        }

        /// Tops the bits up to at least 56 while 8 bytes remain, without a branch on the count
        /// (a count of 56 or more loads nothing new: the bits above `count` are the next
        /// bytes' or zeros, so the or changes nothing); else as `fill`.
        @inline(__always) mutating func refill() {
            // (The count is 0...63 here: no fill leaves more than 63 bits, and it goes below
            // zero only once the data is out; the load is bounded by `limit` either way.)
            if cursor <= limit {
                let word = UInt64(littleEndian: UnsafeRawPointer(cursor).loadUnaligned(as: UInt64.self))
                value |= word &<< UInt64(truncatingIfNeeded: count)
                let bytes = (63 &- count) &>> 3
                cursor += bytes
                count &+= bytes &<< 3
            } else {
                fill()
            }
        }

        @inline(__always) mutating func read(_ n: Int) -> Int {
            fill()
            let v = Int(truncatingIfNeeded: value & ((1 &<< UInt64(truncatingIfNeeded: n)) &- 1))
            value &>>= UInt64(truncatingIfNeeded: n)
            count &-= n
            return v
        }

        /// One symbol of the table at `table` (8-bit root; at most 15 bits, the caller has filled).
        @inline(__always) mutating func decode(_ table: UnsafePointer<UInt32>) -> Int {
            var e = table[Int(truncatingIfNeeded: value & 0xFF)]
            if e >= 9 << 16 {
                let n = Int(truncatingIfNeeded: e &>> 16) &- 8
                value &>>= 8
                count &-= 8
                e = table[Int(truncatingIfNeeded: e & 0xFFFF) &+ Int(truncatingIfNeeded: value & ((1 &<< UInt64(truncatingIfNeeded: n)) &- 1))]
            }
            let n = Int(truncatingIfNeeded: e &>> 16)
            value &>>= UInt64(truncatingIfNeeded: n)
            count &-= n
            return Int(truncatingIfNeeded: e & 0xFFFF)
        }
    }

    /// How a group's literals are made: all four codes, red-green-blue with a single alpha, or
    /// green alone (red, blue and alpha single symbols).
    enum LiteralKind { case general, constantAlpha, greenOnly }

    /// Literals into `dst` up to `end`; returns the first code that is not a literal (and `dst`
    /// at its pixel), or -1 when the run is full. `arb` holds the single-symbol channels.
    @inline(__always)
    static func literals(_ bits: inout FastBits, _ dst: inout UnsafeMutablePointer<UInt32>,
                         end: UnsafeMutablePointer<UInt32>, green: UnsafePointer<UInt32>,
                         red: UnsafePointer<UInt32>, blue: UnsafePointer<UInt32>, alpha: UnsafePointer<UInt32>,
                         arb: UInt32, kind: LiteralKind, cache: UnsafeMutablePointer<UInt32>?,
                         cacheShift: UInt32) -> Int {
        // Locals for the loop (an inout of an out-of-line caller is stored at every change).
        var bits0 = bits, dst0 = dst
        defer { bits = bits0; dst = dst0 }
        return literalLoop(&bits0, &dst0, end: end, green: green, red: red, blue: blue, alpha: alpha, arb: arb,
                           kind: kind, cache: cache, cacheShift: cacheShift)
    }

    @inline(__always)
    static func literalLoop(_ bits: inout FastBits, _ dst: inout UnsafeMutablePointer<UInt32>,
                            end: UnsafeMutablePointer<UInt32>, green: UnsafePointer<UInt32>,
                            red: UnsafePointer<UInt32>, blue: UnsafePointer<UInt32>, alpha: UnsafePointer<UInt32>,
                            arb: UInt32, kind: LiteralKind, cache: UnsafeMutablePointer<UInt32>?,
                            cacheShift: UInt32) -> Int {
        while dst < end {
            // At least 56 bits (unless the data ends): green, red and blue take at most 45.
            bits.refill()
            let g = bits.decode(green)
            if g >= VP8LCodes.literalCodes { return g }
            let argb: UInt32
            switch kind {
            case .greenOnly:
                argb = arb | UInt32(truncatingIfNeeded: g) &<< 8
            case .constantAlpha:
                let r = bits.decode(red)
                let b = bits.decode(blue)
                argb = arb | UInt32(truncatingIfNeeded: r &<< 16 | g &<< 8 | b)
            case .general:
                let r = bits.decode(red)
                bits.fill()
                let b = bits.decode(blue)
                let a = bits.decode(alpha)
                argb = UInt32(truncatingIfNeeded: a &<< 24 | r &<< 16 | g &<< 8 | b)
            }
            dst.pointee = argb
            if let cache { cache[Int(truncatingIfNeeded: (argb &* hashMultiplier) &>> cacheShift)] = argb }
            dst += 1
        }
        return -1
    }

    /// `literals` for each kind out of line: a small function per loop keeps its values in
    /// registers (written out in `runComplete`, the loop carried them through register moves);
    /// each has a loop with and one without the colour cache.
    @inline(never)
    static func literalsGeneral(_ bits: inout FastBits, _ dst: inout UnsafeMutablePointer<UInt32>,
                                end: UnsafeMutablePointer<UInt32>, tables: LiteralTables,
                                arb: UInt32, cache: UnsafeMutablePointer<UInt32>?, cacheShift: UInt32) -> Int {
        literals(.general, &bits, &dst, end: end, tables: tables, arb: arb, cache: cache, cacheShift: cacheShift)
    }

    @inline(never)
    static func literalsConstantAlpha(_ bits: inout FastBits, _ dst: inout UnsafeMutablePointer<UInt32>,
                                      end: UnsafeMutablePointer<UInt32>, tables: LiteralTables,
                                      arb: UInt32, cache: UnsafeMutablePointer<UInt32>?, cacheShift: UInt32) -> Int {
        literals(.constantAlpha, &bits, &dst, end: end, tables: tables, arb: arb, cache: cache, cacheShift: cacheShift)
    }

    @inline(never)
    static func literalsGreenOnly(_ bits: inout FastBits, _ dst: inout UnsafeMutablePointer<UInt32>,
                                  end: UnsafeMutablePointer<UInt32>, tables: LiteralTables,
                                  arb: UInt32, cache: UnsafeMutablePointer<UInt32>?, cacheShift: UInt32) -> Int {
        literals(.greenOnly, &bits, &dst, end: end, tables: tables, arb: arb, cache: cache, cacheShift: cacheShift)
    }

    /// The green, red, blue and alpha tables of a group.
    typealias LiteralTables = (UnsafePointer<UInt32>, UnsafePointer<UInt32>, UnsafePointer<UInt32>, UnsafePointer<UInt32>)

    /// `literals` of one `kind` (a constant at each caller above, so each gets its own loops),
    /// with the colour cache tested once, outside the loop.
    @inline(__always)
    private static func literals(_ kind: LiteralKind, _ bits: inout FastBits, _ dst: inout UnsafeMutablePointer<UInt32>,
                                 end: UnsafeMutablePointer<UInt32>, tables: LiteralTables,
                                 arb: UInt32, cache: UnsafeMutablePointer<UInt32>?, cacheShift: UInt32) -> Int {
        if let cache {
            return literals(&bits, &dst, end: end, green: tables.0, red: tables.1, blue: tables.2, alpha: tables.3, arb: arb,
                            kind: kind, cache: cache, cacheShift: cacheShift)
        }
        return literals(&bits, &dst, end: end, green: tables.0, red: tables.1, blue: tables.2, alpha: tables.3, arb: arb,
                        kind: kind, cache: nil, cacheShift: cacheShift)
    }

    /// The loop of a complete stream, with the checks per run (see above); stops at the first
    /// code at or past `limit`.
    static func runComplete(codes: VP8LCodes, reader: inout VP8LBitReader, pixels: UnsafeMutableBufferPointer<UInt32>,
                            width: Int, position: inout Int, cache: UnsafeMutableBufferPointer<UInt32>,
                            limit: Int) throws(VP8LFailure) {
        guard let out = pixels.baseAddress, width > 0, position < pixels.count else { return }
        let total = pixels.count
        let stop = min(total, limit)
        let cacheShift = UInt32(32 - codes.cacheBits)
        let cachePointer = codes.cacheBits > 0 ? cache.baseAddress : nil
        let cacheLimit = VP8LCodes.literalCodes + VP8LCodes.lengthCodes + (cachePointer != nil ? 1 << codes.cacheBits : 0)
        let tileBits = codes.tileBits
        let tileMask = tileBits == 0 ? ~0 : (1 << tileBits) - 1
        let endPadding = reader.endPadding
        try codes.tables.withUnsafeBufferPointer { (tableBuffer: UnsafeBufferPointer<UInt32>) throws(VP8LFailure) in
            guard let tables = tableBuffer.baseAddress else { return }
            var bits = FastBits(reader)
            var pos = position
            defer { reader.state = bits.state; position = pos }
            var x = pos % width, y = pos / width
            while pos < stop {
                let g = codes.group(x: x, y: y)
                let run = tileBits == 0 ? width &- x : min(width &- x, (tileMask &+ 1) &- (x & tileMask))
                var dst = out + pos
                let end = dst + run
                if let p = codes.trivialPixel[g] {
                    dst.update(repeating: p, count: run)
                    if let cachePointer { cachePointer[Int(truncatingIfNeeded: (p &* hashMultiplier) &>> cacheShift)] = p }
                    dst = end
                } else {
                    let t = g &* 5
                    let green = tables + Int(codes.trees[t]), red = tables + Int(codes.trees[t &+ 1])
                    let blue = tables + Int(codes.trees[t &+ 2]), alpha = tables + Int(codes.trees[t &+ 3])
                    let code: Int
                    let four = (green, red, blue, alpha)
                    if let arb = codes.trivialLiteral[g] {
                        code = literalsGreenOnly(&bits, &dst, end: end, tables: four, arb: arb, cache: cachePointer, cacheShift: cacheShift)
                    } else if alpha.pointee < 1 << 16 {
                        code = literalsConstantAlpha(&bits, &dst, end: end, tables: four, arb: (alpha.pointee & 0xFF) << 24,
                                                     cache: cachePointer, cacheShift: cacheShift)
                    } else {
                        code = literalsGeneral(&bits, &dst, end: end, tables: four, arb: 0, cache: cachePointer, cacheShift: cacheShift)
                    }
                    if code >= 0 {
                        // A backward reference, a cache hit or an invalid code at `dst`.
                        pos = dst - out
                        x &+= pos &- (end - out &- run)
                        if bits.count &+ endPadding < 0 { throw .needMoreData }
                        if code < VP8LCodes.literalCodes + VP8LCodes.lengthCodes {
                            let length = prefixValue(code &- VP8LCodes.literalCodes, &bits)
                            bits.fill()
                            let distanceSymbol = bits.decode(tables + Int(codes.trees[t &+ 4]))
                            let distanceCode = prefixValue(distanceSymbol, &bits)
                            if bits.count &+ endPadding < 0 { throw .needMoreData }
                            let d = planeDistance(distanceCode, width: width)
                            if pos < d || total &- pos < length {
                                throw .invalid("backward reference", byte: VP8LBitReader.byteOffset(bits.state, length: bits.length))
                            }
                            var src = out + (pos &- d), to = out + pos
                            if let cachePointer {
                                for _ in 0 ..< length {
                                    let v = src.pointee; to.pointee = v
                                    cachePointer[Int(truncatingIfNeeded: (v &* hashMultiplier) &>> cacheShift)] = v
                                    src += 1; to += 1
                                }
                            } else {
                                for _ in 0 ..< length { to.pointee = src.pointee; src += 1; to += 1 }
                            }
                            pos &+= length
                            x &+= length
                            while x >= width { x &-= width; y &+= 1 }
                        } else if code < cacheLimit, let cachePointer {
                            let v = cachePointer[code &- (VP8LCodes.literalCodes + VP8LCodes.lengthCodes)]
                            out[pos] = v
                            cachePointer[Int(truncatingIfNeeded: (v &* hashMultiplier) &>> cacheShift)] = v
                            pos &+= 1; x &+= 1
                            if x >= width { x = 0; y &+= 1 }
                        } else {
                            throw .invalid("pixel code", byte: VP8LBitReader.byteOffset(bits.state, length: bits.length))
                        }
                        continue
                    }
                }
                if bits.count &+ endPadding < 0 { throw .needMoreData }
                pos &+= run
                x &+= run
                if x >= width { x = 0; y &+= 1 }
            }
        }
    }

    @inline(__always) static func prefixValue(_ symbol: Int, _ bits: inout FastBits) -> Int {
        if symbol < 4 { return symbol &+ 1 }
        let extra = (symbol &- 2) &>> 1
        let offset = (2 &+ (symbol & 1)) &<< extra
        return offset &+ bits.read(extra) &+ 1
    }
}
