/// Why a VP8L stream could not be decoded: bits ran out (more may come), or the bits break a
/// rule (an error at that byte of the stream).
enum VP8LFailure: Error, Equatable {
    case needMoreData
    case invalid(String, byte: Int)
}

/// The prefix codes of one VP8L image (VP8L spec section 6.2): the Huffman groups, each five
/// codes (green + lengths + cache, red, blue, alpha, distance), and the entropy image that
/// picks a group for each tile.
struct VP8LCodes: Sendable {
    /// Every table of every group, one after another.
    var tables: [UInt32] = []
    /// Five table offsets per group.
    var trees: [Int32] = []
    /// Per group: the literal's red, blue and alpha are zero-length codes (their ARGB, green 0).
    var trivialLiteral: [UInt32?] = []
    /// Per group: the whole pixel is a zero-length code (a literal, never a copy or cache hit).
    var trivialPixel: [UInt32?] = []
    /// log2 of the entropy image's tile size, 0 without one.
    var tileBits = 0
    /// Tiles per row of the entropy image.
    var tilesPerRow = 1
    /// The group of each tile (indices remapped to the groups actually used).
    var groupOfTile: [UInt16] = []
    /// Colour cache bits (0: no cache).
    var cacheBits = 0

    static let literalCodes = 256, lengthCodes = 24, distanceCodes = 40
    static let codeLengthOrder: [Int] = [17, 18, 0, 1, 2, 3, 4, 5, 16, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15]

    /// The group for pixel (`x`, `y`).
    @inline(__always) func group(x: Int, y: Int) -> Int {
        tileBits == 0 ? 0 : Int(groupOfTile[(y >> tileBits) * tilesPerRow + (x >> tileBits)])
    }
}

extension VP8LCodes {
    /// Reads the codes of an image `width` x `height` (section 6.2); `allowMeta` is true only
    /// for the main image, which may have an entropy image.
    static func read(_ reader: inout VP8LBitReader, width: Int, height: Int, cacheBits: Int,
                     allowMeta: Bool) throws(VP8LFailure) -> VP8LCodes {
        var codes = VP8LCodes()
        codes.cacheBits = cacheBits
        var groupCount = 1
        var mapping: [Int32]? = nil
        if allowMeta && reader.read(1) == 1 {
            let bits = reader.read(3) + 2
            let tw = subsample(width, bits), th = subsample(height, bits)
            let image = try VP8LImageData.decodeSubImage(&reader, width: tw, height: th)
            codes.tileBits = bits
            codes.tilesPerRow = tw
            var maxGroup = 0
            for p in image { maxGroup = max(maxGroup, Int((p >> 8) & 0xFFFF)) }
            groupCount = maxGroup + 1
            // Only groups some tile uses are kept (the others are read and checked, as libwebp does).
            var map = [Int32](repeating: -1, count: groupCount)
            var next: Int32 = 0
            codes.groupOfTile = [UInt16](repeating: 0, count: image.count)
            for (i, p) in image.enumerated() {
                let g = Int((p >> 8) & 0xFFFF)
                if map[g] < 0 { map[g] = next; next += 1 }
                codes.groupOfTile[i] = UInt16(map[g])
            }
            mapping = map
        }
        let kept = mapping.map { m in m.reduce(0) { $0 + ($1 >= 0 ? 1 : 0) } } ?? 1
        codes.trees = [Int32](repeating: 0, count: kept * 5)
        codes.trivialLiteral = [UInt32?](repeating: nil, count: kept)
        codes.trivialPixel = [UInt32?](repeating: nil, count: kept)
        var lengths = [UInt8](repeating: 0, count: literalCodes + lengthCodes + (1 << 11))
        var scratch: [UInt32] = []
        for g in 0 ..< groupCount {
            let keep = mapping.map { $0[g] >= 0 } ?? true
            var offsets = [Int32](repeating: 0, count: 5)
            var singleValues = [Int](repeating: 0, count: 5)
            var allSingle = true
            var zeroBits = [Bool](repeating: false, count: 5)
            for k in 0 ..< 5 {
                var alphabet = k == 0 ? literalCodes + lengthCodes : (k == 4 ? distanceCodes : literalCodes)
                if k == 0 && cacheBits > 0 { alphabet += 1 << cacheBits }
                let start: Int
                if keep {
                    start = try readCode(&reader, alphabet: alphabet, lengths: &lengths, into: &codes.tables)
                } else {
                    scratch.removeAll(keepingCapacity: true)
                    start = try readCode(&reader, alphabet: alphabet, lengths: &lengths, into: &scratch)
                }
                offsets[k] = Int32(start)
                if keep {
                    let root = codes.tables[start]
                    zeroBits[k] = root >> 16 == 0
                    singleValues[k] = Int(root & 0xFFFF)
                    if !zeroBits[k] { allSingle = false }
                }
            }
            guard keep else { continue }
            let slot = mapping.map { Int($0[g]) } ?? g
            for k in 0 ..< 5 { codes.trees[slot * 5 + k] = offsets[k] }
            if zeroBits[1] && zeroBits[2] && zeroBits[3] {
                let arb = UInt32(singleValues[3]) << 24 | UInt32(singleValues[1]) << 16 | UInt32(singleValues[2])
                codes.trivialLiteral[slot] = arb
                codes.trivialPixel[slot] = allSingle && singleValues[0] < literalCodes ? arb | UInt32(singleValues[0]) << 8 : nil
            }
        }
        if reader.isPastEnd { throw .needMoreData }
        return codes
    }

    @inline(__always) static func subsample(_ size: Int, _ bits: Int) -> Int { (size + (1 << bits) - 1) >> bits }

    /// Reads one prefix code (section 6.2.2: simple or normal code-length code) and appends its table.
    static func readCode(_ reader: inout VP8LBitReader, alphabet: Int, lengths: inout [UInt8],
                         into tables: inout [UInt32]) throws(VP8LFailure) -> Int {
        let at = reader.byteOffset
        for i in 0 ..< alphabet { lengths[i] = 0 }
        if reader.read(1) == 1 {
            let two = reader.read(1) == 1
            let first = reader.read(reader.read(1) == 0 ? 1 : 8)
            if first < alphabet { lengths[first] = 1 }
            if two {
                let second = reader.read(8)
                if second < alphabet { lengths[second] = 1 }
            }
        } else {
            var codeLengthLengths = [UInt8](repeating: 0, count: 19)
            let n = reader.read(4) + 4
            for i in 0 ..< n { codeLengthLengths[codeLengthOrder[i]] = UInt8(reader.read(3)) }
            try readCodeLengths(&reader, codeLengthLengths, alphabet: alphabet, lengths: &lengths, at: at)
        }
        if reader.isPastEnd { throw .needMoreData }
        let start = lengths.withUnsafeBufferPointer { buffer in
            HuffmanTable.build(lengths: UnsafeBufferPointer(rebasing: buffer[0 ..< alphabet]), rootBits: 8, into: &tables)
        }
        guard let start else { throw .invalid("prefix code", byte: at) }
        return start
    }

    /// The code lengths of a normal code, coded with the code-length code (section 6.2.2).
    static func readCodeLengths(_ reader: inout VP8LBitReader, _ codeLengthLengths: [UInt8], alphabet: Int,
                                lengths: inout [UInt8], at: Int) throws(VP8LFailure) {
        var table: [UInt32] = []
        let built = codeLengthLengths.withUnsafeBufferPointer { HuffmanTable.build(lengths: $0, rootBits: 7, into: &table) }
        guard built != nil else {
            if reader.isPastEnd { throw .needMoreData }
            throw .invalid("code-length code", byte: at)
        }
        var maxSymbol = alphabet
        if reader.read(1) == 1 {
            let bits = 2 + 2 * reader.read(3)
            maxSymbol = 2 + reader.read(bits)
            if maxSymbol > alphabet {
                if reader.isPastEnd { throw .needMoreData }
                throw .invalid("code length count", byte: at)
            }
        }
        var symbol = 0
        var previous: UInt8 = 8
        while symbol < alphabet {
            if maxSymbol == 0 { break }
            maxSymbol -= 1
            reader.fill()
            let e = table[Int(truncatingIfNeeded: reader.peek & 0x7F)]
            reader.skip(Int(e >> 16))
            let code = Int(e & 0xFFFF)
            if code < 16 {
                lengths[symbol] = UInt8(code)
                symbol += 1
                if code != 0 { previous = UInt8(code) }
            } else {
                let extra = [2, 3, 7][code - 16], offset = [3, 3, 11][code - 16]
                let repeatCount = reader.read(extra) + offset
                if symbol + repeatCount > alphabet {
                    if reader.isPastEnd { throw .needMoreData }
                    throw .invalid("code length repeat", byte: at)
                }
                let value: UInt8 = code == 16 ? previous : 0
                for _ in 0 ..< repeatCount { lengths[symbol] = value; symbol += 1 }
            }
            if reader.isPastEnd { throw .needMoreData }
        }
    }
}
