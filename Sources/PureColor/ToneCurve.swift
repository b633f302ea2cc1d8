#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A one-dimensional tone reproduction curve (a TRC tag: `curv` or `para`), mapping a device
/// value in [0, 1] to a linear (PCS) value.
public enum ToneCurve: Sendable, Hashable {
    /// `curv` with no entries: y = x.
    case identity
    /// `curv` with one entry: y = x^gamma (the entry is u8Fixed8).
    case gamma(Double)
    /// `curv` with 2 or more entries: a table over [0, 1] of 16-bit values, interpolated linearly.
    case table([UInt16])
    /// `para`: one of the ICC parametric functions 0...4 with its parameters g, a, b, c, d, e, f
    /// (as many as the function uses: 1, 3, 4, 5 or 7).
    case parametric(functionType: Int, parameters: [Double])

    /// The sRGB curve (IEC 61966-2-1) as ICC parametric function 3. Computed, not stored: a
    /// global of this multi-payload enum keeps its array behind a tagged pointer, which
    /// LeakSanitizer cannot follow and reports as a leak.
    public static var sRGB: ToneCurve {
        .parametric(functionType: 3, parameters: [2.4, 1 / 1.055, 0.055 / 1.055, 1 / 12.92, 0.04045])
    }

    /// Parameters each parametric function type needs.
    public static func parameterCount(functionType: Int) -> Int? {
        switch functionType {
        case 0: 1
        case 1: 3
        case 2: 4
        case 3: 5
        case 4: 7
        default: nil
        }
    }

    /// The curve at a 16-bit code (0...65535 for [0, 1]), computed as lcms2 does: tables through
    /// lcms2's 16.16 fixed-point interpolation, functions in double precision.
    public func evaluate(code: UInt16) -> Double {
        switch self {
        case .table(let entries): Double(Self.interpolate(entries, code)) / 65535
        default: evaluate(Double(code) / 65535)
        }
    }

    /// The curve at `x` (tables are interpolated linearly in double precision, `x` clamped to [0, 1]).
    public func evaluate(_ x: Double) -> Double {
        switch self {
        case .identity:
            return x
        case .gamma(let g):
            return x <= 0 ? (abs(g - 1) < 1e-9 ? x : 0) : pow(x, g)
        case .table(let entries):
            guard entries.count > 1 else { return entries.first.map { Double($0) / 65535 } ?? x }
            let position = min(max(x, 0), 1) * Double(entries.count - 1)
            let i = min(Int(position), entries.count - 2)
            let t = position - Double(i)
            return (Double(entries[i]) * (1 - t) + Double(entries[i + 1]) * t) / 65535
        case .parametric(let type, let p):
            return Self.parametric(type, p, x)
        }
    }

    /// lcms2's 16-bit table lookup (`LinLerp1D`): the cell and a 16-bit fraction from
    /// `code * (n - 1)`, then a rounded linear interpolation.
    static func interpolate(_ table: [UInt16], _ code: UInt16) -> UInt16 {
        let domain = table.count - 1
        guard domain > 0 else { return table.first ?? code }
        if code == 0xFFFF { return table[domain] }
        var v = domain * Int(code)
        v += (v + 0x7FFF) / 0xFFFF
        let cell = v >> 16, rest = v & 0xFFFF
        guard cell < domain else { return table[domain] }
        let y0 = Int(table[cell]), y1 = Int(table[cell + 1])
        return UInt16(truncatingIfNeeded: (((y1 - y0) * rest + 0x8000) >> 16) + y0)
    }

    static func parametric(_ type: Int, _ p: [Double], _ x: Double) -> Double {
        // A curve built in code may carry too few parameters: treat it as identity.
        guard let needed = parameterCount(functionType: type), p.count >= needed else { return x }
        func power(_ base: Double, _ g: Double) -> Double { base > 0 ? pow(base, g) : 0 }
        switch type {
        case 0:
            return x <= 0 ? (abs(p[0] - 1) < 1e-9 ? x : 0) : pow(x, p[0])
        case 1:
            let threshold = -p[2] / p[1]
            return x >= threshold ? power(p[1] * x + p[2], p[0]) : 0
        case 2:
            let threshold = -p[2] / p[1]
            return x >= threshold ? power(p[1] * x + p[2], p[0]) + p[3] : p[3]
        case 3:
            return x >= p[4] ? power(p[1] * x + p[2], p[0]) : p[3] * x
        case 4:
            return x >= p[4] ? power(p[1] * x + p[2], p[0]) + p[5] : p[3] * x + p[6]
        default:
            return x
        }
    }

    /// The inverse of the sRGB curve (linear to encoded), exact: 12.92x below 0.0031308
    /// (lcms2's threshold, `(a*d + b)^g`), else 1.055 x^(1/2.4) - 0.055.
    static func sRGBEncode(_ y: Double) -> Double {
        let g = 2.4, a = 1 / 1.055, b = 0.055 / 1.055, c = 1 / 12.92, d = 0.04045
        let knee = pow(a * d + b, g)
        return y >= knee ? (pow(y, 1 / g) - b) / a : y / c
    }

    /// True when the curve is y = x (within 1e-6 over its domain).
    public var isIdentity: Bool {
        switch self {
        case .identity: true
        case .gamma(let g): abs(g - 1) < 1e-6
        case .parametric(0, let p): p.count == 1 && abs(p[0] - 1) < 1e-6
        default: false
        }
    }
}
