/// Coefficient token decoding (RFC 6386 section 13) for one macroblock, as libwebp's
/// ParseResiduals and GetCoeffs: dequantized coefficients in natural order, 16 per block
/// (16 luma blocks, then 4 U, then 4 V), stored as Int16 with C's truncation.
enum VP8Residuals {
    static let zigzag: [Int] = [0, 1, 4, 8, 5, 2, 3, 6, 9, 12, 13, 10, 7, 11, 14, 15]
    static let cat3: [UInt8] = [173, 148, 140]
    static let cat4: [UInt8] = [176, 155, 140, 135]
    static let cat5: [UInt8] = [180, 157, 141, 134, 130]
    static let cat6: [UInt8] = [254, 254, 243, 230, 196, 177, 153, 140, 133, 130, 129]

    /// The non-zero summary libwebp keeps per macroblock: for each luma block (first block in the
    /// top two bits) 0 none, 1 DC only, 2 up to the third coefficient, 3 more; likewise for chroma.
    struct Summary {
        var luma: UInt32 = 0
        var chroma: UInt32 = 0
    }

    /// Decodes a block's tokens from position `first`; returns the index after the last decoded
    /// token (0 for an immediate end of block, 16 when the block is full), as GetCoeffs does.
    /// `probs` points at the block type's [position 17][context 3][node 11] probabilities.
    /// Inlined with its token loop in one place, the block loop of `parseResiduals`, where the
    /// decoder's fields stay in registers.
    @inline(__always)
    static func coefficients(_ decoder: inout VP8BoolDecoder, _ probs: UnsafePointer<UInt8>, context: Int,
                             dc: Int32, ac: Int32, first: Int, _ out: UnsafeMutablePointer<Int16>) -> Int {
        let p = probs + (first &* 3 &+ context) &* 11
        if !decoder.bit(p[0]) { return first }
        return tokens(&decoder, probs, p, dc: dc, ac: ac, first: first, out)
    }

    /// `coefficients` out of line, for the second-order block (one a 16x16 macroblock): with a
    /// second place inlining the token loop, the optimiser inlined it in neither.
    @inline(never)
    static func secondOrder(_ decoder: inout VP8BoolDecoder, _ probs: UnsafePointer<UInt8>, context: Int,
                            dc: Int32, ac: Int32, _ out: UnsafeMutablePointer<Int16>) -> Int {
        var d = decoder
        defer { decoder.advance(to: d) }
        return coefficients(&d, probs, context: context, dc: dc, ac: ac, first: 0, out)
    }

    /// The tokens of a block whose first end-of-block bit (at `p`, position `first` < 16) said
    /// the block goes on.
    @inline(__always)
    static func tokens(_ decoder: inout VP8BoolDecoder, _ probs: UnsafePointer<UInt8>, _ start: UnsafePointer<UInt8>,
                       dc: Int32, ac: Int32, first: Int, _ out: UnsafeMutablePointer<Int16>) -> Int {
        // A local copy, of which only the changing fields go back. Its callers hold copies in
        // locals too, but without this one the loop compiled to 17 M more instructions a 12 MP decode.
        var d = decoder
        defer { decoder.advance(to: d) }
        var n = first
        var p = start
        while true {
            while !d.bit(p[1]) {
                n &+= 1
                if n == 16 { return 16 }
                p = probs + n &* 33
            }
            let next = probs + (n &+ 1) &* 33
            let v: Int
            if !d.bit(p[2]) {
                v = 1
                p = next + 11
            } else {
                v = largeValue(&d, p)
                p = next + 22
            }
            let q = n > 0 ? ac : dc
            let s = Int32(truncatingIfNeeded: d.signed(v))
            // Zigzag order packed in nibbles: position n holds coefficient (zigzag >> 4n) & 15.
            let z = Int(truncatingIfNeeded: (0xFEB7_ADC9_6325_8410 as UInt64) &>> UInt64(truncatingIfNeeded: n &* 4)) & 15
            out[z] = Int16(truncatingIfNeeded: s &* q)
            n &+= 1
            if n == 16 { return 16 }
            if !d.bit(p[0]) { return n }
        }
    }

    @inline(__always)
    static func largeValue(_ d: inout VP8BoolDecoder, _ p: UnsafePointer<UInt8>) -> Int {
        if !d.bit(p[3]) {
            if !d.bit(p[4]) { return 2 }
            return 3 + (d.bit(p[5]) ? 1 : 0)
        }
        if !d.bit(p[6]) {
            if !d.bit(p[7]) { return 5 + (d.bit(UInt32(159)) ? 1 : 0) }
            var v = 7 + 2 * (d.bit(UInt32(165)) ? 1 : 0)
            v += d.bit(UInt32(145)) ? 1 : 0
            return v
        }
        let bit1 = d.bit(p[8]) ? 1 : 0
        let bit0 = d.bit(p[9 + bit1]) ? 1 : 0
        let cat = 2 * bit1 + bit0
        let table: [UInt8]
        switch cat {
        case 0: table = cat3
        case 1: table = cat4
        case 2: table = cat5
        default: table = cat6
        }
        var v = 0
        for prob in table { v = v + v + (d.bit(prob) ? 1 : 0) }
        return v + 3 + (8 << cat)
    }

    @inline(__always)
    static func nzCode(_ codes: UInt32, _ nz: Int, _ dcNonZero: Bool) -> UInt32 {
        (codes << 2) | (nz > 3 ? 3 : nz > 1 ? 2 : (dcNonZero ? 1 : 0))
    }

    /// libwebp's inverse Walsh-Hadamard transform: 16 second-order DCs into the DC of each luma
    /// block (`out[16 * i]`).
    static func inverseWHT(_ input: UnsafePointer<Int16>, _ out: UnsafeMutablePointer<Int16>) {
        var tmp = (Int32(0), Int32(0), Int32(0), Int32(0), Int32(0), Int32(0), Int32(0), Int32(0),
                   Int32(0), Int32(0), Int32(0), Int32(0), Int32(0), Int32(0), Int32(0), Int32(0))
        withUnsafeMutableBytes(of: &tmp) { raw in
            let t = raw.baseAddress!.assumingMemoryBound(to: Int32.self)
            for i in 0 ..< 4 {
                let a0 = Int32(input[i]) &+ Int32(input[12 + i])
                let a1 = Int32(input[4 + i]) &+ Int32(input[8 + i])
                let a2 = Int32(input[4 + i]) &- Int32(input[8 + i])
                let a3 = Int32(input[i]) &- Int32(input[12 + i])
                t[i] = a0 &+ a1
                t[8 + i] = a0 &- a1
                t[4 + i] = a3 &+ a2
                t[12 + i] = a3 &- a2
            }
            for i in 0 ..< 4 {
                let dc = t[i * 4] &+ 3
                let a0 = dc &+ t[3 + i * 4]
                let a1 = t[1 + i * 4] &+ t[2 + i * 4]
                let a2 = t[1 + i * 4] &- t[2 + i * 4]
                let a3 = dc &- t[3 + i * 4]
                let o = out + 64 * i
                o[0] = Int16(truncatingIfNeeded: (a0 &+ a1) >> 3)
                o[16] = Int16(truncatingIfNeeded: (a3 &+ a2) >> 3)
                o[32] = Int16(truncatingIfNeeded: (a0 &- a1) >> 3)
                o[48] = Int16(truncatingIfNeeded: (a3 &- a2) >> 3)
            }
        }
    }
}
