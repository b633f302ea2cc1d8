import ImageCore

/// The front half of the encoder for 12-bit samples (``JPEGEncodingOptions/precision`` 12), as
/// libjpeg-turbo 3 runs it with its C code at 12 bits: colour conversion (jccolor.c tables at
/// MAXJSAMPLE 4095), the edge padding, downsampling and dummy blocks of the 8-bit pipeline
/// (``MCURowProcessor``), the accurate integer FDCT with one extra bit between the passes
/// (jfdctint.c, PASS1_BITS 1 at 12 bits, 64-bit arithmetic) and quantization by plain
/// rounded division (jcdctmgr.c's 12-bit `quantize`). The blocks go to a ``CoefficientStore``;
/// the scans are coded from it as for 8-bit files (libjpeg-turbo always optimizes the Huffman
/// tables of 12-bit files).
enum TwelveBitEncoder {
    static let maximum = 4095

    /// The image's samples as 12-bit values, interleaved (`channels` 1 or 3): 12-bit images
    /// (``ImageMetadata/sampleBits``) as they are, others rescaled as cjpeg rescales a PPM
    /// (`(v * 4095 + max / 2) / max`); gray from colour by jccolor.c's luma.
    static func samples(_ image: Image, color: Bool) -> [UInt16] {
        let n = image.width * image.height
        let source = image.format.channels
        let inputMax = image.format.is16Bit ? (1 << (image.metadata.sampleBits ?? 16)) - 1 : 255
        var out = [UInt16](repeating: 0, count: n * (color ? 3 : 1))
        image.pixels.withUnsafeBytes { raw in
            @inline(__always) func load(_ i: Int) -> Int {
                let v = image.format.is16Bit ? Int(raw.load(fromByteOffset: 2 * i, as: UInt16.self)) : Int(raw[i])
                let clamped = min(v, inputMax)
                return inputMax == maximum ? clamped : (clamped * maximum + inputMax / 2) / inputMax
            }
            let table = grayTable
            for p in 0 ..< n {
                let base = p * source
                if color {
                    for c in 0 ..< 3 { out[3 * p + c] = UInt16(load(base + (image.format.isColor ? c : 0))) }
                } else if image.format.isColor {
                    let r = load(base), g = load(base + 1), b = load(base + 2)
                    out[p] = UInt16((table[r] + table[4096 + g] + table[8192 + b]) >> 16)
                } else {
                    out[p] = UInt16(load(base))
                }
            }
        }
        return out
    }

    /// jccolor.c's rgb_ycc_start at 12 bits (SCALEBITS 16): per input value, the terms of Y, Cb
    /// and Cr (Cb and Cr with CENTERJSAMPLE and a rounding fudge of one half less one).
    static let yccTable: [Int] = {
        @inline(__always) func fix(_ x: Double) -> Int { Int(x * 65536 + 0.5) }
        let half = 1 << 15, cbcrOffset = 2048 << 16
        var t = [Int](repeating: 0, count: 8 * 4096)
        for i in 0 ... maximum {
            t[i] = fix(0.29900) * i
            t[4096 + i] = fix(0.58700) * i
            t[2 * 4096 + i] = fix(0.11400) * i + half
            t[3 * 4096 + i] = -fix(0.16874) * i
            t[4 * 4096 + i] = -fix(0.33126) * i
            t[5 * 4096 + i] = fix(0.50000) * i + cbcrOffset + half - 1
            t[6 * 4096 + i] = -fix(0.41869) * i
            t[7 * 4096 + i] = -fix(0.08131) * i
        }
        return t
    }()

    /// The luma terms alone (rgb_gray_convert).
    static let grayTable: [Int] = Array(yccTable[0 ..< 3 * 4096])

    /// The quantized blocks of every MCU row into `store`.
    static func transform(_ samples: [UInt16], layout: EncoderLayout, quantTables: [[UInt16]], into store: CoefficientStore) {
        let pw = layout.paddedWidth, w = layout.width
        let nComp = layout.components.count
        let mcuRows = layout.mcuHeight
        var planes = [[Int]](repeating: [Int](repeating: 0, count: mcuRows * pw), count: nComp)
        let ycc = yccTable
        let divisors = (0 ..< 2).map { t in quantTables[min(t, quantTables.count - 1)].map { Int($0) << 3 } }
        var ws = [Int](repeating: 0, count: 64)
        for mcuRow in 0 ..< layout.mcusDown {
            let y0 = mcuRow * mcuRows
            let count = min(mcuRows, layout.height - y0)
            for r in 0 ..< count {
                let src = (y0 + r) * w * nComp
                for x in 0 ..< w {
                    if nComp == 3 {
                        let red = Int(samples[src + 3 * x]), green = Int(samples[src + 3 * x + 1]), blue = Int(samples[src + 3 * x + 2])
                        planes[0][r * pw + x] = (ycc[red] + ycc[4096 + green] + ycc[2 * 4096 + blue]) >> 16
                        planes[1][r * pw + x] = (ycc[3 * 4096 + red] + ycc[4 * 4096 + green] + ycc[5 * 4096 + blue]) >> 16
                        planes[2][r * pw + x] = (ycc[5 * 4096 + red] + ycc[6 * 4096 + green] + ycc[7 * 4096 + blue]) >> 16
                    } else {
                        planes[0][r * pw + x] = Int(samples[src + x])
                    }
                }
                for c in 0 ..< nComp {
                    let last = planes[c][r * pw + w - 1]
                    for x in w ..< pw { planes[c][r * pw + x] = last }
                }
            }
            let padded = (count + layout.maxV - 1) / layout.maxV * layout.maxV
            for c in 0 ..< nComp {
                for r in count ..< padded {
                    for x in 0 ..< pw { planes[c][r * pw + x] = planes[c][(count - 1) * pw + x] }
                }
            }
            let rowPointers = store.rowPointers(mcuRow), maskPointers = store.rowMaskPointers(mcuRow)
            for (c, comp) in layout.components.enumerated() {
                var plane = planes[c], stride = pw, validRows = padded
                if comp.h != layout.maxH || comp.v != layout.maxV {
                    // jcsample.c h2v1 (bias 0, 1, ...) and h2v2 (bias 1, 2, ...) downsampling.
                    stride = layout.mcusAcross * 8
                    var sub = [Int](repeating: 0, count: 8 * stride)
                    if layout.maxV == 2 {
                        validRows = padded / 2
                        for i in 0 ..< validRows {
                            var bias = 1
                            for j in 0 ..< stride {
                                let a = 2 * i * pw + 2 * j, b = (2 * i + 1) * pw + 2 * j
                                sub[i * stride + j] = (plane[a] + plane[a + 1] + plane[b] + plane[b + 1] + bias) >> 2
                                bias ^= 3
                            }
                        }
                    } else {
                        for i in 0 ..< validRows {
                            var bias = 0
                            for j in 0 ..< stride {
                                sub[i * stride + j] = (plane[i * pw + 2 * j] + plane[i * pw + 2 * j + 1] + bias) >> 1
                                bias ^= 1
                            }
                        }
                    }
                    plane = sub
                }
                for r in validRows ..< comp.v * 8 {
                    for x in 0 ..< stride { plane[r * stride + x] = plane[(validRows - 1) * stride + x] }
                }
                blocks(comp, plane: plane, stride: stride, mcuRow: mcuRow, out: rowPointers[c], masks: maskPointers[c],
                       divisors: divisors[comp.table], ws: &ws)
            }
        }
    }

    /// FDCT, quantization and nonzero maps of one component's blocks in an MCU row; dummy
    /// blocks as ``MCURowProcessor`` makes them.
    private static func blocks(_ comp: EncoderComponent, plane: [Int], stride: Int, mcuRow: Int, out: UnsafeMutablePointer<Int16>,
                               masks: UnsafeMutablePointer<UInt64>, divisors: [Int], ws: inout [Int]) {
        let bpl = comp.blocksPerLine
        for by in 0 ..< comp.v {
            let blockRow = mcuRow * comp.v + by
            let rowOut = out + by * bpl * 64
            let rowMasks = masks + by * bpl
            for bx in 0 ..< bpl { rowMasks[bx] = 0 }
            if blockRow < comp.heightInBlocks {
                for bx in 0 ..< comp.widthInBlocks {
                    for r in 0 ..< 8 {
                        for x in 0 ..< 8 { ws[r * 8 + x] = plane[(by * 8 + r) * stride + bx * 8 + x] - 2048 }
                    }
                    forward(&ws)
                    let block = rowOut + bx * 64
                    var mask: UInt64 = 0
                    for i in 0 ..< 64 {
                        let q = divisors[i]
                        var t = ws[i]
                        if t < 0 {
                            t = -((-t + (q >> 1)) / q)
                        } else {
                            t = (t + (q >> 1)) / q
                        }
                        block[i] = Int16(truncatingIfNeeded: t)
                    }
                    for k in 0 ..< 64 where block[EncoderTables.zigzag[k]] != 0 { mask |= 1 << UInt64(k) }
                    rowMasks[bx] = mask
                }
                MCURowProcessor.dummyBlocks(comp, row: rowOut, above: nil)
            } else {
                MCURowProcessor.dummyBlocks(comp, row: rowOut, above: out + (by - 1) * bpl * 64)
            }
        }
    }

    /// jfdctint.c's jpeg_fdct_islow at 12 bits, in place (natural order, scaled up by 8).
    static func forward(_ d: inout [Int]) {
        @inline(__always) func descale(_ x: Int, _ n: Int) -> Int { (x + (1 << (n - 1))) >> n }
        func pass(_ at: (Int) -> Int, _ put: (Int, Int) -> Void, evenShift: Int, oddShift: Int, first: Bool) {
            let tmp0 = at(0) + at(7), tmp7 = at(0) - at(7), tmp1 = at(1) + at(6), tmp6 = at(1) - at(6)
            let tmp2 = at(2) + at(5), tmp5 = at(2) - at(5), tmp3 = at(3) + at(4), tmp4 = at(3) - at(4)
            let tmp10 = tmp0 + tmp3, tmp13 = tmp0 - tmp3, tmp11 = tmp1 + tmp2, tmp12 = tmp1 - tmp2
            put(0, first ? (tmp10 + tmp11) << 1 : descale(tmp10 + tmp11, 1))
            put(4, first ? (tmp10 - tmp11) << 1 : descale(tmp10 - tmp11, 1))
            let z1 = (tmp12 + tmp13) * 4433
            put(2, descale(z1 + tmp13 * 6270, evenShift))
            put(6, descale(z1 - tmp12 * 15137, evenShift))
            let o1 = tmp4 + tmp7, o2 = tmp5 + tmp6, o3 = tmp4 + tmp6, o4 = tmp5 + tmp7
            let z5 = (o3 + o4) * 9633
            let a4 = tmp4 * 2446, a5 = tmp5 * 16819, a6 = tmp6 * 25172, a7 = tmp7 * 12299
            let b1 = -o1 * 7373, b2 = -o2 * 20995, b3 = -o3 * 16069 + z5, b4 = -o4 * 3196 + z5
            put(7, descale(a4 + b1 + b3, oddShift))
            put(5, descale(a5 + b2 + b4, oddShift))
            put(3, descale(a6 + b2 + b3, oddShift))
            put(1, descale(a7 + b1 + b4, oddShift))
        }
        for r in 0 ..< 8 {
            let row = Array(d[(r * 8) ..< (r * 8 + 8)])
            pass({ row[$0] }, { d[r * 8 + $0] = $1 }, evenShift: 12, oddShift: 12, first: true)
        }
        for c in 0 ..< 8 {
            let column = (0 ..< 8).map { d[$0 * 8 + c] }
            pass({ column[$0] }, { d[$0 * 8 + c] = $1 }, evenShift: 14, oddShift: 14, first: false)
        }
    }
}

/// The sequential scan of a 12-bit file: the baseline coder's lookup covers the 11-bit values
/// of 8-bit samples, so 12-bit blocks (DC differences of up to 15 bits, AC values of up to 14)
/// are coded here with the categories computed (T.81 F.1.2).
struct WideSequentialCoder {
    let store: CoefficientStore
    let restartInterval: Int

    func encode(dc: [HuffmanSpec], ac: [HuffmanSpec], writer w: inout BitWriter) {
        let layout = store.layout
        let dcCodes = dc.map { HuffmanCodes($0).entries }, acCodes = ac.map { HuffmanCodes($0).entries }
        var lastDC = [Int32](repeating: 0, count: layout.components.count)
        var mcus = 0
        @inline(__always) func put(_ entry: UInt32, _ w: inout BitWriter) {
            w.put(UInt64(entry & 0xFFFF), Int(entry >> 16))
        }
        for my in 0 ..< layout.mcusDown {
            for mx in 0 ..< layout.mcusAcross {
                if restartInterval > 0 && mcus > 0 && mcus % restartInterval == 0 {
                    w.flushBits()
                    w.append([0xFF, 0xD0 + UInt8((mcus / restartInterval - 1) & 7)])
                    for i in lastDC.indices { lastDC[i] = 0 }
                }
                for (c, comp) in layout.components.enumerated() {
                    for by in 0 ..< comp.v {
                        for bx in 0 ..< comp.h {
                            let block = store.block(c, row: my * comp.v + by, col: mx * comp.h + bx)
                            w.reserve(512)
                            let (n, extra) = magnitudeCategory(Int32(block[0]) &- lastDC[c])
                            lastDC[c] = Int32(block[0])
                            put(dcCodes[comp.table][n], &w)
                            if n > 0 { w.put(extra, n) }
                            var run = 0
                            for k in 1 ..< 64 {
                                let v = Int32(block[EncoderTables.zigzag[k]])
                                if v == 0 {
                                    run += 1
                                    continue
                                }
                                while run > 15 {
                                    put(acCodes[comp.table][0xF0], &w)
                                    run -= 16
                                }
                                let (s, bits) = magnitudeCategory(v)
                                put(acCodes[comp.table][run << 4 | s], &w)
                                w.put(bits, s)
                                run = 0
                            }
                            if run > 0 { put(acCodes[comp.table][0], &w) }
                        }
                    }
                }
                mcus += 1
            }
        }
        w.flushBits()
    }
}
