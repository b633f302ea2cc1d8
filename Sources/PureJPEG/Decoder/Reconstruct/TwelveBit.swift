import ImageCore

/// 12-bit DCT frames (T.81 precision 12: SOF1, SOF2, SOF9, SOF10; libjpeg-turbo 3 decodes them
/// with its C kernels, which these follow): the coefficients are decoded as for 8-bit frames,
/// always into the coefficient store; the image is made from them at EOI or for a preview:
/// the accurate integer IDCT at 12 bits (jidctint.c built with BITS_IN_JSAMPLE 12; jidctred.c's
/// for 1/2, 1/4, 1/8 scale), block smoothing at EOI, libjpeg's upsampling choices (jdsample.c)
/// and YCbCr conversion (jdcolor.c) on 16-bit samples, giving gray16 or rgb16 images whose
/// samples run 0...4095 (``ImageMetadata/sampleBits`` 12).
enum TwelveBit {
    static let maximum = 4095
    static let center = 2048

    /// libjpeg's post-IDCT range limit at 12 bits: `v + 2048` clamped to 0...4095 for v in
    /// -8192...8191, wrapping mod 16384 outside (prepare_range_limit_table, `& RANGE_MASK`).
    @inline(__always)
    static func rangeLimit(_ v: Int) -> UInt16 {
        let u = (v &+ center) & 16383
        if u <= maximum { return UInt16(truncatingIfNeeded: u) }
        return u < 10240 ? UInt16(maximum) : 0
    }

    @inline(__always)
    static func descale(_ x: Int, _ n: Int) -> Int { (x &+ (1 &<< (n &- 1))) &>> n }

    /// One 1-D pass of jidctint.c's islow transform (12 multiplies, CONST_BITS 13), before its
    /// final descale: outputs 0...7 as the even and odd parts combine them.
    @inline(__always)
    static func butterfly(_ d0: Int, _ d1: Int, _ d2: Int, _ d3: Int, _ d4: Int, _ d5: Int, _ d6: Int, _ d7: Int)
        -> (Int, Int, Int, Int, Int, Int, Int, Int) {
        var z1 = (d2 &+ d6) &* 4433
        let tmp2e = z1 &+ d6 &* -15137
        let tmp3e = z1 &+ d2 &* 6270
        let tmp0e = (d0 &+ d4) &<< 13
        let tmp1e = (d0 &- d4) &<< 13
        let tmp10 = tmp0e &+ tmp3e, tmp13 = tmp0e &- tmp3e
        let tmp11 = tmp1e &+ tmp2e, tmp12 = tmp1e &- tmp2e
        var tmp0 = d7, tmp1 = d5, tmp2 = d3, tmp3 = d1
        z1 = tmp0 &+ tmp3
        var z2 = tmp1 &+ tmp2
        var z3 = tmp0 &+ tmp2
        var z4 = tmp1 &+ tmp3
        let z5 = (z3 &+ z4) &* 9633
        tmp0 = tmp0 &* 2446
        tmp1 = tmp1 &* 16819
        tmp2 = tmp2 &* 25172
        tmp3 = tmp3 &* 12299
        z1 = z1 &* -7373
        z2 = z2 &* -20995
        z3 = z3 &* -16069 &+ z5
        z4 = z4 &* -3196 &+ z5
        tmp0 = tmp0 &+ z1 &+ z3
        tmp1 = tmp1 &+ z2 &+ z4
        tmp2 = tmp2 &+ z2 &+ z3
        tmp3 = tmp3 &+ z1 &+ z4
        return (tmp10 &+ tmp3, tmp11 &+ tmp2, tmp12 &+ tmp1, tmp13 &+ tmp0,
                tmp13 &- tmp0, tmp12 &- tmp1, tmp11 &- tmp2, tmp10 &- tmp3)
    }

    /// The 8x8 inverse DCT of one block into 12-bit samples (PASS1_BITS 1 at 12 bits; 64-bit
    /// arithmetic, as libjpeg's JLONG on 64-bit Linux), with jidctint.c's zero shortcuts, which
    /// change no result.
    static func idct(_ input: UnsafePointer<Int16>, _ quant: UnsafePointer<UInt16>, _ output: UnsafeMutablePointer<UInt16>,
                     _ stride: Int, _ ws: UnsafeMutablePointer<Int>) {
        @inline(__always) func dq(_ i: Int) -> Int { Int(input[i]) &* Int(quant[i]) }
        for c in 0 ..< 8 {
            if input[c + 8] == 0 && input[c + 16] == 0 && input[c + 24] == 0 && input[c + 32] == 0
                && input[c + 40] == 0 && input[c + 48] == 0 && input[c + 56] == 0 {
                let dc = dq(c) &<< 1
                for r in 0 ..< 8 { ws[c + 8 * r] = dc }
                continue
            }
            let o = butterfly(dq(c), dq(c + 8), dq(c + 16), dq(c + 24), dq(c + 32), dq(c + 40), dq(c + 48), dq(c + 56))
            ws[c] = descale(o.0, 12); ws[c + 8] = descale(o.1, 12); ws[c + 16] = descale(o.2, 12); ws[c + 24] = descale(o.3, 12)
            ws[c + 32] = descale(o.4, 12); ws[c + 40] = descale(o.5, 12); ws[c + 48] = descale(o.6, 12); ws[c + 56] = descale(o.7, 12)
        }
        for r in 0 ..< 8 {
            let w = ws + 8 * r
            let out = output + r * stride
            if w[1] == 0 && w[2] == 0 && w[3] == 0 && w[4] == 0 && w[5] == 0 && w[6] == 0 && w[7] == 0 {
                let v = rangeLimit(descale(w[0], 4))
                for x in 0 ..< 8 { out[x] = v }
                continue
            }
            let o = butterfly(w[0], w[1], w[2], w[3], w[4], w[5], w[6], w[7])
            out[0] = rangeLimit(descale(o.0, 17)); out[1] = rangeLimit(descale(o.1, 17))
            out[2] = rangeLimit(descale(o.2, 17)); out[3] = rangeLimit(descale(o.3, 17))
            out[4] = rangeLimit(descale(o.4, 17)); out[5] = rangeLimit(descale(o.5, 17))
            out[6] = rangeLimit(descale(o.6, 17)); out[7] = rangeLimit(descale(o.7, 17))
        }
    }

    /// libjpeg keeps the IDCT workspace in C `int`: a pass-1 value is cut to 32 bits.
    @inline(__always)
    static func int32(_ x: Int) -> Int { Int(Int32(truncatingIfNeeded: x)) }

    /// 1/2 scale: 4x4 samples from one block (jidctred.c's jpeg_idct_4x4 built for 12 bits:
    /// PASS1_BITS 1, 64-bit products; column and row 4 unread).
    static func idct4x4(_ input: UnsafePointer<Int16>, _ quant: UnsafePointer<UInt16>, _ output: UnsafeMutablePointer<UInt16>,
                        _ stride: Int, _ ws: UnsafeMutablePointer<Int>) {
        @inline(__always) func dq(_ i: Int) -> Int { Int(input[i]) &* Int(quant[i]) }
        for c in 0 ..< 8 where c != 4 {
            if input[c + 8] == 0 && input[c + 16] == 0 && input[c + 24] == 0
                && input[c + 40] == 0 && input[c + 48] == 0 && input[c + 56] == 0 {
                let dc = int32(dq(c) &<< 1)
                for r in 0 ..< 4 { ws[c + 8 * r] = dc }
                continue
            }
            let v = IDCTScaled.step4(dq(c), dq(c + 8), dq(c + 16), dq(c + 24), dq(c + 40), dq(c + 48), dq(c + 56))
            ws[c] = int32(descale(v.0, 13)); ws[c + 8] = int32(descale(v.1, 13))
            ws[c + 16] = int32(descale(v.2, 13)); ws[c + 24] = int32(descale(v.3, 13))
        }
        for r in 0 ..< 4 {
            let w = ws + 8 * r
            let out = output + r * stride
            if w[1] == 0 && w[2] == 0 && w[3] == 0 && w[5] == 0 && w[6] == 0 && w[7] == 0 {
                let v = rangeLimit(descale(w[0], 4))
                for x in 0 ..< 4 { out[x] = v }
                continue
            }
            let v = IDCTScaled.step4(w[0], w[1], w[2], w[3], w[5], w[6], w[7])
            out[0] = rangeLimit(descale(v.0, 18)); out[1] = rangeLimit(descale(v.1, 18))
            out[2] = rangeLimit(descale(v.2, 18)); out[3] = rangeLimit(descale(v.3, 18))
        }
    }

    /// 1/4 scale: 2x2 samples from one block (jidctred.c's jpeg_idct_2x2 at 12 bits; columns
    /// and rows 2, 4, 6 unread).
    static func idct2x2(_ input: UnsafePointer<Int16>, _ quant: UnsafePointer<UInt16>, _ output: UnsafeMutablePointer<UInt16>,
                        _ stride: Int, _ ws: UnsafeMutablePointer<Int>) {
        @inline(__always) func dq(_ i: Int) -> Int { Int(input[i]) &* Int(quant[i]) }
        for c in [0, 1, 3, 5, 7] {
            if input[c + 8] == 0 && input[c + 24] == 0 && input[c + 40] == 0 && input[c + 56] == 0 {
                let dc = int32(dq(c) &<< 1)
                ws[c] = dc; ws[c + 8] = dc
                continue
            }
            let v = IDCTScaled.step2(dq(c), dq(c + 8), dq(c + 24), dq(c + 40), dq(c + 56))
            ws[c] = int32(descale(v.0, 14)); ws[c + 8] = int32(descale(v.1, 14))
        }
        for r in 0 ..< 2 {
            let w = ws + 8 * r
            let out = output + r * stride
            if w[1] == 0 && w[3] == 0 && w[5] == 0 && w[7] == 0 {
                let v = rangeLimit(descale(w[0], 4))
                out[0] = v; out[1] = v
                continue
            }
            let v = IDCTScaled.step2(w[0], w[1], w[3], w[5], w[7])
            out[0] = rangeLimit(descale(v.0, 19)); out[1] = rangeLimit(descale(v.1, 19))
        }
    }

    /// 1/8 scale: the DC term alone (jidctred.c's jpeg_idct_1x1 at 12 bits).
    static func idct1x1(_ input: UnsafePointer<Int16>, _ quant: UnsafePointer<UInt16>, _ output: UnsafeMutablePointer<UInt16>) {
        output[0] = rangeLimit(descale(int32(Int(input[0]) &* Int(quant[0])), 3))
    }

    /// The image from the coefficients at the geometry's scale: every component's blocks
    /// transformed at its IDCT size (jdmaster.c's choice, as for 8-bit frames) into a plane,
    /// brought to the output size, converted. nil for a layout libjpeg cannot upsample
    /// (non-integral factors).
    /// With `smoothing`, each block of the image is smoothed just before its IDCT, as
    /// decompress_smooth_data does at every precision (BlockSmoothing.swift).
    static func render(frame: Frame, store: DecodedCoefficients, quant: [[UInt16]], geometry: OutputGeometry,
                       smoothing: SmoothingContext?, metadata: ImageMetadata) -> Image? {
        let width = geometry.width, height = geometry.height
        var full: [[UInt16]] = []
        let ws = UnsafeMutablePointer<Int>.allocate(capacity: 64)
        let expanded = UnsafeMutablePointer<Int16>.allocate(capacity: 128)
        defer { ws.deallocate(); expanded.deallocate() }
        let smoothed = expanded + 64
        let dcValues = smoothing?.dcValues ?? []
        for (c, fc) in frame.components.enumerated() {
            guard c < quant.count, quant[c].count == 64, c < store.counts.count, c < geometry.components.count else { return nil }
            let g = geometry.components[c], k = g.blockSize, step = fc.valuesPerBlock
            let pw = fc.paddedBlocksWide * k, ph = fc.paddedBlocksHigh * k
            guard store.counts[c] >= fc.paddedBlocksWide * fc.paddedBlocksHigh * step else { return nil }
            var plane = [UInt16](repeating: 0, count: pw * ph)
            plane.withUnsafeMutableBufferPointer { p in
                quant[c].withUnsafeBufferPointer { q in
                    dcValues.withUnsafeBufferPointer { dc in
                        guard let base = p.baseAddress, let qb = q.baseAddress else { return }
                        for by in 0 ..< fc.paddedBlocksHigh {
                            // Blocks outside the image (MCU padding) are not smoothed.
                            var window: BlockSmoothing.Row?
                            var smoothedBlocks = 0
                            if let smoothing, let dcBase = dc.baseAddress, c < smoothing.plan.count, by < smoothing.plan[c].blocksHigh {
                                window = BlockSmoothing.Row(smoothing.plan[c], dc: dcBase + smoothing.dcOffsets[c], y: by,
                                                            lastRow: smoothing.lastIMCURow, lastGoodRow: smoothing.lastGoodRow,
                                                            version3: true)
                                smoothedBlocks = smoothing.plan[c].blocksWide
                            }
                            for bx in 0 ..< fc.paddedBlocksWide {
                                var block = UnsafePointer(store.planes[c] + (by * fc.paddedBlocksWide + bx) * step)
                                if step != 64 {
                                    expanded.initialize(repeating: 0, count: 64)
                                    CompactBlock.expand(block, valuesPerBlock: step, into: expanded, history: false)
                                    block = UnsafePointer(expanded)
                                }
                                if bx < smoothedBlocks { block = window!.estimate(block, x: bx, into: smoothed) }
                                let out = base + by * k * pw + bx * k
                                switch k {
                                case 4: idct4x4(block, qb, out, pw, ws)
                                case 2: idct2x2(block, qb, out, pw, ws)
                                case 1: idct1x1(block, qb, out)
                                default: idct(block, qb, out, pw, ws)
                                }
                            }
                        }
                    }
                }
            }
            full.append(upsample(plane, stride: pw, width: g.width, height: g.height, hFactor: g.hUp, vFactor: g.vUp,
                                 fancy: geometry.fancy, outWidth: width, outHeight: height))
        }
        let channels = frame.components.count == 1 ? 1 : 3
        var image = Image(width: width, height: height, format: channels == 1 ? .gray16 : .rgb16, metadata: metadata)
        image.metadata.sampleBits = 12
        image.pixels.withUnsafeMutableBytes { raw in
            let out = raw.bindMemory(to: UInt16.self)
            let n = width * height
            if channels == 1 {
                for i in 0 ..< n { out[i] = full[0][i] }
            } else if geometry.transform == .rgb {
                for i in 0 ..< n { out[3 * i] = full[0][i]; out[3 * i + 1] = full[1][i]; out[3 * i + 2] = full[2][i] }
            } else {
                yccToRGB(full[0], full[1], full[2], into: out)
            }
        }
        return image
    }

    /// jdcolor.c's ycc_rgb_convert at 12 bits: table values rounded as libjpeg builds them
    /// (SCALEBITS 16), clamped to 0...4095.
    static func yccToRGB(_ y: [UInt16], _ cb: [UInt16], _ cr: [UInt16], into out: UnsafeMutableBufferPointer<UInt16>) {
        let one = 1 << 16, half = 1 << 15
        @inline(__always) func fix(_ x: Double) -> Int { Int(x * Double(one) + 0.5) }
        var crR = [Int](repeating: 0, count: maximum + 1), cbB = crR, crG = crR, cbG = crR
        for i in 0 ... maximum {
            let x = i - center
            crR[i] = (fix(1.40200) * x + half) >> 16
            cbB[i] = (fix(1.77200) * x + half) >> 16
            crG[i] = -fix(0.71414) * x
            cbG[i] = -fix(0.34414) * x + half
        }
        @inline(__always) func clamp(_ v: Int) -> UInt16 { UInt16(min(max(v, 0), maximum)) }
        for i in y.indices {
            let yy = Int(y[i]), b = Int(cb[i]) & 4095, r = Int(cr[i]) & 4095
            out[3 * i] = clamp(yy + crR[r])
            out[3 * i + 1] = clamp(yy + ((cbG[b] + crG[r]) >> 16))
            out[3 * i + 2] = clamp(yy + cbB[b])
        }
    }

    /// A component plane (`width` x `height` samples of a plane `stride` wide) brought to the
    /// image's size, as jdsample.c chooses: fancy (triangle) for 2x1 (more than two samples
    /// wide), 1x2 and 2x2 (more than two wide), replication otherwise; edge rows replicated.
    static func upsample(_ plane: [UInt16], stride: Int, width: Int, height: Int, hFactor: Int, vFactor: Int, fancy: Bool,
                         outWidth: Int, outHeight: Int) -> [UInt16] {
        var out = [UInt16](repeating: 0, count: outWidth * outHeight)
        @inline(__always) func at(_ x: Int, _ y: Int) -> Int { Int(plane[min(max(y, 0), height - 1) * stride + x]) }
        let fancyH = fancy && hFactor == 2 && width > 2 && (vFactor == 1 || vFactor == 2)
        let fancyV1x2 = fancy && hFactor == 1 && vFactor == 2
        for oy in 0 ..< outHeight {
            let row = oy * outWidth
            if hFactor == 1 && vFactor == 1 {
                for x in 0 ..< outWidth { out[row + x] = UInt16(at(x, oy)) }
            } else if fancyV1x2 {
                // h1v2: the nearer row three times and the farther once, bias 1 above and 2 below.
                let y = oy >> 1, other = oy & 1 == 0 ? y - 1 : y + 1, bias = oy & 1 == 0 ? 1 : 2
                for x in 0 ..< outWidth { out[row + x] = UInt16((at(x, y) * 3 + at(x, other) + bias) >> 2) }
            } else if fancyH && vFactor == 1 {
                let y = oy
                for ox in 0 ..< outWidth {
                    let x = ox >> 1
                    let v: Int
                    if ox & 1 == 0 {
                        v = x == 0 ? at(0, y) : (at(x, y) * 3 + at(x - 1, y) + 1) >> 2
                    } else {
                        v = x >= width - 1 ? at(width - 1, y) : (at(x, y) * 3 + at(x + 1, y) + 2) >> 2
                    }
                    out[row + ox] = UInt16(v)
                }
            } else if fancyH && vFactor == 2 {
                // h2v2: column sums of the nearer row three times and the farther once, then the
                // same triangle across (jdsample.c h2v2_fancy_upsample).
                let y = oy >> 1, other = oy & 1 == 0 ? y - 1 : y + 1
                @inline(__always) func colsum(_ x: Int) -> Int { at(x, y) * 3 + at(x, other) }
                for ox in 0 ..< outWidth {
                    let x = ox >> 1
                    let v: Int
                    if ox & 1 == 0 {
                        v = x == 0 ? (colsum(0) * 4 + 8) >> 4 : (colsum(x) * 3 + colsum(x - 1) + 8) >> 4
                    } else {
                        v = x >= width - 1 ? (colsum(width - 1) * 4 + 7) >> 4 : (colsum(x) * 3 + colsum(x + 1) + 7) >> 4
                    }
                    out[row + ox] = UInt16(v)
                }
            } else {
                // Replication (h2v1, h2v2 box, and any integral factors).
                let y = oy / vFactor
                for ox in 0 ..< outWidth { out[row + ox] = plane[y * stride + ox / hFactor] }
            }
        }
        return out
    }
}

extension JPEGDecoder {
    /// The 12-bit image of the coefficients so far (full range in row mode, which feeds
    /// encoders and resamplers). `final`: the image at EOI, block-smoothed as djpeg smooths a
    /// progressive file whose first AC coefficients are not all exact (previews are not).
    func renderTwelveBit(_ frame: Frame, final: Bool = false, lastGoodRow: Int = .max) -> Image? {
        let smoothing = final ? smoothingContext(frame: frame, lastGoodRow: lastGoodRow) : nil
        guard let geometry, var image = TwelveBit.render(frame: frame, store: coefficientState.store, quant: tables.componentQuantTables,
                                                         geometry: geometry, smoothing: smoothing,
                                                         metadata: metadata) else { return nil }
        image.metadata.sampleBits = 12
        return rowOutput != nil ? image.fullRange() : image
    }
}
