/// A four-character code as ICC profiles store them: a big-endian `UInt32` that reads as ASCII
/// (`'mntr'`, `'RGB '`, `'rXYZ'`).
public struct FourCC: Sendable, Hashable, CustomStringConvertible {
    /// The code as a big-endian number.
    public let rawValue: UInt32

    /// The code from its big-endian value.
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    /// The code from a string of four ASCII characters (shorter strings are padded with spaces).
    public init(_ text: String) {
        var value: UInt32 = 0
        var count = 0
        for byte in text.utf8.prefix(4) {
            value = value << 8 | UInt32(byte)
            count += 1
        }
        while count < 4 {
            value = value << 8 | 0x20
            count += 1
        }
        rawValue = value
    }

    /// The four characters; bytes outside printable ASCII become `?`.
    public var description: String {
        var s = ""
        for shift in stride(from: 24, through: 0, by: -8) {
            let byte = UInt8(truncatingIfNeeded: rawValue >> UInt32(shift))
            s.unicodeScalars.append(Unicode.Scalar((0x20 ... 0x7E).contains(byte) ? byte : 0x3F))
        }
        return s
    }
}

/// The profile/device class in the header (byte 12).
public enum ICCProfileClass: Sendable, Hashable, CustomStringConvertible {
    /// `scnr`: an input device (scanner, camera).
    case input
    /// `mntr`: a display.
    case display
    /// `prtr`: an output device (printer).
    case output
    /// `link`: a device link.
    case deviceLink
    /// `spac`: a colour space conversion profile.
    case colorSpace
    /// `abst`: an abstract profile (PCS to PCS).
    case abstract
    /// `nmcl`: a named colour profile.
    case namedColor
    /// Any other code.
    case other(FourCC)

    /// The class from its header code.
    public init(_ code: FourCC) {
        switch code.description {
        case "scnr": self = .input
        case "mntr": self = .display
        case "prtr": self = .output
        case "link": self = .deviceLink
        case "spac": self = .colorSpace
        case "abst": self = .abstract
        case "nmcl": self = .namedColor
        default: self = .other(code)
        }
    }

    /// The header code, such as `mntr`.
    public var description: String {
        switch self {
        case .input: "scnr"
        case .display: "mntr"
        case .output: "prtr"
        case .deviceLink: "link"
        case .colorSpace: "spac"
        case .abstract: "abst"
        case .namedColor: "nmcl"
        case .other(let code): code.description
        }
    }
}

/// A data colour space or PCS signature from the header (bytes 16 and 20).
public enum ICCColorSpace: Sendable, Hashable, CustomStringConvertible {
    /// `XYZ `: CIE XYZ (a PCS, or device data).
    case xyz
    /// `Lab `: CIE L*a*b* (a PCS, or device data).
    case lab
    /// `RGB `.
    case rgb
    /// `GRAY`.
    case gray
    /// `CMYK`.
    case cmyk
    /// `CMY `.
    case cmy
    /// `YCbr`.
    case yCbCr
    /// Any other code (`HSV `, `6CLR`, ...).
    case other(FourCC)

    /// The colour space from its header code.
    public init(_ code: FourCC) {
        switch code.description {
        case "XYZ ": self = .xyz
        case "Lab ": self = .lab
        case "RGB ": self = .rgb
        case "GRAY": self = .gray
        case "CMYK": self = .cmyk
        case "CMY ": self = .cmy
        case "YCbr": self = .yCbCr
        default: self = .other(code)
        }
    }

    /// The header code without trailing spaces, such as `RGB` or `GRAY`.
    public var description: String {
        switch self {
        case .xyz: "XYZ"
        case .lab: "Lab"
        case .rgb: "RGB"
        case .gray: "GRAY"
        case .cmyk: "CMYK"
        case .cmy: "CMY"
        case .yCbCr: "YCbr"
        case .other(let code):
            String(code.description.reversed().drop(while: { $0 == " " }).reversed())
        }
    }
}

/// An ICC rendering intent (header byte 64, or a transform's choice).
public enum RenderingIntent: Int, Sendable, Hashable, CaseIterable {
    /// Perceptual (0): the default for pictures. Equals relative colorimetric on matrix/TRC profiles.
    case perceptual = 0
    /// Media-relative colorimetric (1).
    case relativeColorimetric = 1
    /// Saturation (2). Equals relative colorimetric on matrix/TRC profiles.
    case saturation = 2
    /// ICC-absolute colorimetric (3). Not supported by ``ColorTransform`` yet.
    case absoluteColorimetric = 3
}

/// A CIE XYZ triple (PCS values are D50-relative, Y = 1 for the white).
public struct XYZ: Sendable, Hashable {
    /// X.
    public var x: Double
    /// Y (luminance).
    public var y: Double
    /// Z.
    public var z: Double

    /// A triple from its three values.
    public init(x: Double, y: Double, z: Double) {
        self.x = x
        self.y = y
        self.z = z
    }

    /// The ICC PCS illuminant D50 (0.9642, 1.0, 0.8249) as the ICC specification rounds it.
    public static let d50 = XYZ(x: 0.9642, y: 1.0, z: 0.8249)

    /// The XYZ of a chromaticity (x, y) with luminance `luminance`.
    public init(chromaticityX cx: Double, y cy: Double, luminance: Double = 1) {
        self.init(x: cx / cy * luminance, y: luminance, z: (1 - cx - cy) / cy * luminance)
    }

    var vector: SIMD3<Double> { SIMD3(x, y, z) }
}

/// A 3x3 matrix of doubles, row-major (``Matrix3/row0`` is the first row).
public struct Matrix3: Sendable, Hashable {
    /// The first row.
    public var row0: SIMD3<Double>
    /// The second row.
    public var row1: SIMD3<Double>
    /// The third row.
    public var row2: SIMD3<Double>

    /// A matrix from three rows.
    public init(_ r0: SIMD3<Double>, _ r1: SIMD3<Double>, _ r2: SIMD3<Double>) {
        row0 = r0
        row1 = r1
        row2 = r2
    }

    /// The three rows in order.
    public var rows: [SIMD3<Double>] { [row0, row1, row2] }

    /// True when all nine elements are finite.
    public var isFinite: Bool {
        rows.allSatisfy { $0.x.isFinite && $0.y.isFinite && $0.z.isFinite }
    }

    /// A matrix whose columns are the three vectors.
    public init(columns c0: SIMD3<Double>, _ c1: SIMD3<Double>, _ c2: SIMD3<Double>) {
        self.init(SIMD3(c0.x, c1.x, c2.x), SIMD3(c0.y, c1.y, c2.y), SIMD3(c0.z, c1.z, c2.z))
    }

    /// The identity matrix.
    public static let identity = Matrix3(SIMD3(1, 0, 0), SIMD3(0, 1, 0), SIMD3(0, 0, 1))

    /// The element in row `r`, column `c` (both 0...2).
    public subscript(r: Int, c: Int) -> Double { (r == 0 ? row0 : r == 1 ? row1 : row2)[c] }

    /// The matrix times a column vector.
    public static func * (m: Matrix3, v: SIMD3<Double>) -> SIMD3<Double> {
        SIMD3((m.row0 * v).sum(), (m.row1 * v).sum(), (m.row2 * v).sum())
    }

    /// The matrix product `a * b`.
    public static func * (a: Matrix3, b: Matrix3) -> Matrix3 {
        let c0 = a * SIMD3(b[0, 0], b[1, 0], b[2, 0])
        let c1 = a * SIMD3(b[0, 1], b[1, 1], b[2, 1])
        let c2 = a * SIMD3(b[0, 2], b[1, 2], b[2, 2])
        return Matrix3(columns: c0, c1, c2)
    }

    /// The determinant.
    public var determinant: Double {
        let a = row0, b = row1, c = row2
        return a.x * (b.y * c.z - b.z * c.y) - a.y * (b.x * c.z - b.z * c.x) + a.z * (b.x * c.y - b.y * c.x)
    }

    /// The inverse, or nil when the matrix is (nearly) singular or not finite.
    public var inverse: Matrix3? {
        let d = determinant
        guard d.isFinite, abs(d) > 1e-12 else { return nil }
        let a = row0, b = row1, c = row2
        let r0 = SIMD3(b.y * c.z - b.z * c.y, a.z * c.y - a.y * c.z, a.y * b.z - a.z * b.y) / d
        let r1 = SIMD3(b.z * c.x - b.x * c.z, a.x * c.z - a.z * c.x, a.z * b.x - a.x * b.z) / d
        let r2 = SIMD3(b.x * c.y - b.y * c.x, a.y * c.x - a.x * c.y, a.x * b.y - a.y * b.x) / d
        return Matrix3(r0, r1, r2)
    }

    /// The Bradford cone-response matrix (Lam and Rigg).
    public static let bradford = Matrix3(SIMD3(0.8951, 0.2664, -0.1614), SIMD3(-0.7502, 1.7135, 0.0367),
                                         SIMD3(0.0389, -0.0685, 1.0296))

    /// The Bradford chromatic adaptation from white `source` to white `destination` (what a
    /// `chad` tag holds when `destination` is D50).
    public static func bradfordAdaptation(from source: XYZ, to destination: XYZ) -> Matrix3 {
        let cone = bradford
        let s = cone * source.vector, d = cone * destination.vector
        let scale = Matrix3(SIMD3(d.x / s.x, 0, 0), SIMD3(0, d.y / s.y, 0), SIMD3(0, 0, d.z / s.z))
        return (cone.inverse ?? .identity) * (scale * cone)
    }
}
