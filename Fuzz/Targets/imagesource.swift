import ImageCore
import PureImage

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let options = ImageSourceOptions(limits: fuzzLimits.knowingInputSize(bytes.count))
    let whole = try? ImageSource.decode(bytes, options: options)
    var source = ImageSource(options: options)
    var offset = 0
    var failed = false
    for n in chunkSizes(count: size, seed: seed(of: bytes)) {
        do { _ = try source.append(bytes[offset..<offset + n]) } catch { failed = true; break }
        offset += n
        if offset % 3 == 0 { _ = source.preview() }
    }
    let chunked = failed ? nil : try? source.finish()
    agree(whole, chunked, "ImageSource")
    return 0
}
