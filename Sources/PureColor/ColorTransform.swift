import ImageCore

/// A colour transform from an ICC profile's space to a ``StandardColorSpace``, built once
/// (curves sampled into tables, matrices composed) and then applied to any number of rows,
/// from any number of threads.
///
/// Supported sources: RGB matrix/TRC profiles (`rXYZ`/`gXYZ`/`bXYZ` with `rTRC`/`gTRC`/`bTRC`)
/// and gray profiles (`kTRC`, PCS XYZ or Lab). The results follow lcms2 (a transform with
/// `NOOPTIMIZE`) to within one 8-bit code value:
/// - RGB: each channel through its curve to linear, the source colorants (PCS XYZ, D50) then the
///   inverse of the destination's D50 matrix (composed into one 3x3 matrix), clipped to [0, 1],
///   encoded with the inverse sRGB curve.
/// - Gray: the gray curve gives Y (or L* for a Lab PCS, turned into Y), encoded with the inverse
///   sRGB curve; the output stays one channel, as lcms2 gives for a gray to sRGB-curve gray
///   transform (and as R = G = B of a gray to sRGB transform).
///
/// ```swift
/// let profile = try ICCProfile(iccBytes)
/// let transform = try ColorTransform(source: profile)
/// let srgbImage = transform.apply(to: image)
/// ```
public struct ColorTransform: Sendable {
    /// The destination colour space.
    public let destination: StandardColorSpace
    /// The rendering intent asked for (all but absolute colorimetric give the same result on
    /// matrix/TRC and gray profiles).
    public let intent: RenderingIntent
    /// The kind of source profile: ``ICCProfileModel/matrixShaper`` or ``ICCProfileModel/grayTRC``.
    public let sourceModel: ICCProfileModel
    /// The composed matrix from source linear RGB to destination linear RGB (identity for gray).
    public let matrix: Matrix3
    /// True when the tables for 16-bit formats were built (see ``init(source:destination:intent:sixteenBit:)``).
    public var hasSixteenBitTables: Bool { tables16 != nil }

    let curves: [ToneCurve]
    let grayLab: Bool
    let tables8: Tables8
    let tables16: Tables16?
    /// True (the default) to run the SIMD kernels of LUT-based sources (8-bit RGB and CMYK
    /// through the device link), false for their scalar twins; both give identical bytes.
    /// Matrix/TRC sources have scalar kernels only (table reads; faster than a vector version).
    public var useSIMD = true
    /// LUT-based sources: the precomputed device link.
    let link: DeviceLink?

    /// Device-link grid points a dimension for RGB LUT sources (lcms2's default for 3 inputs).
    public static let rgbGridPoints = 49
    /// Device-link grid points a dimension for CMYK LUT sources (lcms2's default for 4 inputs).
    public static let cmykGridPoints = 17

    /// Channels a source pixel has: 1 (gray), 3 (RGB) or 4 (CMYK: ``applyCMYK(from:to:outputFormat:inverted:threads:)``).
    public var inputChannels: Int { link?.inputs ?? (sourceModel == .grayTRC ? 1 : 3) }

    /// Builds a transform from `source` to `destination`.
    ///
    /// - Parameters:
    ///   - source: the profile the pixels are in: RGB matrix/TRC or gray TRC.
    ///   - destination: the colour space to convert to.
    ///   - intent: the rendering intent; all but absolute colorimetric are the same here.
    ///   - sixteenBit: also build the 16-bit tables (3 x 65,536 floats and 65,537 output codes,
    ///     a few milliseconds): needed by the row functions for 16-bit formats; ``apply(to:threads:)``
    ///     builds them on the fly for a 16-bit image when they are missing.
    /// - Throws: ``ICCError/unsupported(offset:reason:)`` for LUT-based and other profiles not
    ///   supported yet, and for absolute colorimetric; ``ICCError/invalidValue(offset:reason:)``
    ///   for a singular colorant matrix.
    public init(source: ICCProfile, destination: StandardColorSpace = .sRGB, intent: RenderingIntent = .perceptual,
                sixteenBit: Bool = false) throws(ICCError) {
        guard intent != .absoluteColorimetric else {
            throw .unsupported(offset: 64, reason: "absolute colorimetric intent")
        }
        self.destination = destination
        self.intent = intent
        let destinationMatrix = destination.toXYZD50
        // lcms2's choice (`_cmsReadInputLUT`): the intent's A2B tag, else A2B0, else the matrix/TRC or gray tags.
        if let signature = LUTSource.tagSignature(in: source, intent: intent) {
            let lut = try LUTSource(profile: source, signature: signature, intent: intent, destination: destination)
            sourceModel = .lutBased
            matrix = .identity
            curves = []
            grayLab = false
            let cmyk = lut.lut.inputChannels == 4
            link = DeviceLink(source: lut, points: cmyk ? Self.cmykGridPoints : Self.rgbGridPoints,
                              maximumPoints: cmyk ? 21 : 65, prelinearize: cmyk)
            tables8 = Tables8(curves: [], matrix: .identity, grayLab: false)
            tables16 = nil
            return
        }
        link = nil
        sourceModel = source.shaperModel
        switch sourceModel {
        case .matrixShaper:
            guard let colorants = source.colorants, let curves = source.rgbCurves else {
                throw .missingTag(offset: 128, signature: "rXYZ")
            }
            // lcms2 uses the colorants as the D50 PCS values they are by definition (v4, and v2
            // profiles made by adapting), with no further adaptation for any intent but absolute.
            guard colorants.determinant.isFinite, abs(colorants.determinant) > 1e-9 else {
                throw .invalidValue(offset: source.tag("rXYZ")?.offset ?? 128, reason: "singular colorant matrix")
            }
            guard let inverse = destinationMatrix.inverse else {
                throw .invalidValue(offset: 0, reason: "singular destination matrix")
            }
            matrix = inverse * colorants
            guard matrix.isFinite else {
                throw .invalidValue(offset: source.tag("rXYZ")?.offset ?? 128, reason: "colorants not finite")
            }
            self.curves = curves
            grayLab = false
        case .grayTRC:
            guard let curve = source.grayCurve else { throw .missingTag(offset: 128, signature: "kTRC") }
            guard source.header.pcs == .xyz || source.header.pcs == .lab else {
                throw .unsupported(offset: 20, reason: "gray profile with PCS \(source.header.pcs)")
            }
            matrix = .identity
            curves = [curve]
            grayLab = source.header.pcs == .lab
        case .other, .lutBased:
            throw .unsupported(offset: 12, reason: "class \(source.header.profileClass), space \(source.header.colorSpace)")
        }
        tables8 = Tables8(curves: curves, matrix: matrix, grayLab: grayLab)
        tables16 = sixteenBit ? Tables16(curves: curves, matrix: matrix, grayLab: grayLab) : nil
    }

    /// Builds a transform from a profile's bytes (see ``ICCProfile/init(_:)``).
    public init(iccProfile bytes: [UInt8], destination: StandardColorSpace = .sRGB,
                intent: RenderingIntent = .perceptual, sixteenBit: Bool = false) throws(ICCError) {
        try self.init(source: ICCProfile(bytes), destination: destination, intent: intent, sixteenBit: sixteenBit)
    }

    /// This transform with the 16-bit tables built (itself when it has them).
    public func withSixteenBitTables() -> ColorTransform {
        guard tables16 == nil, link == nil else { return self }
        return ColorTransform(copying: self, tables16: Tables16(curves: curves, matrix: matrix, grayLab: grayLab))
    }

    private init(copying other: ColorTransform, tables16: Tables16) {
        destination = other.destination
        intent = other.intent
        sourceModel = other.sourceModel
        matrix = other.matrix
        curves = other.curves
        grayLab = other.grayLab
        link = other.link
        useSIMD = other.useSIMD
        tables8 = other.tables8
        self.tables16 = tables16
    }

    /// True when the row functions accept `format`: RGB and RGBA for an RGB source, gray and
    /// gray-alpha for a gray source; 16-bit formats only with ``hasSixteenBitTables`` (an RGB
    /// LUT-based source: always, through its device link).
    public func supports(_ format: PixelFormat) -> Bool {
        if let link {
            if format == .rgb16 || format == .rgba16 { return link.inputs == 3 && !link.encode16.isEmpty }
            return link.inputs == 3 && (format == .rgb8 || format == .rgba8)
        }
        guard format.isColor == (sourceModel == .matrixShaper) else { return false }
        return !format.is16Bit || tables16 != nil
    }

    // MARK: - Curve and encoding maths shared by the tables

    /// Linear value (Y, or the channel's linear light) for a 16-bit device code.
    static func linear(_ curve: ToneCurve, code: UInt16, grayLab: Bool) -> Double {
        let v = curve.evaluate(code: code)
        guard grayLab else { return v }
        // The curve gives L* / 100 (lcms2: L* in its 0...100 float encoding); D50-relative Y.
        let t = (v * 100 + 16) / 116
        return t > 6.0 / 29 ? t * t * t : 3 * (6.0 / 29) * (6.0 / 29) * (t - 4.0 / 29)
    }

    /// The 16-bit code lcms2 gives for linear `y`: the inverse sRGB curve, rounded, saturated.
    static func encode16(_ y: Double) -> UInt16 {
        guard y > 0 else { return 0 }
        let v = ToneCurve.sRGBEncode(min(y, 1)) * 65535 + 0.5
        return v >= 65535 ? 65535 : UInt16(v)
    }

    /// lcms2's 16-to-8-bit reduction (`FROM_16_TO_8`): round(v / 257).
    @inline(__always) static func to8(_ v: UInt16) -> UInt8 { UInt8((UInt32(v) * 65281 + 8_388_608) >> 24) }
}

/// The tables for 8-bit formats.
final class Tables8: Sendable {
    /// Fixed-point scale of the contributions: 2^20 for 1.0.
    static let oneShift = 20
    /// Steps of the encoding table over linear [0, 1]: 2^14 (16,385 entries). The inverse sRGB
    /// curve's slope is at most 12.92, so a step moves the output by at most
    /// 12.92 * 255 / 16384 = 0.2 code values; rounding to the nearest entry, by 0.1.
    static let encodeShift = 14
    /// RGB: for channel c and code v, column c of the matrix times the channel's linear value,
    /// in 12.20 fixed point (lane 3 zero), at `c * 256 + v`. The sum of the three is the
    /// destination linear RGB. Each is clamped to +-512 so three always sum inside `Int32`.
    let contributions: [SIMD4<Int32>]
    /// Destination linear [0, 1] in 1/16384 steps to the 8-bit code.
    let encode: [UInt8]
    /// `contributions` with a bias added to channel 0's entries (the rounding half and the
    /// offset of `wideEncode`'s first entry), so that `(r + g + b) >> (oneShift - encodeShift)`
    /// is the index into `wideEncode` with no clamping; empty when `wideEncode` is.
    let biased: [SIMD4<Int32>]
    /// `encode` widened to every index the three contributions can sum to, the clamp to [0, 1]
    /// built in: entry k is `encode[clamp(k + first, 0, 16384)]` where `first` is the lowest
    /// reachable index. Empty when that span is over `wideLimit` entries (extreme matrices).
    let wideEncode: [UInt8]
    /// The most entries `wideEncode` may have (a 1.8-wide span, Adobe RGB to sRGB, takes 29,500).
    static let wideLimit = 1 << 16
    /// Gray: the whole 8-bit map.
    let gray: [UInt8]

    init(curves: [ToneCurve], matrix: Matrix3, grayLab: Bool) {
        if curves.isEmpty {
            contributions = []
            encode = []
            biased = []
            wideEncode = []
            gray = []
        } else if curves.count == 3 {
            var contributions = [SIMD4<Int32>](repeating: .zero, count: 3 * 256)
            let one = Double(1 << Self.oneShift)
            func fixed(_ x: Double) -> Int32 { x.isFinite ? Int32(min(max(x * one, -512 * one), 512 * one).rounded()) : 0 }
            for c in 0 ..< 3 {
                for v in 0 ..< 256 {
                    // Linear as lcms2's float pipeline carries it (float32), times the matrix column.
                    let linear = Double(Float(ColorTransform.linear(curves[c], code: UInt16(v * 257), grayLab: false)))
                    contributions[c * 256 + v] = SIMD4(fixed(matrix[0, c] * linear), fixed(matrix[1, c] * linear),
                                                       fixed(matrix[2, c] * linear), 0)
                }
            }
            self.contributions = contributions
            let steps = 1 << Self.encodeShift
            let encode = (0 ... steps).map { ColorTransform.to8(ColorTransform.encode16(Double($0) / Double(steps))) }
            self.encode = encode
            // The lowest and highest sums over every input, lane by lane, as encoding indices.
            let shift = Self.oneShift - Self.encodeShift, half = Int32(1 << (shift - 1))
            var low = Int32.max, high = Int32.min
            for lane in 0 ..< 3 {
                var laneLow: Int32 = 0, laneHigh: Int32 = 0
                for c in 0 ..< 3 {
                    let column = contributions[c * 256 ..< c * 256 + 256].map { $0[lane] }
                    laneLow += column.min()!
                    laneHigh += column.max()!
                }
                low = min(low, (laneLow + half) >> Int32(shift))
                high = max(high, (laneHigh + half) >> Int32(shift))
            }
            if Int(high) - Int(low) + 1 <= Self.wideLimit {
                wideEncode = (low ... high).map { encode[Int(min(max($0, 0), Int32(steps)))] }
                let bias = SIMD4<Int32>(repeating: half - (low << Int32(shift)))
                biased = contributions.indices.map { $0 < 256 ? contributions[$0] &+ bias : contributions[$0] }
            } else {
                wideEncode = []
                biased = []
            }
            gray = []
        } else {
            contributions = []
            encode = []
            biased = []
            wideEncode = []
            gray = (0 ..< 256).map {
                ColorTransform.to8(ColorTransform.encode16(ColorTransform.linear(curves[0], code: UInt16($0 * 257),
                                                                                 grayLab: grayLab)))
            }
        }
    }
}

/// The tables for 16-bit formats.
final class Tables16: Sendable {
    /// Steps of the 16-bit encoding table: linear [0, 1] in 65,536 steps.
    static let encodeSteps: Float = 65536
    /// RGB: each channel's linear value for every 16-bit code, channel c at `c * 65536 + v`.
    let linear: [Float]
    /// The matrix, row-major, as floats.
    let matrix: [Float]
    /// Destination linear [0, 1] in 1/65536 steps to the 16-bit code.
    let encode: [UInt16]
    /// Gray: the whole 16-bit map.
    let gray: [UInt16]

    init(curves: [ToneCurve], matrix: Matrix3, grayLab: Bool) {
        self.matrix = (0 ..< 9).map { Float(matrix[$0 / 3, $0 % 3]) }
        if curves.count == 3 {
            var linear = [Float](repeating: 0, count: 3 * 65536)
            for c in 0 ..< 3 {
                for v in 0 ..< 65536 {
                    let value = Float(ColorTransform.linear(curves[c], code: UInt16(v), grayLab: false))
                    linear[c * 65536 + v] = value.isFinite ? value : 0
                }
            }
            self.linear = linear
            let steps = Int(Self.encodeSteps)
            encode = (0 ... steps).map { ColorTransform.encode16(Double($0) / Double(steps)) }
            gray = []
        } else {
            linear = []
            encode = []
            gray = (0 ..< 65536).map {
                ColorTransform.encode16(ColorTransform.linear(curves[0], code: UInt16($0), grayLab: grayLab))
            }
        }
    }
}
