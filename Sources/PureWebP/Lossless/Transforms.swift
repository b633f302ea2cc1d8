/// One VP8L transform (section 4) as read from the header, undone row by row.
struct VP8LTransform: Sendable {
    enum Kind: Int, Sendable { case predictor = 0, crossColor = 1, subtractGreen = 2, colorIndexing = 3 }
    var kind: Kind
    /// Width of the image the transform applies to (before colour-indexing packing: its output).
    var width: Int
    /// Tile bits (predictor, cross-colour) or pixel-bundling bits (colour indexing).
    var bits: Int
    /// The sub-image (predictor modes, colour transform elements) or the expanded palette.
    var data: [UInt32]
}

/// Undoing the transforms (VP8L spec section 4; libwebp's `lossless.c` arithmetic).
enum VP8LInverse {
    /// Channel-wise sum modulo 256: the low seven bits of each byte summed (no carry leaves a
    /// byte), the top bit as the xor of both top bits and that carry.
    @inline(__always) static func add(_ a: UInt32, _ b: UInt32) -> UInt32 {
        ((a & 0x7F7F_7F7F) &+ (b & 0x7F7F_7F7F)) ^ ((a ^ b) & 0x8080_8080)
    }

    @inline(__always) static func average2(_ a: UInt32, _ b: UInt32) -> UInt32 {
        (((a ^ b) & 0xFEFE_FEFE) &>> 1) &+ (a & b)
    }

    @inline(__always) static func clip255(_ v: Int) -> UInt32 { UInt32(v < 0 ? 0 : (v > 255 ? 255 : v)) }

    @inline(__always) static func select(_ t: UInt32, _ l: UInt32, _ tl: UInt32) -> UInt32 {
        var sum = 0
        var shift: UInt32 = 0
        while shift < 32 {
            let a = Int((t &>> shift) & 0xFF), b = Int((l &>> shift) & 0xFF), c = Int((tl &>> shift) & 0xFF)
            sum &+= abs(b &- c) &- abs(a &- c)
            shift &+= 8
        }
        return sum <= 0 ? t : l
    }

    @inline(__always) static func clampedAddSubtractFull(_ a: UInt32, _ b: UInt32, _ c: UInt32) -> UInt32 {
        var r: UInt32 = 0
        var shift: UInt32 = 0
        while shift < 32 {
            let v = Int((a &>> shift) & 0xFF) &+ Int((b &>> shift) & 0xFF) &- Int((c &>> shift) & 0xFF)
            r |= clip255(v) &<< shift
            shift &+= 8
        }
        return r
    }

    @inline(__always) static func clampedAddSubtractHalf(_ a: UInt32, _ b: UInt32) -> UInt32 {
        var r: UInt32 = 0
        var shift: UInt32 = 0
        while shift < 32 {
            let x = Int((a &>> shift) & 0xFF), y = Int((b &>> shift) & 0xFF)
            r |= clip255(x &+ (x &- y) / 2) &<< shift
            shift &+= 8
        }
        return r
    }

    /// The four channels of `p` in the 16-bit fields of a word (B, R, G, A from the bottom).
    @inline(__always) static func spread(_ p: UInt32) -> UInt64 {
        UInt64(p & 0x00FF_00FF) | UInt64(p & 0xFF00_FF00) &<< 24
    }

    /// Each 16-bit field `f` of `v` (in 0...1023) as the byte clip255(f - 256), packed back.
    @inline(__always) static func clipFields(_ v: UInt64) -> UInt32 {
        let ones: UInt64 = 0x0001_0001_0001_0001
        let over = ((v &>> 9) & ones) &* 0xFF          // 0xFF where f >= 512
        let inside = ((v &>> 8) & ones) &* 0xFF        // bit 8 set: 256...511 (or 768...)
        let f = (v & inside & ~over) | over
        return UInt32(truncatingIfNeeded: f) | UInt32(truncatingIfNeeded: f &>> 24)
    }

    /// The sum over the four channels of |x - y|, given y spread (`spread`): e = x - y + 256
    /// in each field (1...511); below 256 (negative) its low byte is negated (xor 255, plus 1);
    /// the fields are summed by a multiply into the top one.
    @inline(__always) static func absDifferenceSum(_ x: UInt32, _ spreadY: UInt64) -> Int {
        absDifferenceSum(spread: spread(x), spreadY)
    }

    /// `absDifferenceSum` with both pixels spread.
    @inline(__always) static func absDifferenceSum(spread spreadX: UInt64, _ spreadY: UInt64) -> Int {
        let ones: UInt64 = 0x0001_0001_0001_0001
        let e = spreadX &+ 0x0100_0100_0100_0100 &- spreadY
        let negative = (~e &>> 8) & ones
        let magnitude = ((e & 0x00FF_00FF_00FF_00FF) ^ (negative &* 0xFF)) &+ negative
        return Int(truncatingIfNeeded: (magnitude &* ones) &>> 48)
    }

    /// `select` with the sums taken on all four channels at once (the per-byte one is its twin).
    @inline(__always) static func selectPacked(_ t: UInt32, _ l: UInt32, _ tl: UInt32) -> UInt32 {
        selectSpread(t, l, spread(t), spread(tl))
    }

    /// `selectPacked` given the top and top-left pixels spread (the row loop carries the
    /// top's to the next pixel, where it is the top-left).
    @inline(__always) static func selectSpread(_ t: UInt32, _ l: UInt32, _ st: UInt64, _ stl: UInt64) -> UInt32 {
        // Blended by the sign of the difference of the sums (at most 1020 each), not a
        // branch: on photos the choice is not predictable.
        let keepTop = UInt32(truncatingIfNeeded: (absDifferenceSum(spread: st, stl) &- absDifferenceSum(l, stl)) &>> 16) ^ 0xFFFF_FFFF
        return l ^ ((l ^ t) & keepTop)
    }

    /// `clampedAddSubtractFull` on all four channels at once (the per-byte one is its twin):
    /// a + b - c + 256 in 16-bit fields (1...766, so no field borrows from the next).
    @inline(__always) static func clampedAddSubtractFullPacked(_ a: UInt32, _ b: UInt32, _ c: UInt32) -> UInt32 {
        clampedAddSubtractFullSpread(a, spread(b), spread(c))
    }

    /// `clampedAddSubtractFullPacked` given b and c spread.
    @inline(__always) static func clampedAddSubtractFullSpread(_ a: UInt32, _ sb: UInt64, _ sc: UInt64) -> UInt32 {
        clipFields(spread(a) &+ sb &+ 0x0100_0100_0100_0100 &- sc)
    }

    /// `clampedAddSubtractHalf` on all four channels at once (the per-byte one is its twin):
    /// e = x - y + 256 (1...511); (e + [e < 256]) >> 1 is trunc((x - y) / 2) + 128, C's
    /// division; x + that + 128 is the result + 256 for `clipFields`.
    @inline(__always) static func clampedAddSubtractHalfPacked(_ a: UInt32, _ b: UInt32) -> UInt32 {
        let ones: UInt64 = 0x0001_0001_0001_0001
        let x = spread(a)
        let e = x &+ 0x0100_0100_0100_0100 &- spread(b)
        let negative = (~e &>> 8) & ones
        let half = ((e &+ negative) &>> 1) & 0x00FF_00FF_00FF_00FF
        return clipFields(x &+ half &+ 0x0080_0080_0080_0080)
    }

    /// The prediction of mode `mode` from the left pixel and the row above (`up[x]`, with
    /// `up[x + 1]` of the last column being the current row's first pixel).
    @inline(__always) static func predict(_ mode: Int, left: UInt32, top: UInt32, topLeft: UInt32, topRight: UInt32) -> UInt32 {
        switch mode {
        case 0: return 0xFF00_0000
        case 1: return left
        case 2: return top
        case 3: return topRight
        case 4: return topLeft
        case 5: return average2(average2(left, topRight), top)
        case 6: return average2(left, topLeft)
        case 7: return average2(left, top)
        case 8: return average2(topLeft, top)
        case 9: return average2(top, topRight)
        case 10: return average2(average2(left, topLeft), average2(top, topRight))
        case 11: return select(top, left, topLeft)
        case 12: return clampedAddSubtractFull(left, top, topLeft)
        case 13: return clampedAddSubtractHalf(average2(left, top), topLeft)
        default: return 0xFF00_0000   // 14 and 15: libwebp's padding entries predict black
        }
    }

    /// Undoes the predictor on row `y` in place; `previous` is this stage's output row above.
    static func predictor(_ t: VP8LTransform, y: Int, row: UnsafeMutablePointer<UInt32>, previous: UnsafePointer<UInt32>) {
        let width = t.width
        if y == 0 {
            row[0] = add(row[0], 0xFF00_0000)
            var x = 1
            while x < width { row[x] = add(row[x], row[x &- 1]); x &+= 1 }
            return
        }
        row[0] = add(row[0], previous[0])
        let tileWidth = 1 << t.bits
        let tilesPerRow = VP8LCodes.subsample(width, t.bits)
        t.data.withUnsafeBufferPointer { modes in
            let modeRow = (y >> t.bits) * tilesPerRow
            var x = 1
            while x < width {
                let mode = Int((modes[modeRow &+ (x >> t.bits)] &>> 8) & 0xF)
                let end = min((x & ~(tileWidth &- 1)) &+ tileWidth, width)
                // One loop per mode (the mode is fixed across the tile); the last column's
                // top-right is the current row's first pixel.
                @inline(__always) func run(_ predict: (UInt32, UInt32, UInt32, UInt32) -> UInt32) {
                    let inner = min(end, width &- 1)
                    var left = row[x &- 1]
                    while x < inner {
                        left = add(row[x], predict(left, previous[x], previous[x &- 1], previous[x &+ 1]))
                        row[x] = left
                        x &+= 1
                    }
                    if x < end {
                        row[x] = add(row[x], predict(left, previous[x], previous[x &- 1], row[0]))
                        x &+= 1
                    }
                }
                // Modes 11 and 12 (no top-right): the top pixel's spread form is the next
                // pixel's top-left.
                @inline(__always) func runCarry(_ predict: (UInt32, UInt32, UInt64, UInt64) -> UInt32) {
                    var left = row[x &- 1]
                    var stl = spread(previous[x &- 1])
                    while x < end {
                        let t = previous[x], st = spread(t)
                        left = add(row[x], predict(left, t, st, stl))
                        row[x] = left
                        stl = st
                        x &+= 1
                    }
                }
                switch mode {
                case 1: run { l, _, _, _ in l }
                case 2: run { _, t, _, _ in t }
                case 3: run { _, _, _, tr in tr }
                case 4: run { _, _, tl, _ in tl }
                case 5: run { l, t, _, tr in average2(average2(l, tr), t) }
                case 6: run { l, _, tl, _ in average2(l, tl) }
                case 7: run { l, t, _, _ in average2(l, t) }
                case 8: run { _, t, tl, _ in average2(tl, t) }
                case 9: run { _, t, _, tr in average2(t, tr) }
                case 10: run { l, t, tl, tr in average2(average2(l, tl), average2(t, tr)) }
                case 11: runCarry { l, t, st, stl in selectSpread(t, l, st, stl) }
                case 12: runCarry { l, _, st, stl in clampedAddSubtractFullSpread(l, st, stl) }
                case 13: run { l, t, tl, _ in clampedAddSubtractHalfPacked(average2(l, t), tl) }
                default: run { _, _, _, _ in 0xFF00_0000 }
                }
            }
        }
    }

    @inline(__always) static func colorDelta(_ m: UInt32, _ c: UInt32) -> Int {
        (Int(Int8(truncatingIfNeeded: m)) &* Int(Int8(truncatingIfNeeded: c))) &>> 5
    }

    /// One pixel of the inverse cross-colour transform with the tile's element `code`.
    @inline(__always) static func crossColorPixel(_ argb: UInt32, _ code: UInt32) -> UInt32 {
        let greenToRed = code & 0xFF, greenToBlue = (code >> 8) & 0xFF, redToBlue = (code >> 16) & 0xFF
        let green = (argb >> 8) & 0xFF
        var red = Int((argb >> 16) & 0xFF)
        var blue = Int(argb & 0xFF)
        red = (red &+ colorDelta(greenToRed, green)) & 0xFF
        blue = (blue &+ colorDelta(greenToBlue, green)) & 0xFF
        blue = (blue &+ colorDelta(redToBlue, UInt32(red))) & 0xFF
        return (argb & 0xFF00_FF00) | UInt32(red) << 16 | UInt32(blue)
    }

    /// Undoes the cross-colour transform on row `y` in place (the scalar twin of
    /// `VP8LInverseSIMD.crossColor`).
    static func crossColor(_ t: VP8LTransform, y: Int, row: UnsafeMutablePointer<UInt32>,
                           from source: UnsafePointer<UInt32>? = nil) {
        let src = source ?? UnsafePointer(row)
        let tilesPerRow = VP8LCodes.subsample(t.width, t.bits)
        t.data.withUnsafeBufferPointer { elements in
            let base = (y >> t.bits) * tilesPerRow
            for x in 0 ..< t.width { row[x] = crossColorPixel(src[x], elements[base &+ (x >> t.bits)]) }
        }
    }

    /// One pixel of the inverse subtract-green transform.
    @inline(__always) static func addGreenPixel(_ argb: UInt32) -> UInt32 {
        let green = (argb >> 8) & 0xFF
        let rb = ((argb & 0x00FF_00FF) &+ (green << 16 | green)) & 0x00FF_00FF
        return (argb & 0xFF00_FF00) | rb
    }

    /// Undoes subtract-green on `count` pixels in place (the compiler vectorises the loop).
    static func addGreen(row: UnsafeMutablePointer<UInt32>, count: Int) {
        for x in 0 ..< count { row[x] = addGreenPixel(row[x]) }
    }

    /// Expands colour indices (packed `8 >> bits` bits each in green) through the palette.
    static func colorIndexing(_ t: VP8LTransform, input: UnsafePointer<UInt32>, output: UnsafeMutablePointer<UInt32>) {
        t.data.withUnsafeBufferPointer { palette in
            if t.bits == 0 {
                for x in 0 ..< t.width { output[x] = palette[Int((input[x] >> 8) & 0xFF)] }
                return
            }
            let perByte = 1 << t.bits, bitsPerPixel = 8 >> t.bits, mask = (1 << bitsPerPixel) - 1
            var packed = 0
            for x in 0 ..< t.width {
                if x & (perByte - 1) == 0 { packed = Int((input[x >> t.bits] >> 8) & 0xFF) }
                output[x] = palette[packed & mask]
                packed >>= bitsPerPixel
            }
        }
    }

    /// The palette as colour indexing uses it: entries delta-coded in the stream are summed,
    /// and the table is padded with transparent black to the size the index bits can reach.
    static func expandPalette(_ colors: [UInt32], bits: Int) -> [UInt32] {
        let size = bits == 0 ? 256 : 1 << (8 >> bits)
        var out = [UInt32](repeating: 0, count: max(size, colors.count))
        guard !colors.isEmpty else { return out }
        out[0] = colors[0]
        for i in 1 ..< colors.count { out[i] = add(colors[i], out[i - 1]) }
        return out
    }
}
