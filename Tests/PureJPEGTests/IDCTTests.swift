import Foundation
import Testing
@testable import PureJPEG

/// One record of `Vectors/jpeg/kernels/idct<S>_*.bin`: a block as libjpeg-turbo read it, its
/// quantization table, and the S x S samples libjpeg-turbo's own IDCT produced for it.
struct IDCTRecord {
    var coefficients: [Int16]
    var quant: [UInt16]
    var expected: [UInt8]

    static func load(_ name: String, size: Int) throws -> [IDCTRecord] {
        let bytes = try TestVectors.bytes("jpeg/kernels/" + name)
        let recordSize = 256 + size * size
        #expect(bytes.count % recordSize == 0 && !bytes.isEmpty)
        return stride(from: 0, to: bytes.count - recordSize + 1, by: recordSize).map { base in
            let int16 = { (i: Int) in UInt16(bytes[base + 2 * i]) | UInt16(bytes[base + 2 * i + 1]) << 8 }
            return IDCTRecord(coefficients: (0..<64).map { Int16(bitPattern: int16($0)) },
                              quant: (64..<128).map { int16($0) },
                              expected: Array(bytes[(base + 256)..<(base + recordSize)]))
        }
    }
}

/// Runs an IDCT kernel on one block into a buffer with a stride wider than the block, so a
/// kernel writing outside its `size` columns would show.
func runIDCT(_ kernel: (UnsafePointer<Int16>, UnsafePointer<UInt16>, UnsafeMutablePointer<UInt8>, Int) -> Void,
             _ coefficients: [Int16], _ quant: [UInt16], size: Int) -> [UInt8] {
    let stride = size + 3
    var out = [UInt8](repeating: 0xA5, count: stride * size)
    let prepared = JPEGKernels.prepareQuant(quant)
    coefficients.withUnsafeBufferPointer { c in
        prepared.withUnsafeBufferPointer { q in
            out.withUnsafeMutableBufferPointer { o in
                kernel(c.baseAddress!, q.baseAddress!, o.baseAddress!, stride)
            }
        }
    }
    for r in 0..<size { #expect(out[(r * stride + size)..<(r * stride + stride)].allSatisfy { $0 == 0xA5 }) }
    return (0..<size).flatMap { r in out[(r * stride)..<(r * stride + size)] }
}

/// jidctint.c's islow written the plain way, with 64-bit intermediates (JLONG on LP64) and no
/// shortcuts: an independent check that the 32-bit kernels are exact on in-range input.
func referenceIslow(_ c: [Int16], _ q: [UInt16]) -> [UInt8] {
    func idct1D(_ x: [Int64]) -> [Int64] {
        let z1 = (x[2] + x[6]) * 4433
        let t2 = z1 - x[6] * 15137, t3 = z1 + x[2] * 6270
        let t0 = (x[0] + x[4]) << 13, t1 = (x[0] - x[4]) << 13
        let (e0, e3, e1, e2) = (t0 + t3, t0 - t3, t1 + t2, t1 - t2)
        let (a, b, cc, d) = (x[7], x[5], x[3], x[1])
        let z5 = (a + cc + b + d) * 9633
        let p1 = (a + d) * -7373, p2 = (b + cc) * -20995
        let p3 = (a + cc) * -16069 + z5, p4 = (b + d) * -3196 + z5
        let o0 = a * 2446 + p1 + p3, o1 = b * 16819 + p2 + p4
        let o2 = cc * 25172 + p2 + p3, o3 = d * 12299 + p1 + p4
        return [e0 + o3, e1 + o2, e2 + o1, e3 + o0, e3 - o0, e2 - o1, e1 - o2, e0 - o3]
    }
    func descale(_ v: Int64, _ n: Int64) -> Int64 { (v + (1 << (n - 1))) >> n }
    var ws = [Int64](repeating: 0, count: 64)
    for col in 0..<8 {
        let out = idct1D((0..<8).map { Int64(c[col + 8 * $0]) * Int64(q[col + 8 * $0]) })
        for r in 0..<8 { ws[col + 8 * r] = descale(out[r], 11) }
    }
    var result = [UInt8](repeating: 0, count: 64)
    for r in 0..<8 {
        let out = idct1D(Array(ws[(8 * r)..<(8 * r + 8)]))
        for col in 0..<8 { result[8 * r + col] = postIDCTTable[Int(descale(out[col], 18) & 1023)] }
    }
    return result
}

/// jdmaster.c prepare_range_limit_table, built the way libjpeg builds it: the post-IDCT part,
/// indexed by `value & 1023`.
let postIDCTTable: [UInt8] = {
    var table = [UInt8](repeating: 0, count: 5 * 256 + 128)
    let base = 256  // table[base + i] = sample_range_limit[i]
    for i in 0..<256 { table[base + i] = UInt8(i) }
    let post = base + 128
    for i in 128..<512 { table[post + i] = 255 }
    for i in 512..<896 { table[post + i] = 0 }
    for i in 0..<128 { table[post + 896 + i] = table[base + i] }
    return Array(table[post..<(post + 1024)])
}()

/// Coefficients as an encoder makes them: a float forward DCT (T.81 A.3.3) of a random 8x8
/// block, divided by the quantizer and rounded. Real-image statistics keep every intermediate of
/// the 32-bit kernels in range, which is where they must equal the 64-bit reference.
func encodedBlock(quant: [UInt16], smooth: Bool, using rng: inout SplitMix64) -> [Int16] {
    var pixels = [Double](repeating: 0, count: 64)
    let a = Double.random(in: 0...255, using: &rng), gx = Double.random(in: -20...20, using: &rng)
    let gy = Double.random(in: -20...20, using: &rng)
    for y in 0..<8 {
        for x in 0..<8 {
            let v = smooth ? a + gx * Double(x) + gy * Double(y) + Double.random(in: -8...8, using: &rng)
                           : Double.random(in: 0...255, using: &rng)
            pixels[8 * y + x] = min(max(v, 0), 255) - 128
        }
    }
    return (0..<64).map { k in
        let (u, v) = (k % 8, k / 8)
        var sum = 0.0
        for y in 0..<8 {
            for x in 0..<8 {
                sum += pixels[8 * y + x] * cos(Double(2 * x + 1) * Double(u) * .pi / 16)
                    * cos(Double(2 * y + 1) * Double(v) * .pi / 16)
            }
        }
        let cu = u == 0 ? 1 / 2.0.squareRoot() : 1, cv = v == 0 ? 1 / 2.0.squareRoot() : 1
        return Int16((sum * cu * cv / 4 / Double(quant[k])).rounded())
    }
}

@Suite("IDCT")
struct IDCTTests {
    /// One real block (luma of valid/s420_q75.jpg, block 34, 31 nonzero AC terms), its table and
    /// the 64 bytes libjpeg-turbo 2.1.5 (`djpeg -dct int`) decodes it to.
    static let goldenCoefficients: [Int16] = [
        -73, -3, -18, 3, 6, -1, 0, 0, 19, -1, 12, -4, -2, 1, 1, 0, 17, -3, -4, -1, 1, 0, 0, 0,
        15, -6, -6, 2, 2, 0, 0, 0, -6, 0, 6, -1, -1, 0, 0, 0, 7, 1, -2, 1, 0, 0, 0, 0,
        0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0]
    static let goldenQuant: [UInt16] = [
        8, 6, 5, 8, 12, 20, 26, 31, 6, 6, 7, 10, 13, 29, 30, 28, 7, 7, 8, 12, 20, 29, 35, 28,
        7, 9, 11, 15, 26, 44, 40, 31, 9, 11, 19, 28, 34, 55, 52, 39, 12, 18, 28, 32, 41, 52, 57, 46,
        25, 32, 39, 44, 52, 61, 60, 51, 36, 46, 48, 49, 56, 50, 52, 50]
    static let goldenOutput: [UInt8] = [
        105, 75, 103, 125, 124, 116, 111, 141, 57, 41, 69, 82, 70, 58, 56, 87,
        61, 57, 69, 64, 58, 54, 38, 38, 50, 49, 33, 10, 12, 25, 25, 23,
        35, 24, 9, 21, 35, 24, 30, 56, 20, 2, 17, 110, 152, 78, 19, 21,
        39, 35, 49, 143, 188, 105, 30, 11, 16, 37, 16, 27, 39, 9, 11, 30]

    static let fullSizeKernels: [(String, JPEGKernels)] = [
        ("scalar", JPEGKernels.select(scale: 8, useSIMD: false)),
        ("simd", JPEGKernels.select(scale: 8, useSIMD: true)),
    ]

    @Test("golden block", arguments: [false, true])
    func golden(useSIMD: Bool) {
        let kernels = JPEGKernels.select(scale: 8, useSIMD: useSIMD)
        #expect(runIDCT(kernels.idct, Self.goldenCoefficients, Self.goldenQuant, size: 8) == Self.goldenOutput)
        #expect(referenceIslow(Self.goldenCoefficients, Self.goldenQuant) == Self.goldenOutput)
    }

    /// A damaged block (diff-jpeg: four gray 48x48 files, "bad Huffman code", block 0 as
    /// libjpeg-turbo decodes it; `Vectors/jpeg-idct-overflow/gray_fuzz_blocks.jpg` holds it),
    /// a table of ones, and djpeg's bytes at 1/1, 1/2, 1/4, 1/8: pass 1 saturates and the
    /// outputs clamp, so the C kernels (jidctint.c, jidctred.c 4x4/2x2) decode it otherwise.
    static let damagedCoefficients: [Int16] = [
        1023, 1023, 1023, 1023, 1023, 1023, 1023, 1023, 1023, 1023, 1023, 1023, 1023, 1023, 1023, -1,
        1023, 1023, 1023, 1023, 1023, 1023, -1, -1, 1023, 1023, 1023, 1023, 1023, -1, 3, -1,
        1023, 1023, 1023, 1023, -3, -1, -1, 3, 1023, 1023, 1023, -1, -1, -1, -1, 512,
        1023, 1023, -1, -1, -1, -1, -512, -512, -1, -1, -1, -1, -1, -512, -1, -16]
    static let damagedOutputs: [Int: [UInt8]] = [
        8: [255, 0, 0, 0, 255, 255, 255, 0, 255, 0, 0, 183, 0, 251, 74, 144,
            87, 0, 255, 255, 86, 111, 10, 111, 255, 0, 255, 0, 18, 145, 255, 156,
            146, 0, 0, 0, 255, 255, 0, 176, 255, 255, 216, 255, 255, 0, 96, 101,
            255, 0, 255, 0, 255, 0, 255, 255, 255, 159, 124, 253, 171, 110, 255, 0],
        4: [255, 222, 244, 248, 184, 255, 90, 160, 229, 68, 255, 51, 171, 90, 69, 239],
        2: [255, 186, 139, 168],
        1: [255],
    ]

    @Test("golden damaged block: every kernel gives djpeg's bytes at every size")
    func goldenDamaged() {
        let ones = [UInt16](repeating: 1, count: 64)
        let block = Self.damagedCoefficients
        for size in [8, 4, 2, 1] {
            let kernels = size == 8 ? [JPEGKernels.select(scale: 8, useSIMD: false), JPEGKernels.select(scale: 8)]
                                    : [JPEGKernels.select(scale: size)]
            for kernel in kernels {
                #expect(runIDCT(kernel.idct, block, ones, size: size) == Self.damagedOutputs[size], "size \(size)")
            }
        }
        #expect(runIDCT({ IDCTSIMD.idct8x8Saturating($0, $1, $2, $3) }, block, ones, size: 8) == Self.damagedOutputs[8])
        #expect(runIDCT({ IDCT.idct8x8($0, $1, $2, $3) }, block, ones, size: 8) != Self.damagedOutputs[8])
    }

    static let blockFiles = ["face420_q75", "detail444_q100", "detail420_q10", "bars444_q100", "gray_q75"]

    @Test("every block of real files matches libjpeg-turbo", arguments: blockFiles)
    func realBlocks(name: String) throws {
        for (size, select) in [(8, 8), (4, 4), (2, 2), (1, 1)] {
            let records = try IDCTRecord.load("idct\(size)_\(name).bin", size: size)
            let kernels = size == 8 ? [JPEGKernels.select(scale: 8, useSIMD: false), JPEGKernels.select(scale: 8)]
                                    : [JPEGKernels.select(scale: select)]
            for kernel in kernels {
                #expect(kernel.scale == size)
                var mismatches = 0
                for record in records where runIDCT(kernel.idct, record.coefficients, record.quant, size: size) != record.expected {
                    mismatches += 1
                }
                #expect(mismatches == 0, "\(mismatches) of \(records.count) blocks differ at size \(size)")
            }
        }
    }

    /// Quantization tables seen in the vectors (q10, q75, q100) plus all-ones and all-max.
    static func quantTables() throws -> [[UInt16]] {
        var tables = Set<[UInt16]>()
        for name in blockFiles {
            for record in try IDCTRecord.load("idct8_\(name).bin", size: 8) { tables.insert(record.quant) }
        }
        return Array(tables).sorted { $0.lexicographicallyPrecedes($1) }
            + [[UInt16](repeating: 1, count: 64), [UInt16](repeating: 65535, count: 64)]
    }

    @Test("scalar and SIMD agree on random and extreme blocks")
    func scalarEqualsSIMD() throws {
        var rng = SplitMix64(state: 42)
        let tables = try Self.quantTables()
        let scalar = JPEGKernels.select(scale: 8, useSIMD: false), simd = JPEGKernels.select(scale: 8)
        let extremes: [Int16] = [.min, .max, -1024, 1023, -1, 1, 0]
        var differing = 0
        for trial in 0..<8_000 {
            let quant = tables[trial % tables.count]
            let density = Int.random(in: 0...64, using: &rng)
            let coefficients: [Int16] = (0..<64).map { _ in
                guard Int.random(in: 0..<64, using: &rng) < density else { return 0 }
                switch trial % 4 {
                case 0: return extremes.randomElement(using: &rng) ?? 0
                case 1: return Int16.random(in: .min ... .max, using: &rng)
                default: return Int16.random(in: -64...64, using: &rng)
                }
            }
            if runIDCT(scalar.idct, coefficients, quant, size: 8) != runIDCT(simd.idct, coefficients, quant, size: 8) {
                differing += 1
            }
        }
        #expect(differing == 0)
    }

    @Test("in-range blocks match a 64-bit reference islow")
    func matchesWideReference() throws {
        var rng = SplitMix64(state: 7)
        let tables = try Self.quantTables().filter { $0.allSatisfy { $0 <= 255 } }
        let kernels = Self.fullSizeKernels.map(\.1)
        for trial in 0..<1_500 {
            let quant = tables[trial % tables.count]
            let coefficients = encodedBlock(quant: quant, smooth: trial % 3 != 0, using: &rng)
            let expected = referenceIslow(coefficients, quant)
            for kernel in kernels { #expect(runIDCT(kernel.idct, coefficients, quant, size: 8) == expected) }
        }
    }

    @Test("DC-only blocks: the fast path equals the full two passes")
    func dcOnly() {
        let quant = [UInt16](repeating: 16, count: 64)
        let scalar = JPEGKernels.select(scale: 8, useSIMD: false), simd = JPEGKernels.select(scale: 8)
        for dc in stride(from: -2048, through: 2047, by: 7) + [Int(Int16.min), Int(Int16.max)] {
            var coefficients = [Int16](repeating: 0, count: 64)
            coefficients[0] = Int16(dc)
            // jidctint.c: its DC shortcut equals its two passes.
            let fast = runIDCT({ IDCT.idct8x8($0, $1, $2, $3) }, coefficients, quant, size: 8)
            let full = runIDCT({ c, q, o, s in
                withUnsafeTemporaryAllocation(of: Int32.self, capacity: 64) { ws in
                    IDCT.columnPass(c, q, ws.baseAddress!)
                    IDCT.rowPass(ws.baseAddress!, o, s)
                }
            }, coefficients, quant, size: 8)
            #expect(fast == full)
            #expect(Set(fast).count == 1)
            // The SIMD kernel's semantics: its shortcut, in both twins.
            let saturating = runIDCT(scalar.idct, coefficients, quant, size: 8)
            #expect(saturating == runIDCT(simd.idct, coefficients, quant, size: 8))
            #expect(Set(saturating).count == 1)
            if abs(dc * 16) < 1024 { #expect(saturating == fast) }
        }
    }

    @Test("range limit follows libjpeg's table, wrap included")
    func rangeLimit() {
        #expect(IDCT.rangeLimit(-128) == 0 && IDCT.rangeLimit(127) == 255 && IDCT.rangeLimit(0) == 128)
        #expect(IDCT.rangeLimit(511) == 255 && IDCT.rangeLimit(-512) == 0)
        #expect(IDCT.rangeLimit(512) == 0 && IDCT.rangeLimit(-513) == 255 && IDCT.rangeLimit(896) == 0)
        #expect(IDCT.rangeLimit(-640) == 255)  // -640 & 1023 = 384: libjpeg's table says 255
        for v in Int32(-3000)...3000 { #expect(IDCT.rangeLimit(v) == postIDCTTable[Int(v & 1023)]) }
    }

    @Test("the SIMD kernels' output clamp: packsswb, then +128")
    func clampSample() {
        #expect(IDCT.clampSample(-129) == 0 && IDCT.clampSample(-128) == 0 && IDCT.clampSample(0) == 128)
        #expect(IDCT.clampSample(127) == 255 && IDCT.clampSample(640) == 255 && IDCT.clampSample(.min) == 0)
        let values: [Int16] = [-7680, -1000, -129, -128, -5, 0, 200, 511, 512, 900, 8191]
        for v in values {
            let lanes = IDCTSIMD.clampSamples(SIMD8<Int16>(repeating: v &+ 128))
            #expect(lanes[0] == Int16(IDCT.clampSample(Int32(v))))
        }
    }

    /// DCT_scaled_size per component as libjpeg-turbo 2.1.5 reports it for the s*_odd33x31
    /// vectors at 1/1, 1/2, 1/4, 1/8 (printed by a jpeg_start_decompress probe).
    @Test("per-component IDCT size matches libjpeg-turbo's scaled decoding")
    func blockSizes() {
        // (luma h, v), chroma factors, then sizes for scale 8, 4, 2, 1 (luma, chroma...).
        let cases: [((Int, Int), [(Int, Int)], [[Int]])] = [
            ((2, 2), [(1, 1), (1, 1)], [[8, 8, 8], [4, 8, 8], [2, 4, 4], [1, 2, 2]]),
            ((4, 1), [(1, 1), (1, 1)], [[8, 8, 8], [4, 4, 4], [2, 2, 2], [1, 1, 1]]),
            ((4, 2), [(1, 1), (1, 1)], [[8, 8, 8], [4, 8, 8], [2, 4, 4], [1, 2, 2]]),
            ((2, 2), [(2, 1), (1, 1)], [[8, 8, 8], [4, 4, 8], [2, 2, 4], [1, 1, 2]]),
            ((4, 1), [(2, 1), (1, 1)], [[8, 8, 8], [4, 4, 4], [2, 2, 2], [1, 1, 1]]),
            ((3, 2), [(1, 1), (1, 1)], [[8, 8, 8], [4, 4, 4], [2, 2, 2], [1, 1, 1]]),
            ((3, 1), [(1, 1), (1, 1)], [[8, 8, 8], [4, 4, 4], [2, 2, 2], [1, 1, 1]]),
        ]
        for (luma, chroma, expected) in cases {
            let components = [luma] + chroma
            for (i, scale) in [8, 4, 2, 1].enumerated() {
                let sizes = components.map {
                    JPEGKernels.blockSize(scale: scale, h: $0.0, v: $0.1, maxH: luma.0, maxV: luma.1)
                }
                #expect(sizes == expected[i], "\(components) at scale \(scale)")
            }
        }
    }

    @Test("16-bit transpose")
    func transpose16() {
        let v = (0..<8).map { row in SIMD8<Int16>((0..<8).map { Int16(row * 8 + $0) }) }
        var (r0, r1, r2, r3, r4, r5, r6, r7) = (v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7])
        IDCTSIMD.transpose16(&r0, &r1, &r2, &r3, &r4, &r5, &r6, &r7)
        let r = [r0, r1, r2, r3, r4, r5, r6, r7]
        for row in 0..<8 { for col in 0..<8 { #expect(r[row][col] == Int16(col * 8 + row)) } }
    }

    /// Blocks aimed at each route through the SIMD kernel: 16-bit all the way; dequantized
    /// values that fit 16 bits but pass-1 results that do not; products over 16 bits; a
    /// quantizer over 32767.
    @Test("SIMD kernel routes: 16-bit, pass-2 fallback, wide fallback")
    func simdRoutes() {
        let scalar = JPEGKernels.select(scale: 8, useSIMD: false), simd = JPEGKernels.select(scale: 8)
        var cases: [([Int16], [UInt16])] = []
        cases.append(((0..<64).map { Int16(($0 * 37) % 200 - 100) }, [UInt16](repeating: 3, count: 64)))
        cases.append(((0..<64).map { $0 % 2 == 0 ? 2000 : -2000 }, [UInt16](repeating: 16, count: 64)))
        cases.append(([Int16](repeating: 4000, count: 64), [UInt16](repeating: 8, count: 64)))
        cases.append(((0..<64).map { Int16($0 - 32) }, (0..<64).map { $0 == 9 ? 40000 : 2 }))
        cases.append(([Int16](repeating: -32768, count: 64), [UInt16](repeating: 65535, count: 64)))
        for (coefficients, quant) in cases {
            #expect(runIDCT(simd.idct, coefficients, quant, size: 8) == runIDCT(scalar.idct, coefficients, quant, size: 8))
        }
    }

    /// The 16-bit route's input test (every dequantized value in -1024...1023, quantizers under
    /// 1024) at and just past its edges, and the first-row-only and top-left-4x4 routes, against
    /// the scalar kernel.
    @Test("SIMD kernel: range edges, first-row-only and top-left-4x4 blocks")
    func simdEdges() {
        let scalar = JPEGKernels.select(scale: 8, useSIMD: false), simd = JPEGKernels.select(scale: 8)
        var rng = SplitMix64(state: 11)
        var differing = 0
        let edges: [Int16] = [-1025, -1024, -1023, 1022, 1023, 1024, 0, 1, -1]
        for trial in 0 ..< 6_000 {
            let firstRowOnly = trial % 3 == 0, lowOnly = trial % 3 == 1
            let quantValue: UInt16 = [1, 1, 2, 1023, 1024, 65535][trial % 6]
            var quant = [UInt16](repeating: 1, count: 64)
            quant[Int.random(in: 0 ..< 64, using: &rng)] = quantValue
            let coefficients: [Int16] = (0 ..< 64).map { k in
                if firstRowOnly && k >= 8 { return 0 }
                if lowOnly && (k >= 32 || k % 8 >= 4) { return 0 }
                switch Int.random(in: 0 ..< 4, using: &rng) {
                case 0: return 0
                case 1: return edges.randomElement(using: &rng) ?? 0
                case 2: return Int16.random(in: -1024 ... 1023, using: &rng)
                default: return Int16.random(in: -3 ... 3, using: &rng)
                }
            }
            if runIDCT(scalar.idct, coefficients, quant, size: 8) != runIDCT(simd.idct, coefficients, quant, size: 8) {
                differing += 1
            }
        }
        #expect(differing == 0)
    }

    @Test("scaled kernels never write outside their block on hostile input")
    func scaledHostile() {
        var rng = SplitMix64(state: 3)
        for size in [4, 2, 1] {
            let kernel = JPEGKernels.select(scale: size)
            for _ in 0..<2_000 {
                let coefficients = (0..<64).map { _ in Int16.random(in: .min ... .max, using: &rng) }
                let quant = (0..<64).map { _ in UInt16.random(in: 0 ... .max, using: &rng) }
                #expect(runIDCT(kernel.idct, coefficients, quant, size: size).count == size * size)
            }
        }
    }
}
