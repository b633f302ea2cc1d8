import ImageCore
import PurePNG

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let whole = try? PNGDecoder.decode(bytes, limits: fuzzLimits)
    // Chunked: same bytes in input-seeded pieces, two inputs in three with the rows unfiltered
    // on a second thread; must give the same pixels.
    let threads = seed(of: bytes) % 3 == 0 ? 1 : 2
    var decoder = PNGDecoder(limits: fuzzLimits.knowingInputSize(bytes.count), options: PNGDecodingOptions(threads: threads))
    var offset = 0
    var failed = false
    for n in chunkSizes(count: size, seed: seed(of: bytes)) {
        do { _ = try decoder.append(bytes[offset..<offset + n]) } catch { failed = true; break }
        offset += n
    }
    let chunked = failed ? nil : try? decoder.finish()
    agree(whole, chunked, "PNG")
    if whole != nil { _ = decoder.preview() }
    // What strict decoding accepts, the default decodes to the same pixels (no leniency used).
    if seed(of: bytes) % 5 == 1,
       let strict = try? PNGDecoder.decode(bytes, limits: fuzzLimits, options: PNGDecodingOptions(strict: true)) {
        agree(strict, whole, "PNG strict")
    }
    return 0
}
