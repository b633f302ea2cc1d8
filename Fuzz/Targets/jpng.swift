import ImageCore
import PureImage

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    _ = try? JPNGDecoder.parts(bytes)
    let whole = try? JPNGDecoder.decode(bytes, limits: fuzzLimits)
    _ = try? JPNGDecoder.decodeMask(bytes, limits: fuzzLimits)
    var decoder = JPNGStreamDecoder(limits: fuzzLimits.knowingInputSize(bytes.count))
    var offset = 0
    var failed = false
    for n in chunkSizes(count: size, seed: seed(of: bytes)) {
        do { _ = try decoder.append(bytes[offset..<offset + n]) } catch { failed = true; break }
        offset += n
    }
    let streamed = failed ? nil : try? decoder.finish()
    // The stream decoder may return plain JPEG output when no mask follows; only compare
    // when both read the file as JPNG.
    if let whole, let streamed, whole.format == streamed.format { agree(whole, streamed, "JPNG") }
    return 0
}
