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
    /// Banded output (``ImageDataBands``): where bands end, and the filtered bytes of the
    /// band so far and of the last 32 KiB (the next band's dictionary).
    private let bands: ImageDataBands?
    private var rowsEncoded = 0
    private var bandFilled = 0
    private var history: [UInt8] = []

    /// An engine for a whole image data stream: banded as `bands` says (nil: one zlib stream,
    /// as APNG frames are written), or, with `framing` ``Deflater/Framing/raw``, for one band
    /// of a stream compressed on several threads.
    init(layout: EncodedLayout, mode: FilterMode, level: Int, capacity: Int,
         bands: ImageDataBands? = nil, framing: Deflater.Framing? = nil) throws(PNGError) {
        self.layout = layout
        self.mode = mode
        self.capacity = capacity
        self.bands = bands
        bpp = layout.filterBytesPerPixel
        let strategy: Deflater.Strategy = mode == .fixed(ForwardFilter.none) ? .standard : .filtered
        deflater = try Deflater(level: level, strategy: strategy,
                                framing: framing ?? (bands.map { $0.count > 1 } == true ? .zlibAroundRaw : .zlib))
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
        bands = other.bands
        rowsEncoded = other.rowsEncoded
        bandFilled = other.bandFilled
        history = other.history
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
        let chosen = filterRow()
        try deflater.write(chosen, sink: sink)
        guard let bands, bands.count > 1 else { return }
        rowsEncoded += 1
        bandFilled += chosen.count
        appendToHistory(chosen)
        if bands.endsBand(filled: bandFilled, rowsEncoded: rowsEncoded) {
            try deflater.endBand(passingOut: false, sink: sink)
            let start = max(0, history.count - Deflater.windowSize)
            try history.withPNGBytes { (raw) throws(PNGError) in
                try deflater.restart(dictionary: UnsafeRawBufferPointer(rebasing: raw[start...]))
            }
            bandFilled = 0
        }
    }

    /// Filters ``currentRow`` against the row before it and returns the filter-type byte and
    /// the filtered row (valid until the next call); the row becomes the previous row.
    func filterRow() -> UnsafeRawBufferPointer {
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
        swap(&cur, &prev)
        return UnsafeRawBufferPointer(start: candidates + Int(type) * candidateStride, count: n + 1)
    }

    /// Makes ``currentRow`` the previous row without filtering it (a band compressed on its own
    /// starts from the row above its first).
    func skipRow() { swap(&cur, &prev) }

    /// Keeps at least the last ``Deflater/windowSize`` filtered bytes; trims only when the
    /// buffer holds twice that, so each byte moves at most once.
    private func appendToHistory(_ bytes: UnsafeRawBufferPointer) {
        history.append(contentsOf: bytes)
        let window = Deflater.windowSize
        if history.count >= 2 * window { history.removeFirst(history.count - window) }
    }

    /// The compressor, for the band compressed on another thread.
    var compressor: Deflater { deflater }

    /// Ends the zlib stream and writes the last IDAT chunk.
    func finish(into w: inout ChunkWriter) throws(PNGError) {
        try finish { w.append(.IDAT, $0) }
    }

    /// Ends the zlib stream, handing what is still pending to `sink`.
    func finish(sink: (UnsafeRawBufferPointer) -> Void) throws(PNGError) {
        try deflater.finish(sink: sink)
    }
}
