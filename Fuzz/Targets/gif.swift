import ImageCore
import PureGIF

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    var whole: Image?
    var decoder = GIFDecoder(limits: fuzzLimits.knowingInputSize(bytes.count))
    if (try? decoder.append(bytes)) != nil { whole = try? decoder.finish() }
    var chunkedDecoder = GIFDecoder(limits: fuzzLimits.knowingInputSize(bytes.count))
    var offset = 0
    var failed = false
    for n in chunkSizes(count: size, seed: seed(of: bytes)) {
        do { _ = try chunkedDecoder.append(bytes[offset..<offset + n]) } catch { failed = true; break }
        offset += n
    }
    let chunked = failed ? nil : try? chunkedDecoder.finish()
    agree(whole, chunked, "GIF")
    // Random access to every frame through GIFAnimation.
    if let animation = try? GIFAnimation(bytes: bytes, limits: fuzzLimits) {
        for index in animation.frames.indices.reversed() { _ = try? animation.frame(at: index) }
    }
    return 0
}
