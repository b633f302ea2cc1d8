/// One level of a pyramid being built: the rows of its current tile row (at most
/// `tileSize + 2 * overlap` of them) and the half-finished 2x2 average of the level below.
///
/// Rows arrive top to bottom. When the last row a tile row needs has arrived (its overlap rows
/// below included), ``cutTileRow()`` hands out that row's tiles and keeps only the rows the next
/// tile row shares with it (its top overlap). ``reduce(_:y:)`` turns pairs of rows into the
/// rows of the next smaller level. Buffers are allocated once, so memory depends on the width
/// and the tile size, never on the height.
final class PyramidLevel {
    let level: Int
    let width: Int
    let height: Int
    let format: PixelFormat
    let channels: Int
    let rowBytes: Int
    let geometry: TilePyramidGeometry
    let tileColumns: Int
    let tileRows: Int

    /// Rows `firstRow ..< received`, one after the other.
    private let rows: UnsafeMutableRawPointer
    private let capacity: Int
    private(set) var firstRow = 0
    private(set) var received = 0
    private(set) var nextTileRow = 0

    /// Width of the level below (0 for level 0, which has none).
    let reducedWidth: Int
    /// The pending even row (`rowBytes`), waiting for the odd row below it.
    private let pending: UnsafeMutablePointer<UInt8>
    /// Vertical pair sums of the current row pair (`rowBytes`).
    private let sums: UnsafeMutablePointer<UInt16>
    private let reduced: UnsafeMutablePointer<UInt8>

    init(level: Int, geometry: TilePyramidGeometry, format: PixelFormat) {
        self.level = level
        self.geometry = geometry
        (width, height) = geometry.size(ofLevel: level)
        (tileColumns, tileRows) = geometry.tileCount(ofLevel: level)
        self.format = format
        channels = format.channels
        rowBytes = width * channels
        capacity = min(geometry.tileSize + 2 * geometry.overlap, height)
        rows = UnsafeMutableRawPointer.allocate(byteCount: max(capacity * rowBytes, 1), alignment: 16)
        reducedWidth = level > 0 ? (width + 1) / 2 : 0
        pending = UnsafeMutablePointer<UInt8>.allocate(capacity: level > 0 ? max(rowBytes, 1) : 1)
        sums = UnsafeMutablePointer<UInt16>.allocate(capacity: level > 0 ? max(rowBytes, 1) : 1)
        reduced = UnsafeMutablePointer<UInt8>.allocate(capacity: max(reducedWidth * channels, 1))
    }

    deinit {
        rows.deallocate()
        pending.deallocate()
        sums.deallocate()
        reduced.deallocate()
    }

    /// Bytes this level holds, for the memory figure in the notes.
    var bufferBytes: Int { capacity * rowBytes + (reducedWidth > 0 ? 3 * rowBytes : 0) + reducedWidth * channels }

    var isComplete: Bool { received == height }

    /// Copies row `received` in (`rowBytes` bytes).
    func append(_ row: UnsafePointer<UInt8>) {
        // Cutting a tile row as soon as its last row arrives keeps the held rows below capacity.
        let slot = received - firstRow
        guard slot < capacity, received < height else { return }
        (rows + slot * rowBytes).copyMemory(from: row, byteCount: rowBytes)
        received += 1
    }

    /// Whether every row of the next tile row has arrived.
    var tileRowReady: Bool {
        nextTileRow < tileRows && received >= geometry.span(nextTileRow, length: height).upperBound
    }

    /// The tiles of the next tile row, left to right, then forgets the rows only it needed.
    func cutTileRow() -> (row: Int, tiles: [Image]) {
        let r = nextTileRow
        let ys = geometry.span(r, length: height)
        var tiles: [Image] = []
        tiles.reserveCapacity(tileColumns)
        let bpp = channels
        for c in 0 ..< tileColumns {
            let xs = geometry.span(c, length: width)
            let tileRowBytes = xs.count * bpp
            let pixels = [UInt8](unsafeUninitializedCapacity: tileRowBytes * ys.count) { buffer, count in
                guard let out = buffer.baseAddress else { count = 0; return }
                for (i, y) in ys.enumerated() {
                    let src = rows + (y - firstRow) * rowBytes + xs.lowerBound * bpp
                    UnsafeMutableRawPointer(out + i * tileRowBytes).copyMemory(from: src, byteCount: tileRowBytes)
                }
                count = tileRowBytes * ys.count
            }
            tiles.append(Image(width: xs.count, height: ys.count, format: format, pixels: pixels))
        }
        nextTileRow += 1
        let keepFrom = nextTileRow < tileRows ? geometry.span(nextTileRow, length: height).lowerBound : received
        let kept = received - keepFrom
        if kept > 0 {
            // Overlapping move (memmove semantics): the kept rows are the top overlap of the next tile row.
            rows.copyMemory(from: rows + (keepFrom - firstRow) * rowBytes, byteCount: kept * rowBytes)
        }
        firstRow = keepFrom
        return (r, tiles)
    }

    /// Feeds row `y` of this level to the 2x2 average; returns row `y / 2` of the level below
    /// once it is complete (after an odd row, or after the last row when the height is odd).
    ///
    /// Each output pixel is the rounded mean `(sum + n / 2) / n` of the n (1, 2 or 4) pixels
    /// of this level it covers, so odd edges average only the pixels that exist. A missing
    /// partner (last row or column of an odd size) is counted as a copy of the pixel it pairs
    /// with: `(2s + 2) >> 2 == (s + 1) >> 1` and `(4a + 2) >> 2 == a`, the same rounded mean
    /// with one formula for every pixel.
    func reduce(_ row: UnsafePointer<UInt8>, y: Int) -> UnsafePointer<UInt8>? {
        guard reducedWidth > 0 else { return nil }
        if y % 2 == 0 && y != height - 1 {
            pending.update(from: row, count: rowBytes)
            return nil
        }
        // Vertical sums first, over contiguous samples (the loop the compiler vectorizes);
        // the horizontal step then runs once per output row instead of once per input row.
        let n = rowBytes
        if y % 2 == 1 {
            for i in 0 ..< n { sums[i] = UInt16(pending[i]) &+ UInt16(row[i]) }
        } else {
            for i in 0 ..< n { sums[i] = UInt16(row[i]) &<< 1 }
        }
        // A literal channel count per layout lets the compiler unroll the horizontal loop.
        switch channels {
        case 1: horizontal(channels: 1)
        case 2: horizontal(channels: 2)
        case 3: horizontal(channels: 3)
        default: horizontal(channels: 4)
        }
        return UnsafePointer(reduced)
    }

    @inline(__always)
    private func horizontal(channels ch: Int) {
        let pairs = width / 2
        for x in 0 ..< pairs {
            let s = x &* 2 &* ch, d = x &* ch
            for k in 0 ..< ch {
                reduced[d &+ k] = UInt8(truncatingIfNeeded: (sums[s &+ k] &+ sums[s &+ ch &+ k] &+ 2) >> 2)
            }
        }
        if width % 2 == 1 {
            let s = pairs &* 2 &* ch, d = pairs &* ch
            for k in 0 ..< ch { reduced[d &+ k] = UInt8(truncatingIfNeeded: (sums[s &+ k] &<< 1 &+ 2) >> 2) }
        }
    }
}
