import ImageCore

/// Reconstruction of a sequential scan's MCU rows on a second thread (streaming mode): the
/// decoder's thread entropy-decodes MCU row n + 1 into one of two coefficient bands while this
/// worker runs the IDCT of row n into the band rings and upsamples and colour-converts what
/// that finishes into the image (``BandPipeline``), in order, one row at a time.
///
/// `@unchecked Sendable`: the decoder hands the worker one row at a time and waits for it
/// before handing the next or reading ``pipeline``; the coefficient band being decoded is never
/// the one being reconstructed (two bands, the decoder waits for row n before it decodes row
/// n + 2 into row n's band). The quantization tables and block layout are the worker's own
/// copies, fixed for the scan.
final class BandWorker: @unchecked Sendable {
    /// The band pipeline, moved in from the decoder while a call decodes (so its rings are
    /// never shared and copied on write) and back out before the call returns.
    var pipeline: BandPipeline?
    private let blocks: [PlaneBlock]
    private let idcts: [@Sendable (UnsafePointer<Int16>, UnsafePointer<UInt16>, UnsafeMutablePointer<UInt8>, Int) -> Void]
    private let quant: UnsafeMutablePointer<UInt16>
    /// Two bands of one MCU row of coefficients each.
    let coefficients: UnsafeMutablePointer<Int16>
    let bandValues: Int
    private let mcusWide: Int

    /// A worker for `plan` (a sequential scan of every component in streaming mode), or nil
    /// when a component has no table or kernel (the one-thread loop reports that).
    init?(plan: ScanPlan, componentQuant: [UInt16]) {
        let quant = UnsafeMutablePointer<UInt16>.allocate(capacity: 4 * JPEGKernels.quantStride)
        quant.initialize(repeating: 0, count: 4 * JPEGKernels.quantStride)
        componentQuant.withUnsafeBufferPointer { q in
            if let base = q.baseAddress { quant.update(from: base, count: min(q.count, 4 * JPEGKernels.quantStride)) }
        }
        let blocks = PlaneBlock.blocks(of: plan, quant: quant)
        guard plan.kind == .sequential, !blocks.isEmpty else {
            quant.deallocate()
            return nil
        }
        self.quant = quant
        self.blocks = blocks
        idcts = plan.idcts
        mcusWide = plan.mcusWide
        bandValues = plan.mcusWide * blocks.count * 64
        coefficients = .allocate(capacity: 2 * bandValues)
        coefficients.initialize(repeating: 0, count: 2 * bandValues)
    }

    /// A copy for a decoder copy: the coefficient bands (a row decoded in part) and tables.
    private init(copying other: BandWorker) {
        let quantCount = JPEGKernels.quantStride * 4
        let quant = UnsafeMutablePointer<UInt16>.allocate(capacity: quantCount)
        quant.initialize(from: other.quant, count: quantCount)
        // The same layout over this copy's tables.
        blocks = other.blocks.map { b in
            var b = b
            b.quant = UnsafePointer(quant) + (b.quant - UnsafePointer(other.quant))
            return b
        }
        self.quant = quant
        idcts = other.idcts
        mcusWide = other.mcusWide
        bandValues = other.bandValues
        coefficients = .allocate(capacity: 2 * bandValues)
        coefficients.initialize(from: other.coefficients, count: 2 * bandValues)
    }

    func copy() -> BandWorker { BandWorker(copying: self) }

    deinit {
        quant.deallocate()
        coefficients.deallocate()
    }

    /// Below this many output pixels `threads: nil` reconstructs on the decoding thread: the
    /// hand-over per MCU row (a few microseconds) would eat the gain.
    static let minimumPixels = 1 << 19

    /// Coefficient band `slot` (0 or 1).
    func band(_ slot: Int) -> UnsafeMutablePointer<Int16> { coefficients + slot * bandValues }

    /// Bytes beside the image: two coefficient bands.
    static func workingBytes(mcusWide: Int, blocksPerMCU: Int) -> Int { 2 * mcusWide * blocksPerMCU * 64 * 2 }

    /// Reconstructs MCU row `row` from band `slot` into the rings, then emits what that row
    /// finishes into `output` (the whole image); returns those output rows.
    func reconstruct(row: Int, slot: Int, output: UnsafeMutablePointer<UInt8>) -> Range<Int> {
        let source = band(slot)
        let blocks = self.blocks, idcts = self.idcts, mcusWide = self.mcusWide
        let ring = row % 3
        pipeline?.planes.withUnsafeMutableBufferPointer { planes in
            guard let base = planes.baseAddress else { return }
            blocks.withUnsafeBufferPointer { layout in
                var coefficients = source
                for mx in 0 ..< mcusWide {
                    for b in layout {
                        let target = base + (b.offset &+ ring &* b.bandBytes &+ mx &* b.stepX)
                        if b.kernel < 0 {
                            IDCTSIMD.idct8x8(coefficients, b.quant, target, b.stride)
                        } else {
                            idcts[b.kernel](coefficients, b.quant, target, b.stride)
                        }
                        coefficients += 64
                    }
                }
            }
        }
        return pipeline?.bandDone(row, output: output) ?? 0 ..< 0
    }
}

/// A pointer handed to the worker thread (the image's pixels while a scan decodes, see
/// ``JPEGDecoder/runScanOnTwoThreads(_:_:)``).
struct SendablePointer: @unchecked Sendable {
    let pointer: UnsafeMutablePointer<UInt8>
}

extension JPEGDecoder {
    /// MCU rows of a streaming scan reconstructed on a second thread: when ``JPEGDecodingOptions/threads``
    /// allows it (nil: from ``BandWorker/minimumPixels`` up, with a second processor), for a
    /// whole-image decode (row mode hands its band buffer to the caller row by row).
    mutating func twoThreadWorker(_ plan: ScanPlan) -> BandWorker? {
        guard mode == .streaming, rowOutput == nil, image != nil, pipeline != nil, let geometry, plan.kind == .sequential else {
            return nil
        }
        if let worker = bandWorker {
            if !isKnownUniquelyReferenced(&bandWorker) { bandWorker = worker.copy() }
            return bandWorker
        }
        // Decided at the scan's first MCU and kept: a row half decoded waits in the worker's band.
        guard entropy.mcu == 0 else { return nil }
        let wanted = options.threads.map { $0 > 1 }
            ?? (Processors.online > 1 && geometry.width * geometry.height >= BandWorker.minimumPixels)
        guard wanted else { return nil }
        bandWorker = BandWorker(plan: plan, componentQuant: componentQuant)
        return bandWorker
    }

    /// ``runScan(_:)`` with reconstruction on a second thread: this thread entropy-decodes MCU
    /// row n + 1 while the worker reconstructs row n. The worker's rows are taken (their `.rows`
    /// event) before the warnings of the row decoded after them, and all of them before this
    /// returns or throws, so events, pixels and errors are the one-thread ones.
    mutating func runScanOnTwoThreads(_ plan: ScanPlan, worker: BandWorker, isFinal: Bool,
                                      _ events: inout [DecodingEvent]) throws(JPEGError) -> Bool {
        guard var image else { return false }
        self.image = nil
        worker.pipeline = pipeline
        pipeline = nil
        defer {
            pipeline = worker.pipeline
            worker.pipeline = nil
            self.image = image
        }
        let outcome: Result<Bool, JPEGError> = image.pixels.withUnsafeMutableBufferPointer { pixels in
            guard let base = pixels.baseAddress else { return .success(false) }
            let output = SendablePointer(pointer: base)
            var inFlight: BackgroundWork<Range<Int>, Never>?
            func finishRow(_ events: inout [DecodingEvent]) {
                guard let work = inFlight else { return }
                inFlight = nil
                let rows = work.value()
                if !rows.isEmpty {
                    events.append(.rows(rows))
                    rowsDone = rows.upperBound
                }
            }
            while true {
                let row = entropy.mcu / plan.mcusWide
                let stop = min(plan.mcuCount, (row + 1) * plan.mcusWide)
                let (step, warnings) = decodeMCUs(plan, stop: stop, isFinal: isFinal, changes: nil, band: worker.band(row % 2))
                if step == .reached { touchPages(ofBand: row, in: base, count: pixels.count) }
                // The row before this one is done before the warnings this one raised.
                finishRow(&events)
                for w in warnings { events.append(.warning(w)) }
                switch step {
                case .reached:
                    retryAt = 0
                    markerScan = 0
                    inFlight = BackgroundWork { worker.reconstruct(row: row, slot: row % 2, output: output.pointer) }
                    if entropy.mcu >= plan.mcuCount {
                        finishRow(&events)
                        completeScan(plan, &events)
                        bandWorker = nil
                        return .success(true)
                    }
                case .needMore, .truncated:
                    retryAt = input.count + 64
                    markerScan = max(0, input.count - 1)
                    return .success(false)
                case let .failed(error):
                    return .failure(error)
                }
            }
        }
        return try outcome.get()
    }

    /// Writes a byte into each page of the output rows of MCU row `band` before the worker
    /// gets it, so the kernel's zeroing of fresh pages (a sixth of a one-thread decode) falls
    /// on this thread, which has less to do than the worker. The worker is writing earlier
    /// rows meanwhile; it overwrites these bytes, and rows never written are filled before
    /// they are seen (``Image/unfilled(width:height:format:metadata:)``).
    private func touchPages(ofBand band: Int, in base: UnsafeMutablePointer<UInt8>, count: Int) {
        guard let geometry else { return }
        let rowBytes = geometry.width * geometry.format.bytesPerPixel
        let start = min(band * geometry.bandRows * rowBytes, count)
        let end = min(start + geometry.bandRows * rowBytes, count)
        var offset = start
        while offset < end {
            base[offset] = 0
            offset &+= 4096
        }
    }
}
