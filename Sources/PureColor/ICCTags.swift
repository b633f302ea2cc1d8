import ImageCore

/// Decodes tag types from a validated profile: every read is checked against the tag's
/// declared size (which the tag table check already placed inside the profile).
struct ICCReader {
    let data: [UInt8]
    let tags: [ICCTagEntry]

    /// A big-endian `UInt32` at `at`; the caller has checked `at + 4 <= bytes.count`.
    static func u32(_ bytes: [UInt8], _ at: Int) -> UInt32 {
        UInt32(bytes[at]) << 24 | UInt32(bytes[at + 1]) << 16 | UInt32(bytes[at + 2]) << 8 | UInt32(bytes[at + 3])
    }

    static func u16(_ bytes: [UInt8], _ at: Int) -> UInt16 { UInt16(bytes[at]) << 8 | UInt16(bytes[at + 1]) }

    /// An s15Fixed16Number at `at`.
    static func s15(_ bytes: [UInt8], _ at: Int) -> Double { Double(Int32(bitPattern: u32(bytes, at))) / 65536 }

    /// Three s15Fixed16Numbers at `at`.
    static func xyz(_ bytes: [UInt8], _ at: Int) -> XYZ { XYZ(x: s15(bytes, at), y: s15(bytes, at + 4), z: s15(bytes, at + 8)) }

    func entry(_ signature: String) -> ICCTagEntry? {
        let code = FourCC(signature)
        return tags.first { $0.signature == code }
    }

    /// The tag's type signature, after checking it has at least `needed` bytes.
    func type(of tag: ICCTagEntry, needed: Int) throws(ICCError) -> String {
        guard tag.size >= max(needed, 8) else {
            throw .tagTooShort(offset: tag.offset, signature: tag.signature.description, size: tag.size,
                               needed: max(needed, 8))
        }
        return FourCC(rawValue: Self.u32(data, tag.offset)).description
    }

    func unexpected(_ tag: ICCTagEntry, _ type: String) -> ICCError {
        .unexpectedTagType(offset: tag.offset, signature: tag.signature.description, type: type)
    }

    func xyzTag(_ signature: String) throws(ICCError) -> XYZ? {
        guard let tag = entry(signature) else { return nil }
        let type = try type(of: tag, needed: 20)
        guard type == "XYZ " else { throw unexpected(tag, type) }
        return Self.xyz(data, tag.offset + 8)
    }

    func matrixTag(_ signature: String) throws(ICCError) -> Matrix3? {
        guard let tag = entry(signature) else { return nil }
        let type = try type(of: tag, needed: 44)
        guard type == "sf32" else { throw unexpected(tag, type) }
        let at = tag.offset + 8
        func row(_ r: Int) -> SIMD3<Double> {
            SIMD3(Self.s15(data, at + 12 * r), Self.s15(data, at + 12 * r + 4), Self.s15(data, at + 12 * r + 8))
        }
        return Matrix3(row(0), row(1), row(2))
    }

    func curveTag(_ signature: String) throws(ICCError) -> ToneCurve? {
        guard let tag = entry(signature) else { return nil }
        let type = try type(of: tag, needed: 12)
        let at = tag.offset + 8
        switch type {
        case "curv":
            let count = Int(Self.u32(data, at))
            guard count <= ICCProfile.maximumCurveEntries else { throw .tooManyCurveEntries(offset: at, count: count) }
            guard tag.size >= 12 + 2 * count else {
                throw .tagTooShort(offset: tag.offset, signature: tag.signature.description, size: tag.size,
                                   needed: 12 + 2 * count)
            }
            switch count {
            case 0: return .identity
            case 1: return .gamma(Double(Self.u16(data, at + 4)) / 256)
            default:
                var table = [UInt16](repeating: 0, count: count)
                for i in 0 ..< count { table[i] = Self.u16(data, at + 4 + 2 * i) }
                return .table(table)
            }
        case "para":
            let function = Int(Self.u16(data, at))
            guard let n = ToneCurve.parameterCount(functionType: function) else {
                throw .invalidParametricCurve(offset: at, functionType: function)
            }
            guard tag.size >= 12 + 4 * n else {
                throw .tagTooShort(offset: tag.offset, signature: tag.signature.description, size: tag.size,
                                   needed: 12 + 4 * n)
            }
            let parameters = (0 ..< n).map { Self.s15(data, at + 4 + 4 * $0) }
            // Functions 1 and 2 divide by a: a zero `a` has no threshold.
            if function == 1 || function == 2, parameters[1] == 0 {
                throw .invalidParametricCurve(offset: at, functionType: function)
            }
            return .parametric(functionType: function, parameters: parameters)
        default:
            throw unexpected(tag, type)
        }
    }

    /// `desc` (v2 textDescriptionType: its ASCII part), `mluc` (the first record, UTF-16BE) or `text`.
    func text(_ signature: String) throws(ICCError) -> String? {
        guard let tag = entry(signature) else { return nil }
        let type = try type(of: tag, needed: 12)
        let end = tag.offset + tag.size
        switch type {
        case "desc":
            let count = Int(Self.u32(data, tag.offset + 8))
            let start = tag.offset + 12
            guard count <= end - start else {
                throw .tagTooShort(offset: tag.offset, signature: tag.signature.description, size: tag.size,
                                   needed: 12 + count)
            }
            return Self.ascii(data[start ..< start + count])
        case "text":
            return Self.ascii(data[tag.offset + 8 ..< end])
        case "mluc":
            let records = Int(Self.u32(data, tag.offset + 8))
            let recordSize = Int(Self.u32(data, tag.offset + 12))
            guard records >= 1, recordSize >= 12, tag.size >= 16 + 12 else {
                throw .tagTooShort(offset: tag.offset, signature: tag.signature.description, size: tag.size, needed: 28)
            }
            let length = Int(Self.u32(data, tag.offset + 20)), start = Int(Self.u32(data, tag.offset + 24))
            guard start <= tag.size, length <= tag.size - start else {
                throw .tagTooShort(offset: tag.offset, signature: tag.signature.description, size: tag.size,
                                   needed: start + length)
            }
            var units: [UInt16] = []
            units.reserveCapacity(length / 2)
            var i = tag.offset + start
            while i + 1 < tag.offset + start + length {
                units.append(Self.u16(data, i))
                i += 2
            }
            while units.last == 0 { units.removeLast() }
            return String(decoding: units, as: UTF16.self)
        default:
            throw unexpected(tag, type)
        }
    }

    static func ascii(_ bytes: ArraySlice<UInt8>) -> String {
        let text = bytes.prefix { $0 != 0 }
        return String(decoding: text, as: UTF8.self)
    }

    func cicpTag() throws(ICCError) -> CICP? {
        guard let tag = entry("cicp") else { return nil }
        let type = try type(of: tag, needed: 12)
        guard type == "cicp" else { throw unexpected(tag, type) }
        let at = tag.offset + 8
        return CICP(colorPrimaries: data[at], transferCharacteristics: data[at + 1], matrixCoefficients: data[at + 2],
                    fullRange: data[at + 3] != 0)
    }
}
