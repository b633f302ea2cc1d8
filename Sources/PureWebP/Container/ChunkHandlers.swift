import ImageCore

/// The chunk-level rules: which chunk may come where (libwebp's still decoder for still
/// images, its demuxer for animations), and what each one does.
extension WebPDecoder {
    /// The image chunk's header comes next; its payload (`size` bytes) follows.
    mutating func expectImage(_ tag: FourCC, size: Int) {
        state = .imageHeader(tag, size: size)
        imageChunkSize = size
    }

    mutating func dispatch(_ tag: FourCC, size: Int, at: Int, _ events: inout [DecodingEvent]) throws(WebPError) {
        let padded = size + (size & 1)
        let payloadStart = at + RIFF.chunkHeaderSize
        let skipAll = State.skip(remaining: min(padded, riffEnd - payloadStart))
        if !sawFirstChunk {
            sawFirstChunk = true
            switch tag {
            case .vp8x:
                guard size >= 10, payloadStart + padded <= riffEnd else { throw .invalid(what: "VP8X chunk size \(size)", offset: at + 4) }
                state = .collect(tag, size: size)
            case .vp8, .vp8l:
                guard payloadStart + size <= riffEnd else { throw .invalid(what: "\(tag) chunk size \(size)", offset: at + 4) }
                expectImage(tag, size: size)
            default:
                throw .invalid(what: "first chunk \(tag) (expected VP8, VP8L or VP8X)", offset: at)
            }
            return
        }
        let isImage = tag == .vp8 || tag == .vp8l
        if let end = frameEnd {
            // Inside an ANMF chunk, as libwebp's demuxer reads it: an optional ALPH, then VP8 or
            // VP8L, each within the ANMF payload. The first other chunk ends the frame's chunks;
            // it and what follows are read as top-level chunks.
            if !frameHasImage && (isImage || (tag == .alph && pendingAlpha == nil)) {
                guard payloadStart + (isImage ? size : padded) <= end else { throw .invalid(what: "\(tag) chunk size \(size)", offset: at + 4) }
                if tag == .alph {
                    state = .collect(tag, size: size)
                } else {
                    if tag == .vp8l && pendingAlpha != nil { throw .invalid(what: "ALPH chunk before a VP8L frame", offset: at) }
                    // The demuxer takes the chunk with its padding byte, which must be inside
                    // the RIFF, and hands both to the codec: a frame's VP8L stream or last VP8
                    // partition may read that byte (`strict`: the chunk alone).
                    guard payloadStart + padded <= riffEnd else { throw .invalid(what: "\(tag) chunk size \(size) (its padding byte is past the RIFF end)", offset: at + 4) }
                    let payload = options.strict ? size : padded
                    expectImage(tag, size: payload)
                }
                return
            }
            frameEnd = nil
            if !frameHasImage {
                if pendingAlpha != nil { throw .invalid(what: "ANMF frame with an ALPH chunk and no image", offset: at) }
                // libwebp's demuxer adds no frame for it.
                try lenient("ANMF chunk without an image skipped", .invalid(what: "\(tag) chunk in an ANMF frame before its image", offset: at), &events)
                pendingFrame = nil
            }
        }
        guard payloadStart + (isImage ? size : padded) <= riffEnd else {
            if try endAfterStill(tag, size: size, at: at, &events) { return }
            throw .invalid(what: "\(tag) chunk size \(size)", offset: at + 4)
        }
        if bareChunks {
            // No RIFF, an ALPH first (Bare.swift): ALPH chunks kept, others skipped, up to the image.
            switch tag {
            case .alph: state = .collect(tag, size: size)
            case .vp8, .vp8l:
                riffEnd = payloadStart + size
                expectImage(tag, size: size)
            default: state = .skip(remaining: padded)
            }
            return
        }
        guard let vp8x else { state = skipAll; return }   // simple format: nothing after the image counts
        switch tag {
        case .vp8x:
            // The demuxer refuses it; the still decoder skips it as any other chunk.
            if vp8x.isAnimated { throw .invalid(what: "second VP8X chunk", offset: at) }
            try lenient("second VP8X chunk ignored", .invalid(what: "second VP8X chunk", offset: at), &events)
            state = skipAll
        case .iccp, .exif, .xmp:
            let flag = tag == .iccp ? vp8x.hasICC : tag == .exif ? vp8x.hasEXIF : vp8x.hasXMP
            let present = tag == .iccp ? metadata.iccProfile != nil : tag == .exif ? metadata.exif != nil
                : metadata.texts.contains { $0.keyword == WebPMetadata.xmpKeyword }
            if !flag {
                try lenient("\(tag) chunk without its VP8X flag ignored", .invalid(what: "\(tag) chunk without its VP8X flag", offset: at), &events)
                state = skipAll
            } else if present {
                events.append(.warning("second \(tag) chunk ignored"))
                state = skipAll
            } else if metadataBytes + size > limits.maxMetadataBytes {
                events.append(.warning("\(tag) chunk of \(size) bytes dropped: over the metadata limit"))
                state = skipAll
            } else {
                state = .collect(tag, size: size)
            }
        case .anim:
            guard vp8x.isAnimated, !sawANIM else { state = skipAll; return }
            guard size >= 6 else { throw .invalid(what: "ANIM chunk size \(size)", offset: at + 4) }
            state = .collect(tag, size: size)
        case .anmf:
            guard vp8x.isAnimated else { state = skipAll; return }
            guard sawANIM else { throw .invalid(what: "ANMF chunk before the ANIM chunk", offset: at) }
            guard size >= ANMFHeader.byteCount else { throw .invalid(what: "ANMF chunk size \(size)", offset: at + 4) }
            guard frames.count < limits.maxFrames else { throw .limit(.frames(limit: limits.maxFrames), offset: at) }
            frameEnd = payloadStart + padded
            state = .anmfHeader(size: size)
        case .alph, .vp8, .vp8l:
            if vp8x.isAnimated { throw .invalid(what: "\(tag) chunk outside ANMF in an animation", offset: at) }
            if imageStarted {
                try lenient("\(tag) chunk after the image ignored", .invalid(what: "second image chunk \(tag)", offset: at), &events)
                state = skipAll
            } else if tag == .alph {
                state = .collect(tag, size: size)
            } else {
                expectImage(tag, size: size)
            }
        default:
            state = skipAll
        }
    }

    /// libwebp's still decoder stops at the image and never reads what follows: after a still's
    /// image, a chunk header at `at` whose size runs past the RIFF end ends the file with a
    /// warning (strict: an error). False (nothing done) anywhere else.
    mutating func endAfterStill(_ tag: FourCC, size: Int, at: Int, _ events: inout [DecodingEvent]) throws(WebPError) -> Bool {
        guard (imageDone || overrun) && compositor == nil else { return false }
        try lenient("\(tag) chunk after the image runs past the RIFF size: the rest is ignored",
                    .invalid(what: "\(tag) chunk size \(size)", offset: at + 4), &events)
        state = .skip(remaining: riffEnd - (at + RIFF.chunkHeaderSize))
        return true
    }

    /// A whole chunk payload gathered by `.collect`.
    mutating func handle(_ tag: FourCC, _ payload: [UInt8], at: Int, _ events: inout [DecodingEvent]) throws(WebPError) {
        switch tag {
        case .vp8x:
            let info = VP8XInfo(payload[...])
            if !info.isAnimated && payload.count != 10 {
                throw .invalid(what: "VP8X chunk size \(payload.count)", offset: at - 4)
            }
            // libwebp reads an animation through its demuxer, which refuses reserved flags
            // (`IsValidExtendedFormat`); its still decoder ignores them.
            if info.isAnimated && info.flags & ~VP8XInfo.definedFlags != 0 {
                throw .invalid(what: "VP8X flags 0x\(String(info.flags, radix: 16)) (reserved bits set in an animation)", offset: at)
            }
            guard info.canvasWidth * info.canvasHeight < RIFF.maxImageArea else {
                throw .invalid(what: "VP8X canvas \(info.canvasWidth)x\(info.canvasHeight)", offset: at)
            }
            if let violation = limits.check(width: info.canvasWidth, height: info.canvasHeight, bytesPerPixel: 4) {
                throw .limit(violation, offset: at)
            }
            vp8x = info
            if info.isAnimated {
                let h = ImageHeader(fileFormat: .webp, width: info.canvasWidth, height: info.canvasHeight,
                                    pixelFormat: .rgba8, frameCount: 0)
                header = h
                events.append(.header(h))
            }
        case .iccp, .exif, .xmp:
            metadataBytes += payload.count
            if let warning = WebPMetadata.store(tag, payload, into: &metadata) { events.append(.warning(warning)) }
        case .anim:
            let b = payload[...]
            backgroundColor = b.le32(0)
            loopCount = b.le16(4)
            sawANIM = true
        case .alph:
            pendingAlpha = payload
            pendingAlphaOffset = at
        default:
            break
        }
    }

    mutating func beginANMF(_ h: ANMFHeader, size: Int, at: Int) throws(WebPError) {
        guard h.width * h.height < RIFF.maxImageArea else { throw .invalid(what: "ANMF frame size", offset: at) }
        pendingFrame = h
        frameHasImage = false
        pendingAlpha = nil
    }

    mutating func beginImage(_ tag: FourCC, _ b: ArraySlice<UInt8>, size: Int, at: Int,
                             _ events: inout [DecodingEvent]) throws(WebPError) {
        let lossless = tag == .vp8l
        let width: Int, height: Int, hasAlpha: Bool
        if lossless {
            guard let h = VP8LHeader(b) else { throw .invalid(what: "VP8L header", offset: at) }
            (width, height, hasAlpha) = (h.width, h.height, h.alphaHint)
        } else {
            // A raw bitstream's "chunk" is the rest of the input (not known yet when streaming).
            guard let h = VP8FrameInfo(b, chunkSize: rawBitstream ? Int.max : size) else { throw .invalid(what: "VP8 frame header", offset: at) }
            (width, height, hasAlpha) = (h.width, h.height, pendingAlpha != nil)
        }
        imageStarted = true
        if let anmf = pendingFrame, let vp8x {
            guard anmf.x + width <= vp8x.canvasWidth, anmf.y + height <= vp8x.canvasHeight else {
                throw .invalid(what: "frame \(width)x\(height) at (\(anmf.x), \(anmf.y)) outside the canvas", offset: at)
            }
            let canvasBytes = (vp8x.canvasWidth * vp8x.canvasHeight).multipliedReportingOverflow(by: 8).partialValue
            if let violation = limits.check(width: width, height: height, bytesPerPixel: 8, extraBytes: canvasBytes) {
                throw .limit(violation, offset: at)
            }
            let info = WebPFrameInfo(index: frames.count, x: anmf.x, y: anmf.y, width: width, height: height,
                                     durationMilliseconds: anmf.duration, disposeToBackground: anmf.disposeToBackground,
                                     blend: anmf.blend, isLossless: lossless, hasAlpha: hasAlpha)
            frames.append(info)
            header?.frameCount = frames.count
            frameHasImage = true
            events.append(.frameStarted(info.index))
            if decodePixels {
                if compositor == nil { compositor = WebPCompositor(width: vp8x.canvasWidth, height: vp8x.canvasHeight) }
                compositor?.beginFrame(.init(x: anmf.x, y: anmf.y, width: width, height: height), hasAlpha: hasAlpha, blend: anmf.blend)
                frame = try makeFrame(lossless, width: width, height: height, payloadOffset: at, size: size)
            }
            return
        }
        if let vp8x, vp8x.canvasWidth != width || vp8x.canvasHeight != height {
            throw .invalid(what: "image \(width)x\(height) in a \(vp8x.canvasWidth)x\(vp8x.canvasHeight) VP8X canvas", offset: at)
        }
        if lossless && pendingAlpha != nil {
            try lenient("ALPH chunk beside a lossless image ignored", .invalid(what: "ALPH chunk beside VP8L", offset: pendingAlphaOffset), &events)
            pendingAlpha = nil
        }
        let format: PixelFormat = (vp8x?.hasAlpha ?? false) || hasAlpha ? .rgba8 : .rgb8
        let extra = lossless ? width * height * 4 : width * height * 2
        if let violation = limits.check(width: width, height: height, bytesPerPixel: format.bytesPerPixel, extraBytes: extra) {
            throw .limit(violation, offset: at)
        }
        let h = ImageHeader(fileFormat: .webp, width: width, height: height, pixelFormat: format)
        header = h
        stillIsLossless = lossless
        stillHasALPH = pendingAlpha != nil
        events.append(.header(h))
        if decodePixels {
            if let out = directOutput {
                // The caller's memory (``WebPDecoder/decode(_:into:bytesPerRow:format:limits:options:)``).
                try out.check(width: width, height: height)
            } else if !streamRows {
                // Every row is written before it is final; preview() zeroes the rest in its copy.
                // Huge pages where Linux offers them: a 12 MP image page-faulted 4 K at a time
                // cost about a tenth of a lossy decode.
                let count = width * height * format.bytesPerPixel
                image = [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
                    if let base = buffer.baseAddress { PageHints.preferHugePages(UnsafeMutableRawPointer(base), count: count) }
                    initialized = count
                }
                imageRowsFinal = 0
            }
            frame = try makeFrame(lossless, width: width, height: height, payloadOffset: at, size: size)
            // libwebp's still decoder hands the codec every byte to the end of the input.
            frame?.extendsPastChunk = !options.strict
        }
    }

    private func makeFrame(_ lossless: Bool, width: Int, height: Int, payloadOffset: Int, size: Int) throws(WebPError) -> FrameDecoder {
        if lossless {
            return FrameDecoder(codec: .lossless(VP8LStream(width: width, height: height, headerless: false)),
                                width: width, height: height, payloadOffset: payloadOffset, payloadSize: size)
        }
        var alpha: [UInt8]?
        if let pendingAlpha {
            alpha = try AlphaPlane.decode(pendingAlpha, width: width, height: height, base: pendingAlphaOffset)
        }
        var lossy = LossyFrame(width: width, height: height, alpha: alpha, fancyUpsampling: options.fancyUpsampling,
                               useThreads: options.useThreads && width * height >= options.minimumThreadedPixels,
                               limits: limits)
        lossy.workerWritesAllBands = options.workerWritesAllBands
        return FrameDecoder(codec: .lossy(lossy), width: width, height: height, payloadOffset: payloadOffset, payloadSize: size)
    }

    /// Decodes the rows the payload so far allows and reports them.
    mutating func decodeRows(_ events: inout [DecodingEvent], _ sink: RowSink) throws(WebPError) {
        guard var f = frame else { return }
        frame = nil
        defer { frame = f }
        var low = Int.max, high = -1
        let offsetY = pendingFrame?.y ?? 0
        let bpp = header?.pixelFormat.bytesPerPixel ?? 4
        let still = compositor == nil
        let width = f.width
        let stream = streamRows
        let format = header?.pixelFormat ?? .rgba8
        if still, let out = directOutput {
            // The caller's memory, in the format and stride it asked for.
            try f.run(direct: (out.base, out.bytesPerPixel, out.bytesPerRow)) { y, _ in low = min(low, y); high = max(high, y) }
        } else if still, !stream, image.count == width * f.height * bpp {
            // Stills write their rows in place, in the output format.
            try image.withUnsafeMutableBufferPointer { out throws(WebPError) in
                try f.run(direct: (out.baseAddress!, bpp, width * bpp)) { y, _ in low = min(low, y); high = max(high, y) }
            }
        } else {
        try f.run { y, row in
            if still && stream {
                sink(y, row, format)
            } else if still {
                image.withUnsafeMutableBufferPointer { out in
                    let base = y * width * bpp
                    if bpp == 4 {
                        UnsafeMutableRawPointer(out.baseAddress! + base).copyMemory(from: row.baseAddress!, byteCount: width * 4)
                    } else {
                        for x in 0 ..< width {
                            out[base + 3 * x] = row[4 * x]; out[base + 3 * x + 1] = row[4 * x + 1]; out[base + 3 * x + 2] = row[4 * x + 2]
                        }
                    }
                }
            } else {
                compositor?.drawRow(y, row)
            }
            low = min(low, y); high = max(high, y)
        }
        }
        if high >= low {
            if still { imageRowsFinal = max(imageRowsFinal, high + 1) }
            let range = (low + offsetY) ..< (high + 1 + offsetY)
            if case let .rows(last)? = events.last, last.upperBound == range.lowerBound {
                events[events.count - 1] = .rows(last.lowerBound ..< range.upperBound)
            } else {
                events.append(.rows(range))
            }
        }
    }

    mutating func endImage(_ events: inout [DecodingEvent], _ sink: RowSink) throws(WebPError) {
        if decodePixels, let f = frame, !f.isComplete {
            guard f.extendsPastChunk, compositor == nil else {
                throw .truncated(what: "image data", offset: f.payloadOffset + f.payloadSize)
            }
            // A still's VP8 data runs out at the end of its chunk: libwebp's still decoder reads
            // on into the bytes after it (the next chunks, the padding, bytes past the RIFF end),
            // to the end of the input. So does this decoder (`strict`: the codec ran on the
            // chunk alone and threw already). The image ends with those bytes or at `finish`.
            let codec = f.isLossless ? "VP8L" : "VP8"
            events.append(.warning("\(codec) data runs past its chunk: the bytes after it are read as \(codec) data, as libwebp does"))
            overrun = true
            frame?.append(input.unread[...])
            try decodeRows(&events, sink)
            if frame?.isComplete != true { return }
            overrun = false
        }
        frame = nil
        pendingAlpha = nil
        if let anmf = pendingFrame {
            let index = frames.count - 1
            compositor?.endFrame(disposeToBackground: anmf.disposeToBackground)
            if index == 0, let canvas = compositor?.canvas { firstFrame = canvas }
            completedFrames += 1
            pendingFrame = nil
            events.append(.frameComplete(index))
        } else {
            imageDone = true
            completedFrames = 1
        }
    }

    mutating func endOfFile(_ events: inout [DecodingEvent]) throws(WebPError) {
        if frameEnd != nil && !frameHasImage { throw .invalid(what: "ANMF chunk without an image", offset: riffEnd) }
        if isAnimated {
            guard !frames.isEmpty else { throw .invalid(what: "animation without frames", offset: riffEnd) }
        } else {
            guard imageDone || overrun else { throw .invalid(what: "file without an image chunk", offset: riffEnd) }
        }
        state = .ended
        events.append(.end)
    }
}
