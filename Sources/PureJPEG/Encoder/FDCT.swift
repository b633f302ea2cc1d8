/// The forward DCT of T.81 A.3.3 in the integer arithmetic of libjpeg's `jpeg_fdct_islow`
/// (jfdctint.c: the Loeffler-Ligtenberg-Moschytz factorisation, 13-bit constants, two extra
/// bits of precision between the passes), so that our coefficients equal cjpeg's `-dct int`.
/// Output is in natural order and scaled up by 8, as libjpeg leaves it for the quantizer.
/// This is the plain reference; the pipeline runs ``FDCTSIMD``, tested equal to it.
enum FDCT {
    static let constBits: Int32 = 13
    static let pass1Bits: Int32 = 2
    static let f0298: Int32 = 2446, f0390: Int32 = 3196, f0541: Int32 = 4433, f0765: Int32 = 6270
    static let f0899: Int32 = 7373, f1175: Int32 = 9633, f1501: Int32 = 12299, f1847: Int32 = 15137
    static let f1961: Int32 = 16069, f2053: Int32 = 16819, f2562: Int32 = 20995, f3072: Int32 = 25172

    // MARK: Scalar reference

    /// `src` points at the block's top-left sample; rows are `stride` bytes apart.
    static func forwardScalar(_ src: UnsafePointer<UInt8>, stride: Int, _ out: UnsafeMutablePointer<Int16>) {
        withUnsafeTemporaryAllocation(of: Int32.self, capacity: 64) { ws in
            @inline(__always) func descale(_ x: Int32, _ n: Int32) -> Int32 { (x &+ (1 &<< (n &- 1))) &>> n }
            for r in 0 ..< 8 {
                let p = src + r &* stride
                var d = [Int32](repeating: 0, count: 8)
                for j in 0 ..< 8 { d[j] = Int32(p[j]) &- 128 }
                let row = r &* 8
                let tmp0 = d[0] + d[7], tmp7 = d[0] - d[7], tmp1 = d[1] + d[6], tmp6 = d[1] - d[6]
                let tmp2 = d[2] + d[5], tmp5 = d[2] - d[5], tmp3 = d[3] + d[4], tmp4 = d[3] - d[4]
                let tmp10 = tmp0 + tmp3, tmp13 = tmp0 - tmp3, tmp11 = tmp1 + tmp2, tmp12 = tmp1 - tmp2
                ws[row] = (tmp10 + tmp11) << pass1Bits
                ws[row + 4] = (tmp10 - tmp11) << pass1Bits
                let z1 = (tmp12 + tmp13) * f0541
                ws[row + 2] = descale(z1 + tmp13 * f0765, constBits - pass1Bits)
                ws[row + 6] = descale(z1 - tmp12 * f1847, constBits - pass1Bits)
                odd(tmp4, tmp5, tmp6, tmp7, shift: constBits - pass1Bits) { ws[row + $0] = $1 }
            }
            for c in 0 ..< 8 {
                var d = [Int32](repeating: 0, count: 8)
                for j in 0 ..< 8 { d[j] = ws[j &* 8 &+ c] }
                let tmp0 = d[0] + d[7], tmp7 = d[0] - d[7], tmp1 = d[1] + d[6], tmp6 = d[1] - d[6]
                let tmp2 = d[2] + d[5], tmp5 = d[2] - d[5], tmp3 = d[3] + d[4], tmp4 = d[3] - d[4]
                let tmp10 = tmp0 + tmp3, tmp13 = tmp0 - tmp3, tmp11 = tmp1 + tmp2, tmp12 = tmp1 - tmp2
                out[c] = Int16(truncatingIfNeeded: descale(tmp10 + tmp11, pass1Bits))
                out[32 + c] = Int16(truncatingIfNeeded: descale(tmp10 - tmp11, pass1Bits))
                let z1 = (tmp12 + tmp13) * f0541
                out[16 + c] = Int16(truncatingIfNeeded: descale(z1 + tmp13 * f0765, constBits + pass1Bits))
                out[48 + c] = Int16(truncatingIfNeeded: descale(z1 - tmp12 * f1847, constBits + pass1Bits))
                odd(tmp4, tmp5, tmp6, tmp7, shift: constBits + pass1Bits) { out[$0 &* 8 &+ c] = Int16(truncatingIfNeeded: $1) }
            }
        }
    }

    /// The odd half of one 1-D pass (outputs 1, 3, 5, 7).
    @inline(__always)
    private static func odd(_ t4: Int32, _ t5: Int32, _ t6: Int32, _ t7: Int32, shift: Int32,
                            _ put: (Int, Int32) -> Void) {
        let z1 = t4 + t7, z2 = t5 + t6, z3 = t4 + t6, z4 = t5 + t7
        let z5 = (z3 + z4) * f1175
        let a4 = t4 * f0298, a5 = t5 * f2053, a6 = t6 * f3072, a7 = t7 * f1501
        let b1 = -z1 * f0899, b2 = -z2 * f2562
        let b3 = -z3 * f1961 + z5, b4 = -z4 * f0390 + z5
        let round: Int32 = 1 << (shift - 1)
        put(7, (a4 + b1 + b3 + round) >> shift)
        put(5, (a5 + b2 + b4 + round) >> shift)
        put(3, (a6 + b2 + b3 + round) >> shift)
        put(1, (a7 + b1 + b4 + round) >> shift)
    }

    /// A block as eight rows of eight coefficients (``FDCTSIMD/forward(_:stride:)``).
    typealias Rows = (SIMD8<Int16>, SIMD8<Int16>, SIMD8<Int16>, SIMD8<Int16>,
                      SIMD8<Int16>, SIMD8<Int16>, SIMD8<Int16>, SIMD8<Int16>)
}
