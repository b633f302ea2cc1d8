/// The file format of the tiles of a pyramid.
public enum TileFormat: String, Sendable, CaseIterable {
    /// Baseline JPEG tiles (`.jpg`), alpha dropped: the usual choice for photographs.
    case jpeg
    /// PNG tiles, alpha kept.
    case png

    /// The extension of the tile files and the `Format` attribute of the `.dzi`.
    public var fileExtension: String { self == .jpeg ? "jpg" : "png" }

    /// The format named by a `.dzi` `Format` attribute ("jpg", "jpeg" or "png").
    public init?(dziFormat: String) {
        switch dziFormat.lowercased() {
        case "jpg", "jpeg": self = .jpeg
        case "png": self = .png
        default: return nil
        }
    }
}

/// How a pyramid is cut and its tiles stored.
///
/// ```swift
/// let options = TilePyramidOptions(tileSize: 512, overlap: 0, format: .png)
/// ```
public struct TilePyramidOptions: Sendable, Equatable {
    /// Edge of a tile in pixels before the overlap is added (Deep Zoom `TileSize`), 1...8192.
    public var tileSize: Int
    /// Pixels each tile repeats from its neighbours on every inner side (Deep Zoom `Overlap`),
    /// 0...tileSize.
    public var overlap: Int
    /// The tiles' image format.
    public var format: TileFormat
    /// JPEG tile quality, 0.0-1.0 (0.8 -> 80, as `JPEGEncodingOptions(unitQuality:)` maps it).
    public var quality: Double
    /// Tiles queued or being encoded on other threads; 0 encodes on the calling thread. Each
    /// holds one tile's pixels (~200 KB for 256-pixel RGB tiles), so this bounds the encoders'
    /// memory; it should exceed a tile row of the widest level, or decoding waits at each row.
    public var tilesInFlight: Int
    /// Threads encoding tiles when `tilesInFlight > 0`; nil: one less than the processors
    /// online (at least one), so the thread that decodes and averages keeps a core of its own:
    /// it is the critical path, and sharing its core with encoders slows the whole run.
    public var encoderThreads: Int?
    /// Working memory the row buffers may take (``TilePyramidGeometry/workingBytes(channels:)``);
    /// a wider image fails with ``TilePyramidError/limit(_:)`` before anything is allocated.
    public var maxWorkingBytes: Int

    /// Options with the Deep Zoom defaults of OpenSeadragon and libvips: 256-pixel JPEG tiles
    /// overlapping by 1 at quality 0.8.
    public init(tileSize: Int = 256, overlap: Int = 1, format: TileFormat = .jpeg, quality: Double = 0.8,
                tilesInFlight: Int = 160, encoderThreads: Int? = nil, maxWorkingBytes: Int = 1 << 30) {
        self.tileSize = tileSize
        self.overlap = overlap
        self.format = format
        self.quality = quality
        self.tilesInFlight = tilesInFlight
        self.encoderThreads = encoderThreads
        self.maxWorkingBytes = maxWorkingBytes
    }

    func validate() throws(TilePyramidError) {
        guard (1 ... 8192).contains(tileSize) else { throw .invalidOptions("tile size \(tileSize) is outside 1...8192") }
        guard (0 ... tileSize).contains(overlap) else {
            throw .invalidOptions("overlap \(overlap) is outside 0...\(tileSize) (the tile size)")
        }
        guard quality.isFinite, (0 ... 1).contains(quality) else { throw .invalidOptions("quality \(quality) is outside 0.0...1.0") }
        guard tilesInFlight >= 0 else { throw .invalidOptions("tiles in flight \(tilesInFlight) is negative") }
        if let encoderThreads, encoderThreads < 1 { throw .invalidOptions("encoder threads \(encoderThreads) is below 1") }
    }
}

/// Everything that can go wrong writing or reading a tile pyramid.
public enum TilePyramidError: Error, Sendable, Equatable, CustomStringConvertible {
    /// An option is out of range (what and why in the text).
    case invalidOptions(String)
    /// The image has no pixels, or a name that cannot be a file name.
    case invalidImage(String)
    /// A band does not continue the image: wrong first row, width, or rows past the bottom.
    case bandMismatch(expectedRow: Int, got: Int, width: Int)
    /// `finish` before the last row arrived.
    case incomplete(rows: Int, height: Int)
    /// A file system call failed (`errno`).
    case fileSystem(operation: String, path: String, errno: Int32)
    /// A tile's encoder failed.
    case encoding(String)
    /// The `.dzi` could not be read as a Deep Zoom descriptor.
    case invalidDescriptor(String)
    /// The tile asked for does not exist in this pyramid.
    case noSuchTile(level: Int, column: Int, row: Int)
    /// The writer failed or was abandoned earlier; this is what failed.
    case failed(String)
    /// The pyramid's row buffers would need more memory than the limits allow.
    case limit(LimitViolation)

    /// The error in one line.
    public var description: String {
        switch self {
        case .invalidOptions(let why): "tile pyramid options: \(why)"
        case .invalidImage(let why): "tile pyramid: \(why)"
        case let .bandMismatch(expected, got, width):
            "tile pyramid: rows arrived starting at row \(got) (width \(width)) where row \(expected) was expected"
        case let .incomplete(rows, height): "tile pyramid: the image ended after \(rows) of \(height) rows"
        case let .fileSystem(operation, path, errno): "\(path): \(operation) failed (errno \(errno))"
        case .encoding(let why): "tile encoding failed: \(why)"
        case .invalidDescriptor(let why): "not a Deep Zoom descriptor: \(why)"
        case let .noSuchTile(level, column, row): "no tile at level \(level), column \(column), row \(row)"
        case .failed(let why): "tile pyramid failed earlier: \(why)"
        case .limit(let violation): "tile pyramid: \(violation)"
        }
    }
}

/// The sizes and tile rectangles of a Deep Zoom pyramid.
///
/// Levels are numbered as Deep Zoom numbers them: level ``maxLevel`` is the full image, each
/// level below is half the size of the one above (rounding up), and level 0 is 1x1. Tile
/// (column, row) covers `column * tileSize - overlap ..< (column + 1) * tileSize + overlap`
/// clipped to the level (no overlap on the outer edges), the same rectangle OpenSeadragon's
/// `DziTileSource.getTileBounds` and libvips `dzsave` use.
///
/// ```swift
/// let g = TilePyramidGeometry(width: 1000, height: 600, tileSize: 256, overlap: 1)
/// g.maxLevel                          // 10
/// g.size(ofLevel: 9)                  // (500, 300)
/// g.tileRect(level: 10, column: 1, row: 0)   // x 255..<513, y 0..<257
/// ```
public struct TilePyramidGeometry: Sendable, Equatable {
    /// The full image's width in pixels.
    public let width: Int
    /// The full image's height in pixels.
    public let height: Int
    /// Edge of a tile before the overlap is added.
    public let tileSize: Int
    /// Pixels each tile repeats from its neighbours on every inner side.
    public let overlap: Int
    /// The level of the full image: `ceil(log2(max(width, height)))`.
    public let maxLevel: Int

    /// The geometry of an image of this size cut into tiles of this size and overlap.
    public init(width: Int, height: Int, tileSize: Int, overlap: Int) {
        self.width = width
        self.height = height
        self.tileSize = max(tileSize, 1)
        self.overlap = max(overlap, 0)
        var level = 0
        while (1 << level) < max(width, height, 1) { level += 1 }
        maxLevel = level
    }

    /// Levels 0...maxLevel.
    public var levelCount: Int { maxLevel + 1 }

    /// The size of `level`: the full size divided by `2^(maxLevel - level)`, rounded up.
    public func size(ofLevel level: Int) -> (width: Int, height: Int) {
        let shift = min(max(maxLevel - level, 0), 62)
        let round = (1 << shift) - 1
        return ((width + round) >> shift, (height + round) >> shift)
    }

    /// Columns and rows of tiles in `level`.
    public func tileCount(ofLevel level: Int) -> (columns: Int, rows: Int) {
        let (w, h) = size(ofLevel: level)
        return ((w + tileSize - 1) / tileSize, (h + tileSize - 1) / tileSize)
    }

    /// The pixels of `level` that tile (column, row) shows.
    public func tileRect(level: Int, column: Int, row: Int) -> (x: Range<Int>, y: Range<Int>) {
        let (w, h) = size(ofLevel: level)
        return (span(column, length: w), span(row, length: h))
    }

    /// Tile `index` along an axis of `length` pixels.
    func span(_ index: Int, length: Int) -> Range<Int> {
        let start = max(index * tileSize - (index > 0 ? overlap : 0), 0)
        let end = min((index + 1) * tileSize + overlap, length)
        return start ..< max(start, end)
    }

    /// Bytes of row buffers a writer holds for this pyramid with `channels` 8-bit samples per
    /// pixel (the tiles in flight come on top): per level, one tile row with its overlaps and,
    /// for the 2x2 average, a pending row, its sums and the output row.
    public func workingBytes(channels: Int) -> Int {
        var total = 0
        for level in 0 ... maxLevel {
            let (w, h) = size(ofLevel: level)
            let rowBytes = w * channels
            total += min(tileSize + 2 * overlap, h) * rowBytes + (level > 0 ? 3 * rowBytes + (w + 1) / 2 * channels : 0)
        }
        return total
    }

    /// Whether (level, column, row) names a tile of this pyramid.
    public func contains(level: Int, column: Int, row: Int) -> Bool {
        guard (0 ... maxLevel).contains(level) else { return false }
        let (columns, rows) = tileCount(ofLevel: level)
        return (0 ..< columns).contains(column) && (0 ..< rows).contains(row)
    }
}

/// The Deep Zoom descriptor (`NAME.dzi`): writing it, and a small parser for reading it back
/// (only the `Image` and `Size` elements and their attributes matter; no XML library needed).
enum DeepZoomDescriptor {
    static let namespace = "http://schemas.microsoft.com/deepzoom/2008"

    static func xml(geometry g: TilePyramidGeometry, format: TileFormat) -> String {
        """
        <?xml version="1.0" encoding="UTF-8"?>
        <Image xmlns="\(namespace)" Format="\(format.fileExtension)" Overlap="\(g.overlap)" TileSize="\(g.tileSize)">
          <Size Width="\(g.width)" Height="\(g.height)"/>
        </Image>

        """
    }

    static func parse(_ text: String) throws(TilePyramidError) -> (TilePyramidGeometry, TileFormat) {
        guard let image = attributes(ofElement: "Image", in: text) else { throw .invalidDescriptor("no <Image> element") }
        guard let size = attributes(ofElement: "Size", in: text) else { throw .invalidDescriptor("no <Size> element") }
        func number(_ attrs: [String: String], _ key: String, _ range: ClosedRange<Int>) throws(TilePyramidError) -> Int {
            guard let text = attrs[key], let value = Int(text), range.contains(value) else {
                throw .invalidDescriptor("\(key) is missing or outside \(range.lowerBound)...\(range.upperBound)")
            }
            return value
        }
        let tileSize = try number(image, "TileSize", 1 ... 1 << 20)
        let overlap = try number(image, "Overlap", 0 ... tileSize)
        let width = try number(size, "Width", 1 ... 1 << 31)
        let height = try number(size, "Height", 1 ... 1 << 31)
        guard let formatName = image["Format"], let format = TileFormat(dziFormat: formatName) else {
            throw .invalidDescriptor("Format is missing or not jpg/png")
        }
        return (TilePyramidGeometry(width: width, height: height, tileSize: tileSize, overlap: overlap), format)
    }

    /// The attributes of the first start tag `<name ...>` (`name="v"` or `name='v'`).
    static func attributes(ofElement name: String, in text: String) -> [String: String]? {
        let chars = Array(text.utf8)
        let open = Array("<\(name)".utf8)
        var i = 0
        while i + open.count <= chars.count {
            if chars[i] == UInt8(ascii: "<") && Array(chars[i ..< i + open.count]) == open {
                let after = i + open.count
                if after < chars.count, isNameEnd(chars[after]) { return parseAttributes(chars, from: after) }
            }
            i += 1
        }
        return nil
    }

    private static func isNameEnd(_ c: UInt8) -> Bool {
        c == UInt8(ascii: " ") || c == UInt8(ascii: "\t") || c == UInt8(ascii: "\n") || c == UInt8(ascii: "\r")
            || c == UInt8(ascii: "/") || c == UInt8(ascii: ">")
    }

    private static func parseAttributes(_ c: [UInt8], from start: Int) -> [String: String] {
        var result: [String: String] = [:]
        var i = start
        while i < c.count {
            while i < c.count, c[i] == 32 || c[i] == 9 || c[i] == 10 || c[i] == 13 { i += 1 }
            guard i < c.count, c[i] != UInt8(ascii: ">"), c[i] != UInt8(ascii: "/") else { break }
            let nameStart = i
            while i < c.count, c[i] != UInt8(ascii: "="), c[i] != UInt8(ascii: ">"), !isNameEnd(c[i]) { i += 1 }
            let key = String(decoding: c[nameStart ..< i], as: UTF8.self)
            while i < c.count, c[i] == 32 || c[i] == 9 || c[i] == 10 || c[i] == 13 { i += 1 }
            guard i < c.count, c[i] == UInt8(ascii: "=") else { i += 1; continue }
            i += 1
            while i < c.count, c[i] == 32 || c[i] == 9 || c[i] == 10 || c[i] == 13 { i += 1 }
            guard i < c.count, c[i] == UInt8(ascii: "\"") || c[i] == UInt8(ascii: "'") else { break }
            let quote = c[i]
            i += 1
            let valueStart = i
            while i < c.count, c[i] != quote { i += 1 }
            result[key] = String(decoding: c[valueStart ..< min(i, c.count)], as: UTF8.self)
            i += 1
        }
        return result
    }
}

extension TilePyramidOptions {
    /// The encoder threads ``encoderThreads`` asks for on `processors` processors (at least one).
    func encoderThreadCount(processors: Int = Processors.online) -> Int {
        max(1, encoderThreads ?? processors - 1)
    }
}
