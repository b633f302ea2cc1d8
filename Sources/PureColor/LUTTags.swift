/// A LUT-based tag (`A2B0`..., `B2A0`...) decoded into its stages, in the order lcms2 builds
/// its pipeline:
/// - `mft1` / `mft2`: matrix (3 inputs, when not identity), input tables, CLUT, output tables.
/// - `mAB `: A curves, CLUT, M curves, matrix (with offset), B curves.
/// - `mBA `: B curves, matrix, M curves, CLUT, A curves.
///
/// Values between stages are in [0, 1] (16-bit codes over 65,535). Table curves (`mft` tables
/// and `curv` with entries) hold 16-bit entries (`mft1`'s 8-bit entries times 257); CLUT
/// entries are 16-bit (8-bit ones times 257), first input slowest, as the file stores them.
public struct ICCLut: Sendable, Hashable {
    /// The tag type the LUT came from.
    public enum TagType: String, Sendable, Hashable {
        /// `mft1`: 8-bit tables and CLUT.
        case lut8 = "mft1"
        /// `mft2`: 16-bit tables and CLUT (legacy v2 Lab encoding for a Lab PCS).
        case lut16 = "mft2"
        /// `mAB `: v4 device to PCS.
        case aToB = "mAB "
        /// `mBA `: v4 PCS to device.
        case bToA = "mBA "
    }

    /// One stage of the pipeline.
    public enum Stage: Sendable, Hashable {
        /// One curve a channel.
        case curves([ToneCurve])
        /// A 3x3 matrix and an offset: `out = matrix * in + offset`.
        case matrix(Matrix3, SIMD3<Double>)
        /// A colour lookup table: `grid[i]` points along input i, `outputs` 16-bit values a node.
        case clut(grid: [Int], outputs: Int, values: [UInt16])
    }

    /// The tag type.
    public let type: TagType
    /// Input channels (3 for RGB, 4 for CMYK).
    public let inputChannels: Int
    /// Output channels (3 for a PCS).
    public let outputChannels: Int
    /// The stages in evaluation order.
    public let stages: [Stage]

    /// The most CLUT nodes accepted (the product of the grid sizes).
    public static let maximumGridPoints = 10_000_000
    /// The most channels accepted on either side.
    public static let maximumChannels = 15
}

extension ICCReader {
    /// Decodes the LUT tag `signature` (`mft1`, `mft2`, `mAB `, `mBA `), or nil when absent.
    func lutTag(_ signature: String) throws(ICCError) -> ICCLut? {
        guard let tag = entry(signature) else { return nil }
        let type = try self.type(of: tag, needed: 32)
        switch type {
        case "mft1", "mft2": return try legacyLut(tag, sixteen: type == "mft2")
        case "mAB ", "mBA ": return try modernLut(tag, aToB: type == "mAB ")
        default: throw unexpected(tag, type)
        }
    }

    private func short(_ tag: ICCTagEntry, _ needed: Int) -> ICCError {
        .tagTooShort(offset: tag.offset, signature: tag.signature.description, size: tag.size, needed: needed)
    }

    /// Checks channel counts and the CLUT size (before anything is allocated); returns the node count.
    private func gridNodes(_ tag: ICCTagEntry, at: Int, inputs: Int, outputs: Int, grid: [Int]) throws(ICCError) -> Int {
        guard (1 ... ICCLut.maximumChannels).contains(inputs), (1 ... ICCLut.maximumChannels).contains(outputs) else {
            throw .invalidValue(offset: tag.offset + 8, reason: "LUT with \(inputs) inputs, \(outputs) outputs")
        }
        var nodes = 1
        for g in grid {
            guard g >= 2, g <= 255 else { throw .invalidValue(offset: at, reason: "CLUT with \(g) grid points") }
            nodes *= g
            guard nodes <= ICCLut.maximumGridPoints else {
                throw .invalidValue(offset: at, reason: "CLUT with more than \(ICCLut.maximumGridPoints) nodes")
            }
        }
        return nodes
    }

    private func legacyLut(_ tag: ICCTagEntry, sixteen: Bool) throws(ICCError) -> ICCLut {
        let base = tag.offset, end = tag.offset + tag.size
        let inputs = Int(data[base + 8]), outputs = Int(data[base + 9]), points = Int(data[base + 10])
        let nodes = try gridNodes(tag, at: base + 10, inputs: inputs, outputs: outputs,
                                  grid: [Int](repeating: points, count: min(inputs, ICCLut.maximumChannels)))
        var at = base + 48
        let inEntries: Int, outEntries: Int
        if sixteen {
            guard end - base >= 52 else { throw short(tag, 52) }
            inEntries = Int(Self.u16(data, base + 48))
            outEntries = Int(Self.u16(data, base + 50))
            guard (2 ... ICCProfile.maximumCurveEntries).contains(inEntries),
                  (2 ... ICCProfile.maximumCurveEntries).contains(outEntries) else {
                throw .invalidValue(offset: base + 48, reason: "mft2 tables of \(inEntries) and \(outEntries) entries")
            }
            at = base + 52
        } else {
            inEntries = 256
            outEntries = 256
        }
        let width = sixteen ? 2 : 1
        let needed = (at - base) + width * (inputs * inEntries + nodes * outputs + outputs * outEntries)
        guard tag.size >= needed else { throw short(tag, needed) }

        func value(_ i: Int) -> UInt16 { sixteen ? Self.u16(data, i) : UInt16(data[i]) * 257 }
        func tables(_ count: Int, _ entries: Int) -> [ToneCurve] {
            var curves: [ToneCurve] = []
            for _ in 0 ..< count {
                var table = [UInt16](repeating: 0, count: entries)
                for i in 0 ..< entries { table[i] = value(at + width * i) }
                at += width * entries
                curves.append(.table(table))
            }
            return curves
        }
        var stages: [ICCLut.Stage] = []
        if inputs == 3 {
            func row(_ r: Int) -> SIMD3<Double> {
                SIMD3(Self.s15(data, base + 12 + 12 * r), Self.s15(data, base + 16 + 12 * r), Self.s15(data, base + 20 + 12 * r))
            }
            let m = Matrix3(row(0), row(1), row(2))
            if m != .identity {
                guard m.isFinite else { throw .invalidValue(offset: base + 12, reason: "LUT matrix") }
                stages.append(.matrix(m, .zero))
            }
        }
        stages.append(.curves(tables(inputs, inEntries)))
        var values = [UInt16](repeating: 0, count: nodes * outputs)
        for i in 0 ..< values.count { values[i] = value(at + width * i) }
        at += width * values.count
        stages.append(.clut(grid: [Int](repeating: points, count: inputs), outputs: outputs, values: values))
        stages.append(.curves(tables(outputs, outEntries)))
        return ICCLut(type: sixteen ? .lut16 : .lut8, inputChannels: inputs, outputChannels: outputs, stages: stages)
    }

    private func modernLut(_ tag: ICCTagEntry, aToB: Bool) throws(ICCError) -> ICCLut {
        let base = tag.offset, end = tag.offset + tag.size
        let inputs = Int(data[base + 8]), outputs = Int(data[base + 9])
        _ = try gridNodes(tag, at: base + 8, inputs: inputs, outputs: outputs, grid: [])
        func offset(_ field: Int) throws(ICCError) -> Int? {
            let value = Int(Self.u32(data, base + field))
            guard value != 0 else { return nil }
            guard value >= 32, value < tag.size else {
                throw .invalidValue(offset: base + field, reason: "LUT element offset \(value) outside the tag")
            }
            return base + value
        }
        let b = try offset(12), matrix = try offset(16), m = try offset(20), clut = try offset(24), a = try offset(28)
        // A-side channels are the device's, B-side the PCS's: mAB goes inputs -> outputs, mBA the reverse.
        let aChannels = aToB ? inputs : outputs, bChannels = aToB ? outputs : inputs

        func curves(_ at: Int, _ count: Int) throws(ICCError) -> ICCLut.Stage {
            var list: [ToneCurve] = []
            var p = at
            for _ in 0 ..< count {
                let (curve, length) = try embeddedCurve(tag, at: p, end: end)
                list.append(curve)
                p += (length + 3) & ~3
            }
            return .curves(list)
        }
        func matrixStage(_ at: Int) throws(ICCError) -> ICCLut.Stage {
            guard end - at >= 48 else { throw short(tag, at - base + 48) }
            func row(_ r: Int) -> SIMD3<Double> {
                SIMD3(Self.s15(data, at + 12 * r), Self.s15(data, at + 12 * r + 4), Self.s15(data, at + 12 * r + 8))
            }
            let offsetVector = SIMD3(Self.s15(data, at + 36), Self.s15(data, at + 40), Self.s15(data, at + 44))
            return .matrix(Matrix3(row(0), row(1), row(2)), offsetVector)
        }
        func clutStage(_ at: Int) throws(ICCError) -> ICCLut.Stage {
            let clutInputs = aChannels, clutOutputs = bChannels
            guard end - at >= 20 else { throw short(tag, at - base + 20) }
            let grid = (0 ..< clutInputs).map { Int(data[at + $0]) }
            let nodes = try gridNodes(tag, at: at, inputs: clutInputs, outputs: clutOutputs, grid: grid)
            let precision = Int(data[at + 16])
            guard precision == 1 || precision == 2 else {
                throw .invalidValue(offset: at + 16, reason: "CLUT precision \(precision)")
            }
            let count = nodes * clutOutputs
            guard (end - at - 20) / precision >= count else { throw short(tag, at - base + 20 + precision * count) }
            var values = [UInt16](repeating: 0, count: count)
            for i in 0 ..< count {
                values[i] = precision == 2 ? Self.u16(data, at + 20 + 2 * i) : UInt16(data[at + 20 + i]) * 257
            }
            return .clut(grid: grid, outputs: clutOutputs, values: values)
        }

        var stages: [ICCLut.Stage] = []
        if aToB {
            if let a { stages.append(try curves(a, aChannels)) }
            if let clut { stages.append(try clutStage(clut)) } else if aChannels != bChannels {
                throw .invalidValue(offset: base + 24, reason: "mAB without a CLUT changes the channel count")
            }
            if let m { stages.append(try curves(m, bChannels)) }
            if let matrix {
                guard bChannels == 3 else { throw .invalidValue(offset: base + 16, reason: "matrix on \(bChannels) channels") }
                stages.append(try matrixStage(matrix))
            }
            if let b { stages.append(try curves(b, bChannels)) }
        } else {
            if let b { stages.append(try curves(b, bChannels)) }
            if let matrix {
                guard bChannels == 3 else { throw .invalidValue(offset: base + 16, reason: "matrix on \(bChannels) channels") }
                stages.append(try matrixStage(matrix))
            }
            if let m { stages.append(try curves(m, bChannels)) }
            if let clut { stages.append(try clutStage(clut)) } else if aChannels != bChannels {
                throw .invalidValue(offset: base + 24, reason: "mBA without a CLUT changes the channel count")
            }
            if let a { stages.append(try curves(a, aChannels)) }
        }
        return ICCLut(type: aToB ? .aToB : .bToA, inputChannels: inputs, outputChannels: outputs, stages: stages)
    }

    /// A `curv` or `para` curve embedded in a LUT at `at` (inside the tag ending at `end`), and
    /// its length in bytes (before padding).
    func embeddedCurve(_ tag: ICCTagEntry, at: Int, end: Int) throws(ICCError) -> (ToneCurve, Int) {
        guard at <= end - 12 else { throw short(tag, at - tag.offset + 12) }
        let type = FourCC(rawValue: Self.u32(data, at)).description
        switch type {
        case "curv":
            let count = Int(Self.u32(data, at + 8))
            guard count <= ICCProfile.maximumCurveEntries else { throw .tooManyCurveEntries(offset: at + 8, count: count) }
            guard (end - at - 12) / 2 >= count else { throw short(tag, at - tag.offset + 12 + 2 * count) }
            switch count {
            case 0: return (.identity, 12)
            case 1: return (.gamma(Double(Self.u16(data, at + 12)) / 256), 14)
            default:
                var table = [UInt16](repeating: 0, count: count)
                for i in 0 ..< count { table[i] = Self.u16(data, at + 12 + 2 * i) }
                return (.table(table), 12 + 2 * count)
            }
        case "para":
            let function = Int(Self.u16(data, at + 8))
            guard let n = ToneCurve.parameterCount(functionType: function) else {
                throw .invalidParametricCurve(offset: at + 8, functionType: function)
            }
            guard (end - at - 12) / 4 >= n else { throw short(tag, at - tag.offset + 12 + 4 * n) }
            let parameters = (0 ..< n).map { Self.s15(data, at + 12 + 4 * $0) }
            if function == 1 || function == 2, parameters[1] == 0 {
                throw .invalidParametricCurve(offset: at + 8, functionType: function)
            }
            return (.parametric(functionType: function, parameters: parameters), 12 + 4 * n)
        default:
            throw .unexpectedTagType(offset: at, signature: tag.signature.description, type: type)
        }
    }
}
