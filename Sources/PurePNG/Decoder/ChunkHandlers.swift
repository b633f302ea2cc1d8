import CZlib
import ImageCore

/// What each complete chunk does: the first IDAT allocates and reports the header; IHDR, the
/// APNG chunks, PLTE, tRNS and the ancillary chunks update the decoder's state.
extension PNGDecoder {
    /// At the first IDAT the output format is final: check the limits again, allocate, report the header.
    mutating func startImageData(_ info: PNGInfo, _ chunk: Chunk, _ events: inout [DecodingEvent]) throws(PNGError) {
        if info.colorType == .palette && info.palette == nil { throw .missingPalette(offset: chunk.start) }
        let format = info.outputFormat
        // A second thread unfilters while the first inflates, for a still image (frames are
        // spread over threads of their own): by default when it is big enough to repay it.
        let wanted = options.threads.map { $0 > 1 }
            ?? (Processors.online > 1 && ImageDataDecoder.filteredBytes(info: info) >= ImageDataDecoder.minimumPipelinedBytes)
        let pipelined = wanted && !rowMode && !animation.decodesFrames && !animation.recordsData
        let (imageBytesPerPixel, extra) = ImageDataDecoder.outputBytes(info: info, rowMode: rowMode, spillAbove: spillAbove,
                                                                       pipelined: pipelined)
        if let violation = limits.check(width: info.width, height: info.height, bytesPerPixel: imageBytesPerPixel,
                                        extraBytes: extra) {
            throw .limitExceeded(violation, offset: chunk.start)
        }
        seenIDAT = true
        var spill: SpillBuffer?
        if ImageDataDecoder.spills(info: info, rowMode: rowMode, spillAbove: spillAbove) {
            do {
                spill = try SpillBuffer(byteCount: info.width * info.height * format.bytesPerPixel, directory: options.spillDirectory)
            } catch {
                throw .temporaryStorage(reason: error.reason)
            }
        }
        imageData = ImageDataDecoder(info: info, rowMode: rowMode, lenient: !options.strict, spill: spill,
                                     pipelined: pipelined)
        imageData?.paletteOffset = paletteOffset
        let header = ImageHeader(fileFormat: .png, width: info.width, height: info.height, pixelFormat: format,
                                 isInterlaced: info.interlaced)
        self.header = header
        events.append(.header(header))
        if animation.decodesFrames && !animation.isAnimated {
            // Decoding frames, a still image (or one whose animation broke before its image
            // data) is an animation of one frame.
            animation.stillFrame = true
            events.append(.frameStarted(0))
        }
    }

    /// A complete chunk other than IDAT.
    mutating func handle(_ chunk: Chunk, _ data: ArraySlice<UInt8>, _ events: inout [DecodingEvent]) throws(PNGError) {
        let type = chunk.type
        let strict = options.strict
        /// Ignores the chunk with a warning; strict decoding throws `error` (by default
        /// ``PNGError/malformedChunk(chunk:reason:offset:)``).
        func skip(_ reason: String, _ error: PNGError? = nil) throws(PNGError) {
            if strict { throw error ?? .malformedChunk(chunk: type.description, reason: reason, offset: chunk.start) }
            events.append(.warning("\(type) chunk at offset \(chunk.start) skipped: \(reason)"))
        }
        switch type {
        case .IHDR:
            let parsed = try PNGInfo.parseHeader(data, offset: chunk.start)
            // Before any allocation, with the smallest format this header allows (tRNS may add alpha later).
            let (imageBytesPerPixel, extra) = ImageDataDecoder.outputBytes(info: parsed, rowMode: rowMode, spillAbove: spillAbove)
            // The pixel limit first, then what the input can hold, then memory (as JPEG orders them).
            let violation = limits.check(width: parsed.width, height: parsed.height,
                                         bytesPerPixel: imageBytesPerPixel, extraBytes: extra)
            if let violation, case .pixels = violation { throw .limitExceeded(violation, offset: chunk.start) }
            leastDataBytes = ImageDataDecoder.leastCompressedBytes(info: parsed)
            if let plausible = limits.checkPlausible(neededBytes: leastDataBytes) {
                throw .limitExceeded(plausible, offset: chunk.start)
            }
            if let violation { throw .limitExceeded(violation, offset: chunk.start) }
            info = parsed
            return
        case .IEND:
            if !data.isEmpty { try skip("IEND has \(data.count) data bytes") }
            flushRows(&events)
            try animationStep(&events) { (a: inout APNGState) throws(PNGError) in
                try a.endFrameData(offset: chunk.start)
                try a.checkFrameCount(offset: chunk.start)
            }
            endImage(&events)
            return
        default:
            break
        }
        guard var info else { return }
        switch type {
        case .acTL:
            let seenIDAT = seenIDAT
            try animationStep(&events) { (a: inout APNGState) throws(PNGError) in
                try a.readAnimationControl(data, seenIDAT: seenIDAT, offset: chunk.start)
            }
            if let control = animation.control, animation.broken == nil, control.frameCount > limits.maxFrames {
                throw .limitExceeded(.frames(limit: limits.maxFrames), offset: chunk.start)
            }
            if let early = animation.earlyFrameControl {
                animation.earlyFrameControl = nil
                try animationStep(&events) { (a: inout APNGState) throws(PNGError) in
                    _ = try a.readFrameControl(early.data[...], info: info, seenIDAT: seenIDAT, offset: early.offset)
                }
                if animation.decodesFrames && animation.broken == nil { startFrame(info, &events) }
            }
            return
        case .fcTL:
            let seenIDAT = seenIDAT
            if animation.control == nil && animation.broken == nil && !seenIDAT && animation.earlyFrameControl == nil {
                // The first fcTL before acTL: libpng's APNG reader asks only for IHDR before an
                // fcTL and no IDAT yet, so browsers play such files; taken once acTL comes.
                guard !strict else { throw .apngInvalidChunk(chunk: "fcTL", reason: "before acTL", offset: chunk.start) }
                events.append(.warning("fcTL chunk at offset \(chunk.start) comes before acTL; taken as the first frame once acTL comes (libpng's APNG reader accepts this order)"))
                animation.earlyFrameControl = (Array(data), chunk.start)
                return
            }
            try animationStep(&events) { (a: inout APNGState) throws(PNGError) in
                try a.endFrameData(offset: chunk.start)
                _ = try a.readFrameControl(data, info: info, seenIDAT: seenIDAT, offset: chunk.start)
            }
            if seenIDAT, animation.broken == nil, let frame = animation.frames.last {
                // Each frame after the static image brings data of its own.
                let (sum, overflow) = leastDataBytes.addingReportingOverflow(
                    ImageDataDecoder.leastCompressedBytes(info: APNGState.frameInfo(info, frame)))
                leastDataBytes = overflow ? .max : sum
                if let violation = limits.checkPlausible(neededBytes: leastDataBytes) {
                    throw .limitExceeded(violation, offset: chunk.start)
                }
            }
            if animation.decodesFrames && animation.broken == nil { startFrame(info, &events) }
            return
        case .PLTE:
            seenPLTE = true
            paletteOffset = chunk.start
            var parsed = true
            do throws(PNGError) {
                info.palette = try info.parsePalette(data, offset: chunk.start)
            } catch {
                parsed = false
                // libpng: a palette image's PLTE must be right; a suggested palette is ancillary.
                if info.colorType == .palette && (data.count % 3 != 0 || data.isEmpty || data.count > 768) { throw error }
                if info.colorType == .palette {
                    // More entries than the depth can index: libpng keeps the first 2^depth.
                    try skip("\(data.count / 3) entries for a \(info.bitDepth)-bit image, the first \(1 << info.bitDepth) kept", error)
                    info.palette = Palette(rgb: data.prefix(3 << info.bitDepth))
                } else {
                    try skip("\(data.count) bytes is not a palette", error)
                }
            }
            if parsed, info.colorType != .palette, info.transparency != nil {
                // libpng (png_handle_PLTE): tRNS must come after PLTE; it cancels the tRNS.
                try skip("tRNS before PLTE is cancelled, as libpng does", .chunkOutOfOrder(chunk: "tRNS", offset: chunk.start))
                info.transparency = nil
            }
        case .tRNS:
            if seenIDAT { return try skip("after IDAT", .chunkOutOfOrder(chunk: type.description, offset: chunk.start)) }
            if seenOnce.contains(type.value) { return try skip("duplicate", .duplicateChunk(chunk: type.description, offset: chunk.start)) }
            if info.colorType == .palette && !seenPLTE {
                return try skip("before PLTE", .chunkOutOfOrder(chunk: type.description, offset: chunk.start))
            }
            // libpng ignores an empty palette tRNS rather than adding an all-opaque alpha channel.
            if info.colorType == .palette && data.isEmpty {
                return try skip("empty", .invalidTransparency(reason: "empty palette tRNS", offset: chunk.start))
            }
            let transparency: PNGInfo.Transparency
            do throws(PNGError) {
                transparency = try info.parseTransparency(data, offset: chunk.start)
            } catch {
                return try skip(error.message, error)
            }
            if let problem = info.outOfRangeKey(transparency) {
                // libpng warns and compares the low bits only (RowExpander masks the key).
                if strict { throw .invalidTransparency(reason: problem, offset: chunk.start) }
                events.append(.warning("tRNS chunk at offset \(chunk.start): \(problem); its low bits are used, as libpng does"))
            }
            seenOnce.insert(type.value)
            info.transparency = transparency
            if case let .palette(alphas) = transparency, let palette = info.palette {
                var rgba = palette.rgba
                for (i, a) in alphas.enumerated() { rgba[4 * i + 3] = a }
                info.palette = Palette(rgba: rgba)
            }
        default:
            if let problem = Self.placementProblem(type, seenPLTE: seenPLTE, seenIDAT: seenIDAT, colorType: info.colorType) {
                return try skip(problem)
            }
            let repeatable = type == .tEXt || type == .zTXt || type == .iTXt
            if !repeatable && seenOnce.contains(type.value) { return try skip("duplicate") }
            if type == .sRGB && metadata.iccProfile != nil || type == .iCCP && metadata.sRGBIntent != nil {
                return try skip("both iCCP and sRGB present")
            }
            let outcome = try PNGMetadata.parse(type, data, info: info, into: &metadata, budget: &metadataBudget,
                                                limits: limits, offset: chunk.start)
            if case let .skipped(reason) = outcome { return try skip(reason) }
            seenOnce.insert(type.value)
        }
        self.info = info
    }
}
