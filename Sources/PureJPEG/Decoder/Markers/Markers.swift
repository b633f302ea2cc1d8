import ImageCore

/// Marker codes (T.81 table B.1), the second byte after FF.
enum Marker {
    static let sof0: UInt8 = 0xC0, sof1: UInt8 = 0xC1, sof2: UInt8 = 0xC2, sof9: UInt8 = 0xC9, sof10: UInt8 = 0xCA
    static let dht: UInt8 = 0xC4, dac: UInt8 = 0xCC
    static let rst0: UInt8 = 0xD0, rst7: UInt8 = 0xD7
    static let soi: UInt8 = 0xD8, eoi: UInt8 = 0xD9, sos: UInt8 = 0xDA
    static let dqt: UInt8 = 0xDB, dnl: UInt8 = 0xDC, dri: UInt8 = 0xDD
    static let app0: UInt8 = 0xE0, app15: UInt8 = 0xEF, com: UInt8 = 0xFE
    static let tem: UInt8 = 0x01

    /// True for the SOFn markers (C0-CF except DHT C4, JPG C8, DAC CC).
    static func isSOF(_ m: UInt8) -> Bool { m >= 0xC0 && m <= 0xCF && m != 0xC4 && m != 0xC8 && m != 0xCC }

    /// The name of the process a SOFn marker selects (T.81 table B.1), for `.unsupported`.
    static func processName(_ m: UInt8) -> String {
        switch m {
        case 0xC0: "baseline sequential DCT"
        case 0xC1: "extended sequential DCT, Huffman"
        case 0xC2: "progressive DCT, Huffman"
        case 0xC3: "lossless (sequential), Huffman"
        case 0xC5: "differential sequential DCT, Huffman (hierarchical)"
        case 0xC6: "differential progressive DCT, Huffman (hierarchical)"
        case 0xC7: "differential lossless, Huffman (hierarchical)"
        case 0xC9: "extended sequential DCT, arithmetic coding"
        case 0xCA: "progressive DCT, arithmetic coding"
        case 0xCB: "lossless (sequential), arithmetic coding"
        case 0xCD: "differential sequential DCT, arithmetic coding (hierarchical)"
        case 0xCE: "differential progressive DCT, arithmetic coding (hierarchical)"
        case 0xCF: "differential lossless, arithmetic coding (hierarchical)"
        default: "SOF marker 0x\(hex(m))"
        }
    }
}

/// Parsers for the table and header segments (T.81 B.2). Each takes the segment body (after
/// the length field) and the absolute offset of that body, and throws with exact offsets.
enum SegmentParser {
    /// SOFn (T.81 B.2.2): processes 0-2 (Huffman), 9 and 10 (arithmetic) with 8- or 12-bit samples, and 3 (lossless) with 2-16.
    static func frame(_ body: [UInt8], marker: UInt8, offset: Int) throws(JPEGError) -> Frame {
        let markerOffset = offset - 4
        let process: JPEGProcess
        switch marker {
        case Marker.sof0: process = .baseline
        case Marker.sof1: process = .extended
        case Marker.sof2: process = .progressive
        case Marker.sof9: process = .arithmetic
        case Marker.sof10: process = .arithmeticProgressive
        case 0xC3: process = .lossless
        default: throw .unsupported(process: Marker.processName(marker), offset: markerOffset)
        }
        guard body.count >= 6 else { throw .invalidSegment(marker: marker, reason: "SOF shorter than 6 bytes", offset: offset) }
        let precision = Int(body[0])
        let height = Int(body[1]) << 8 | Int(body[2])
        let width = Int(body[3]) << 8 | Int(body[4])
        let count = Int(body[5])
        if process == .lossless {
            guard (2 ... 16).contains(precision) else { throw .corruptData(reason: "sample precision \(precision)", offset: offset) }
        } else if precision != 8 && precision != 12 {
            if precision == 16 {
                throw .unsupported(process: "\(precision)-bit sample precision", offset: offset)
            }
            throw .corruptData(reason: "sample precision \(precision)", offset: offset)
        }
        guard body.count == 6 + 3 * count else {
            throw .invalidSegment(marker: marker, reason: "SOF length does not match \(count) components", offset: offset)
        }
        if width == 0 { throw .invalidDimensions(width: width, height: height, offset: offset + 1) }
        // Height 0 defers the height to a DNL marker (T.81 B.2.5), which libjpeg does not support either.
        if height == 0 { throw .invalidDimensions(width: width, height: height, offset: offset + 1) }
        // libjpeg's JPEG_MAX_DIMENSION (jdinput initial_setup, JERR_IMAGE_TOO_BIG).
        if width > 65500 || height > 65500 { throw .invalidDimensions(width: width, height: height, offset: offset + 1) }
        guard count >= 1 && count <= 4 else {
            if count == 0 { throw .corruptData(reason: "no components", offset: offset + 5) }
            throw .unsupported(process: "\(count) components", offset: offset + 5)
        }
        if count == 2 { throw .unsupported(process: "2 components", offset: offset + 5) }
        var components: [FrameComponent] = []
        for i in 0 ..< count {
            let at = 6 + 3 * i
            let id = body[at], h = Int(body[at + 1] >> 4), v = Int(body[at + 1] & 15), tq = Int(body[at + 2])
            guard (1 ... 4).contains(h), (1 ... 4).contains(v) else {
                throw .corruptData(reason: "sampling factors \(h)x\(v) of component \(id)", offset: offset + at + 1)
            }
            // A table selector above 3 is refused only when a scan uses the component, as libjpeg
            // latches tables (jdinput latch_quant_tables): an unused component may name any.
            components.append(FrameComponent(id: id, h: h, v: v, quantTable: tq))
        }
        if process == .lossless {
            if count == 4 { throw .unsupported(process: "lossless with 4 components", offset: offset + 5) }
            // Every component sampled alike (1x1 in effect): lossless with subsampling is not read here.
            if let first = components.first, components.contains(where: { $0.h != first.h || $0.v != first.v }) {
                throw .unsupported(process: "lossless with subsampled components", offset: offset + 5)
            }
            for i in components.indices { components[i].h = 1; components[i].v = 1 }
        }
        var frame = Frame(process: process, width: width, height: height, components: components, offset: markerOffset)
        frame.precision = precision
        return frame
    }

    /// DQT (T.81 B.2.4.1): tables stored in zig-zag order, returned in natural order.
    static func quantizationTables(_ body: [UInt8], offset: Int) throws(JPEGError) -> [(index: Int, table: [UInt16])] {
        var tables: [(Int, [UInt16])] = []
        var i = 0
        while i < body.count {
            let pq = Int(body[i] >> 4), tq = Int(body[i] & 15)
            // libjpeg's get_dqt reads 16-bit entries for any precision other than 0.
            guard tq <= 3 else { throw .corruptData(reason: "table index \(tq)", offset: offset + i) }
            let size = pq == 0 ? 64 : 128
            guard i + 1 + size <= body.count else {
                throw .invalidSegment(marker: Marker.dqt, reason: "table \(tq) runs past the segment", offset: offset + i)
            }
            var table = [UInt16](repeating: 0, count: 64)
            for k in 0 ..< 64 {
                let v = pq == 0 ? UInt16(body[i + 1 + k]) : UInt16(body[i + 1 + 2 * k]) << 8 | UInt16(body[i + 2 + 2 * k])
                table[Int(zigzagToNatural[k])] = v
            }
            tables.append((tq, table))
            i += 1 + size
        }
        return tables
    }

    /// DHT (T.81 B.2.4.2): any number of tables in one segment.
    /// A table that is not a valid canonical code (oversubscribed lengths, a DC symbol above 15)
    /// comes back as nil with its reason: libjpeg refuses it only when a scan uses it
    /// (`jpeg_make_d_derived_tbl`), so a file that redefines or never uses it decodes.
    static func huffmanTables(_ body: [UInt8], offset: Int) throws(JPEGError)
        -> [(isDC: Bool, index: Int, table: HuffmanTable?, problem: JPEGError?, counts: [UInt8], values: [UInt8])] {
        var tables: [(Bool, Int, HuffmanTable?, JPEGError?, [UInt8], [UInt8])] = []
        var i = 0
        while i < body.count {
            let tc = Int(body[i] >> 4), th = Int(body[i] & 15)
            guard tc <= 1, th <= 3 else {
                throw .invalidHuffmanTable(reason: "class \(tc) index \(th)", offset: offset + i)
            }
            guard i + 17 <= body.count else {
                throw .invalidHuffmanTable(reason: "table header runs past the segment", offset: offset + i)
            }
            let counts = Array(body[i + 1 ..< i + 17])
            let total = counts.reduce(0) { $0 + Int($1) }
            guard total <= 256 else { throw .invalidHuffmanTable(reason: "\(total) symbols", offset: offset + i) }
            guard i + 17 + total <= body.count else {
                throw .invalidHuffmanTable(reason: "symbols run past the segment", offset: offset + i)
            }
            let values = Array(body[i + 17 ..< i + 17 + total])
            if let table = HuffmanTable(counts: counts, values: values, isDC: tc == 0) {
                tables.append((tc == 0, th, table, nil, counts, values))
            } else {
                tables.append((tc == 0, th, nil, .invalidHuffmanTable(reason: "code lengths overflow, reach an all-ones code, or a DC symbol above 15",
                                                                       offset: offset + i), counts, values))
            }
            i += 17 + total
        }
        return tables
    }

    /// DRI (T.81 B.2.4.4).
    static func restartInterval(_ body: [UInt8], offset: Int) throws(JPEGError) -> Int {
        guard body.count == 2 else { throw .invalidSegment(marker: Marker.dri, reason: "DRI length \(body.count + 2)", offset: offset) }
        return Int(body[0]) << 8 | Int(body[1])
    }

    /// SOS (T.81 B.2.3), checked against the frame and, for progressive frames, G.1.1.1.
    static func scan(_ body: [UInt8], frame: Frame, offset: Int) throws(JPEGError) -> ScanHeader {
        guard body.count >= 1 else { throw .invalidSegment(marker: Marker.sos, reason: "empty SOS", offset: offset) }
        let n = Int(body[0])
        guard n >= 1 && n <= 4 else { throw .invalidScan(reason: "\(n) components in scan", offset: offset) }
        guard body.count == 1 + 2 * n + 3 else {
            throw .invalidSegment(marker: Marker.sos, reason: "SOS length does not match \(n) components", offset: offset)
        }
        var comps: [Int] = [], dc: [Int] = [], ac: [Int] = []
        for i in 0 ..< n {
            let id = body[1 + 2 * i]
            // As libjpeg's get_sos matches it: the first frame component (of the first four) with
            // this id whose index is not below the scan position, so a scan must name its
            // components in frame order (T.81 B.2.3).
            guard let index = frame.components.indices.first(where: { $0 >= i && $0 < 4 && frame.components[$0].id == id }) else {
                throw .corruptData(reason: "scan names component id \(id), which is not in the frame", offset: offset + 1 + 2 * i)
            }
            guard !comps.contains(index) else {
                throw .invalidScan(reason: "component id \(id) twice in one scan", offset: offset + 1 + 2 * i)
            }
            // Table selectors above 3 are refused when a scan uses the table (libjpeg's
            // jpeg_make_d_derived_tbl); a DC refinement scan uses none, an AC scan no DC table.
            let td = Int(body[2 + 2 * i] >> 4), ta = Int(body[2 + 2 * i] & 15)
            comps.append(index); dc.append(td); ac.append(ta)
        }
        let p = 1 + 2 * n
        let ss = Int(body[p]), se = Int(body[p + 1]), ah = Int(body[p + 2] >> 4), al = Int(body[p + 2] & 15)
        let header = ScanHeader(components: comps, dcTables: dc, acTables: ac, ss: ss, se: se, ah: ah, al: al, offset: offset - 4)
        if n > 1 {
            let blocks = comps.reduce(0) { $0 + frame.components[$1].h * frame.components[$1].v }
            // T.81 B.2.3: an interleaved MCU holds at most 10 blocks.
            guard blocks <= 10 else { throw .invalidScan(reason: "\(blocks) blocks per MCU (at most 10)", offset: offset) }
        }
        if frame.isProgressive {
            // libjpeg's start_pass_phuff_decoder checks (T.81 G.1.1.1).
            var bad = false
            if ss == 0 { bad = se != 0 } else { bad = ss > se || se > 63 || n != 1 }
            if ah != 0 && al != ah - 1 { bad = true }
            if al > 13 { bad = true }
            if bad { throw .invalidScan(reason: "bad progression parameters Ss=\(ss) Se=\(se) Ah=\(ah) Al=\(al)", offset: offset + p) }
        }
        return header
    }
}
