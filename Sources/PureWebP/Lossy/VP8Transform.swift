/// The inverse DCT of RFC 6386 14.3 exactly as libwebp's TransformOne computes it (the
/// 20091/35468 multipliers, the +4 rounding and the 3-bit shift of the second pass), adding the
/// residue to the prediction in a buffer of stride `VP8Predict.stride` with clipping to 0...255.
/// The DC-only and three-coefficient shortcuts libwebp takes give identical output.
enum VP8Transform {
    @inline(__always)
    static func mul1(_ a: Int32) -> Int32 { ((a &* 20091) >> 16) &+ a }
    @inline(__always)
    static func mul2(_ a: Int32) -> Int32 { (a &* 35468) >> 16 }

    @inline(__always)
    static func clip8(_ v: Int32) -> UInt8 {
        UInt8(truncatingIfNeeded: v < 0 ? 0 : v > 255 ? 255 : v)
    }

    /// Full 4x4 inverse transform of `input` (16 coefficients, natural order) added to `dst`.
    @inline(__always)
    static func inverse(_ input: UnsafePointer<Int16>, _ dst: UnsafeMutablePointer<UInt8>) {
        let bps = VP8Predict.stride
        // Vertical pass: columns of the input into tmp (stored transposed, as libwebp does).
        var c = SIMD16<Int32>()
        for i in 0 ..< 4 {
            let i0 = Int32(input[i]), i4 = Int32(input[4 + i]), i8 = Int32(input[8 + i]), i12 = Int32(input[12 + i])
            let a = i0 &+ i8
            let b = i0 &- i8
            let cc = mul2(i4) &- mul1(i12)
            let d = mul1(i4) &+ mul2(i12)
            c[4 * i] = a &+ d
            c[4 * i + 1] = b &+ cc
            c[4 * i + 2] = b &- cc
            c[4 * i + 3] = a &- d
        }
        // Horizontal pass.
        for i in 0 ..< 4 {
            let dc = c[i] &+ 4
            let a = dc &+ c[8 + i]
            let b = dc &- c[8 + i]
            let cc = mul2(c[4 + i]) &- mul1(c[12 + i])
            let d = mul1(c[4 + i]) &+ mul2(c[12 + i])
            let row = dst + i * bps
            row[0] = clip8(Int32(row[0]) &+ ((a &+ d) >> 3))
            row[1] = clip8(Int32(row[1]) &+ ((b &+ cc) >> 3))
            row[2] = clip8(Int32(row[2]) &+ ((b &- cc) >> 3))
            row[3] = clip8(Int32(row[3]) &+ ((a &- d) >> 3))
        }
    }

    typealias V4 = SIMD4<Int32>

    @inline(__always)
    static func mul1(_ a: V4) -> V4 { ((a &* 20091) &>> 16) &+ a }
    @inline(__always)
    static func mul2(_ a: V4) -> V4 { (a &* 35468) &>> 16 }

    /// `inverse` on four Int32 lanes (the scalar function is its twin, tested equal): the
    /// vertical pass on the four columns at once, a transpose, the horizontal pass on the four
    /// rows at once, a transpose back, then each row added to its four bytes with clipping.
    @inline(__always)
    static func inverseSIMD(_ input: UnsafePointer<Int16>, _ dst: UnsafeMutablePointer<UInt8>) {
        let raw = UnsafeRawPointer(input)
        let in0 = V4(truncatingIfNeeded: raw.loadUnaligned(as: SIMD4<Int16>.self))
        let in1 = V4(truncatingIfNeeded: raw.loadUnaligned(fromByteOffset: 8, as: SIMD4<Int16>.self))
        let in2 = V4(truncatingIfNeeded: raw.loadUnaligned(fromByteOffset: 16, as: SIMD4<Int16>.self))
        let in3 = V4(truncatingIfNeeded: raw.loadUnaligned(fromByteOffset: 24, as: SIMD4<Int16>.self))
        // Lane i is column i.
        let a = in0 &+ in2, b = in0 &- in2
        let c = mul2(in1) &- mul1(in3), d = mul1(in1) &+ mul2(in3)
        let t0 = a &+ d, t1 = b &+ c, t2 = b &- c, t3 = a &- d
        // Transpose: u_k lane i = t_i lane k.
        let u0 = V4(t0[0], t1[0], t2[0], t3[0]), u1 = V4(t0[1], t1[1], t2[1], t3[1])
        let u2 = V4(t0[2], t1[2], t2[2], t3[2]), u3 = V4(t0[3], t1[3], t2[3], t3[3])
        // Lane i is output row i.
        let dc = u0 &+ 4
        let a2 = dc &+ u2, b2 = dc &- u2
        let c2 = mul2(u1) &- mul1(u3), d2 = mul1(u1) &+ mul2(u3)
        let o0 = (a2 &+ d2) &>> 3, o1 = (b2 &+ c2) &>> 3, o2 = (b2 &- c2) &>> 3, o3 = (a2 &- d2) &>> 3
        let zero = V4(repeating: 0), max = V4(repeating: 255)
        @inline(__always)
        func addRow(_ r: V4, _ p: UnsafeMutablePointer<UInt8>) {
            let bytes = UnsafeRawPointer(p).loadUnaligned(as: SIMD4<UInt8>.self)
            // Clamps as comparison-and-blend (the generic `clamped` stays out-of-line calls).
            var v = V4(truncatingIfNeeded: bytes) &+ r
            v = v ^ ((zero ^ v) & unsafeBitCast(zero .> v, to: V4.self))
            v = v ^ ((max ^ v) & unsafeBitCast(v .> max, to: V4.self))
            UnsafeMutableRawPointer(p).storeBytes(of: SIMD4<UInt8>(truncatingIfNeeded: v), as: SIMD4<UInt8>.self)
        }
        let bps = VP8Predict.stride
        addRow(V4(o0[0], o1[0], o2[0], o3[0]), dst)
        addRow(V4(o0[1], o1[1], o2[1], o3[1]), dst + bps)
        addRow(V4(o0[2], o1[2], o2[2], o3[2]), dst + 2 * bps)
        addRow(V4(o0[3], o1[3], o2[3], o3[3]), dst + 3 * bps)
    }

    /// Only the DC coefficient is non-zero (libwebp's TransformDC).
    @inline(__always)
    static func inverseDC(_ input: UnsafePointer<Int16>, _ dst: UnsafeMutablePointer<UInt8>) {
        let bps = VP8Predict.stride
        let dc = (Int32(input[0]) &+ 4) >> 3
        for j in 0 ..< 4 {
            let row = dst + j * bps
            for i in 0 ..< 4 { row[i] = clip8(Int32(row[i]) &+ dc) }
        }
    }

    /// Adds one luma block's residue according to its non-zero code (libwebp's DoTransform).
    @inline(__always)
    static func add(code: UInt32, _ input: UnsafePointer<Int16>, _ dst: UnsafeMutablePointer<UInt8>) {
        switch code {
        case 0: return
        case 1: inverseDC(input, dst)
        default: inverseSIMD(input, dst)
        }
    }

    /// Zeroes a block's 16 coefficients (two 16-byte stores).
    @inline(__always)
    static func clearBlock(_ p: UnsafeMutablePointer<Int16>) {
        let raw = UnsafeMutableRawPointer(p)
        raw.storeBytes(of: SIMD8<Int16>(), as: SIMD8<Int16>.self)
        raw.storeBytes(of: SIMD8<Int16>(), toByteOffset: 16, as: SIMD8<Int16>.self)
    }

    /// Adds the four 4x4 residues of an 8x8 chroma block (libwebp's DoUVTransform); `bits` holds
    /// the four blocks' codes, first block in the low bits as libwebp packs them.
    @inline(__always)
    static func addChroma(bits: UInt32, _ input: UnsafePointer<Int16>, _ dst: UnsafeMutablePointer<UInt8>) {
        guard bits & 0xff != 0 else { return }
        let bps = VP8Predict.stride
        if bits & 0xaa != 0 {
            inverseSIMD(input, dst)
            inverseSIMD(input + 16, dst + 4)
            inverseSIMD(input + 32, dst + 4 * bps)
            inverseSIMD(input + 48, dst + 4 * bps + 4)
        } else {
            inverseDC(input, dst)
            inverseDC(input + 16, dst + 4)
            inverseDC(input + 32, dst + 4 * bps)
            inverseDC(input + 48, dst + 4 * bps + 4)
        }
    }
}
