import Dispatch
import ImageCore

/// The final output of coefficient mode (progressive and multi-scan files), band by band: the
/// whole image (``JPEGDecoder/render(frame:geometry:)``, ``JPEGDecoder/smoothedRender(frame:geometry:lastGoodRow:)``)
/// or, in row mode, one band at a time into the two-band row buffer, so a huge progressive
/// file is handed out in rows without its image ever existing (with a spilled store, without
/// its coefficients in memory either).
struct SmoothingContext: Sendable {
    let plan: [BlockSmoothing.Component]
    /// Every component's DC values, block rows of `blocksWide` (2 bytes a block).
    let dcValues: [Int16]
    let dcOffsets: [Int]
    let lastIMCURow: Int
    let lastGoodRow: Int
}

/// Row mode's final pass: the next band to render and the pipeline it goes through.
struct FinalRender {
    var pipeline: BandPipeline
    var smoothing: SmoothingContext?
    var nextBand = 0
    var workspace = [Int16](repeating: 0, count: 64)
}

extension JPEGDecoder {
    /// What block smoothing needs for the final pass, when it applies (see ``blockSmoothingPlan(frame:)``).
    func smoothingContext(frame: Frame, lastGoodRow: Int) -> SmoothingContext? {
        guard let plan = blockSmoothingPlan(frame: frame) else { return nil }
        let store = coefficientState.store
        // libjpeg's last iMCU row: the MCU rows, or for a lone component (decoded as 1x1) its
        // block rows in groups of the declared v.
        let lastIMCURow = frame.components.count == 1
            ? (frame.components[0].blocksHigh + frame.components[0].iMCURows - 1) / frame.components[0].iMCURows - 1
            : frame.mcusHigh - 1
        // Rows through the last iMCU row's end (libjpeg-turbo 3's window may read one past the
        // image's blocks: the store's MCU padding, zero where the store has none).
        let dcRows = plan.map { ($0.blocksHigh + max($0.v, 1) - 1) / max($0.v, 1) * max($0.v, 1) }
        var dcOffsets: [Int] = [], total = 0
        for (c, component) in plan.enumerated() {
            dcOffsets.append(total)
            total += component.blocksWide * dcRows[c]
        }
        var dcValues = [Int16](repeating: 0, count: max(total, 1))
        dcValues.withUnsafeMutableBufferPointer { dc in
            withExtendedLifetime(store) {
                guard let base = dc.baseAddress else { return }
                for (c, component) in plan.enumerated() {
                    var target = base + dcOffsets[c]
                    for y in 0 ..< min(dcRows[c], frame.components[c].paddedBlocksHigh) {
                        var block = UnsafePointer(store.planes[c] + y * component.rowStride)
                        let step = frame.components[c].valuesPerBlock
                        for _ in 0 ..< component.blocksWide {
                            target.pointee = block.pointee
                            target += 1
                            block += step
                        }
                        store.noteTouched(bytes: component.rowStride * 2)
                    }
                }
            }
        }
        return SmoothingContext(plan: plan, dcValues: dcValues, dcOffsets: dcOffsets, lastIMCURow: lastIMCURow,
                                lastGoodRow: lastGoodRow)
    }

    /// The IDCT of every block of MCU row `band` into the pipeline's rings (each block smoothed
    /// first when `smoothing` applies, as decompress_smooth_data does).
    func idctBand(_ band: Int, frame: Frame, geometry: OutputGeometry, pipeline: BandPipeline,
                  planes: UnsafeMutablePointer<UInt8>, smoothing: SmoothingContext?, workspace: UnsafeMutablePointer<Int16>) {
        let store = coefficientState.store
        // A compact block's kept values in a 64-value block for the IDCT (CompactBlock), and a
        // DC-only block's DC term in another; only those positions are ever written, so the rest
        // stays zero.
        let expanded = UnsafeMutablePointer<Int16>.allocate(capacity: 128)
        expanded.initialize(repeating: 0, count: 128)
        defer { expanded.deallocate() }
        let dcOnly = expanded + 64
        withExtendedLifetime(store) {
            tables.componentQuant.withUnsafeBufferPointer { quant in
                guard let q = quant.baseAddress, store.counts.count == frame.components.count else { return }
                let render = { (dcBase: UnsafePointer<Int16>?) in
                    for (c, fc) in frame.components.enumerated() {
                        let gc = geometry.components[c]
                        let idct = pipeline.kernels[c].idct
                        for row in 0 ..< fc.v {
                            let by = band * fc.v + row
                            let step = fc.valuesPerBlock
                            // A compact block is expanded for the IDCT and for smoothing (which
                            // moves the DC term too, libjpeg-turbo 2.1's DC interpolation).
                            let compact = step != 64
                            var block = UnsafePointer(store.planes[c] + by * fc.paddedBlocksWide * step)
                            var target = planes + pipeline.blockOffset(component: c, band: band, blockX: 0, blockRow: row)
                            // Blocks outside the image (MCU padding) are not smoothed; their samples are never shown.
                            var window: BlockSmoothing.Row?
                            var smoothed = 0
                            if let smoothing, let dcBase, by < smoothing.plan[c].blocksHigh,
                               smoothing.plan[c].blocksWide > 0 {
                                window = BlockSmoothing.Row(smoothing.plan[c], dc: dcBase + smoothing.dcOffsets[c], y: by,
                                                            lastRow: smoothing.lastIMCURow, lastGoodRow: smoothing.lastGoodRow)
                                smoothed = smoothing.plan[c].blocksWide
                            }
                            for x in 0 ..< fc.paddedBlocksWide {
                                var source = block
                                if step == 1 || step == 5 {
                                    dcOnly[0] = block[0]
                                    source = UnsafePointer(dcOnly)
                                } else if compact {
                                    CompactBlock.expand(block, valuesPerBlock: step, into: expanded, history: false)
                                    source = UnsafePointer(expanded)
                                }
                                let input = x < smoothed ? window!.estimate(source, x: x, into: workspace) : source
                                idct(input, q + c * JPEGKernels.quantStride, target, gc.stride)
                                block += step
                                target += gc.blockSize
                            }
                            store.noteTouched(bytes: fc.paddedBlocksWide * 2 * step)
                        }
                    }
                }
                if let smoothing {
                    smoothing.dcValues.withUnsafeBufferPointer { render($0.baseAddress) }
                } else {
                    render(nil)
                }
            }
        }
    }

    /// The whole image from the coefficients: per MCU row, IDCT into the band rings, then the
    /// same upsampling and colour conversion as streaming. With more than one thread
    /// (``finalRenderParts(_:)``) the bands are split into consecutive parts rendered at once,
    /// each through a pipeline of its own (``renderBands(_:first:of:frame:geometry:smoothing:output:)``).
    func renderWhole(frame: Frame, geometry: OutputGeometry, smoothing: SmoothingContext?) -> Image {
        // Every band is emitted, so every byte of `out` is written.
        var out = Image.unfilled(width: geometry.width, height: geometry.height, format: geometry.format, metadata: metadata)
        let parts = finalRenderParts(geometry)
        out.pixels.withUnsafeMutableBufferPointer { outBuffer in
            guard let outBase = outBuffer.baseAddress else { return }
            let output = SendablePointer(pointer: outBase)
            let decoder = self
            let bands = geometry.bands
            DispatchQueue.concurrentPerform(iterations: parts) { i in
                decoder.renderBands(bands * i / parts ..< bands * (i + 1) / parts, first: i == 0, of: bands, frame: frame,
                                    geometry: geometry, smoothing: smoothing, output: output.pointer)
            }
        }
        return out
    }

    /// The final pass's parts: one per thread (``JPEGDecodingOptions/threads``; nil: the
    /// processors online from ``BandWorker/minimumPixels`` up), at most one per two bands; one
    /// for a spilled store, whose window is not shared between threads.
    func finalRenderParts(_ geometry: OutputGeometry) -> Int {
        guard !coefficientState.store.isSpilled, geometry.bands >= 4, Processors.online > 1 else { return 1 }
        let wanted = options.threads
            ?? (geometry.width * geometry.height >= BandWorker.minimumPixels ? Processors.online : 1)
        var parts = max(1, min(wanted, geometry.bands / 2))
        // Each part's band pipeline counts against maxBytes beside the image and the store
        // (the one-thread pass was checked with one).
        while parts > 1, limits.check(width: geometry.width, height: geometry.height,
                                      bytesPerPixel: geometry.format.bytesPerPixel,
                                      extraBytes: (frame.map { coefficientStoreBytes($0) } ?? 0) + parts * geometry.workingBytes) != nil {
            parts -= 1
        }
        return parts
    }

    /// Renders the output rows of `bands` (MCU rows) into `output` (the whole image) through a
    /// pipeline of its own. With vertical context (fancy upsampling of a component two rows
    /// high) a band's rows are emitted once the band after it is in the ring, so a part after
    /// the first transforms the two bands before its first into its ring unemitted, and every
    /// part transforms one band past its last; the rows it writes are its own bands' rows alone,
    /// the ones one thread writes, with the same inputs.
    func renderBands(_ bands: Range<Int>, first: Bool, of total: Int, frame: Frame, geometry: OutputGeometry,
                     smoothing: SmoothingContext?, output: UnsafeMutablePointer<UInt8>) {
        guard !bands.isEmpty else { return }
        var pipeline = BandPipeline(geometry: geometry, useSIMD: useSIMD)
        var planes: [UInt8] = []
        swap(&planes, &pipeline.planes)
        var workspace = [Int16](repeating: 0, count: 64)
        let context = geometry.needsContext
        // With context, bandDone(b) emits band b - 1 (and the last band with it).
        let start = context && !first ? max(bands.lowerBound - 1, 0) : bands.lowerBound
        let end = context ? min(bands.upperBound, total - 1) : bands.upperBound - 1
        for band in start ... end {
            planes.withUnsafeMutableBufferPointer { planeBuffer in
                workspace.withUnsafeMutableBufferPointer { ws in
                    guard let planeBase = planeBuffer.baseAddress, let w = ws.baseAddress else { return }
                    idctBand(band, frame: frame, geometry: geometry, pipeline: pipeline, planes: planeBase,
                             smoothing: smoothing, workspace: w)
                }
            }
            if !context || first || band > bands.lowerBound {
                swap(&planes, &pipeline.planes)
                _ = pipeline.bandDone(band, output: output)
                swap(&planes, &pipeline.planes)
            }
        }
    }

    /// Row mode at EOI of a coefficient-mode file: the final pass starts (bands are rendered as
    /// the caller takes them, ``renderNextRows()``).
    mutating func startFinalRender(frame: Frame, geometry: OutputGeometry, lastGoodRow: Int) {
        coefficientState.finalRender = FinalRender(pipeline: BandPipeline(geometry: geometry, useSIMD: useSIMD),
                                  smoothing: smoothingContext(frame: frame, lastGoodRow: lastGoodRow))
    }

    /// Row mode's final pass: renders bands until one yields rows, puts them in the band buffer
    /// as ``RowOutput/pending``; false when every band is done.
    mutating func renderNextRows() -> Bool {
        guard var render = coefficientState.finalRender, let frame, let geometry, var out = rowOutput else { return false }
        coefficientState.finalRender = nil
        rowOutput = nil
        defer {
            rowOutput = out
            if render.nextBand < geometry.bands { coefficientState.finalRender = render } else { coefficientState.store = .empty }
        }
        while render.nextBand < geometry.bands {
            let band = render.nextBand
            render.nextBand += 1
            var planes: [UInt8] = []
            swap(&planes, &render.pipeline.planes)
            let pipeline = render.pipeline
            planes.withUnsafeMutableBufferPointer { planeBuffer in
                render.workspace.withUnsafeMutableBufferPointer { ws in
                    guard let planeBase = planeBuffer.baseAddress, let w = ws.baseAddress else { return }
                    idctBand(band, frame: frame, geometry: geometry, pipeline: pipeline, planes: planeBase,
                             smoothing: render.smoothing, workspace: w)
                }
            }
            swap(&planes, &render.pipeline.planes)
            let origin = rowsDone
            let rows = out.buffer.withUnsafeMutableBufferPointer { buffer in
                buffer.baseAddress.map { render.pipeline.bandDone(band, output: $0, origin: origin) } ?? 0 ..< 0
            }
            if !rows.isEmpty {
                out.pending = rows
                rowsDone = rows.upperBound
                return true
            }
        }
        return false
    }
}
