import Foundation
import Testing
@testable import PureJPEG

/// 8x8 sample blocks: random ones, flat ones, and the extremes that drive the FDCT's
/// intermediate sums to their largest magnitudes (alternating full-scale rows and columns).
func fdctTestBlocks() -> [[UInt8]] {
    var rng = SplitMix64(state: 42)
    var blocks: [[UInt8]] = (0 ..< 300).map { _ in (0 ..< 64).map { _ in UInt8.random(in: 0 ... 255, using: &rng) } }
    blocks.append([UInt8](repeating: 0, count: 64))
    blocks.append([UInt8](repeating: 255, count: 64))
    blocks.append([UInt8](repeating: 128, count: 64))
    let patterns: [(Int, Int) -> Bool] = [
        { r, c in (r + c) % 2 == 0 }, { r, _ in r % 2 == 0 }, { _, c in c % 2 == 0 },
        { r, c in (r < 2 || r > 5) != (c < 2 || c > 5) }, { r, c in (r < 4) != (c < 4) },
        { r, c in [0, 1, 6, 7].contains(r) && [0, 3, 4, 7].contains(c) },
    ]
    for p in patterns {
        blocks.append((0 ..< 64).map { p($0 / 8, $0 % 8) ? 255 : 0 })
        blocks.append((0 ..< 64).map { p($0 / 8, $0 % 8) ? 0 : 255 })
    }
    return blocks
}

@Suite("Encoder kernels: scalar references against fast and SIMD versions")
struct EncoderKernelTests {
    @Test func fdctVersionsAgree() {
        for block in fdctTestBlocks() {
            block.withUnsafeBufferPointer { src in
                guard let s = src.baseAddress else { return }
                var reference = [Int16](repeating: 0, count: 64)
                reference.withUnsafeMutableBufferPointer { FDCT.forwardScalar(s, stride: 8, $0.baseAddress!) }
                let rows = FDCTSIMD.forward(s, stride: 8)
                let simd = [rows.0, rows.1, rows.2, rows.3, rows.4, rows.5, rows.6, rows.7].flatMap { r in (0 ..< 8).map { r[$0] } }
                #expect(simd == reference)
            }
        }
    }

    /// The pipeline's per-block path (``FDCTSIMD`` then ``Quantize/quantizeRows``) against
    /// ``Quantize/blockScalar``: coefficients and nonzero map, blocks read from inside a wider
    /// plane, every quality's tables.
    @Test(arguments: [1, 10, 50, 85, 95, 100])
    func blockPathsAgree(quality: Int) {
        var rng = SplitMix64(state: UInt64(quality) &* 77)
        let stride = 24
        for table in [EncoderTables.scaled(EncoderTables.luminanceQuantization, quality: quality),
                      EncoderTables.scaled(EncoderTables.chrominanceQuantization, quality: quality)] {
            let d = QuantDivisors(table: table)
            let aligned = alignedDivisors(d)
            defer { aligned.deallocate() }
            var blocks = fdctTestBlocks()
            // Two-level and smooth blocks too: large coefficients and long zero runs.
            for _ in 0 ..< 100 {
                blocks.append((0 ..< 64).map { _ in Bool.random(using: &rng) ? 255 : 0 })
                let base = Int.random(in: 0 ... 200, using: &rng)
                blocks.append((0 ..< 64).map { UInt8(base + ($0 % 8 + $0 / 8) * Int.random(in: 0 ... 3, using: &rng)) })
            }
            ZigzagMaps.columns.withUnsafeBufferPointer { maps in
                for block in blocks {
                    var plane = [UInt8](repeating: 0, count: 8 * stride)
                    for r in 0 ..< 8 { for c in 0 ..< 8 { plane[r * stride + 5 + c] = block[r * 8 + c] } }
                    plane.withUnsafeBufferPointer { p in
                        let src = p.baseAddress! + 5
                        var reference = [Int16](repeating: 0, count: 64), fast = reference
                        let referenceMask = reference.withUnsafeMutableBufferPointer { Quantize.blockScalar(src, stride: stride, d, $0.baseAddress!) }
                        let mask = fast.withUnsafeMutableBufferPointer {
                            Quantize.quantizeRows(FDCTSIMD.forward(src, stride: stride), UnsafeRawPointer(aligned), $0.baseAddress!, maps.baseAddress!)
                        }
                        #expect(fast == reference)
                        #expect(mask == referenceMask)
                    }
                }
            }
        }
    }

    /// A flat block has only a DC term: 8 * 8 * (v - 128) scaled by 8 / 8 = 64 * (v - 128) / 8 * 8.
    @Test func fdctOfFlatBlockIsDCOnly() {
        let block = [UInt8](repeating: 200, count: 64)
        var out = [Int16](repeating: 0, count: 64)
        block.withUnsafeBufferPointer { s in out.withUnsafeMutableBufferPointer { FDCT.forwardScalar(s.baseAddress!, stride: 8, $0.baseAddress!) } }
        #expect(out[0] == 64 * (200 - 128))
        #expect(out.dropFirst().allSatisfy { $0 == 0 })
    }

    @Test(arguments: [1, 25, 50, 75, 85, 100])
    func quantizerVersionsAgree(quality: Int) {
        var rng = SplitMix64(state: UInt64(quality))
        for table in [EncoderTables.scaled(EncoderTables.luminanceQuantization, quality: quality),
                      EncoderTables.scaled(EncoderTables.chrominanceQuantization, quality: quality)] {
            let d = QuantDivisors(table: table)
            let aligned = alignedDivisors(d)
            defer { aligned.deallocate() }
            for _ in 0 ..< 200 {
                let coefficients: [Int16] = (0 ..< 64).map { _ in
                    Int16.random(in: Bool.random(using: &rng) ? -300 ... 300 : -16384 ... 16384, using: &rng)
                }
                var reference = [Int16](repeating: 0, count: 64)
                coefficients.withUnsafeBufferPointer { c in
                    reference.withUnsafeMutableBufferPointer { Quantize.quantizeScalar(c.baseAddress!, d, $0.baseAddress!) }
                }
                // The pipeline's quantizer on the same values as rows, and its zigzag nonzero map.
                let rows: FDCT.Rows = (SIMD8(coefficients[0 ..< 8]), SIMD8(coefficients[8 ..< 16]), SIMD8(coefficients[16 ..< 24]),
                                       SIMD8(coefficients[24 ..< 32]), SIMD8(coefficients[32 ..< 40]), SIMD8(coefficients[40 ..< 48]),
                                       SIMD8(coefficients[48 ..< 56]), SIMD8(coefficients[56 ..< 64]))
                var fast = [Int16](repeating: 0, count: 64)
                let mask = ZigzagMaps.columns.withUnsafeBufferPointer { maps in
                    fast.withUnsafeMutableBufferPointer { Quantize.quantizeRows(rows, UnsafeRawPointer(aligned), $0.baseAddress!, maps.baseAddress!) }
                }
                #expect(fast == reference)
                #expect((0 ..< 64).allSatisfy { (mask >> UInt64($0) & 1 == 1) == (reference[EncoderTables.zigzag[$0]] != 0) })
            }
        }
    }

    /// Turbo's reciprocal quantizer agrees with rounded division `round(x / 8q)` except at a
    /// few exact-half boundaries; check it is never off by more than one.
    @Test func quantizerIsRoundedDivisionWithinOne() {
        let d = QuantDivisors(table: [UInt16](repeating: 1, count: 32) + [UInt16](repeating: 37, count: 16) + [UInt16](repeating: 255, count: 16))
        for x in stride(from: -16384, through: 16384, by: 7) {
            var input = [Int16](repeating: Int16(x), count: 64), out = [Int16](repeating: 0, count: 64)
            input.withUnsafeMutableBufferPointer { i in out.withUnsafeMutableBufferPointer { Quantize.quantizeScalar(i.baseAddress!, d, $0.baseAddress!) } }
            for (i, q) in [(0, 1), (40, 37), (60, 255)] {
                let exact = (Double(x) / Double(8 * q)).rounded()
                #expect(abs(Double(out[i]) - exact) <= 1)
            }
        }
    }

    @Test(arguments: [3, 4])
    func colourConversionsAgree(stride: Int) {
        var pixels: [UInt8] = []
        for r in Swift.stride(from: 0, through: 255, by: 5) {
            for g in Swift.stride(from: 0, through: 255, by: 5) {
                for b in [0, 1, 2, 63, 64, 127, 128, 129, 200, 254, 255] {
                    pixels += [UInt8(r), UInt8(g), UInt8(b)]
                    if stride == 4 { pixels.append(77) }
                }
            }
        }
        // Random colours too: the 16-bit lane form splits every product, so spread the inputs.
        var rng = SplitMix64(state: UInt64(stride))
        for _ in 0 ..< 5000 {
            for _ in 0 ..< 3 { pixels.append(UInt8.random(in: 0 ... 255, using: &rng)) }
            if stride == 4 { pixels.append(77) }
        }
        let n = pixels.count / stride - 3     // not a multiple of 8: exercises the scalar tails
        func run(_ f: (UnsafePointer<UInt8>, Int, Int, UnsafeMutablePointer<UInt8>, UnsafeMutablePointer<UInt8>, UnsafeMutablePointer<UInt8>) -> Void) -> [UInt8] {
            var out = [UInt8](repeating: 0, count: 3 * n)
            pixels.withUnsafeBufferPointer { p in
                out.withUnsafeMutableBufferPointer { o in
                    let base = o.baseAddress!
                    f(p.baseAddress!, stride, n, base, base + n, base + 2 * n)
                }
            }
            return out
        }
        let reference = run { EncoderColorConvert.rgbToYCbCrScalar($0, pixelStride: $1, count: $2, y: $3, cb: $4, cr: $5) }
        #expect(run { EncoderColorConvert.rgbToYCbCr($0, pixelStride: $1, count: $2, y: $3, cb: $4, cr: $5) } == reference)
        #expect(run { EncoderColorConvert.rgbToYCbCrTable($0, pixelStride: $1, count: $2, y: $3, cb: $4, cr: $5) } == reference)
        let grayRef = run { EncoderColorConvert.rgbToGrayScalar($0, pixelStride: $1, count: $2, y: $3); _ = ($4, $5) }
        #expect(Array(grayRef.prefix(n)) == Array(reference.prefix(n)))
        #expect(run { EncoderColorConvert.rgbToGray($0, pixelStride: $1, count: $2, y: $3); _ = ($4, $5) } == grayRef)
        #expect(run { EncoderColorConvert.rgbToGrayTable($0, pixelStride: $1, count: $2, y: $3); _ = ($4, $5) } == grayRef)
        // Spot values from the JFIF equations: white, black, pure red.
        let spot: [UInt8] = [255, 255, 255, 0, 0, 0, 255, 0, 0]
        var y = [UInt8](repeating: 0, count: 3), cb = y, cr = y
        spot.withUnsafeBufferPointer { s in
            EncoderColorConvert.rgbToYCbCrScalar(s.baseAddress!, pixelStride: 3, count: 3, y: &y, cb: &cb, cr: &cr)
        }
        #expect(y == [255, 0, 76] && cb == [128, 128, 85] && cr == [128, 128, 255])
    }

    @Test(arguments: [1, 2, 7, 8, 9, 16, 23, 40])
    func downsamplersAgree(outputs: Int) {
        var rng = SplitMix64(state: UInt64(outputs))
        for _ in 0 ..< 20 {
            let a = (0 ..< 2 * outputs).map { _ in UInt8.random(in: 0 ... 255, using: &rng) }
            let b = (0 ..< 2 * outputs).map { _ in UInt8.random(in: 0 ... 255, using: &rng) }
            var s1 = [UInt8](repeating: 0, count: outputs), s2 = s1, v1 = s1, v2 = s1
            Downsample.h2v1Scalar(a, &s1, outputCount: outputs)
            Downsample.h2v1(a, &s2, outputCount: outputs)
            Downsample.h2v2Scalar(a, b, &v1, outputCount: outputs)
            Downsample.h2v2(a, b, &v2, outputCount: outputs)
            #expect(s1 == s2)
            #expect(v1 == v2)
        }
        // The alternating bias: equal pairs summing to an odd total round down, then up.
        var out = [UInt8](repeating: 0, count: 2)
        Downsample.h2v1Scalar([0, 1, 0, 1], &out, outputCount: 2)
        #expect(out == [0, 1])
        Downsample.h2v2Scalar([0, 1, 0, 1], [0, 0, 0, 0], &out, outputCount: 2)
        #expect(out == [0, 0])
        Downsample.h2v2Scalar([1, 1, 1, 1], [0, 0, 0, 0], &out, outputCount: 2)
        #expect(out == [0, 1])
    }

    @Test func expandRightEdgeRepeatsLastSample() {
        var row: [UInt8] = [1, 2, 3, 0, 0, 0]
        row.withUnsafeMutableBufferPointer { Downsample.expandRightEdge($0.baseAddress!, width: 3, paddedWidth: 6) }
        #expect(row == [1, 2, 3, 3, 3, 3])
    }

    /// IJG quality scaling against the tables cjpeg -baseline writes (Vectors/jpeg-encoder/quant_tables.txt).
    @Test func qualityScalingMatchesCjpeg() throws {
        let text = try String(contentsOf: TestVectors.url("jpeg-encoder/quant_tables.txt"), encoding: .utf8)
        var checked: [Int] = []
        for line in text.split(separator: "\n") {
            let halves = line.split(separator: "|")
            let first = halves[0].split(separator: " ").compactMap { UInt16($0) }
            let chroma = halves[1].split(separator: " ").compactMap { UInt16($0) }
            let q = Int(first[0])
            #expect(EncoderTables.scaled(EncoderTables.luminanceQuantization, quality: q) == Array(first.dropFirst()))
            #expect(EncoderTables.scaled(EncoderTables.chrominanceQuantization, quality: q) == chroma)
            checked.append(q)
        }
        #expect(checked == [1, 10, 25, 50, 75, 85, 95, 100])
        #expect(EncoderTables.scaleFactor(quality: 1) == 5000 && EncoderTables.scaleFactor(quality: 75) == 50)
        #expect(EncoderTables.scaled(EncoderTables.luminanceQuantization, quality: 100).allSatisfy { $0 == 1 })
    }
}

@Suite("Encoder Huffman coding")
struct EncoderHuffmanTests {
    /// Kraft sum and prefix-freeness of a spec, and no all-ones code.
    func checkValid(_ spec: HuffmanSpec, symbols expected: Int) {
        #expect(spec.counts.count == 16)
        #expect(spec.symbols.count == expected)
        var kraft = 0.0
        for (i, n) in spec.counts.enumerated() { kraft += Double(n) / Double(1 << (i + 1)) }
        #expect(kraft < 1.0)
        let codes = HuffmanCodes(spec)
        var seen = Set<UInt32>()
        for s in spec.symbols {
            let e = codes.entries[Int(s)]
            let size = e >> 16, code = e & 0xFFFF
            #expect(size >= 1 && size <= 16)
            #expect(code != (1 << size) - 1)
            seen.insert(e)
        }
        #expect(seen.count == expected)
    }

    @Test func optimalTableOfFlatCounts() {
        var freq = [Int](repeating: 0, count: 257)
        for s in 0 ..< 12 { freq[s] = 10 }
        let spec = HuffmanSpec.optimal(frequencies: freq)
        checkValid(spec, symbols: 12)
    }

    /// Fibonacci counts make Huffman's tree as deep as there are symbols; K.2's adjustment
    /// must bring every length to 16 or less.
    @Test func optimalTableIsLengthLimited() {
        var freq = [Int](repeating: 0, count: 257)
        var a = 1, b = 1
        for s in 0 ..< 30 { freq[s] = a; (a, b) = (b, a + b) }
        let spec = HuffmanSpec.optimal(frequencies: freq)
        checkValid(spec, symbols: 30)
        #expect(spec.counts[15] > 0)
        // The most frequent symbol gets a code as short as any.
        let sizes = HuffmanCodes(spec).entries.map { $0 >> 16 }
        #expect((0 ..< 30).allSatisfy { sizes[29] <= sizes[$0] })
    }

    @Test func standardTablesAreValid() {
        checkValid(EncoderTables.dcLuminance, symbols: 12)
        checkValid(EncoderTables.dcChrominance, symbols: 12)
        checkValid(EncoderTables.acLuminance, symbols: 162)
        checkValid(EncoderTables.acChrominance, symbols: 162)
    }

    @Test func bitWriterStuffsAndPads() {
        var w = BitWriter()
        w.reserve(64)
        w.put(0xFF, 8)            // must be followed by 0x00
        w.put(0b101, 3)
        w.flushBits()             // 101 then five 1 bits: 0xBF
        #expect(w.bytes() == [0xFF, 0x00, 0xBF])
        var long = BitWriter()
        long.reserve(64)
        for _ in 0 ..< 4 { long.put(0xFFFF, 16) }  // one full 64-bit word of 0xFF bytes
        long.put(0x12, 8)
        long.flushBits()
        #expect(long.bytes() == [UInt8](repeating: 0, count: 8).flatMap { _ in [0xFF, 0x00] } + [0x12])
        #expect(magnitudeCategory(-3) == (2, 0) && magnitudeCategory(5) == (3, 5) && magnitudeCategory(0).nbits == 0)
    }

    @Test func magnitudeTableMatchesComputed() {
        let tables = EntropyTables(dc: [EncoderTables.dcLuminance], ac: [EncoderTables.acLuminance])
        let table = UnsafePointer(tables.lookup)
        var mismatches = 0
        for v in Int32(-2048) ..< 2048 where magnitudeCategory(v, lookup: table) != magnitudeCategory(v) { mismatches += 1 }
        #expect(mismatches == 0)
        #expect(magnitudeCategory(-2048, lookup: table) == (12, 2047) && magnitudeCategory(2047, lookup: table) == (11, 2047))
        #expect((0 ..< 64).allSatisfy { Int(table[4096 + $0]) == EncoderTables.zigzag[$0] })
    }
}

/// `d`'s 16-bit divisor table copied into 16-byte-aligned memory, as the pipeline keeps it
/// (the caller deallocates).
func alignedDivisors(_ d: QuantDivisors) -> UnsafeMutableRawPointer {
    let aligned = UnsafeMutableRawPointer.allocate(byteCount: 384, alignment: 16)
    for (i, v) in d.uint16Table.enumerated() { aligned.storeBytes(of: v, toByteOffset: 2 * i, as: UInt16.self) }
    return aligned
}
