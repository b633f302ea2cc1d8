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
        default: inverse(input, dst)
        }
    }

    /// Adds the four 4x4 residues of an 8x8 chroma block (libwebp's DoUVTransform); `bits` holds
    /// the four blocks' codes, first block in the low bits as libwebp packs them.
    @inline(__always)
    static func addChroma(bits: UInt32, _ input: UnsafePointer<Int16>, _ dst: UnsafeMutablePointer<UInt8>) {
        guard bits & 0xff != 0 else { return }
        let bps = VP8Predict.stride
        if bits & 0xaa != 0 {
            inverse(input, dst)
            inverse(input + 16, dst + 4)
            inverse(input + 32, dst + 4 * bps)
            inverse(input + 48, dst + 4 * bps + 4)
        } else {
            inverseDC(input, dst)
            inverseDC(input + 16, dst + 4)
            inverseDC(input + 32, dst + 4 * bps)
            inverseDC(input + 48, dst + 4 * bps + 4)
        }
    }
}
