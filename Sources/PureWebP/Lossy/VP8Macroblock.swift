/// One macroblock's residual parsing (libwebp's ParseResiduals) and reconstruction into the work
/// buffer (libwebp's ReconstructRow, one macroblock at a time), over pointers the decoder lends
/// for the duration of a `decode` call.
struct VP8MacroblockContext {
    /// Token probabilities [type 4][position 17][context 3][node 11].
    let probabilities: UnsafePointer<UInt8>
    let quantizers: UnsafePointer<VP8Quantizer>
    let useSkip: Bool
    /// Non-zero contexts above each macroblock column: luma columns in bits 0-3, U in 4-5, V in
    /// 6-7 (libwebp's nz_); and the second-order DC context.
    let nzTop: UnsafeMutablePointer<UInt8>
    let nzDcTop: UnsafeMutablePointer<UInt8>
    /// Coefficients of the macroblock being decoded: 384 Int16 (with threads, a macroblock's
    /// place in a parsed row).
    var coefficients: UnsafeMutablePointer<Int16>
    /// libwebp's yuv_b_: `VP8Predict.stride`-wide, luma at `lumaOffset`, chroma at the offsets below.
    let work: UnsafeMutablePointer<UInt8>
    /// Unfiltered bottom row and column samples of the macroblock row above: 32 bytes a column
    /// (16 luma, 8 U, 8 V).
    let topSamples: UnsafeMutablePointer<UInt8>

    static let workSize = VP8Predict.stride * 26
    static let lumaOffset = VP8Predict.stride + 8
    static let uOffset = VP8Predict.stride * 18 + 8
    static let vOffset = VP8Predict.stride * 18 + 24

    /// Parses the tokens of macroblock `x` (info as VP8Modes lays it out), updating the non-zero
    /// contexts; returns the luma and chroma summaries (libwebp's non_zero_y/non_zero_uv).
    /// Out of line, on a local copy of the decoder: inlined into the row loops, whose other calls
    /// keep their variables on the stack, the decoder's fields were loaded and stored at every bit.
    @inline(never)
    func parseResiduals(_ decoder: inout VP8BoolDecoder, x: Int, info: UnsafeMutablePointer<UInt8>,
                        nzLeft: inout UInt8, nzDcLeft: inout UInt8) -> (luma: UInt32, chroma: UInt32) {
        var d = decoder
        defer { decoder.advance(to: d) }
        let i4 = info[VP8Modes.isI4x4] != 0
        if useSkip && info[VP8Modes.skip] != 0 {
            nzTop[x] = 0
            nzLeft = 0
            if !i4 {
                nzDcTop[x] = 0
                nzDcLeft = 0
            }
            return (0, 0)
        }
        let q = quantizers[Int(info[VP8Modes.segment])]
        // All zero on entry: `reconstruct` clears the blocks it used, and a parse that ran out
        // of bytes clears them all (`clearCoefficients`).
        let dst = coefficients
        let first: Int
        let lumaProbs: UnsafePointer<UInt8>
        if !i4 {
            var dc = SIMD16<Int16>()
            let ctx = Int(nzDcTop[x]) + Int(nzDcLeft)
            let nz = withUnsafeMutableBytes(of: &dc) { raw -> Int in
                let p = raw.baseAddress!.assumingMemoryBound(to: Int16.self)
                let nz = VP8Residuals.secondOrder(&d, probabilities + 1 * 561, context: ctx, dc: q.y2.dc, ac: q.y2.ac, p)
                if nz > 1 {
                    VP8Residuals.inverseWHT(p, dst)
                } else {
                    let dc0 = Int16(truncatingIfNeeded: (Int32(p[0]) &+ 3) >> 3)
                    for i in 0 ..< 16 { dst[16 * i] = dc0 }
                }
                return nz
            }
            let flag: UInt8 = nz > 0 ? 1 : 0
            nzDcTop[x] = flag
            nzDcLeft = flag
            first = 1
            lumaProbs = probabilities
        } else {
            first = 0
            lumaProbs = probabilities + 3 * 561
        }
        // The 16 luma blocks, then 4 U and 4 V, in one loop with one call site, so that the
        // token loop is inlined once. The contexts live in one word: the top contexts in bits
        // 0-7 and the left ones in 8-15 (luma 0-3, U 4-5, V 6-7 in each byte), then one bit a
        // block (16 + b) saying whether it had coefficients; `contextBits` gives the bits of
        // block b's top and left neighbours.
        var nz = UInt64(nzTop[x]) | UInt64(nzLeft) &<< 8
        let neighbours = Self.contextBits
        // Two bits a block (VP8Residuals.nzCode), block 0 highest: luma, then U, then V.
        var codes: UInt64 = 0
        var block = dst
        var probs = lumaProbs
        var dcq = q.y1.dc, acq = q.y1.ac
        var start = first
        for b in 0 ..< 24 {
            let e = UInt64(neighbours[b])
            let ctx = Int(truncatingIfNeeded: ((nz &>> (e & 63)) & 1) &+ ((nz &>> (e &>> 8)) & 1))
            let count = VP8Residuals.coefficients(&d, probs, context: ctx, dc: dcq, ac: acq, first: start, block)
            nz |= (count > start ? 1 : 0) &<< UInt64(truncatingIfNeeded: 16 &+ b)
            codes = codes &<< 2 | UInt64(VP8Residuals.nzCode(0, count, block[0] != 0))
            block += 16
            if b == 15 {
                probs = probabilities + 2 * 561
                dcq = q.uv.dc
                acq = q.uv.ac
                start = 0
            }
        }
        // The chroma summary has U in bits 0-7 and V in 8-15.
        let luma = UInt32(truncatingIfNeeded: codes &>> 16)
        let chroma = UInt32(truncatingIfNeeded: (codes &>> 8) & 0xFF | (codes & 0xFF) &<< 8)
        // Below: the bottom row's blocks (luma 12-15, U 18-19, V 22-23); to the right: the
        // right column's (luma 3, 7, 11, 15, U 17, 19, V 21, 23).
        let flags = nz &>> 16
        let top = (flags &>> 12) & 0xF | ((flags &>> 18) & 3) &<< 4 | ((flags &>> 22) & 3) &<< 6
        let left = (flags &>> 3) & 1 | ((flags &>> 7) & 1) &<< 1 | ((flags &>> 11) & 1) &<< 2 | ((flags &>> 15) & 1) &<< 3
            | ((flags &>> 17) & 1) &<< 4 | ((flags &>> 19) & 1) &<< 5 | ((flags &>> 21) & 1) &<< 6 | ((flags &>> 23) & 1) &<< 7
        nzTop[x] = UInt8(truncatingIfNeeded: top)
        nzLeft = UInt8(truncatingIfNeeded: left)
        return (luma, chroma)
    }

    /// For block b (16 luma, 4 U, 4 V): the bit of `parseResiduals`' context word that holds
    /// its top neighbour's flag (low byte) and its left neighbour's (high byte).
    nonisolated(unsafe) static let contextBits: UnsafePointer<UInt16> = {
        let table = UnsafeMutablePointer<UInt16>.allocate(capacity: 24)
        for b in 0 ..< 24 {
            let top: Int, left: Int
            if b < 16 {
                let row = b >> 2, column = b & 3
                top = row == 0 ? column : 16 + b - 4
                left = column == 0 ? 8 + row : 16 + b - 1
            } else {
                let plane = (b - 16) >> 2, i = (b - 16) & 3, row = i >> 1, column = i & 1
                top = row == 0 ? 4 + 2 * plane + column : 16 + b - 2
                left = column == 0 ? 8 + 4 + 2 * plane + row : 16 + b - 1
            }
            table[b] = UInt16(top | left << 8)
        }
        return UnsafePointer(table)
    }()

    static let scan: [Int] = (0 ..< 16).map { ($0 & 3) * 4 + ($0 >> 2) * 4 * VP8Predict.stride }

    /// Records in `info` whether the loop filter's inner edges apply to the macroblock (libwebp's
    /// `f_inner_`): an intra 4x4 macroblock, or one neither skipped nor without coefficients.
    @inline(__always)
    func markInner(_ info: UnsafeMutablePointer<UInt8>, luma: UInt32, chroma: UInt32) {
        let skip = (useSkip && info[VP8Modes.skip] != 0) || (luma | chroma) == 0
        info[VP8Modes.inner] = (info[VP8Modes.isI4x4] != 0 || !skip) ? 1 : 0
    }

    @inline(__always)
    static func checkMode(_ x: Int, _ y: Int, _ mode: Int) -> Int {
        guard mode == 0 else { return mode }
        if x == 0 { return y == 0 ? VP8Predict.dcNoTopLeft : VP8Predict.dcNoLeft }
        return y == 0 ? VP8Predict.dcNoTop : 0
    }

    /// Zeroes the macroblock's coefficients after a parse that ran out of bytes part way.
    func clearCoefficients() { coefficients.update(repeating: 0, count: 384) }

    /// Predicts macroblock (`x`, `y`) and adds its residue in the work buffer, then stores its
    /// bottom samples for the row below (unless on the last row). Clears the coefficients it
    /// used, so that they are all zero for the next parse (a block whose code is 0 is zero).
    func reconstruct(x: Int, y: Int, width: Int, height: Int, info: UnsafePointer<UInt8>,
                     modes: UnsafePointer<UInt8>, luma: UInt32, chroma: UInt32) {
        let bps = VP8Predict.stride
        let yDst = work + Self.lumaOffset, uDst = work + Self.uOffset, vDst = work + Self.vOffset
        if x == 0 {
            for j in 0 ..< 16 { yDst[j * bps - 1] = 129 }
            for j in 0 ..< 8 { uDst[j * bps - 1] = 129; vDst[j * bps - 1] = 129 }
            if y > 0 {
                yDst[-1 - bps] = 129; uDst[-1 - bps] = 129; vDst[-1 - bps] = 129
            } else {
                (yDst - bps - 1).update(repeating: 127, count: 21)
                (uDst - bps - 1).update(repeating: 127, count: 9)
                (vDst - bps - 1).update(repeating: 127, count: 9)
            }
        } else {
            for j in -1 ..< 16 { yDst[j * bps - 1] = yDst[j * bps + 15] }
            for j in -1 ..< 8 { uDst[j * bps - 1] = uDst[j * bps + 7]; vDst[j * bps - 1] = vDst[j * bps + 7] }
        }
        let top = topSamples + 32 * x
        if y > 0 {
            (yDst - bps).update(from: top, count: 16)
            (uDst - bps).update(from: top + 16, count: 8)
            (vDst - bps).update(from: top + 24, count: 8)
        }
        if info[VP8Modes.isI4x4] != 0 {
            let topRight = yDst - bps + 16
            if y > 0 {
                if x >= width - 1 {
                    topRight.update(repeating: top[15], count: 4)
                } else {
                    topRight.update(from: top + 32, count: 4)
                }
            }
            for k in 1 ... 3 { (topRight + 4 * k * bps).update(from: topRight, count: 4) }
            var bits = luma
            Self.scan.withUnsafeBufferPointer { scan in
                for n in 0 ..< 16 {
                    let dst = yDst + scan[n]
                    VP8Predict.predict4x4(dst, mode: Int(modes[n]))
                    VP8Transform.add(code: bits >> 30, coefficients + 16 * n, dst)
                    if bits >> 30 != 0 { VP8Transform.clearBlock(coefficients + 16 * n) }
                    bits <<= 2
                }
            }
        } else {
            VP8Predict.predictBlock(yDst, size: 16, mode: Self.checkMode(x, y, Int(info[VP8Modes.yMode])))
            if luma != 0 {
                var bits = luma
                Self.scan.withUnsafeBufferPointer { scan in
                    for n in 0 ..< 16 {
                        VP8Transform.add(code: bits >> 30, coefficients + 16 * n, yDst + scan[n])
                        if bits >> 30 != 0 { VP8Transform.clearBlock(coefficients + 16 * n) }
                        bits <<= 2
                    }
                }
            }
        }
        let uvMode = Self.checkMode(x, y, Int(info[VP8Modes.uvMode]))
        VP8Predict.predictBlock(uDst, size: 8, mode: uvMode)
        VP8Predict.predictBlock(vDst, size: 8, mode: uvMode)
        VP8Transform.addChroma(bits: chroma & 0xff, coefficients + 256, uDst)
        VP8Transform.addChroma(bits: (chroma >> 8) & 0xff, coefficients + 320, vDst)
        if chroma & 0xff != 0 { for k in 0 ..< 4 { VP8Transform.clearBlock(coefficients + 256 + 16 * k) } }
        if chroma & 0xff00 != 0 { for k in 0 ..< 4 { VP8Transform.clearBlock(coefficients + 320 + 16 * k) } }
        if y < height - 1 {
            top.update(from: yDst + 15 * bps, count: 16)
            (top + 16).update(from: uDst + 7 * bps, count: 8)
            (top + 24).update(from: vDst + 7 * bps, count: 8)
        }
    }
}

extension VP8MacroblockContext {
    /// Copies a macroblock's reconstructed samples from the work buffer `w` to `y`, `u` and `v`.
    /// Out of line: inside the row loops' large functions the generic unaligned loads and stores
    /// stayed calls.
    @inline(never)
    static func storeSamples(_ w: UnsafeMutablePointer<UInt8>, y: UnsafeMutablePointer<UInt8>,
                             u: UnsafeMutablePointer<UInt8>, v: UnsafeMutablePointer<UInt8>,
                             yStride: Int, uvStride: Int) {
        for j in 0 ..< 16 {
            let row = UnsafeRawPointer(w + VP8MacroblockContext.lumaOffset + j * VP8Predict.stride)
            UnsafeMutableRawPointer(y + j * yStride).storeBytes(
                of: row.loadUnaligned(as: SIMD16<UInt8>.self), as: SIMD16<UInt8>.self)
        }
        for j in 0 ..< 8 {
            let us = UnsafeRawPointer(w + VP8MacroblockContext.uOffset + j * VP8Predict.stride)
            let vs = UnsafeRawPointer(w + VP8MacroblockContext.vOffset + j * VP8Predict.stride)
            UnsafeMutableRawPointer(u + j * uvStride).storeBytes(of: us.loadUnaligned(as: UInt64.self), as: UInt64.self)
            UnsafeMutableRawPointer(v + j * uvStride).storeBytes(of: vs.loadUnaligned(as: UInt64.self), as: UInt64.self)
        }
    }
}
