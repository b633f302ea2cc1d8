/// Chroma downsampling as libjpeg's jcsample.c does it, so that our planes equal cjpeg's:
/// plain box averages whose rounding alternates from column to column (`h2v1_downsample`:
/// bias 0, 1, 0, 1 ...; `h2v2_downsample`: bias 1, 2, 1, 2 ...), which avoids the drift a
/// constant half would give. Rows are first widened to the padded width by repeating their last
/// sample (libjpeg `expand_right_edge`), so blocks at the right edge see replicated pixels.
///
/// The SIMD versions read 16 input bytes as eight little-endian 16-bit lanes, so each lane holds
/// one horizontal pair: `(lane & 0xFF) + (lane >> 8)` is the pair's sum, with no shuffles.
enum Downsample {
    /// Repeats `row[width - 1]` into `row[width ..< paddedWidth]` (libjpeg `expand_right_edge`).
    @inline(__always)
    static func expandRightEdge(_ row: UnsafeMutablePointer<UInt8>, width: Int, paddedWidth: Int) {
        guard width > 0, paddedWidth > width else { return }
        let last = row[width &- 1]
        (row + width).update(repeating: last, count: paddedWidth &- width)
    }

    // MARK: Scalar references

    /// Halves a row horizontally: `out[j] = (in[2j] + in[2j+1] + bias) >> 1`, bias 0, 1, 0, 1...
    static func h2v1Scalar(_ src: UnsafePointer<UInt8>, _ dst: UnsafeMutablePointer<UInt8>, outputCount: Int) {
        var bias: UInt16 = 0
        for j in 0 ..< outputCount {
            dst[j] = UInt8(truncatingIfNeeded: (UInt16(src[2 &* j]) &+ UInt16(src[2 &* j &+ 1]) &+ bias) >> 1)
            bias ^= 1
        }
    }

    /// Halves two rows in both directions: `(a[2j] + a[2j+1] + b[2j] + b[2j+1] + bias) >> 2`,
    /// bias 1, 2, 1, 2 ...
    static func h2v2Scalar(_ row0: UnsafePointer<UInt8>, _ row1: UnsafePointer<UInt8>,
                           _ dst: UnsafeMutablePointer<UInt8>, outputCount: Int) {
        var bias: UInt16 = 1
        for j in 0 ..< outputCount {
            let s = UInt16(row0[2 &* j]) &+ UInt16(row0[2 &* j &+ 1]) &+ UInt16(row1[2 &* j]) &+ UInt16(row1[2 &* j &+ 1])
            dst[j] = UInt8(truncatingIfNeeded: (s &+ bias) >> 2)
            bias ^= 3
        }
    }

    // MARK: SIMD

    static let biasH2V1 = SIMD8<UInt16>(0, 1, 0, 1, 0, 1, 0, 1)
    static let biasH2V2 = SIMD8<UInt16>(1, 2, 1, 2, 1, 2, 1, 2)

    @inline(__always)
    static func pairSums(_ p: UnsafePointer<UInt8>) -> SIMD8<UInt16> {
        #if _endian(little)
        let lanes = UnsafeRawPointer(p).loadUnaligned(as: SIMD8<UInt16>.self)
        return (lanes & 0x00FF) &+ (lanes &>> 8)
        #else
        var s = SIMD8<UInt16>()
        for j in 0 ..< 8 { s[j] = UInt16(p[2 &* j]) &+ UInt16(p[2 &* j &+ 1]) }
        return s
        #endif
    }

    /// Two vectors of values 0...255 as 16 bytes: built lane by lane, one `packuswb` (and the
    /// masks that make it a truncation).
    @inline(__always)
    static func bytes(_ a: SIMD8<UInt16>, _ b: SIMD8<UInt16>) -> SIMD16<UInt8> {
        SIMD16<UInt8>(UInt8(truncatingIfNeeded: a[0]), UInt8(truncatingIfNeeded: a[1]), UInt8(truncatingIfNeeded: a[2]),
                      UInt8(truncatingIfNeeded: a[3]), UInt8(truncatingIfNeeded: a[4]), UInt8(truncatingIfNeeded: a[5]),
                      UInt8(truncatingIfNeeded: a[6]), UInt8(truncatingIfNeeded: a[7]), UInt8(truncatingIfNeeded: b[0]),
                      UInt8(truncatingIfNeeded: b[1]), UInt8(truncatingIfNeeded: b[2]), UInt8(truncatingIfNeeded: b[3]),
                      UInt8(truncatingIfNeeded: b[4]), UInt8(truncatingIfNeeded: b[5]), UInt8(truncatingIfNeeded: b[6]),
                      UInt8(truncatingIfNeeded: b[7]))
    }

    static func h2v1(_ src: UnsafePointer<UInt8>, _ dst: UnsafeMutablePointer<UInt8>, outputCount: Int) {
        var j = 0
        // 16 outputs a step (one pack and one store for two vectors), then 8, then the tail.
        while j &+ 16 <= outputCount {
            let a = (pairSums(src + 2 &* j) &+ biasH2V1) &>> 1
            let b = (pairSums(src + (2 &* j &+ 16)) &+ biasH2V1) &>> 1
            UnsafeMutableRawPointer(dst + j).storeBytes(of: bytes(a, b), as: SIMD16<UInt8>.self)
            j &+= 16
        }
        while j &+ 8 <= outputCount {
            let v = (pairSums(src + 2 &* j) &+ biasH2V1) &>> 1
            UnsafeMutableRawPointer(dst + j).storeBytes(of: SIMD8<UInt8>(truncatingIfNeeded: v), as: SIMD8<UInt8>.self)
            j &+= 8
        }
        // Eight outputs per step keep the bias phase (an even count), so the tail starts at bias 0.
        if j < outputCount { h2v1Scalar(src + 2 &* j, dst + j, outputCount: outputCount &- j) }
    }

    static func h2v2(_ row0: UnsafePointer<UInt8>, _ row1: UnsafePointer<UInt8>,
                     _ dst: UnsafeMutablePointer<UInt8>, outputCount: Int) {
        var j = 0
        while j &+ 16 <= outputCount {
            let a = (pairSums(row0 + 2 &* j) &+ pairSums(row1 + 2 &* j) &+ biasH2V2) &>> 2
            let b = (pairSums(row0 + (2 &* j &+ 16)) &+ pairSums(row1 + (2 &* j &+ 16)) &+ biasH2V2) &>> 2
            UnsafeMutableRawPointer(dst + j).storeBytes(of: bytes(a, b), as: SIMD16<UInt8>.self)
            j &+= 16
        }
        while j &+ 8 <= outputCount {
            let v = (pairSums(row0 + 2 &* j) &+ pairSums(row1 + 2 &* j) &+ biasH2V2) &>> 2
            UnsafeMutableRawPointer(dst + j).storeBytes(of: SIMD8<UInt8>(truncatingIfNeeded: v), as: SIMD8<UInt8>.self)
            j &+= 8
        }
        if j < outputCount { h2v2Scalar(row0 + 2 &* j, row1 + 2 &* j, dst + j, outputCount: outputCount &- j) }
    }
}
