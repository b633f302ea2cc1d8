import ImageCore

/// An exact palette built from an image's colours, for colour type 3 (PNG 11.2.3, 11.3.2.1).
///
/// Entries with alpha below 255 come first, so tRNS (which lists alpha for the leading
/// entries only and implies 255 for the rest) is as short as it can be; within each group
/// entries are sorted by colour, so the output does not depend on hashing order.
struct PaletteIndex: Sendable, Equatable {
    /// Colours packed as `r << 24 | g << 16 | b << 8 | a`, in palette order.
    let entries: [UInt32]
    /// How many leading entries are not opaque (the tRNS length).
    let transparentCount: Int
    private let lookup: [UInt32: UInt8]

    init(colors: some Collection<UInt32>) {
        let transparent = colors.filter { $0 & 0xFF != 0xFF }.sorted()
        let opaque = colors.filter { $0 & 0xFF == 0xFF }.sorted()
        entries = transparent + opaque
        transparentCount = transparent.count
        var lookup: [UInt32: UInt8] = [:]
        for (i, c) in entries.enumerated() { lookup[c] = UInt8(truncatingIfNeeded: i) }
        self.lookup = lookup
    }

    func index(of color: UInt32) -> UInt8? { lookup[color] }

    /// PNG 11.2.3: RGB triples.
    var plteData: [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(entries.count * 3)
        for c in entries {
            out.append(UInt8(truncatingIfNeeded: c >> 24))
            out.append(UInt8(truncatingIfNeeded: c >> 16))
            out.append(UInt8(truncatingIfNeeded: c >> 8))
        }
        return out
    }

    /// PNG 11.3.2.1: alpha of the leading non-opaque entries; empty when all are opaque.
    var trnsData: [UInt8] { entries.prefix(transparentCount).map { UInt8(truncatingIfNeeded: $0) } }

    /// The smallest palette depth that indexes every entry.
    var minimumBitDepth: Int {
        switch entries.count {
        case ...2: 1
        case ...4: 2
        case ...16: 4
        default: 8
        }
    }

    /// A pixel as packed 8-bit RGBA. PLTE entries are 8-bit, so a 16-bit sample maps to
    /// `v / 257`; ``build(from:maxColors:)`` has checked that the division is exact.
    @inline(__always)
    static func rgba8(_ p: (r: UInt32, g: UInt32, b: UInt32, a: UInt32), sixteenBit: Bool) -> UInt32 {
        @inline(__always) func n(_ v: UInt32) -> UInt32 { sixteenBit ? v / 257 : v }
        return n(p.r) << 24 | n(p.g) << 16 | n(p.b) << 8 | n(p.a)
    }

    /// The exact colours of `image`; throws ``PNGError/unrepresentable(_:)`` beyond `maxColors`
    /// or for a 16-bit sample that 8 bits cannot hold exactly (not a multiple of 257).
    static func build(from image: Image, maxColors: Int) throws(PNGError) -> PaletteIndex {
        var seen = Set<UInt32>()
        let format = image.format
        let bpp = format.bytesPerPixel
        let channels = format.channels
        let sixteen = format.is16Bit
        var tooMany = false, inexact = false
        image.pixels.withUnsafeBytes { raw in
            guard let base = raw.baseAddress else { return }
            var last: UInt32 = 0, haveLast = false
            for p in 0 ..< image.pixelCount {
                let px = base + p * bpp
                @inline(__always) func s(_ ch: Int) -> UInt32 {
                    sixteen ? UInt32(px.loadUnaligned(fromByteOffset: 2 * ch, as: UInt16.self))
                            : UInt32(px.load(fromByteOffset: ch, as: UInt8.self))
                }
                let a: UInt32 = format.hasAlpha ? s(channels - 1) : (sixteen ? 65535 : 255)
                if sixteen {
                    for ch in 0 ..< channels where s(ch) % 257 != 0 { inexact = true; return }
                }
                let color = format.isColor ? rgba8((s(0), s(1), s(2), a), sixteenBit: sixteen)
                                           : rgba8((s(0), s(0), s(0), a), sixteenBit: sixteen)
                if haveLast && color == last { continue }
                last = color; haveLast = true
                if seen.insert(color).inserted && seen.count > maxColors { tooMany = true; return }
            }
        }
        if inexact {
            throw .unrepresentable("a palette holds 8-bit colours; this 16-bit image has samples 8 bits cannot hold exactly")
        }
        if tooMany {
            throw .unrepresentable("the image has more than \(maxColors) colours, too many for its palette")
        }
        return PaletteIndex(colors: seen)
    }
}
