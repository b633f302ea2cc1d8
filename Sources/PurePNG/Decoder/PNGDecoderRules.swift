import ImageCore

// Where chunks may stand (PNG third edition, 5.6), as libpng judges it.
extension PNGDecoder {
    /// Where PNG 5.6 (Table 5.3) allows each ancillary chunk; nil when this one is in place.
    static func placementProblem(_ type: ChunkType, seenPLTE: Bool, seenIDAT: Bool, colorType: PNGColorType) -> String? {
        switch type {
        case .gAMA, .cHRM, .sRGB, .iCCP, .cICP, .sBIT:
            if seenPLTE || seenIDAT { return "must come before PLTE and IDAT" }
        case .bKGD:
            if seenIDAT { return "must come before IDAT" }
            if colorType == .palette && !seenPLTE { return "must come after PLTE" }
        case .pHYs, .eXIf:
            if seenIDAT { return "must come before IDAT" }
        default:
            break
        }
        return nil
    }
}

// APNG: the animation chunks' rules, and frames decoded and composited when asked for.
extension PNGDecoder {
    /// Runs one animation rule check. A broken rule ends the animation: strict decoding throws
    /// it, the default notes it as a `.warning` and goes on with the static image.
    mutating func animationStep(_ events: inout [DecodingEvent],
                                        _ body: (inout APNGState) throws(PNGError) -> Void) throws(PNGError) {
        guard animation.broken == nil else { return }
        do throws(PNGError) {
            try body(&animation)
        } catch {
            if options.strict { throw error }
            animation.broken = error
            animation.frameData = nil
            events.append(.warning("APNG animation ignored, the static image stands: \(error)"))
            if animation.decodesFrames && !animation.stillFrame && animation.frames.isEmpty && seenIDAT {
                // Broken before any frame began: the static image is the one frame after all.
                animation.stillFrame = true
                events.append(.frameStarted(0))
                if reportedRows > 0 { events.append(.rows(0 ..< reportedRows)) }
            }
        }
    }

    /// An fcTL was read: frame decoding starts (frame 0's data is the IDAT image when its fcTL
    /// came before IDAT).
    mutating func startFrame(_ info: PNGInfo, _ events: inout [DecodingEvent]) {
        guard let frame = animation.frames.last else { return }
        if animation.compositor == nil {
            animation.compositor = APNGCompositor(width: info.width, height: info.height, sixteenBit: info.bitDepth == 16)
        }
        events.append(.frameStarted(animation.frames.count - 1))
        animation.reportedRows = 0
        if seenIDAT { animation.frameData = ImageDataDecoder(info: APNGState.frameInfo(info, frame)) }
    }

    /// Draws frame `index` onto the canvas once all its rows are decoded.
    mutating func completeFrame(_ index: Int, from decoder: ImageDataDecoder,
                                        _ events: inout [DecodingEvent]) throws(PNGError) {
        // Moved out while drawing, so the canvas is not copied on write.
        guard var compositor = animation.compositor else { return }
        animation.compositor = nil
        let frame = animation.frames[index]
        compositor.draw(APNGState.canvasImage(from: decoder, frame, preview: false, format: compositor.format), control: frame)
        animation.compositor = compositor
        animation.completed += 1
        events.append(.frameComplete(index))
        if animation.pausesAfterEachFrame { animation.paused = true }
    }

    /// Frame 0 from the IDAT image, once its last row is decoded and the libpng piece holding
    /// it has been read (`endsPiece`: the bytes just fed end a piece), so that what follows the
    /// last row is judged first, whatever the chunking.
    mutating func completeStaticFrame(endsPiece: Bool, _ events: inout [DecodingEvent]) throws(PNGError) {
        guard animation.fcTLBeforeIDAT, animation.broken == nil, animation.completed == 0,
              let imageData, imageData.rowsComplete, !animation.frames.isEmpty else { return }
        switch imageData.phase {
        case .rows, .tail: return
        case .checking: guard endsPiece else { return }
        case .shadow, .done: break
        }
        flushRows(&events)
        try completeFrame(0, from: imageData, &events)
    }

    /// Frame-by-frame iteration: go on after the pause that followed a frame.
    mutating func resume() { animation.paused = false }

    /// The canvas with the frame being decoded drawn as far as it has arrived; nil before the
    /// first frame starts.
    func animationPreview() -> Image? {
        guard let compositor = animation.compositor else { return nil }
        let index = animation.frames.count - 1
        if index >= animation.completed, index >= 0 {
            let frame = animation.frames[index]
            if let decoder = index == 0 && animation.fcTLBeforeIDAT ? imageData : animation.frameData {
                return compositor.preview(with: APNGState.canvasImage(from: decoder, frame, preview: true, format: compositor.format),
                                          control: frame)
            }
        }
        return compositor.image(metadata: metadata)
    }
}
