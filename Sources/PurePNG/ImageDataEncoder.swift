/// The IDAT stage: filters each scanline (PNG 9.2, 12.8) and deflates it (PNG 10) into
/// IDAT chunks. The caller packs a row into ``currentRow`` and calls ``encodeRow(into:)``.
///
/// A class because it owns native memory (row buffers, the zlib stream) that must be freed
/// exactly once; value semantics for ``PNGStreamEncoder`` come from copy-on-write via
/// ``init(copying:)``. `@unchecked Sendable` for the reason given on ``Deflater``: one owner,
/// cloned before any mutation when shared.
final class ImageDataEncoder: @unchecked Sendable {
    enum FilterMode: Equatable, Sendable {
        case fixed(UInt8)
        case adaptive
    }

    let layout: EncodedLayout
    let mode: FilterMode
    /// The largest row any pass will use.
    let capacity: Int
    private let deflater: Deflater
    private let bpp: Int
    private var rowBytes = 0
    /// Current and previous row, each with ``ForwardFilter/leadingPadding`` zero bytes in front.
    private var cur: UnsafeMutablePointer<UInt8>
    private var prev: UnsafeMutablePointer<UInt8>
    /// One buffer per filter type 0...4: the type byte, then the filtered row.
    private let candidates: UnsafeMutablePointer<UInt8>
    private var candidateStride: Int { capacity + 1 }

    init(layout: EncodedLayout, mode: FilterMode, level: Int, capacity: Int) throws(PNGError) {
        self.layout = layout
        self.mode = mode
        self.capacity = capacity
        bpp = layout.filterBytesPerPixel
        let strategy: Deflater.Strategy = mode == .fixed(ForwardFilter.none) ? .standard : .filtered
        deflater = try Deflater(level: level, strategy: strategy)
        let padded = ForwardFilter.leadingPadding + capacity + 16
        let curBase = UnsafeMutablePointer<UInt8>.allocate(capacity: padded)
        curBase.initialize(repeating: 0, count: padded)
        let prevBase = UnsafeMutablePointer<UInt8>.allocate(capacity: padded)
        prevBase.initialize(repeating: 0, count: padded)
        cur = curBase + ForwardFilter.leadingPadding
        prev = prevBase + ForwardFilter.leadingPadding
        candidates = .allocate(capacity: 5 * (capacity + 1))
        candidates.initialize(repeating: 0, count: 5 * (capacity + 1))
        for t in 0 ..< 5 { candidates[t * (capacity + 1)] = UInt8(t) }
    }

    /// A deep copy: zlib state, pending output and both rows.
    init(copying other: ImageDataEncoder) throws(PNGError) {
        layout = other.layout
        mode = other.mode
        capacity = other.capacity
        bpp = other.bpp
        rowBytes = other.rowBytes
        deflater = try Deflater(copying: other.deflater)
        let padded = ForwardFilter.leadingPadding + capacity + 16
        let curBase = UnsafeMutablePointer<UInt8>.allocate(capacity: padded)
        curBase.initialize(from: other.cur - ForwardFilter.leadingPadding, count: padded)
        let prevBase = UnsafeMutablePointer<UInt8>.allocate(capacity: padded)
        prevBase.initialize(from: other.prev - ForwardFilter.leadingPadding, count: padded)
        cur = curBase + ForwardFilter.leadingPadding
        prev = prevBase + ForwardFilter.leadingPadding
        candidates = .allocate(capacity: 5 * (capacity + 1))
        candidates.initialize(from: other.candidates, count: 5 * (capacity + 1))
    }

    deinit {
        (cur - ForwardFilter.leadingPadding).deallocate()
        (prev - ForwardFilter.leadingPadding).deallocate()
        candidates.deallocate()
    }

    /// Starts an image or an Adam7 pass (PNG 8.2: each pass is filtered as an image of its own,
    /// so its first row sees a zero row above).
    func beginPass(rowBytes: Int) {
        self.rowBytes = min(rowBytes, capacity)
        prev.update(repeating: 0, count: capacity)
    }

    /// Where the caller packs the next scanline (``beginPass(rowBytes:)``'s length).
    var currentRow: UnsafeMutablePointer<UInt8> { cur }

    /// Filters and compresses ``currentRow``; finished IDAT chunks are appended to `w`.
    func encodeRow(into w: inout ChunkWriter) throws(PNGError) {
        try encodeRow { w.append(.IDAT, $0) }
    }

    /// Filters and compresses ``currentRow``, handing each full block of compressed bytes to
    /// `sink` (APNG frames after the first go to fdAT chunks, not IDAT).
    func encodeRow(sink: (UnsafeRawBufferPointer) -> Void) throws(PNGError) {
        let n = rowBytes
        let type: UInt8
        switch mode {
        case .fixed(let t):
            type = t
            if t == ForwardFilter.none {
                (candidates + 1).update(from: cur, count: n)
            } else {
                ForwardFilter.filter(t, cur: cur, prev: prev, count: n, bpp: bpp,
                                     out: candidates + Int(t) * candidateStride + 1)
            }
        case .adaptive:
            let s = candidateStride
            var costs = (0, 0, 0, 0, 0)
            ForwardFilter.filterAll(cur: cur, prev: prev, count: n, bpp: bpp,
                                    sub: candidates + s + 1, up: candidates + 2 * s + 1,
                                    average: candidates + 3 * s + 1, paeth: candidates + 4 * s + 1,
                                    costs: &costs)
            type = ForwardFilter.choose(costs)
            if type == ForwardFilter.none { (candidates + 1).update(from: cur, count: n) }
        }
        let chosen = UnsafeRawBufferPointer(start: candidates + Int(type) * candidateStride, count: n + 1)
        try deflater.write(chosen, sink: sink)
        swap(&cur, &prev)
    }

    /// Ends the zlib stream and writes the last IDAT chunk.
    func finish(into w: inout ChunkWriter) throws(PNGError) {
        try finish { w.append(.IDAT, $0) }
    }

    /// Ends the zlib stream, handing what is still pending to `sink`.
    func finish(sink: (UnsafeRawBufferPointer) -> Void) throws(PNGError) {
        try deflater.finish(sink: sink)
    }
}
