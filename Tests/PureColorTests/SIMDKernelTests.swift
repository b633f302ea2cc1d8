import ImageCore
import Testing
import TestSupport
@testable import PureColor

/// Every SIMD kernel gives the bytes of its scalar twin, on random pixels.
@Suite struct SIMDKernelTests {
    static func random(_ count: Int, seed: UInt32) -> [UInt8] {
        var state = seed
        return (0 ..< count).map { _ in
            state = state &* 1_664_525 &+ 1_013_904_223
            return UInt8(truncatingIfNeeded: state >> 24)
        }
    }

    static func transforms(_ name: String) throws -> (simd: ColorTransform, scalar: ColorTransform) {
        let simd = try ColorTransform(source: ICCProfile(TestVectors.bytes("icc/profiles/" + name)))
        var scalar = simd
        scalar.useSIMD = false
        #expect(simd.useSIMD)
        return (simd, scalar)
    }

    @Test(arguments: ["synth-rgb-mAB-xyz.icc", "synth-rgb-mft2-lab.icc", "synth-rgb-mAB-lab8.icc"])
    func rgbKernelsAgree(name: String) throws {
        let (simd, scalar) = try Self.transforms(name)
        for format in [PixelFormat.rgb8, .rgba8] {
            let input = Self.random(100_003 * format.channels, seed: 99)
            var a = input, b = input
            simd.apply(toPixels: &a, format: format, threads: 1)
            scalar.apply(toPixels: &b, format: format, threads: 1)
            #expect(a == b, "\(name) \(format)")
            #expect(a != input)
        }
    }

    @Test(arguments: ["ps_cmyk.icc", "ISOcoated_v2_300_bas.icc", "synth-cmyk-mAB-xyz8.icc"])
    func cmykKernelsAgree(name: String) throws {
        let (simd, scalar) = try Self.transforms(name)
        let input = Self.random(100_003 * 4, seed: 7)
        for inverted in [false, true] {
            let a = simd.convertCMYK(input, inverted: inverted, threads: 1)
            let b = scalar.convertCMYK(input, inverted: inverted, threads: 1)
            #expect(a == b, "\(name) inverted \(inverted)")
        }
        // Several threads give the same bytes as one.
        #expect(simd.convertCMYK(input, threads: 3) == simd.convertCMYK(input, threads: 1))
        // RGBA output: the same colours, alpha 255.
        var rgba = [UInt8](repeating: 0, count: 100_003 * 4)
        input.withUnsafeBytes { i in rgba.withUnsafeMutableBytes { o in simd.applyCMYK(from: i, to: o, outputFormat: .rgba8) } }
        let rgb = simd.convertCMYK(input)
        for p in stride(from: 0, to: 100_003, by: 997) {
            #expect(Array(rgba[4 * p ..< 4 * p + 3]) == Array(rgb[3 * p ..< 3 * p + 3]))
            #expect(rgba[4 * p + 3] == 255)
        }
    }

    /// Inverted input (255 = no ink) is the plain input with every sample flipped.
    @Test func invertedMeansFlipped() throws {
        let (simd, _) = try Self.transforms("default_cmyk.icc")
        let input = Self.random(4096 * 4, seed: 3)
        #expect(simd.convertCMYK(input, inverted: true) == simd.convertCMYK(input.map { 255 - $0 }))
    }
}
