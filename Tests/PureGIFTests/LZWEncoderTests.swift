import Testing
@testable import PureGIF

/// `LZWEncoder` against `ReferenceLZWEncoder` (the coder it replaced): the same bytes for
/// every code size, with and without alternatives, across table resets and sub-block edges.
@Suite struct GIFLZWEncoderTests {
    private func both(_ a: [UInt8], _ b: [UInt8], _ size: Int) -> ([UInt8], [UInt8]) {
        var new: [UInt8] = [0xAA], old: [UInt8] = [0xAA]
        a.withUnsafeBufferPointer { a in
            b.withUnsafeBufferPointer { b in
                LZWEncoder.encode(a, alternatives: b, minimumCodeSize: size, into: &new)
                ReferenceLZWEncoder.encode(a, alternatives: b, minimumCodeSize: size, into: &old)
            }
        }
        return (new, old)
    }

    @Test func matchesTheReferenceCoder() {
        var rng = SplitMix64(seed: 11)
        for size in 2 ... 8 {
            for (count, runs) in [(0, 1), (1, 1), (2, 1), (254, 3), (1_000, 1), (30_000, 4), (90_000, 1), (60_000, 40)] {
                var a: [UInt8] = [], b: [UInt8] = []
                var v = UInt8(0)
                for i in 0 ..< count {
                    if i % runs == 0 { v = UInt8(rng.next() % UInt64(1 << size)) }
                    a.append(v)
                    // Alternatives on some pixels only, as free pixels of a frame.
                    b.append(rng.next() % 3 == 0 ? UInt8(rng.next() % UInt64(1 << size)) : v)
                }
                let (new, old) = both(a, b, size)
                #expect(new == old, "size \(size), \(count) pixels")
                let (plainNew, plainOld) = both(a, a, size)
                #expect(plainNew == plainOld, "size \(size), \(count) pixels, no alternatives")
            }
        }
    }
}
