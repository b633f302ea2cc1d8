/// Per-macroblock headers from the first partition (RFC 6386 19.3, 11), as libwebp's
/// ParseIntraMode: segment id, skip flag, luma mode (16x16, or sixteen 4x4 modes with the
/// contextual tree on the modes above and to the left), chroma mode.
enum VP8Modes {
    /// Offsets in a macroblock's info bytes (`VP8Modes.infoSize` per macroblock).
    static let isI4x4 = 0, segment = 1, skip = 2, uvMode = 3, yMode = 4, inner = 5
    static let infoSize = 8

    /// Parses one macroblock row's headers into `info` (infoSize bytes a macroblock) and `modes`
    /// (16 4x4 modes a macroblock). `top` holds 4 context modes a macroblock column and is
    /// updated; the left context starts at DC for each row.
    static func parseRow(_ decoder: inout VP8BoolDecoder, width: Int, frame: VP8FrameHeader,
                         top: UnsafeMutablePointer<UInt8>, info: UnsafeMutablePointer<UInt8>,
                         modes: UnsafeMutablePointer<UInt8>) {
        var d = decoder  // in registers
        defer { decoder = d }
        var left: (UInt8, UInt8, UInt8, UInt8) = (0, 0, 0, 0)
        let segmentProbs = frame.segment.treeProbabilities
        let updateMap = frame.segment.updateMap
        let skipProb = frame.skipProbability
        VP8Tables.intra4x4ModeProbabilities.withUnsafeBufferPointer { bmodes in
            withUnsafeMutableBytes(of: &left) { leftRaw in
                let l = leftRaw.baseAddress!.assumingMemoryBound(to: UInt8.self)
                for x in 0 ..< width {
                    let inf = info + x * infoSize
                    let t = top + 4 * x
                    var seg: UInt8 = 0
                    if updateMap {
                        seg = !d.bit(segmentProbs[0]) ? (d.bit(segmentProbs[1]) ? 1 : 0)
                            : (d.bit(segmentProbs[2]) ? 3 : 2)
                    }
                    inf[segment] = seg
                    if let skipProb { inf[skip] = d.bit(skipProb) ? 1 : 0 } else { inf[skip] = 0 }
                    let i4 = !d.bit(UInt32(145))
                    inf[isI4x4] = i4 ? 1 : 0
                    if !i4 {
                        let ymode: UInt8 = d.bit(UInt32(156)) ? (d.bit(UInt32(128)) ? 1 : 3) : (d.bit(UInt32(163)) ? 2 : 0)
                        inf[yMode] = ymode
                        for i in 0 ..< 4 { t[i] = ymode; l[i] = ymode }
                    } else {
                        let m = modes + 16 * x
                        for y in 0 ..< 4 {
                            var ymode = Int(l[y])
                            for xx in 0 ..< 4 {
                                let prob = bmodes.baseAddress! + (Int(t[xx]) * 10 + ymode) * 9
                                // RFC 6386's bmode tree (node i reads prob[i]) as branches:
                                // on a predicted path the next probability is loaded before
                                // the bit is known, where a walk of the tree as a table
                                // waits for each bit to find the next node.
                                ymode = !d.bit(prob[0]) ? 0 : !d.bit(prob[1]) ? 1 : !d.bit(prob[2]) ? 2
                                    : !d.bit(prob[3]) ? (!d.bit(prob[4]) ? 3 : !d.bit(prob[5]) ? 4 : 5)
                                    : !d.bit(prob[6]) ? 6 : !d.bit(prob[7]) ? 7 : !d.bit(prob[8]) ? 8 : 9
                                t[xx] = UInt8(ymode)
                            }
                            for xx in 0 ..< 4 { m[4 * y + xx] = t[xx] }
                            l[y] = UInt8(ymode)
                        }
                    }
                    inf[uvMode] = !d.bit(UInt32(142)) ? 0 : !d.bit(UInt32(114)) ? 2 : d.bit(UInt32(183)) ? 1 : 3
                }
            }
        }
    }
}
