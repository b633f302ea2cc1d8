/// The SIMD twins of the device-link kernels (LUT-based sources): the three output channels of
/// a pixel side by side in four lanes (lane 3 unused): `Int32` for 3 inputs, `Float` for 4, the
/// same operations in the same order as the scalar loops, so the results are bit-identical
/// (tested on random data). Which one runs is ``ColorTransform/useSIMD``.
extension DeviceLink {
    /// Clamps interpolated linear values to [0, 1] (`scale`) and reads the three 8-bit codes.
    @inline(__always)
    static func store(_ v: SIMD4<Int32>, _ output: UnsafeMutablePointer<UInt8>, _ encode: UnsafePointer<UInt8>) {
        var c = v
        c.replace(with: SIMD4<Int32>.zero, where: c .< SIMD4<Int32>.zero)
        c.replace(with: SIMD4(repeating: scale), where: c .> SIMD4(repeating: scale))
        output[0] = encode[Int(c.x)]
        output[1] = encode[Int(c.y)]
        output[2] = encode[Int(c.z)]
    }

    /// The tetrahedron's four corners at `base` weighted (sum of weights 32768), rounded.
    @inline(__always)
    static func corners(_ base: UnsafePointer<Int16>, _ n1: Int, _ n2: Int, _ n3: Int, _ w: SIMD4<Int32>) -> SIMD4<Int32> {
        let raw = UnsafeRawPointer(base)
        let c0 = SIMD4<Int32>(truncatingIfNeeded: raw.loadUnaligned(as: SIMD4<Int16>.self))
        let c1 = SIMD4<Int32>(truncatingIfNeeded: raw.loadUnaligned(fromByteOffset: 2 * n1, as: SIMD4<Int16>.self))
        let c2 = SIMD4<Int32>(truncatingIfNeeded: raw.loadUnaligned(fromByteOffset: 2 * n2, as: SIMD4<Int16>.self))
        let c3 = SIMD4<Int32>(truncatingIfNeeded: raw.loadUnaligned(fromByteOffset: 2 * n3, as: SIMD4<Int16>.self))
        let sum = c0 &* w.x &+ c1 &* w.y &+ c2 &* w.z &+ c3 &* w.w
        return (sum &+ (one >> 1)) &>> 15
    }

    /// SIMD twin of ``scalar3(_:_:_:_:_:_:_:_:_:)``.
    static func simd3(_ input: UnsafePointer<UInt8>, _ inStep: Int, _ output: UnsafeMutablePointer<UInt8>,
                      _ outStep: Int, _ count: Int, _ grid: UnsafePointer<Int16>, _ cells: UnsafePointer<SIMD2<Int32>>,
                      _ strides: (Int32, Int32, Int32), _ encode: UnsafePointer<UInt8>) {
        let n3 = Int(strides.0 &+ strides.1 &+ strides.2)
        var i = 0, o = 0
        for _ in 0 ..< count {
            let a = cells[Int(input[i])], b = cells[256 + Int(input[i + 1])], c = cells[512 + Int(input[i + 2])]
            let alpha = input[i + 3 < i + inStep ? i + 3 : i]
            let t = tetrahedron(a.y, b.y, c.y, strides.0, strides.1, strides.2)
            store(corners(grid + Int(a.x &+ b.x &+ c.x), t.n1, t.n2, n3, t.w), output + o, encode)
            if outStep == 4 { output[o + 3] = inStep == 4 ? alpha : 255 }
            i += inStep
            o += outStep
        }
    }

    /// The tetrahedron's four corners at `base`, as floats, weighted by `w0`...`w3`.
    @inline(__always)
    static func cornersFloat(_ base: UnsafePointer<Int16>, _ n1: Int, _ n2: Int, _ n3: Int,
                             _ w0: Float, _ w1: Float, _ w2: Float, _ w3: Float) -> SIMD4<Float> {
        let raw = UnsafeRawPointer(base)
        @inline(__always) func node(_ offset: Int) -> SIMD4<Float> {
            SIMD4<Float>(SIMD4<Int32>(truncatingIfNeeded: raw.loadUnaligned(fromByteOffset: 2 * offset, as: SIMD4<Int16>.self)))
        }
        return node(0) * w0 + node(n1) * w1 + node(n2) * w2 + node(n3) * w3
    }

    /// SIMD twin of ``scalar4(_:_:_:_:_:_:_:_:)``.
    static func simd4(_ input: UnsafePointer<UInt8>, _ output: UnsafeMutablePointer<UInt8>, _ outStep: Int,
                      _ count: Int, _ grid: UnsafePointer<Int16>, _ cells: UnsafePointer<SIMD2<Int32>>,
                      _ strides: (Int32, Int32, Int32, Int32), _ encode: UnsafePointer<UInt8>) {
        let n3 = Int(strides.1 &+ strides.2 &+ strides.3)
        let unit: Float = 1 / Float(one)
        let magic = SIMD4<Float>(repeating: Self.magic), magicBits = SIMD4<Int32>(repeating: Int32(bitPattern: Self.magic.bitPattern))
        var i = 0, o = 0
        for _ in 0 ..< count {
            let k = cells[Int(input[i])], a = cells[256 + Int(input[i + 1])]
            let b = cells[512 + Int(input[i + 2])], c = cells[768 + Int(input[i + 3])]
            let t = tetrahedron(a.y, b.y, c.y, strides.1, strides.2, strides.3)
            let w0 = Float(t.w.x) * unit, w1 = Float(t.w.y) * unit, w2 = Float(t.w.z) * unit, w3 = Float(t.w.w) * unit
            let low = grid + Int(k.x &+ a.x &+ b.x &+ c.x)
            let s0 = cornersFloat(low, t.n1, t.n2, n3, w0, w1, w2, w3)
            let s1 = cornersFloat(low + Int(strides.0), t.n1, t.n2, n3, w0, w1, w2, w3)
            let v = s0 + (s1 - s0) * (Float(k.y) * unit)
            store(unsafeBitCast(v + magic, to: SIMD4<Int32>.self) &- magicBits, output + o, encode)
            if outStep == 4 { output[o + 3] = 255 }
            i += 4
            o += outStep
        }
    }
}
