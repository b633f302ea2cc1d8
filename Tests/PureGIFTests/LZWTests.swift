import Testing
@_spi(Testing) import PureGIF

/// Hand-built LZW code streams (GIF89a appendix F) with the decoder's expected output.
@Suite("GIF LZW")
struct LZWTests {
    /// Packs codes least-significant bit first, each with its width.
    static func pack(_ codes: [(Int, Int)]) -> [UInt8] {
        var out: [UInt8] = []
        var acc = 0, n = 0
        for (code, width) in codes {
            acc |= code << n
            n += width
            while n >= 8 { out.append(UInt8(acc & 0xFF)); acc >>= 8; n -= 8 }
        }
        if n > 0 { out.append(UInt8(acc & 0xFF)) }
        return out
    }

    /// Gives each code the width a decoder expects, tracking the table the way appendix F grows it.
    static func widths(_ codes: [Int], minimumCodeSize: Int) -> [(Int, Int)] {
        let clear = 1 << minimumCodeSize
        var next = clear + 2, width = minimumCodeSize + 1
        var hasPrevious = false
        var out: [(Int, Int)] = []
        for code in codes {
            out.append((code, width))
            if code == clear {
                next = clear + 2; width = minimumCodeSize + 1; hasPrevious = false
                continue
            }
            if hasPrevious && next < 4096 { next += 1 }
            if next == 1 << width && width < 12 { width += 1 }
            hasPrevious = true
        }
        return out
    }

    /// Decodes `data` fed in pieces of `chunk` bytes into `capacity` bytes.
    static func decode(_ data: [UInt8], minimumCodeSize: Int, capacity: Int, chunk: Int = Int.max) -> ([UInt8], LZWDecoder.Status) {
        var lzw = LZWDecoder(minimumCodeSize: minimumCodeSize)
        var out = [UInt8](repeating: 0xEE, count: max(capacity, 1))
        var position = 0
        var status = LZWDecoder.Status.needInput
        var start = 0
        while start < data.count {
            let end = min(data.count, start + max(1, min(chunk, data.count)))
            let piece = Array(data[start ..< end])
            status = piece.withUnsafeBufferPointer { input in
                out.withUnsafeMutableBufferPointer { o in
                    lzw.decode(input, into: o.baseAddress!, capacity: capacity, position: &position).0
                }
            }
            if status != .needInput { break }
            start = end
        }
        return (Array(out[0 ..< position]), status)
    }

    @Test func literalsAndATableEntry() {
        // clear, 1, 1, 6 ("11"), end: entries 6 = "11" and 7 = "11"; then 8 == 1 << 3, so the end code is 4 bits.
        let data = Self.pack([(4, 3), (1, 3), (1, 3), (6, 3), (5, 4)])
        let (out, status) = Self.decode(data, minimumCodeSize: 2, capacity: 16)
        #expect(out == [1, 1, 1, 1])
        #expect(status == .end)
    }

    @Test func codeBeingDefined() {
        // KwKwK: after "1" the next free code is 6, and code 6 means "1" + its own first byte.
        let data = Self.pack([(4, 3), (1, 3), (6, 3), (5, 3)])
        let (out, status) = Self.decode(data, minimumCodeSize: 2, capacity: 16)
        #expect(out == [1, 1, 1])
        #expect(status == .end)
    }

    @Test func codeWidthGrowsWhenTheNextEntryReachesThePowerOfTwo() {
        // After 1, 2, 3 the table holds 6 and 7; next is 8, so the fourth code is already 4 bits wide.
        let data = Self.pack([(4, 3), (1, 3), (2, 3), (3, 3), (0, 4), (5, 4)])
        let (out, status) = Self.decode(data, minimumCodeSize: 2, capacity: 16)
        #expect(out == [1, 2, 3, 0])
        #expect(status == .end)
    }

    @Test func oneBitMinimumCodeSize() {
        // Two-colour encoders write size 1: clear 2, end 3, first free 4, which needs 3 bits after one code.
        let codes = Self.widths([2, 1, 0, 4, 1, 3], minimumCodeSize: 1)
        #expect(codes.map(\.1) == [2, 2, 3, 3, 3, 3])
        let (out, status) = Self.decode(Self.pack(codes), minimumCodeSize: 1, capacity: 16)
        #expect(out == [1, 0, 1, 0, 1])
        #expect(status == .end)
    }

    @Test(arguments: [2, 3, 5, 8])
    func everyMinimumCodeSizeRoundTripsLiterals(minimumCodeSize: Int) {
        let clear = 1 << minimumCodeSize
        let pixels = (0 ..< 300).map { ($0 * 7 + $0 / 3) % clear }
        let codes = Self.widths([clear] + pixels + [clear + 1], minimumCodeSize: minimumCodeSize)
        let (out, status) = Self.decode(Self.pack(codes), minimumCodeSize: minimumCodeSize, capacity: 300)
        #expect(out == pixels.map(UInt8.init))
        // Output full after the last pixel: the end code is not read.
        #expect(status == .outputFull)
    }

    @Test func fullTableWithoutClearKeepsTwelveBitCodes() {
        // Only literals after one clear: each adds an entry (the pair of it and the previous literal)
        // until the table holds 4096; then codes stay 12 bits and nothing is added.
        let literals = (0 ..< 5000).map { ($0 * 31 + $0 / 256) % 256 }
        var codes = [256] + literals
        codes += [300, 4095, 258]
        codes.append(257)
        let widths = Self.widths(codes, minimumCodeSize: 8)
        #expect(widths.suffix(10).allSatisfy { $0.1 == 12 })
        var expected = literals.map(UInt8.init)
        // Entry 258 + k holds literals k and k + 1 (entries are made from the first 3838 pairs).
        for entry in [300, 4095, 258] {
            let k = entry - 258
            expected += [UInt8(literals[k]), UInt8(literals[k + 1])]
        }
        let data = Self.pack(widths)
        let (out, status) = Self.decode(data, minimumCodeSize: 8, capacity: expected.count + 10)
        #expect(out == expected)
        #expect(status == .end)
        // The same, fed byte by byte and in 13-byte pieces.
        for chunk in [1, 13] {
            let (pieces, s) = Self.decode(data, minimumCodeSize: 8, capacity: expected.count + 10, chunk: chunk)
            #expect(pieces == expected && s == .end)
        }
    }

    @Test func clearResetsTheTableAndWidth() {
        var codes = [4, 1, 2, 3, 0, 1, 2, 3]   // grows to 4 bits
        codes += [4, 3, 3, 6, 5]                // clear: back to 3 bits, 6 defined again as "33"
        let data = Self.pack(Self.widths(codes, minimumCodeSize: 2))
        let (out, status) = Self.decode(data, minimumCodeSize: 2, capacity: 32)
        #expect(out == [1, 2, 3, 0, 1, 2, 3, 3, 3, 3, 3])
        #expect(status == .end)
    }

    @Test func codeBeyondTheNextEntryIsInvalid() {
        let data = Self.pack([(4, 3), (1, 3), (7, 3)])
        #expect(Self.decode(data, minimumCodeSize: 2, capacity: 16).1 == .invalidCode(7))
    }

    @Test func nextEntryRightAfterClearIsInvalid() {
        let data = Self.pack([(4, 3), (6, 3)])
        #expect(Self.decode(data, minimumCodeSize: 2, capacity: 16).1 == .invalidCode(6))
    }

    @Test func stringsAreClippedToTheOutput() {
        // "1", "11" (6), "111" would need 6 bytes; only 4 fit.
        let data = Self.pack([(4, 3), (1, 3), (6, 3), (7, 3), (5, 4)])
        let (out, status) = Self.decode(data, minimumCodeSize: 2, capacity: 4)
        #expect(out == [1, 1, 1, 1])
        #expect(status == .outputFull)
    }

    @Test func tailAcceptsOnlyClearAndEnd() {
        var lzw = LZWDecoder(minimumCodeSize: 2)
        let good = Self.pack([(4, 3), (5, 3)])
        #expect(good.withUnsafeBufferPointer { lzw.decodeTail($0) }.0 == .end)
        lzw.restart()
        let bad = Self.pack([(1, 3), (5, 3)])
        #expect(bad.withUnsafeBufferPointer { lzw.decodeTail($0) }.0 == .excessData)
    }

    @Test func resumesAtEveryByte() {
        let pixels = (0 ..< 2000).map { ($0 / 5 + $0 * $0 % 7) % 16 }
        var codes = [16] + pixels
        codes.append(17)
        let data = Self.pack(Self.widths(codes, minimumCodeSize: 4))
        let whole = Self.decode(data, minimumCodeSize: 4, capacity: 4000)
        let bytewise = Self.decode(data, minimumCodeSize: 4, capacity: 4000, chunk: 1)
        #expect(whole.0 == pixels.map(UInt8.init) && whole.1 == .end)
        #expect(bytewise.0 == whole.0 && bytewise.1 == whole.1)
    }
}
