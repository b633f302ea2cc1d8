import Foundation
import Testing
import TestSupport
@testable import PureJPEG

/// One row of Vectors/jpeg-idct-overflow/manifest.tsv: a file whose blocks overflow the 16-bit
/// SIMD IDCTs, a scale, djpeg's default (SIMD) decode and, at full size, its
/// `JSIMD_FORCENONE=1` (C kernel) decode.
struct OverflowVector: Sendable, CustomStringConvertible {
    var file: String
    var scale: Int
    var simd: String
    var c: String?
    var description: String { "\(file) scale \(scale)/8" }

    static let all: [OverflowVector] = {
        guard let text = try? String(contentsOf: TestVectors.url("jpeg-idct-overflow/manifest.tsv"), encoding: .utf8)
        else { return [] }
        return text.split(separator: "\n").dropFirst().compactMap { line in
            let f = line.split(separator: "\t").map(String.init)
            guard f.count == 4, let scale = Int(f[1]) else { return nil }
            return OverflowVector(file: f[0], scale: scale, simd: f[2], c: f[3] == "-" ? nil : f[3])
        }
    }()
}

/// Blocks out of real images' range (16-bit quantizers, extreme coefficients, damaged data):
/// PureJPEG decodes them as `djpeg -dct int` does on x86-64, i.e. with libjpeg-turbo's SIMD
/// kernels' 16-bit arithmetic (IDCT.swift, "libjpeg-turbo's x86 SIMD kernels").
@Suite("IDCT overflow: djpeg's SIMD kernels")
struct IDCTOverflowTests {
    @Test("overflow manifest is present")
    func present() { #expect(OverflowVector.all.count == 36) }

    @Test("bit-exact with djpeg's default (SIMD) IDCT", arguments: OverflowVector.all)
    func exact(_ vector: OverflowVector) throws {
        let bytes = try TestVectors.bytes("jpeg-idct-overflow/" + vector.file)
        let options = JPEGDecodingOptions(scale: vector.scale)
        let image = try JPEGDecoder.decode(bytes, options: options)
        let reference = try #require(readPNM(try TestVectors.bytes("jpeg-idct-overflow/" + vector.simd)))
        let (maxDiff, psnr) = compare(image, reference)
        #expect(maxDiff == 0, "max difference \(maxDiff), PSNR \(psnr) dB")
        #expect(try decodeInPieces(bytes, size: 97, options: options).result.get() == image)
        // The file does exercise the difference: the C kernels decode it otherwise.
        if let c = vector.c {
            let cReference = try #require(readPNM(try TestVectors.bytes("jpeg-idct-overflow/" + c)))
            #expect(compare(image, cReference).maxDiff > 0)
        }
    }

    /// A random block with the values that overflow: extremes, big products, sign patterns.
    static func extremeBlock(_ trial: Int, using rng: inout SplitMix64) -> ([Int16], [UInt16]) {
        let quantizers: [UInt16] = [1, 1, 2, 7, 16, 255, 1023, 1024, 2000, 32767, 32768, 65535]
        var quant = [UInt16](repeating: 1, count: 64)
        switch trial % 4 {
        case 0: break
        case 1: quant = (0 ..< 64).map { _ in quantizers.randomElement(using: &rng)! }
        case 2: quant = (0 ..< 64).map { _ in UInt16.random(in: 1 ... .max, using: &rng) }
        default: quant = [UInt16](repeating: quantizers.randomElement(using: &rng)!, count: 64)
        }
        let shape = trial % 5  // 0: any; 1: first row only; 2: top-left 4x4; 3: DC only; 4: one column
        let density = Int.random(in: 1 ... 64, using: &rng)
        let extremes: [Int16] = [.min, .max, -1024, 1023, -1023, 512, -512]
        let coefficients: [Int16] = (0 ..< 64).map { k in
            if shape == 1 && k >= 8 || shape == 2 && (k >= 32 || k % 8 >= 4) || shape == 3 && k > 0
                || shape == 4 && k % 8 != 0 { return 0 }
            guard Int.random(in: 0 ..< 64, using: &rng) < density else { return 0 }
            switch Int.random(in: 0 ..< 4, using: &rng) {
            case 0: return extremes.randomElement(using: &rng)!
            case 1: return Int16.random(in: .min ... .max, using: &rng)
            case 2: return Int16.random(in: -1024 ... 1023, using: &rng)
            default: return Int16.random(in: -8 ... 8, using: &rng)
            }
        }
        return (coefficients, quant)
    }

    @Test("the SIMD kernels equal their scalar twin on 100,000 random extreme blocks")
    func simdEqualsScalar() {
        var rng = SplitMix64(state: 0x1D_C7)
        var differing = (fast: 0, saturating: 0)
        var out = [[UInt8]](repeating: [UInt8](repeating: 0, count: 64), count: 3)
        for trial in 0 ..< 100_000 {
            let (coefficients, quant) = Self.extremeBlock(trial, using: &rng)
            let prepared = JPEGKernels.prepareQuant(quant)
            coefficients.withUnsafeBufferPointer { c in
                prepared.withUnsafeBufferPointer { q in
                    IDCT.idct8x8Saturating(c.baseAddress!, q.baseAddress!, &out[0], 8)
                    IDCTSIMD.idct8x8(c.baseAddress!, q.baseAddress!, &out[1], 8)
                    IDCTSIMD.idct8x8Saturating(c.baseAddress!, q.baseAddress!, &out[2], 8)
                }
            }
            if out[0] != out[1] { differing.fast += 1 }
            if out[0] != out[2] { differing.saturating += 1 }
        }
        #expect(differing.fast == 0 && differing.saturating == 0)
    }

    /// Dequantized values in -1024...1023 (the fast path's range) can still drive outputs past
    /// -512...511 and pass-2 pre-sums past 16 bits; these blocks aim at that (all terms at
    /// +-1023 with a quantizer of 1, in sign patterns that add up at one sample).
    @Test("in range but extreme: the fast path clamps and wraps as the SIMD kernel does")
    func inRangeExtremes() {
        var rng = SplitMix64(state: 99)
        var differing = 0, clampedOrWrapped = 0
        let quant = [UInt16](repeating: 1, count: 64)
        for trial in 0 ..< 20_000 {
            let coefficients: [Int16] = (0 ..< 64).map { k in
                switch trial % 3 {
                case 0: return Bool.random(using: &rng) ? 1023 : -1024
                case 1: return (k % 8 + k / 8 + trial) % 2 == 0 ? 1023 : -1023
                default: return Int.random(in: 0 ..< 4, using: &rng) == 0 ? 0 : (Bool.random(using: &rng) ? 1023 : -1023)
                }
            }
            let fast = runIDCT({ IDCTSIMD.idct8x8($0, $1, $2, $3) }, coefficients, quant, size: 8)
            if fast != runIDCT({ IDCT.idct8x8Saturating($0, $1, $2, $3) }, coefficients, quant, size: 8) { differing += 1 }
            if fast != runIDCT({ IDCT.idct8x8($0, $1, $2, $3) }, coefficients, quant, size: 8) { clampedOrWrapped += 1 }
        }
        #expect(differing == 0)
        #expect(clampedOrWrapped > 1_000)  // these blocks do reach the cases where C and SIMD differ
    }

    @Test("scaled kernels equal jidctred.c on in-range blocks")
    func scaledInRange() throws {
        var rng = SplitMix64(state: 5)
        let tables = try IDCTTests.quantTables().filter { $0.allSatisfy { $0 <= 255 } }
        for trial in 0 ..< 1_500 {
            let quant = tables[trial % tables.count]
            let coefficients = encodedBlock(quant: quant, smooth: trial % 3 != 0, using: &rng)
            #expect(runIDCT({ IDCT.idct4x4Saturating($0, $1, $2, $3) }, coefficients, quant, size: 4)
                    == runIDCT({ IDCTScaled.idct4x4($0, $1, $2, $3) }, coefficients, quant, size: 4))
            #expect(runIDCT({ IDCT.idct2x2Saturating($0, $1, $2, $3) }, coefficients, quant, size: 2)
                    == runIDCT({ IDCTScaled.idct2x2($0, $1, $2, $3) }, coefficients, quant, size: 2))
        }
    }
}
