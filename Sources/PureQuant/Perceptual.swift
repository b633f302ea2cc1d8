#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A colour in the quantizer's space: lanes r, g, b, a. Colour lanes hold the sample raised to
/// libimagequant's internal gamma (1.21: sRGB values pulled a little towards linear light),
/// multiplied by alpha (premultiplied, so every fully transparent colour is the same point); the alpha lane is alpha times its weight. Squared Euclidean distance
/// here is the quantizer's error.
typealias Point = SIMD4<Float>

/// Channel weights (all alike: with libimagequant's alpha weight 0.625 the soft-alpha images
/// of the benchmark set scored 0.4-1.2 dB PSNR lower) and libimagequant's internal gamma
/// (0.5499 / 0.45455).
enum Perceptual {
    static let weights = Point(1, 1, 1, 1)
    static let gamma = 0.5499 / 0.45455

    /// `(v / 255)^gamma` for every 8-bit value.
    static let gammaTable: [Float] = (0 ... 255).map { Float(power(Double($0) / 255, gamma)) }

    /// Packed `r << 24 | g << 16 | b << 8 | a` to a point.
    @inline(__always)
    static func point(_ c: UInt32, _ table: UnsafeBufferPointer<Float>) -> Point {
        let a = Float(c & 0xFF) * (1 / 255)
        let v = Point(table[Int(c &>> 24)], table[Int((c &>> 16) & 0xFF)], table[Int((c &>> 8) & 0xFF)], 1)
        return v * weights * a
    }

    /// The 8-bit colour nearest to `p` (packed), each sample the closest in this space.
    static func color(_ p: Point) -> UInt32 {
        let alpha = min(max(p[3] / weights[3], 0), 1)
        let a8 = UInt32((alpha * 255).rounded())
        if a8 == 0 { return 0 }
        let af = Float(a8) / 255
        var out = a8
        for ch in 0 ..< 3 {
            let target = min(max(p[ch] / (weights[ch] * af), 0), 1)
            out |= UInt32(nearestSample(target)) << UInt32(24 - 8 * ch)
        }
        return out
    }

    /// The 8-bit value whose gamma-table entry is nearest `value` (0...1).
    static func nearestSample(_ value: Float) -> UInt8 {
        var lo = 0, hi = 255
        while lo < hi {  // first entry >= value
            let mid = (lo + hi) / 2
            if gammaTable[mid] < value { lo = mid + 1 } else { hi = mid }
        }
        if lo > 0 && value - gammaTable[lo - 1] <= gammaTable[lo] - value { return UInt8(lo - 1) }
        return UInt8(lo)
    }

    @inline(__always)
    static func distance(_ x: Point, _ y: Point) -> Float {
        let d = x - y
        return (d * d).sum()
    }
}

/// Lane-wise absolute value (the generic `pointwiseMax` is not inlined).
@inline(__always)
func absLanes(_ x: Point) -> Point { x.replacing(with: -x, where: x .< 0) }

/// `x^y` for x >= 0.
func power(_ x: Double, _ y: Double) -> Double { x <= 0 ? 0 : pow(x, y) }
