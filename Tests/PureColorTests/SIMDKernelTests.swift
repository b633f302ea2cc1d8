import ImageCore
import Testing
import TestSupport
@testable import PureColor

/// Every SIMD kernel gives the bytes of its scalar twin, on random pixels; the matrix/TRC
/// kernel's widened table gives the bytes of its clamping kernel.
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

    /// Matrix/TRC sources: the widened-table kernel gives the bytes of the clamping kernel, on
    /// random pixels and on a lattice of the RGB cube (corners, edges, the toe and the top).
    @Test(arguments: ["AdobeRGB1998.icc", "ProPhotoRGB.icc", "WideGamutRGB.icc", "BruceRGB.icc",
                      "CineonLog_M.icc", "SwappedRedAndGreen.icc", "sRGB-colord.icc"])
    func matrixKernelsAgree(name: String) throws {
        let transform = try ColorTransform(source: ICCProfile(TestVectors.bytes("icc/profiles/" + name)))
        #expect(transform.sourceModel == .matrixShaper)
        #expect(!transform.tables8.wideEncode.isEmpty)
        let levels: [UInt8] = [0, 1, 2, 3, 16, 64, 127, 128, 200, 253, 254, 255]
        var cube: [UInt8] = []
        for r in levels { for g in levels { for b in levels { cube += [r, g, b] } } }
        for format in [PixelFormat.rgb8, .rgba8] {
            let channels = format.channels
            var input = Self.random(100_003 * channels, seed: 5)
            for p in 0 ..< cube.count / 3 {
                for c in 0 ..< 3 { input[p * channels + c] = cube[p * 3 + c] }
            }
            var a = input
            transform.apply(toPixels: &a, format: format, threads: 1)
            var clamped = input
            transform.tables8.contributions.withUnsafeBufferPointer { table in
                transform.tables8.encode.withUnsafeBufferPointer { encode in
                    input.withUnsafeBufferPointer { i in
                        clamped.withUnsafeMutableBufferPointer { o in
                            ColorTransform.rgb8(i.baseAddress!, o.baseAddress!, 100_003, channels,
                                                table.baseAddress!, encode.baseAddress!)
                        }
                    }
                }
            }
            let same = a == clamped, changed = a != input
            #expect(same, "\(name) \(format)")
            if name != "sRGB-colord.icc" { #expect(changed, "\(name) \(format)") }
        }
    }

    /// Synthetic matrices (negative and large entries): where the widened table is built, its
    /// kernel gives the clamping kernel's bytes; a matrix whose sums span too far builds none.
    @Test func widenedTableOnSyntheticMatrices() {
        let curves: [ToneCurve] = [.gamma(2.2), .identity, .sRGB]
        var state: UInt32 = 12345
        func next() -> Double {
            state = state &* 1_664_525 &+ 1_013_904_223
            return Double(state >> 8) / Double(1 << 24) * 2.6 - 1.3
        }
        var built = 0
        for _ in 0 ..< 12 {
            let matrix = Matrix3(SIMD3(next(), next(), next()), SIMD3(next(), next(), next()), SIMD3(next(), next(), next()))
            let tables = Tables8(curves: curves, matrix: matrix, grayLab: false)
            guard !tables.wideEncode.isEmpty else { continue }
            built += 1
            let count = 50_000
            let input = Self.random(count * 4, seed: state)
            func run(_ wide: Bool) -> [UInt8] {
                var out = [UInt8](repeating: 0, count: count * 4)
                input.withUnsafeBufferPointer { i in
                    out.withUnsafeMutableBufferPointer { o in
                        let table = wide ? tables.biased : tables.contributions, encode = wide ? tables.wideEncode : tables.encode
                        table.withUnsafeBufferPointer { t in
                            encode.withUnsafeBufferPointer { e in
                                if !wide { ColorTransform.rgb8(i.baseAddress!, o.baseAddress!, count, 4, t.baseAddress!, e.baseAddress!) }
                                else { ColorTransform.wide8x4(i.baseAddress!, o.baseAddress!, count, t.baseAddress!, e.baseAddress!) }
                            }
                        }
                    }
                }
                return out
            }
            let same = run(true) == run(false)
            #expect(same)
        }
        #expect(built >= 3)
        let huge = Matrix3(SIMD3(300, -300, 0), SIMD3(0, 1, 0), SIMD3(0, 0, 1))
        #expect(Tables8(curves: curves, matrix: huge, grayLab: false).wideEncode.isEmpty)
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
    /// The tetrahedron picked by sorting the fractions (selects, no branches) interpolates as
    /// the six-way comparison of the fractions does, ties included.
    @Test func sortedTetrahedronMatchesTheSixCases() {
        func sixCases(_ rx: Int32, _ ry: Int32, _ rz: Int32, _ sx: Int32, _ sy: Int32, _ sz: Int32)
            -> (n1: Int32, n2: Int32, w: SIMD4<Int32>) {
            let one = DeviceLink.one
            if rx >= ry {
                if ry >= rz { return (sx, sx + sy, SIMD4(one - rx, rx - ry, ry - rz, rz)) }
                if rx >= rz { return (sx, sx + sz, SIMD4(one - rx, rx - rz, rz - ry, ry)) }
                return (sz, sz + sx, SIMD4(one - rz, rz - rx, rx - ry, ry))
            }
            if rx >= rz { return (sy, sy + sx, SIMD4(one - ry, ry - rx, rx - rz, rz)) }
            if ry >= rz { return (sy, sy + sz, SIMD4(one - ry, ry - rz, rz - rx, rx)) }
            return (sz, sz + sy, SIMD4(one - rz, rz - ry, ry - rx, rx))
        }
        // The value at corner offset n of a made-up grid: distinct per corner.
        func value(_ n: Int32) -> Int64 { Int64(n) * 7919 + 13 }
        func interpolate(_ n1: Int32, _ n2: Int32, _ w: SIMD4<Int32>, _ n3: Int32) -> Int64 {
            Int64(w.x) * value(0) + Int64(w.y) * value(n1) + Int64(w.z) * value(n2) + Int64(w.w) * value(n3)
        }
        let (sx, sy, sz): (Int32, Int32, Int32) = (4, 68, 1156)
        let levels: [Int32] = [0, 1, 2, 100, 16383, 16384, 32767, DeviceLink.one]
        var triples: [(Int32, Int32, Int32)] = []
        for x in levels { for y in levels { for z in levels { triples.append((x, y, z)) } } }
        var state: UInt32 = 7
        for _ in 0 ..< 20_000 {
            var r: [Int32] = []
            for _ in 0 ..< 3 {
                state = state &* 1_664_525 &+ 1_013_904_223
                r.append(Int32(state >> 16) % (DeviceLink.one + 1))
            }
            triples.append((r[0], r[1], r[2]))
        }
        for (rx, ry, rz) in triples {
            let new = DeviceLink.tetrahedron(rx, ry, rz, sx, sy, sz)
            let old = sixCases(rx, ry, rz, sx, sy, sz)
            #expect(new.w.wrappedSum() == DeviceLink.one && new.w.min() >= 0)
            #expect(interpolate(Int32(new.n1), Int32(new.n2), new.w, sx + sy + sz) == interpolate(old.n1, old.n2, old.w, sx + sy + sz),
                    "\(rx) \(ry) \(rz)")
        }
    }
    /// 16-bit pixels through an RGB device link: a sample `v * 257` lands where the 8-bit `v`
    /// does, so the 16-bit result reduced as lcms2 reduces (round(x / 257)) is the 8-bit
    /// kernel's, alpha copied.
    @Test(arguments: ["synth-rgb-mAB-xyz.icc", "synth-rgb-mft2-lab.icc", "synth-rgb-mAB-lab8.icc"])
    func sixteenBitLinkReducesToTheEightBitResult(name: String) throws {
        let transform = try ColorTransform(source: ICCProfile(TestVectors.bytes("icc/profiles/" + name)))
        #expect(transform.supports(.rgb16) && transform.supports(.rgba16))
        for (format8, format16) in [(PixelFormat.rgb8, PixelFormat.rgb16), (.rgba8, .rgba16)] {
            let input8 = Self.random(40_009 * format8.channels, seed: 17)
            var out8 = input8
            transform.apply(toPixels: &out8, format: format8, threads: 1)
            let samples = input8.map { UInt16($0) * 257 }
            var out16 = samples.withUnsafeBytes { Array($0) }
            transform.apply(toPixels: &out16, format: format16, threads: 2)
            let result = out16.withUnsafeBytes { Array($0.bindMemory(to: UInt16.self)) }
            var mismatches = 0
            for k in 0 ..< input8.count where ColorTransform.to8(result[k]) != out8[k] { mismatches += 1 }
            #expect(mismatches == 0, "\(name) \(format16)")
            // A sample half way to the next 8-bit step gives a value between the two steps'
            // results (the link is continuous and piecewise linear along the way), within a
            // code of 8-bit rounding.
            func run16(_ values: [UInt16]) -> [UInt16] {
                var bytes = values.withUnsafeBytes { Array($0) }
                transform.apply(toPixels: &bytes, format: format16, threads: 1)
                return bytes.withUnsafeBytes { Array($0.bindMemory(to: UInt16.self)) }
            }
            let low = run16(input8.map { UInt16(min($0, 254)) * 257 })
            let high = run16(input8.map { UInt16(min($0, 254) + 1) * 257 })
            let mid = run16(input8.map { UInt16(min($0, 254)) * 257 + 128 })
            var outside = 0
            for k in 0 ..< mid.count {
                let lo = Int(min(low[k], high[k])) - 257, hi = Int(max(low[k], high[k])) + 257
                if Int(mid[k]) < lo || Int(mid[k]) > hi { outside += 1 }
            }
            #expect(outside == 0, "\(name) \(format16): \(outside) samples outside")
        }
    }
}
