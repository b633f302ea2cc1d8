import Testing
@testable import PurePNG

/// The SIMD unfilter kernels against the scalar reference (PNG 9.2-9.4), on random rows.
@Suite struct UnfilterTests {
    /// A deterministic generator so failures reproduce.
    struct SplitMix {
        var state: UInt64
        mutating func next() -> UInt8 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return UInt8(truncatingIfNeeded: z ^ (z >> 31))
        }
    }

    @Test(arguments: [UInt8(0), 1, 2, 3, 4], Array(1 ... 8))
    func simdMatchesScalar(filter: UInt8, bpp: Int) {
        var rng = SplitMix(state: UInt64(filter) << 8 | UInt64(bpp))
        for pixels in [1, 2, 5, 16, 37, 100] {
            let n = pixels * bpp
            let prev = (0 ..< n + Unfilter.slack).map { _ in rng.next() }
            let raw = (0 ..< n + Unfilter.slack).map { _ in rng.next() }
            var fast = raw, slow = raw
            prev.withUnsafeBufferPointer { p in
                fast.withUnsafeMutableBufferPointer { r in
                    Unfilter.apply(filter, row: r.baseAddress!, prev: p.baseAddress!, count: n, bpp: bpp)
                }
                slow.withUnsafeMutableBufferPointer { r in
                    Unfilter.scalar(filter, row: r.baseAddress!, prev: p.baseAddress!, count: n, bpp: bpp)
                }
            }
            #expect(fast == slow, "filter \(filter) bpp \(bpp) width \(pixels)")
            // Bytes past the row are never written.
            #expect(fast[n...] == raw[n...])
        }
    }

    /// A literal row worked by hand from PNG 9.4: a = 10, b = 20, c = 15 -> p = 15, pa = 5,
    /// pb = 5, pc = 0 -> predictor c.
    @Test func paethByHand() {
        #expect(Unfilter.paeth(10, 20, 15) == 15)
        #expect(Unfilter.paeth(10, 10, 10) == 10)
        #expect(Unfilter.paeth(0, 255, 0) == 255)
        var row: [UInt8] = [1, 2, 3]
        let prev: [UInt8] = [10, 20, 30]
        prev.withUnsafeBufferPointer { p in
            row.withUnsafeMutableBufferPointer { r in
                Unfilter.scalar(4, row: r.baseAddress!, prev: p.baseAddress!, count: 3, bpp: 1)
            }
        }
        // x=0: b = 10 -> 11; x=1: a=11, b=20, c=10 -> p=21, pa=10, pb=1, pc=11 -> b: 22;
        // x=2: a=22, b=30, c=20 -> p=32, pa=10, pb=2, pc=12 -> b: 33.
        #expect(row == [11, 22, 33])
    }
}
