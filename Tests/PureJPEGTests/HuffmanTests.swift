import Testing
@testable import PureJPEG

/// Bits -> bytes, MSB first, padded with 1s (as encoders pad, T.81 F.1.2.3), FF stuffed.
func packBits(_ bits: String) -> [UInt8] {
    var out: [UInt8] = [], byte = 0, n = 0
    for ch in bits where ch == "0" || ch == "1" {
        byte = byte << 1 | (ch == "1" ? 1 : 0); n += 1
        if n == 8 { out.append(UInt8(byte)); if byte == 0xFF { out.append(0) }; byte = 0; n = 0 }
    }
    if n > 0 { let b = UInt8((byte << (8 - n)) | ((1 << (8 - n)) - 1)); out.append(b); if b == 0xFF { out.append(0) } }
    return out
}

@Suite("JPEG Huffman tables and bit reader")
struct HuffmanTests {
    // T.81 table K.3 (luminance DC) and the first entries of K.5 (luminance AC).
    static let dcCounts: [UInt8] = [0, 1, 5, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0]
    static let dcValues: [UInt8] = Array(0 ... 11)

    func read(_ bytes: [UInt8], _ body: (inout BitReader, UnsafePointer<UInt8>, Int) -> Void) {
        bytes.withUnsafeBufferPointer { b in
            var r = BitReader()
            if let base = b.baseAddress { body(&r, base, b.count) }
        }
    }

    @Test("canonical DC codes decode (K.3)")
    func dcCodes() throws {
        let t = try #require(HuffmanTable(counts: Self.dcCounts, values: Self.dcValues, isDC: true))
        // Category 0 = 00, 1 = 010, 5 = 110, 6 = 1110, 11 = 111111110 (9 bits).
        read(packBits("00 010 110 1110 111111110")) { r, p, n in
            r.refill(p, n, true)
            #expect(r.decode(t.lookup) == 0); #expect(r.decode(t.lookup) == 1); #expect(r.decode(t.lookup) == 5)
            #expect(r.decode(t.lookup) == 6); #expect(r.decode(t.lookup) == 11)
        }
    }

    @Test("codes longer than the fast table use the slow path")
    func longCodes() throws {
        // 16 codes of lengths 1...16: 0, 10, 110, ..., 1111111111111110.
        var counts = [UInt8](repeating: 1, count: 16); counts[15] = 1
        let t = try #require(HuffmanTable(counts: counts, values: Array(0 ..< 16), isDC: false))
        var bits = ""
        for symbol in [12, 3, 15, 9, 10] { bits += String(repeating: "1", count: symbol) + (symbol == 15 ? "0" : "0") }
        read(packBits(bits)) { r, p, n in
            for symbol in [12, 3, 15, 9, 10] {
                if r.count < 32 { r.refill(p, n, true) }
                #expect(r.decode(t.lookup) == symbol)
            }
        }
    }

    @Test("an unassigned code is decoded as libjpeg decodes it: 17 bits, symbol 0, and flagged")
    func invalidCode() throws {
        // Two 2-bit codes (00, 01) leave 1x unassigned.
        let t = try #require(HuffmanTable(counts: [0, 2] + [UInt8](repeating: 0, count: 14), values: [1, 2], isDC: true))
        read([0xC0, 0, 0, 0]) { r, p, n in
            r.refill(p, n, true)
            let before = r.count
            #expect(r.damage == 0)
            #expect(r.decode(t.lookup) == 0)
            #expect(r.count == before - 17)
            #expect(r.damage & BitReader.Damage.badCode != 0)
            // The next code starts after the 17 bits: 000... is the symbol of code 00.
            #expect(r.decode(t.lookup) == 1)
        }
    }

    @Test("bad tables are refused")
    func badTables() {
        #expect(HuffmanTable(counts: [3] + [UInt8](repeating: 0, count: 15), values: [0, 1, 2], isDC: true) == nil)
        #expect(HuffmanTable(counts: [1] + [UInt8](repeating: 0, count: 15), values: [16], isDC: true) == nil)
        #expect(HuffmanTable(counts: [1] + [UInt8](repeating: 0, count: 15), values: [16], isDC: false) != nil)
        #expect(HuffmanTable(counts: [1] + [UInt8](repeating: 0, count: 15), values: [1, 2], isDC: false) == nil)
        // A table whose codes reach the all-ones code of a length (libjpeg's JERR_BAD_HUFF_TABLE).
        #expect(HuffmanTable(counts: [2] + [UInt8](repeating: 0, count: 15), values: [0, 1], isDC: true) == nil)
        #expect(HuffmanTable(counts: [1, 2] + [UInt8](repeating: 0, count: 14), values: [0, 1, 2], isDC: false) == nil)
        #expect(HuffmanTable(counts: [1, 1, 1] + [UInt8](repeating: 0, count: 13), values: [0, 1, 2], isDC: false) != nil)
    }

    @Test("combined AC entries give run, value and total length")
    func fastAC() throws {
        // Symbols: 0x01 (run 0, size 1) = code 0, 0x22 (run 2, size 2) = code 10, 0x00 (EOB) = 110.
        let t = try #require(HuffmanTable(counts: [1, 1, 1] + [UInt8](repeating: 0, count: 13), values: [0x01, 0x22, 0x00], isDC: false))
        // Indices are the next 11 bits. "0" + "0" -> value -1 (size 1, bit 0); "10" + "11" ->
        // run 2, value 3; "110" is EOB: the EOB run marker and the code length.
        let e1 = t.fastAC[0b0_0_000000000]
        #expect(e1 >> 16 == -1 && (e1 >> 8) & 0xFF == 0 && e1 & 0xFF == 2)
        let e2 = t.fastAC[0b10_11_0000000]
        #expect(e2 >> 16 == 3 && (e2 >> 8) & 0xFF == 2 && e2 & 0xFF == 4)
        #expect(t.fastAC[0b110_00000000] == Int32(HuffmanTable.eobRun << 8 | 3))
        // ZRL (0xF0) is run 15 with value 0: the loop writes the sixteenth zero as a coefficient.
        let z = try #require(HuffmanTable(counts: [1, 1] + [UInt8](repeating: 0, count: 14), values: [0xF0, 0x00], isDC: false))
        #expect(z.fastAC[0] == Int32(15 << 8 | 1))
        #expect(z.fastAC[1 << 10] == Int32(HuffmanTable.eobRun << 8 | 2))
    }

    @Test("stuffed FF 00 is a data byte; a marker stops the reader")
    func unstuffing() {
        read([0xFF, 0x00, 0xAB, 0xFF, 0xD9]) { r, p, n in
            r.refill(p, n, false)
            #expect(r.bits(8) == 0xFF)
            #expect(r.bits(8) == 0xAB)
            #expect(r.hitMarker && r.position == 3)
            #expect(r.bits(8) == 0 && r.overran)
        }
    }

    @Test("running out of bytes is starvation, not a marker")
    func starvation() {
        read([0x12, 0xFF]) { r, p, n in
            r.refill(p, n, false)
            #expect(r.starved && !r.hitMarker && r.position == 1)
            #expect(r.bits(8) == 0x12)
            #expect(!r.overran)
            _ = r.bits(1)
            #expect(r.overran)
        }
    }

    @Test("a block decodes into natural order")
    func block() throws {
        let dc = try #require(HuffmanTable(counts: Self.dcCounts, values: Self.dcValues, isDC: true))
        let ac = try #require(HuffmanTable(counts: [1, 1, 1] + [UInt8](repeating: 0, count: 13), values: [0x01, 0x22, 0x00], isDC: false))
        // DC category 2 (011) value 3 (11); AC: run0 size1 '1' -> +1 at k=1; run2 size2 '01' -> -2 at k=4; EOB (110).
        let data = packBits("011 11 0 1 10 01 110")
        var coefficients = [Int16](repeating: 0, count: 64)
        var predictor = 10
        data.withUnsafeBufferPointer { b in
            zigzagToNatural.withUnsafeBufferPointer { z in
                coefficients.withUnsafeMutableBufferPointer { c in
                    var r = BitReader()
                    guard let base = b.baseAddress, let zz = z.baseAddress, let out = c.baseAddress else { return }
                    r.decodeSequentialBlock(out, dc: dc.lookup, ac: ac.lookup, predictor: &predictor, zigzag: zz, data: base, end: b.count, isFinal: true)
                }
            }
        }
        #expect(predictor == 13 && coefficients[0] == 13)
        #expect(coefficients[1] == 1)          // zig-zag 1 = natural 1
        #expect(coefficients[9] == -2)         // zig-zag 4 = natural 9
        #expect(coefficients.filter { $0 != 0 }.count == 3)
    }

    @Test("non-zero zig-zag mask: SIMD equals the scalar reference")
    func nonzeroMask() {
        var rng = SplitMix64(state: 7)
        var block = [Int16](repeating: 0, count: 64)
        zigzagToNatural.withUnsafeBufferPointer { z in
            guard let zz = z.baseAddress else { return }
            for trial in 0 ..< 4000 {
                // Densities from empty to full, and extreme values (-32768 is non-zero too).
                let density = trial % 9
                for i in 0 ..< 64 {
                    let pick = rng.next() % 8
                    block[i] = pick < UInt64(density) ? [1, -1, 2, -32768, 32767, 5, -7, 100][Int(rng.next() % 8)] : 0
                }
                block.withUnsafeBufferPointer { b in
                    guard let p = b.baseAddress else { return }
                    #expect(BitReader.nonzeroZigzagMask(p, zz) == BitReader.nonzeroZigzagMaskScalar(p, zz))
                }
            }
            for k in 0 ..< 64 {
                block = [Int16](repeating: 0, count: 64)
                block[Int(zigzagToNatural[k])] = -1
                block.withUnsafeBufferPointer { b in
                    guard let p = b.baseAddress else { return }
                    #expect(BitReader.nonzeroZigzagMask(p, zz) == UInt64(1) << UInt64(k))
                }
            }
        }
    }
}
