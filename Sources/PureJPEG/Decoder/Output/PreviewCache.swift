import ImageCore
#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// What the last coefficient render left behind, for the next one, so that a preview after
/// each progressive scan costs what the scan changed rather than a whole render:
///
/// - every component's samples (the whole plane, IDCT output) and, for components that need
///   it, the plane upsampled to output size;
/// - the finished image, updated in place when nobody else holds its pixels (a caller that
///   keeps the last preview gets it unchanged: the update then starts from a copy);
/// - a change map: one byte per coefficient block of every component, in coefficient order,
///   set by the entropy decoder when a scan changes the block (``BlockSink/coefficients(_:_:)``).
///
/// A render re-runs the IDCT of the marked blocks only, upsamples the output rows and columns
/// whose input samples (or their neighbours, for the triangle filter) are in a marked block,
/// colour-converts the output spans any component changed, then clears the map. The first
/// render marks everything; before it there is no map (a decode that never asks for a preview
/// does no marking and keeps its old memory footprint).
///
/// The box belongs to one decoder value at a time as far as changes go: copies of a
/// ``JPEGDecoder`` share it (it is a class so that the non-mutating `preview()` can fill it),
/// and a decoder about to change coefficients takes a fresh cache if the box is shared
/// (``JPEGDecoder/prepareCoefficientChange()``). So whoever renders from a shared box holds
/// exactly the coefficients the box was made from. The state sits behind a mutex because
/// copies may render from different threads. (A pthread mutex: `Synchronization.Mutex` needs
/// macOS 15.)
final class PreviewCache: @unchecked Sendable {
    struct State {
        /// Per component: IDCT output for the whole plane, and (components that need it) the
        /// upsampled plane at output size; owned here, freed in `deinit`.
        var planes: [UnsafeMutableBufferPointer<UInt8>] = []
        var upsampled: [UnsafeMutableBufferPointer<UInt8>] = []
        /// The change map (empty until the first render).
        var changes = UnsafeMutableBufferPointer<UInt8>(start: nil, count: 0)
        /// Per component and output row: the input rows it is made from (near and far, the same
        /// row unless the vertical triangle filter is in use), at `2 * (c * height + y)` and the
        /// next entry; owned here. Their block rows are these shifted right by ``blockShift(_:)``
        /// (IDCT output sizes are powers of two).
        var sourceRows = UnsafeMutableBufferPointer<Int>(start: nil, count: 0)
        /// Per component and block row: the output rows made from it (empty for padding rows).
        var outputRows: [[Range<Int>]] = []
        /// Output rows the last render visited (for tests).
        var rowsVisited = 0
        /// Per component: the block rows that may hold marks (the hull of the MCU rows decoded
        /// since the last render), so that a render after a few MCUs costs those rows only.
        var markedRows: [Range<Int>] = []

        /// Widens component `c`'s marked rows to cover `rows`.
        mutating func noteMarked(_ c: Int, rows: Range<Int>) {
            guard c < markedRows.count, c < outputRows.count else { return }
            let rows = rows.clamped(to: 0 ..< outputRows[c].count)
            guard !rows.isEmpty else { return }
            let old = markedRows[c]
            markedRows[c] = old.isEmpty ? rows : min(old.lowerBound, rows.lowerBound) ..< max(old.upperBound, rows.upperBound)
        }
        var image: Image?

        /// `count` zeroed bytes.
        static func allocate(_ count: Int) -> UnsafeMutableBufferPointer<UInt8> {
            let buffer = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: max(count, 1))
            buffer.initialize(repeating: 0)
            return UnsafeMutableBufferPointer(rebasing: buffer[0 ..< count])
        }

        mutating func release() {
            for buffer in planes + upsampled + [changes] { buffer.baseAddress?.deallocate() }
            sourceRows.baseAddress?.deallocate()
            self = State()
        }
    }

    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    /// Only touched inside ``withLock(_:)``.
    private var state = State()

    init() {
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        state.release()
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// Whether a render has filled the cache (from then on changes are tracked).
    var isTracking: Bool { withLock { $0.image != nil } }

    /// The change map for the entropy decoder to mark, nil before the first render. Only the
    /// decoder holding the box alone may write through it (see the type's notes).
    var changeMap: UnsafeMutablePointer<UInt8>? { withLock { $0.changes.baseAddress } }

    func withLock<R>(_ body: (inout State) -> R) -> R {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return body(&state)
    }
}

extension JPEGDecoder {
    /// Called before a scan may change coefficients: a cache shared with a copy of this decoder
    /// stays with the copy (it matches the copy's coefficients, which this scan does not
    /// change), and this decoder starts a new one. Returns the change map to mark, if any.
    mutating func prepareCoefficientChange() -> UnsafeMutablePointer<UInt8>? {
        if !isKnownUniquelyReferenced(&coefficientState.previewCache) { coefficientState.previewCache = PreviewCache() }
        return coefficientState.previewCache.changeMap
    }

    /// After the render at EOI no coefficient changes any more: a cache this decoder holds
    /// alone has nothing left to do (the final image is kept by the decoder).
    mutating func releasePreviewCache() {
        if isKnownUniquelyReferenced(&coefficientState.previewCache), coefficientState.previewCache.isTracking { coefficientState.previewCache = PreviewCache() }
    }

    /// Bytes of the buffers a cached render keeps besides the image.
    func cachedPlaneBytes(frame: Frame, geometry: OutputGeometry) -> Int {
        var total = frame.blockCount + geometry.height * frame.components.count * 16
        for (c, fc) in frame.components.enumerated() {
            let gc = geometry.components[c]
            total += gc.stride * fc.paddedBlocksHigh * gc.blockSize
            if gc.hUp != 1 || gc.vUp != 1 { total += geometry.width * geometry.height }
        }
        return total
    }

    /// ``render(frame:geometry:)`` through the cache: only what changed since the last render
    /// is redone. `fill` false only reads the cache (the render at EOI of a decode that never
    /// asked for a preview keeps its old memory footprint and path).
    /// Falls back to the plain render when the cached buffers would break ``DecodingLimits``.
    func cachedRender(frame: Frame, geometry: OutputGeometry, fill: Bool) -> Image {
        let planeBytes = cachedPlaneBytes(frame: frame, geometry: geometry)
        let extra = geometry.workingBytes + frame.coefficientBytes + planeBytes
        let fits = limits.check(width: geometry.width, height: geometry.height,
                                bytesPerPixel: geometry.format.bytesPerPixel, extraBytes: extra) == nil
        let n = frame.components.count
        let cached: Image? = coefficientState.previewCache.withLock { state -> Image? in
            if state.image == nil {
                guard fill && fits, n == geometry.components.count, coefficientState.firstBlocks.count == n else { return nil }
                state.release()
                for (c, fc) in frame.components.enumerated() {
                    let gc = geometry.components[c]
                    state.planes.append(PreviewCache.State.allocate(gc.stride * fc.paddedBlocksHigh * gc.blockSize))
                    let upsample = gc.hUp != 1 || gc.vUp != 1
                    state.upsampled.append(PreviewCache.State.allocate(upsample ? geometry.width * geometry.height : 0))
                }
                state.changes = PreviewCache.State.allocate(frame.blockCount)
                state.changes.update(repeating: 1)
                state.markedRows = frame.components.map { 0 ..< $0.paddedBlocksHigh }
                let height = geometry.height
                state.sourceRows = UnsafeMutableBufferPointer<Int>.allocate(capacity: max(2 * n * height, 1))
                for (c, gc) in geometry.components.enumerated() {
                    let upsample = gc.hUp != 1 || gc.vUp != 1
                    for y in 0 ..< height {
                        let (near, far) = upsample
                            ? Upsample.sourceRows(of: y, h: gc.hUp, v: gc.vUp, fancy: geometry.fancy, inputWidth: gc.width,
                                                  inputHeight: gc.height)
                            : (y, y)
                        state.sourceRows[2 * (c * height + y)] = near
                        state.sourceRows[2 * (c * height + y) + 1] = far
                    }
                }
                state.outputRows = frame.components.enumerated().map { c, fc in
                    var rows = [Range<Int>](repeating: 0 ..< 0, count: fc.paddedBlocksHigh)
                    let shift = Self.blockShift(geometry.components[c])
                    for y in 0 ..< height {
                        let key = (state.sourceRows[2 * (c * height + y)] >> shift, state.sourceRows[2 * (c * height + y) + 1] >> shift)
                        for by in [key.0, key.1] where by < rows.count {
                            rows[by] = rows[by].isEmpty ? y ..< y + 1 : min(rows[by].lowerBound, y) ..< max(rows[by].upperBound, y + 1)
                        }
                    }
                    return rows
                }
            } else if state.markedRows.allSatisfy(\.isEmpty), let image = state.image {
                return image
            }
            // Moved out of the cache, so that pixels nobody else holds are updated in place.
            var image = state.image ?? Image.unfilled(width: geometry.width, height: geometry.height, format: geometry.format)
            state.image = nil
            state.rowsVisited = renderChanges(frame: frame, geometry: geometry, state: state, into: &image)
            // Clear the rows that may hold marks.
            if let changes = state.changes.baseAddress {
                for (c, fc) in frame.components.enumerated() where c < state.markedRows.count {
                    let rows = state.markedRows[c]
                    (changes + coefficientState.firstBlocks[c] + rows.lowerBound * fc.paddedBlocksWide)
                        .update(repeating: 0, count: rows.count * fc.paddedBlocksWide)
                    state.markedRows[c] = 0 ..< 0
                }
            }
            state.image = image
            return image
        }
        guard var image = cached else { return render(frame: frame, geometry: geometry) }
        image.metadata = metadata
        return image
    }

    /// log2 of a component's IDCT output size (8, 4, 2 or 1): input row >> shift is its block row.
    static func blockShift(_ component: OutputGeometry.Component) -> Int {
        component.blockSize.trailingZeroBitCount
    }

    /// The IDCT of every marked block into the cached planes, then, row by row, upsampling of
    /// the spans whose inputs changed and colour conversion of every span any component changed.
    /// Returns how many output rows it visited.
    private func renderChanges(frame: Frame, geometry g: OutputGeometry, state: PreviewCache.State,
                               into image: inout Image) -> Int {
        guard let changes = state.changes.baseAddress else { return 0 }
        let blockRows = frame.components.enumerated().map { c, fc in
            (marks: changes + coefficientState.firstBlocks[c], wide: fc.paddedBlocksWide)
        }
        let store = coefficientState.store
        let expanded = UnsafeMutablePointer<Int16>.allocate(capacity: 128)
        expanded.initialize(repeating: 0, count: 128)
        defer { expanded.deallocate() }
        withExtendedLifetime(store) {
            tables.componentQuant.withUnsafeBufferPointer { quant in
                guard let q = quant.baseAddress, store.counts.count == frame.components.count else { return }
                for (c, fc) in frame.components.enumerated() {
                    guard let plane = state.planes[c].baseAddress else { continue }
                    let gc = g.components[c]
                    let kernels = JPEGKernels.select(scale: gc.blockSize, useSIMD: useSIMD)
                    let idct = kernels.idct, direct = kernels.isSIMD8x8
                    let marks = blockRows[c].marks
                    for by in state.markedRows[c] {
                        var index = by * fc.paddedBlocksWide
                        let step = fc.valuesPerBlock
                        // Compact blocks go through a 64-value block (CompactBlock), DC-only ones as they are.
                        let compact = step != 64
                        var block = UnsafePointer(store.planes[c] + by * fc.paddedBlocksWide * step)
                        var target = plane + by * gc.blockSize * gc.stride
                        for _ in 0 ..< fc.paddedBlocksWide {
                            // The full-size vector IDCT called directly, as the streaming path does
                            // (not through the kernel closure's thunk).
                            if marks[index] != 0 && compact {
                                // Only kept positions are written: DC-only blocks stay apart from 2x2 ones.
                                let scratch = step == 1 || step == 5 ? expanded + 64 : expanded
                                CompactBlock.expand(block, valuesPerBlock: step, into: scratch, history: false)
                                idct(scratch, q + c * JPEGKernels.quantStride, target, gc.stride)
                            } else if marks[index] != 0 {
                                if direct {
                                    IDCTSIMD.idct8x8(block, q + c * JPEGKernels.quantStride, target, gc.stride)
                                } else {
                                    idct(block, q + c * JPEGKernels.quantStride, target, gc.stride)
                                }
                            }
                            index &+= 1
                            block += step
                            target += gc.blockSize
                        }
                    }
                }
            }
        }

        // Per component and block row, the runs of marked blocks (runs up to `joinedBlocks`
        // clean blocks apart joined: the kernels work 16 or more samples a step, so short spans
        // would mostly run their scalar tails), found once per render.
        // runStart[c][k] is where the runs of block row markedRows[c].lowerBound + k begin.
        var runs: [Range<Int>] = []
        var runStart: [[Int]] = []
        for (c, fc) in frame.components.enumerated() {
            var starts: [Int] = []
            starts.reserveCapacity(state.markedRows[c].count + 1)
            let wide = fc.paddedBlocksWide
            for by in state.markedRows[c] {
                starts.append(runs.count)
                let row = blockRows[c].marks + by * wide
                var bx = 0
                while bx < wide {
                    // Eight clean blocks at a time.
                    if bx &+ 8 <= wide && UnsafeRawPointer(row + bx).loadUnaligned(as: UInt64.self) == 0 {
                        bx &+= 8
                        continue
                    }
                    guard row[bx] != 0 else { bx &+= 1; continue }
                    let start = bx
                    var clean = 0
                    while bx < wide && clean <= Self.joinedBlocks {
                        clean = row[bx] != 0 ? 0 : clean &+ 1
                        bx &+= 1
                    }
                    runs.append(start ..< bx &- clean)
                }
            }
            starts.append(runs.count)
            runStart.append(starts)
        }

        // Per component, the spans of the current output row: input samples to upsample, and
        // output pixels to convert. They depend only on the block rows the output row reads,
        // so they are worked out again only when those change.
        struct Spans {
            var rows = (-1, -1)
            var samples: [Range<Int>] = []
            var pixels: [Range<Int>] = []
        }
        var spans = [Spans](repeating: Spans(), count: frame.components.count)
        var blockRuns: [Range<Int>] = []
        // Only output rows made from a block row with a run are visited (a preview after a
        // few changed blocks costs those, not a pass over every row of a tall image).
        var rowRanges: [Range<Int>] = []
        for c in 0 ..< frame.components.count {
            for k in 0 ..< runStart[c].count - 1 where runStart[c][k] < runStart[c][k + 1] {
                rowRanges.append(state.outputRows[c][state.markedRows[c].lowerBound + k])
            }
        }
        /// The runs of block row `by` of component `c` (none outside its marked rows).
        func rowRuns(_ c: Int, _ by: Int) -> ArraySlice<Range<Int>> {
            let k = by - state.markedRows[c].lowerBound
            guard k >= 0, k < runStart[c].count - 1 else { return [] }
            return runs[runStart[c][k] ..< runStart[c][k + 1]]
        }
        rowRanges.sort { $0.lowerBound < $1.lowerBound }
        var visited: [Range<Int>] = []
        for range in rowRanges where !range.isEmpty {
            if let last = visited.last, range.lowerBound <= last.upperBound {
                visited[visited.count - 1] = last.lowerBound ..< max(last.upperBound, range.upperBound)
            } else {
                visited.append(range)
            }
        }
        var union: [Range<Int>] = []
        let bpp = g.format.bytesPerPixel
        // Per component, fixed for the render: the block-row shift, whether it is upsampled, and
        // the rows the conversion reads (upsampled plane or IDCT plane) with their stride.
        let n = g.components.count
        let shifts = g.components.map { Self.blockShift($0) }
        let isUpsampled = g.components.map { $0.hUp != 1 || $0.vUp != 1 }
        let rowBases = (0 ..< n).map { isUpsampled[$0] ? state.upsampled[$0].baseAddress : state.planes[$0].baseAddress }
        let rowStrides = (0 ..< n).map { isUpsampled[$0] ? g.width : g.components[$0].stride }
        guard let sources = state.sourceRows.baseAddress else { return 0 }
        var scratch = [UInt8](repeating: 0, count: max(g.width * 4, 1))
        let rows = UnsafeMutablePointer<UnsafePointer<UInt8>>.allocate(capacity: 4)
        rows.initialize(repeating: UnsafePointer(changes), count: 4)
        defer { rows.deallocate() }
        image.pixels.withUnsafeMutableBufferPointer { pixels in
            scratch.withUnsafeMutableBufferPointer { scratchBuffer in
                guard let out = pixels.baseAddress, let scratchBase = scratchBuffer.baseAddress else { return }
                for y in visited.joined() {
                    var changed = false
                    for c in 0 ..< n {
                        let at = 2 * (c * g.height + y), shift = shifts[c]
                        let key = (sources[at] >> shift, sources[at + 1] >> shift)
                        guard key != spans[c].rows else { continue }
                        changed = true
                        spans[c].rows = key
                        let gc = g.components[c]
                        // The triangle filter reads one sample either side.
                        let margin = isUpsampled[c] ? 1 : 0
                        spans[c].samples.removeAll(keepingCapacity: true)
                        spans[c].pixels.removeAll(keepingCapacity: true)
                        let first = rowRuns(c, key.0)
                        if key.0 == key.1 {
                            blockRuns.removeAll(keepingCapacity: true)
                            blockRuns.append(contentsOf: first)
                        } else {
                            Self.merge(first, rowRuns(c, key.1), into: &blockRuns)
                        }
                        for run in blockRuns {
                            let lower = max(run.lowerBound * gc.blockSize - margin, 0)
                            let upper = min(run.upperBound * gc.blockSize + margin, gc.width)
                            guard lower < upper else { continue }
                            spans[c].samples.append(lower ..< upper)
                            let right = upper == gc.width ? g.width : min(upper * gc.hUp, g.width)
                            spans[c].pixels.append(min(lower * gc.hUp, g.width) ..< right)
                        }
                    }
                    for c in 0 ..< n where isUpsampled[c] && !spans[c].samples.isEmpty {
                        guard let plane = state.planes[c].baseAddress, let up = state.upsampled[c].baseAddress else { continue }
                        let gc = g.components[c]
                        let near = sources[2 * (c * g.height + y)], far = sources[2 * (c * g.height + y) + 1]
                        for span in spans[c].samples {
                            Upsample.upsampleSpan(h: gc.hUp, v: gc.vUp, fancy: g.fancy, inputWidth: gc.width,
                                                  outputWidth: g.width, near: plane + near * gc.stride,
                                                  far: plane + far * gc.stride, lower: y & 1 == 1, samples: span,
                                                  output: up + y * g.width, useSIMD: useSIMD)
                        }
                    }
                    if changed {
                        union.removeAll(keepingCapacity: true)
                        for c in spans.indices { union.append(contentsOf: spans[c].pixels) }
                        Self.merge(&union, width: g.width)
                    }
                    guard !union.isEmpty else { continue }
                    for c in 0 ..< min(n, 4) {
                        guard let base = rowBases[c] else { return }
                        rows[c] = UnsafePointer(base + y * rowStrides[c])
                    }
                    for span in union {
                        BandPipeline.convert(UnsafePointer(rows), offset: span.lowerBound, transform: g.transform, format: g.format,
                                             width: span.count,
                                             out: out + (y * g.width + span.lowerBound) * bpp, scratch: scratchBase)
                    }
                }
            }
        }
        return visited.reduce(0) { $0 + $1.count }
    }

    /// The union of two sorted lists of disjoint block runs, touching runs joined.
    static func merge(_ a: ArraySlice<Range<Int>>, _ b: ArraySlice<Range<Int>>, into union: inout [Range<Int>]) {
        union.removeAll(keepingCapacity: true)
        var i = a.startIndex, j = b.startIndex
        while i < a.endIndex || j < b.endIndex {
            let next: Range<Int>
            if j == b.endIndex || (i < a.endIndex && a[i].lowerBound <= b[j].lowerBound) {
                next = a[i]
                i += 1
            } else {
                next = b[j]
                j += 1
            }
            if let last = union.last, next.lowerBound <= last.upperBound {
                union[union.count - 1] = last.lowerBound ..< max(last.upperBound, next.upperBound)
            } else {
                union.append(next)
            }
        }
    }

    // How far spans are joined and widened. Each span costs a call or two, a scalar tail and
    // edge work; redoing a few unchanged samples costs less. Instruction counts of the 1 MP
    // 10-scan preview run (`Benchmarks/README.md`): 1 block / 16 px joins 202 M, 2 / 32 196 M,
    // 4 / 64 193 M, 8 / 128 192 M.
    /// Clean blocks between two changed ones that are redone anyway.
    static let joinedBlocks = 4
    /// Shortest span converted (a vector step is 16 pixels and leaves the last one to scalar code).
    static let minimumSpan = 32
    /// Spans closer than this are converted as one.
    static let joinedPixels = 64

    /// The union of sorted span lists as sorted disjoint spans within `0 ..< width`, each at
    /// least ``minimumSpan`` pixels long where the row allows, spans less than
    /// ``joinedPixels`` apart joined.
    static func merge(_ union: inout [Range<Int>], width: Int) {
        for (k, span) in union.enumerated() {
            let lower = min(span.lowerBound, max(width - Self.minimumSpan, 0))
            union[k] = lower ..< min(max(span.upperBound, lower + Self.minimumSpan), width)
        }
        guard union.count > 1 else { return }
        union.sort { $0.lowerBound < $1.lowerBound }
        var kept = 0
        for span in union.dropFirst() {
            if span.lowerBound <= union[kept].upperBound + Self.joinedPixels {
                union[kept] = union[kept].lowerBound ..< max(union[kept].upperBound, span.upperBound)
            } else {
                kept += 1
                union[kept] = span
            }
        }
        union.removeSubrange((kept + 1)...)
    }
}

extension Image {
    /// An image whose pixel bytes are not initialised (no zero fill: 3 bytes a pixel of memset
    /// the decode would overwrite anyway). Only for buffers the decoder writes completely, or
    /// whose unwritten rows it fills before any of them is seen (streaming: `preview()` and EOI
    /// fill the rows past `rowsDone`).
    static func unfilled(width: Int, height: Int, format: PixelFormat, metadata: ImageMetadata = ImageMetadata()) -> Image {
        let count = width * height * format.bytesPerPixel
        let pixels = [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            // Untouched yet: a large image's first writes take a fault per 2 MiB, not per 4 KiB.
            if let base = buffer.baseAddress { PageHints.preferHugePages(base, count: count) }
            initialized = count
        }
        return Image(width: width, height: height, format: format, pixels: pixels, metadata: metadata)
    }
}
