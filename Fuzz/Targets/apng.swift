import ImageCore
import PurePNG

/// Feeds `pieces` to an APNG decoder that pauses after each frame; returns the CRC-32 of the
/// canvas at each completed frame and the final image (nil after an error).
func decodeFrames(_ bytes: [UInt8], pieces: [Int]) -> ([UInt32], Image?) {
    var decoder = APNGDecoder(limits: fuzzLimits.knowingInputSize(bytes.count))
    decoder.pausesAfterEachFrame = true
    var canvases: [UInt32] = []
    func note(_ events: [DecodingEvent]) {
        for case .frameComplete in events { canvases.append(CRC32.checksum(decoder.preview()?.pixels ?? [])) }
    }
    var offset = 0
    for n in pieces {
        guard let events = try? decoder.append(bytes[offset ..< offset + n]) else { return (canvases, nil) }
        note(events)
        while decoder.isPaused {
            guard let more = try? decoder.resume() else { return (canvases, nil) }
            note(more)
        }
        offset += n
    }
    return (canvases, try? decoder.finish())
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let (wholeFrames, whole) = decodeFrames(bytes, pieces: size > 0 ? [size] : [])
    let (chunkedFrames, chunked) = decodeFrames(bytes, pieces: chunkSizes(count: size, seed: seed(of: bytes)))
    agree(whole, chunked, "APNG")
    if whole != nil && wholeFrames != chunkedFrames { fatalError("APNG: frames differ whole and chunked") }
    // Random access and iteration through APNGAnimation agree with the incremental decoder.
    if let animation = try? APNGAnimation(bytes: bytes, limits: fuzzLimits) {
        var walked: [UInt32] = []
        try? animation.forEachFrame { _, frame in walked.append(CRC32.checksum(frame.pixels)) }
        if animation.isAnimated && whole != nil && walked != wholeFrames {
            fatalError("APNG: APNGAnimation's frames differ from APNGDecoder's")
        }
        for index in animation.frameInfo.indices.reversed().prefix(3) {
            if let frame = try? animation.frame(at: index), index < walked.count,
               CRC32.checksum(frame.pixels) != walked[index] {
                fatalError("APNG: frame(at:) differs from iteration")
            }
        }
    }
    return 0
}
