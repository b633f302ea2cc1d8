import Testing
@testable import PurePNG

/// The encoder's filter kernels: SIMD against the scalar references, and hand-worked bytes.
@Suite struct ForwardFilterTests {
    /// A deterministic byte source (SplitMix64).
    struct Bytes {
        var state: UInt64
        mutating func next() -> UInt8 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return UInt8(truncatingIfNeeded: z ^ (z >> 31))
        }
    }

    /// Two rows with the zero padding the SIMD kernels need in front, half noise and half
    /// smooth so every filter wins somewhere.
    struct Rows {
        let pad = ForwardFilter.leadingPadding
        var cur: [UInt8], prev: [UInt8]
        init(count: Int, seed: UInt64) {
            var r = Bytes(state: seed)
            cur = [UInt8](repeating: 0, count: pad + count + 16)
            prev = cur
            for i in 0 ..< count {
                let smooth = UInt8(truncatingIfNeeded: i * 3)
                cur[pad + i] = i % 64 < 32 ? r.next() : smooth &+ (r.next() & 3)
                prev[pad + i] = i % 64 < 32 ? r.next() : smooth &+ (r.next() & 7)
            }
        }
    }

    static let lengths = [1, 5, 15, 16, 17, 31, 48, 100, 255, 4097, 9000]

    @Test(arguments: 1 ... 8)
    func singleFilterSIMDMatchesScalar(bpp: Int) {
        for (k, count) in Self.lengths.enumerated() {
            let rows = Rows(count: count, seed: UInt64(bpp * 100 + k))
            for type in ForwardFilter.none ... ForwardFilter.paeth {
                var simd = [UInt8](repeating: 0, count: count), scalar = simd
                rows.cur.withUnsafeBufferPointer { c in
                    rows.prev.withUnsafeBufferPointer { p in
                        let cur = c.baseAddress! + rows.pad, prev = p.baseAddress! + rows.pad
                        simd.withUnsafeMutableBufferPointer {
                            ForwardFilter.filter(type, cur: cur, prev: prev, count: count, bpp: bpp, out: $0.baseAddress!)
                        }
                        scalar.withUnsafeMutableBufferPointer {
                            ForwardFilter.filterScalar(type, cur: cur, prev: prev, count: count, bpp: bpp, out: $0.baseAddress!)
                        }
                    }
                }
                #expect(simd == scalar, "type \(type), bpp \(bpp), \(count) bytes")
            }
        }
    }

    @Test(arguments: 1 ... 8)
    func allFiltersAndCostsMatchScalar(bpp: Int) {
        for (k, count) in Self.lengths.enumerated() {
            let rows = Rows(count: count, seed: UInt64(bpp * 1000 + k))
            var outs = [[UInt8]](repeating: [UInt8](repeating: 0, count: count), count: 4)
            var expected = outs
            var costs = (0, 0, 0, 0, 0)
            var reference: (type: UInt8, costs: [Int]) = (0, [])
            rows.cur.withUnsafeBufferPointer { c in
                rows.prev.withUnsafeBufferPointer { p in
                    let cur = c.baseAddress! + rows.pad, prev = p.baseAddress! + rows.pad
                    let bufs = (0 ..< 4).map { _ in UnsafeMutablePointer<UInt8>.allocate(capacity: count) }
                    defer { bufs.forEach { $0.deallocate() } }
                    ForwardFilter.filterAll(cur: cur, prev: prev, count: count, bpp: bpp, sub: bufs[0], up: bufs[1],
                                            average: bufs[2], paeth: bufs[3], costs: &costs)
                    for t in 0 ..< 4 {
                        outs[t] = Array(UnsafeBufferPointer(start: bufs[t], count: count))
                        ForwardFilter.filterScalar(UInt8(t + 1), cur: cur, prev: prev, count: count, bpp: bpp, out: bufs[t])
                        expected[t] = Array(UnsafeBufferPointer(start: bufs[t], count: count))
                    }
                    reference = ForwardFilter.chooseScalar(cur: cur, prev: prev, count: count, bpp: bpp, scratch: bufs[0])
                }
            }
            #expect(outs == expected, "bpp \(bpp), \(count) bytes")
            #expect([costs.0, costs.1, costs.2, costs.3, costs.4] == reference.costs, "bpp \(bpp), \(count) bytes")
            #expect(ForwardFilter.choose(costs) == reference.type)
        }
    }

    /// PNG 9.2 worked by hand on one 3-byte-pixel row of two pixels.
    @Test func handWorkedRow() {
        let pad = [UInt8](repeating: 0, count: ForwardFilter.leadingPadding)
        let cur = pad + [10, 20, 30, 15, 200, 35] + [UInt8](repeating: 0, count: 16)
        let prev = pad + [8, 25, 255, 12, 190, 40] + [UInt8](repeating: 0, count: 16)
        func run(_ type: UInt8) -> [UInt8] {
            var out = [UInt8](repeating: 0, count: 6)
            cur.withUnsafeBufferPointer { c in prev.withUnsafeBufferPointer { p in out.withUnsafeMutableBufferPointer {
                ForwardFilter.filter(type, cur: c.baseAddress! + pad.count, prev: p.baseAddress! + pad.count,
                                     count: 6, bpp: 3, out: $0.baseAddress!)
            } } }
            return out
        }
        #expect(run(ForwardFilter.sub) == [10, 20, 30, 5, 180, 5])
        #expect(run(ForwardFilter.up) == [2, 251, 31, 3, 10, 251])
        // Average: x - floor((a + b) / 2); first pixel a = 0.
        #expect(run(ForwardFilter.average) == [6, 8, 159, 4, 95, 0])
        // Paeth, second pixel, byte 0: a=10 b=12 c=8: pa=|b-c|=4 pb=|a-c|=2 pc=6 -> b; 15-12 = 3.
        // byte 1: a=20 b=190 c=25, pa=165 pb=5 pc=160 -> b; 200-190 = 10.
        // byte 2: a=30 b=40 c=255, pa=215 pb=225 pc=440 -> a; 35-30 = 5.
        // First pixel: a = c = 0, so pb = 0 <= pc = b and the predictor is b, as for Up.
        #expect(run(ForwardFilter.paeth) == [2, 251, 31, 3, 10, 5])
        #expect(ForwardFilter.cost(0) == 0 && ForwardFilter.cost(255) == 1 && ForwardFilter.cost(128) == 128)
    }

    /// libpng's choice on ties: the lowest filter type with the smallest sum.
    @Test func tiesGoToTheLowerType() {
        #expect(ForwardFilter.choose((5, 5, 5, 5, 5)) == ForwardFilter.none)
        #expect(ForwardFilter.choose((9, 4, 4, 7, 4)) == ForwardFilter.sub)
        #expect(ForwardFilter.choose((9, 8, 7, 6, 5)) == ForwardFilter.paeth)
        #expect(ForwardFilter.choose((9, 8, 3, 3, 5)) == ForwardFilter.up)
    }
}
