/// GIF interlacing (GIF89a appendix E): rows are stored in four passes, every 8th row from
/// row 0, every 8th from row 4, every 4th from row 2, every 2nd from row 1. The decoder keeps
/// rows in stored ("ordinal") order in its index buffer and maps them to frame rows here.
///
/// ```swift
/// let map = InterlaceMap(height: 10)
/// map.row(ordinal: 1)    // 8: the second row of pass 0
/// map.passEnds           // [2, 3, 5, 10]: ordinals that complete each pass
/// ```
@_spi(Testing) public struct InterlaceMap: Sendable, Equatable {
    static let passStarts = [0, 4, 2, 1]
    static let passSteps = [8, 8, 4, 2]

    /// The frame's height in rows.
    public let height: Int
    /// `passEnds[k]`: the number of stored rows once pass `k` is complete.
    public let passEnds: [Int]

    /// The map for a frame of `height` rows.
    public init(height: Int) {
        self.height = height
        var ends: [Int] = []
        var total = 0
        for k in 0 ..< 4 {
            total += InterlaceMap.rowCount(pass: k, height: height)
            ends.append(total)
        }
        passEnds = ends
    }

    /// Rows of a frame of `height` rows that pass `pass` holds.
    static func rowCount(pass: Int, height: Int) -> Int {
        let start = passStarts[pass], step = passSteps[pass]
        return height > start ? (height - start + step - 1) / step : 0
    }

    /// The frame row of stored row `ordinal` (0 ..< height).
    public func row(ordinal: Int) -> Int {
        var base = 0
        for k in 0 ..< 4 {
            if ordinal < passEnds[k] { return InterlaceMap.passStarts[k] + (ordinal - base) * InterlaceMap.passSteps[k] }
            base = passEnds[k]
        }
        return ordinal
    }

    /// The stored position of frame row `row`.
    public func ordinal(row: Int) -> Int {
        if row & 7 == 0 { return row >> 3 }
        if row & 7 == 4 { return passEnds[0] + (row >> 3) }
        if row & 3 == 2 { return passEnds[1] + (row >> 2) }
        return passEnds[2] + (row >> 1)
    }

    /// The pass stored row `ordinal` belongs to.
    public func pass(ordinal: Int) -> Int {
        for k in 0 ..< 4 where ordinal < passEnds[k] { return k }
        return 3
    }

    /// For a preview with `decoded` stored rows complete: the decoded row that stands in for
    /// frame row `row` (itself if decoded), or nil. Browsers replicate each row of an
    /// unfinished pass down over the rows the later passes will fill, within its 8-row block.
    public func standIn(row: Int, decoded: Int) -> Int? {
        var r = row
        let blockStart = row & ~7
        while r >= blockStart {
            if ordinal(row: r) < decoded { return r }
            r -= 1
        }
        return nil
    }
}
