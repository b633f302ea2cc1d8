import ImageCore
import PureJPEG

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let s = seed(of: bytes)
    // Half the whole decodes on two threads: a progressive file's scans side by side (or, damaged,
    // started over on one thread), checked against the chunked decode below, whose scans run in order.
    var wholeOptions = JPEGDecodingOptions()
    wholeOptions.threads = s % 2 == 0 ? 2 : 1
    let whole = try? JPEGDecoder.decode(bytes, limits: fuzzLimits, options: wholeOptions)
    // A second pass with DCT scaling when the first byte of the seed says so, to reach IDCTScaled.
    if s % 3 == 0 {
        _ = try? JPEGDecoder.decode(bytes, limits: fuzzLimits, options: JPEGDecodingOptions(scale: [1, 2, 4][Int(s >> 8 % 3)]))
    }
    // Two inputs in three decode in pieces with MCU rows reconstructed on a second thread.
    var options = JPEGDecodingOptions()
    options.threads = s % 3 == 0 ? 1 : 2
    var decoder = JPEGDecoder(limits: fuzzLimits.knowingInputSize(bytes.count), options: options)
    var offset = 0
    var failed = false
    // Previews now and then (four at most, each renders the whole image): the final image is then
    // brought up to date from the last preview (only the blocks later scans changed), and must
    // still equal the one-shot decode.
    let pieces = chunkSizes(count: size, seed: s)
    let previewEvery = s & 4 != 0 ? max(pieces.count / 4, 1) : Int.max
    for (i, n) in pieces.enumerated() {
        do { _ = try decoder.append(bytes[offset..<offset + n]) } catch { failed = true; break }
        offset += n
        if i % previewEvery == previewEvery - 1 { _ = decoder.preview() }
    }
    let chunked = failed ? nil : try? decoder.finish()
    agree(whole, chunked, "JPEG")
    // One input in four streams its rows (`JPEGRowDecoder`) in the same pieces on two threads
    // (batches of MCU rows reconstructed on the second): bands in order, each row once, and the
    // whole decode's pixels when both succeed.
    if s % 4 == 2 {
        var rowOptions = JPEGDecodingOptions()
        rowOptions.threads = 2
        var rows = JPEGRowDecoder(limits: fuzzLimits.knowingInputSize(bytes.count), options: rowOptions)
        var pixels: [UInt8] = [], next = 0, complete = true
        let take = { (band: RowBand) in
            if band.y != next { fatalError("JPEG rows: a band at row \(band.y), expected \(next)") }
            for i in 0 ..< band.count { pixels += band.row(i) }
            next += band.count
        }
        var at = 0
        for n in pieces {
            do { try bytes[at ..< at + n].withUnsafeBytes { _ = try rows.append($0, rows: take) } } catch { complete = false; break }
            at += n
        }
        if complete { do { try rows.finish(rows: take) } catch { complete = false } }
        // Row mode hands samples of any precision but 8 (12-bit, lossless 2...16) out scaled to
        // the format's full range, as `fullRange()` scales the whole decode's.
        if complete, let whole, whole.fullRange().pixels != pixels {
            fatalError("JPEG rows on two threads differ from the whole decode")
        }
    }
    // Strict decoding refuses damage the default decodes past; what it accepts, the default
    // decodes to the same pixels (no leniency was used).
    if s % 5 == 1, let strict = try? JPEGDecoder.decode(bytes, limits: fuzzLimits, options: JPEGDecodingOptions(strict: true)) {
        agree(strict, whole, "JPEG strict")
    }
    return 0
}
