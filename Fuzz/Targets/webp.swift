import ImageCore
import PureWebP

// WebPDecoder fed whole (on one thread and with `useThreads`, the worker writing every band it
// may for inputs of odd length) and in input-seeded chunks must agree; a still's rows streamed by WebPRowDecoder must be the whole decode's; every frame of
// an animation asked for out of order (WebPAnimation.frame(at:)) must not trap.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let limits = fuzzLimits.knowingInputSize(bytes.count)
    var whole: Image?
    var decoder = WebPDecoder(limits: limits)
    if (try? decoder.append(bytes)) != nil { whole = try? decoder.finish() }
    // The lossy two-thread pipeline (speculative header parsing included) must match one thread.
    var threadOptions = WebPDecodingOptions()
    threadOptions.useThreads = true
    threadOptions.workerWritesAllBands = size & 1 == 1
    var threadDecoder = WebPDecoder(limits: limits, options: threadOptions)
    var threaded: Image?
    if (try? threadDecoder.append(bytes)) != nil { threaded = try? threadDecoder.finish() }
    agree(whole, threaded, "WebP threads")
    var chunkedDecoder = WebPDecoder(limits: limits)
    var rows = WebPRowDecoder(limits: limits)
    var streamed: [UInt8] = []
    var offset = 0
    var failed = false, rowsFailed = false
    let take = { (band: RowBand) in
        for i in 0 ..< band.count { streamed.append(contentsOf: band.row(i)) }
    }
    for n in chunkSizes(count: size, seed: seed(of: bytes)) {
        if !failed { do { _ = try chunkedDecoder.append(bytes[offset ..< offset + n]) } catch { failed = true } }
        if !rowsFailed { do { try rows.append(bytes[offset ..< offset + n], rows: take) } catch { rowsFailed = true } }
        offset += n
    }
    let chunked = failed ? nil : try? chunkedDecoder.finish()
    agree(whole, chunked, "WebP")
    if !rowsFailed { do { try rows.finish(rows: take) } catch { rowsFailed = true } }
    if let whole {
        if rowsFailed || streamed.count != whole.pixels.count || !samePixels(whole, Image(width: whole.width, height: whole.height, format: whole.format, pixels: streamed)) {
            fatalError("WebP: WebPRowDecoder's rows differ from the whole decode")
        }
    } else if !rowsFailed {
        fatalError("WebP: WebPRowDecoder succeeded where the whole decode failed")
    }
    if let animation = try? WebPAnimation(bytes: bytes, limits: fuzzLimits) {
        let count = animation.frames.count
        // Out of order: last, first, middle, then one past the end (an error, not a trap).
        for index in [count - 1, 0, count / 2, count] { _ = try? animation.frame(at: index) }
        var iterator = animation.makeIterator()
        while (try? iterator.nextFrame()).flatMap({ $0 }) != nil {}
    }
    return 0
}
