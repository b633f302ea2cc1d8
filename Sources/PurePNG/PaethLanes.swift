import ImageCore

/// The Paeth predictor (PNG 9.4) and the lane conversions around it in 16-bit SIMD lanes, shared
/// by the unfilter (one pixel per step) and the adaptive filter (16 bytes per step).
///
/// Everything is written with concrete operators and vectors built lane by lane from constant
/// lanes of other vectors (`punpcklbw` with zero, `pand` + `packuswb` on x86): the standard
/// library's generic conversions, `pointwiseMin/Max` and `replacing(with:where:)` stayed calls
/// (SwiftPM emits one LLVM module per file, so their specialisations are not inlined), seven of
/// them per Paeth pixel.
enum PaethLanes {
    typealias H = SIMD8<Int16>

    /// Bytes 0...7 as unsigned 16-bit values.
    @inline(__always)
    static func widen(_ v: SIMD8<UInt8>) -> H {
        H(Int16(v[0]), Int16(v[1]), Int16(v[2]), Int16(v[3]), Int16(v[4]), Int16(v[5]), Int16(v[6]), Int16(v[7]))
    }

    /// Bytes 0...7 (`high`: 8...15) of a 16-byte vector as unsigned 16-bit values.
    @inline(__always)
    static func widen(_ v: SIMD16<UInt8>, high: Bool) -> H {
        high ? H(Int16(v[8]), Int16(v[9]), Int16(v[10]), Int16(v[11]), Int16(v[12]), Int16(v[13]), Int16(v[14]), Int16(v[15]))
             : H(Int16(v[0]), Int16(v[1]), Int16(v[2]), Int16(v[3]), Int16(v[4]), Int16(v[5]), Int16(v[6]), Int16(v[7]))
    }

    /// The low bytes of the lanes.
    @inline(__always)
    static func narrow(_ v: H) -> SIMD8<UInt8> {
        SIMD8<UInt8>(UInt8(truncatingIfNeeded: v[0]), UInt8(truncatingIfNeeded: v[1]), UInt8(truncatingIfNeeded: v[2]),
                     UInt8(truncatingIfNeeded: v[3]), UInt8(truncatingIfNeeded: v[4]), UInt8(truncatingIfNeeded: v[5]),
                     UInt8(truncatingIfNeeded: v[6]), UInt8(truncatingIfNeeded: v[7]))
    }

    /// The low bytes of `low`'s lanes, then of `high`'s.
    @inline(__always)
    static func narrow(_ low: H, _ high: H) -> SIMD16<UInt8> {
        SIMD16<UInt8>(truncatingLanesOf: low, high)
    }

    @inline(__always)
    static func magnitude(_ x: H) -> H {
        let m = x &>> 15
        return (x ^ m) &- m
    }

    /// PNG 9.4 on eight lanes of 0...255: the neighbour closest to a + b - c, ties to a, then b.
    /// Selects are masks (all ones where x <= y; the differences stay within -1020...1020).
    @inline(__always)
    static func predictor(_ a: H, _ b: H, _ c: H) -> H {
        @inline(__always) func atMost(_ x: H, _ y: H) -> H { ~((y &- x) &>> 15) }
        let bc = b &- c, ac = a &- c
        let pa = magnitude(bc), pb = magnitude(ac), pc = magnitude(ac &+ bc)
        let useB = atMost(pb, pc), useA = atMost(pa, pb) & atMost(pa, pc)
        let bOrC = (b & useB) | (c & ~useB)
        return (a & useA) | (bOrC & ~useA)
    }
}
