/// The ALPH chunk (WebP container spec, "Alpha"): a header byte (compression method in bits
/// 0-1, filter in bits 2-3, pre-processing in bits 4-5, reserved bits 6-7), then the alpha
/// values raw (method 0) or as the green channel of a headerless VP8L image (method 1),
/// filtered by rows with libwebp's unfilters.
enum AlphaPlane {
    enum Filter: Int { case none = 0, horizontal, vertical, gradient }

    /// Decodes the whole plane of `width` x `height` from the chunk payload `data`; errors
    /// carry offsets from `base` (the payload's offset in the file). libwebp rejects a
    /// method above 1, pre-processing above 1 and non-zero reserved bits; the pre-processing
    /// bit itself (level reduction) changes nothing when decoding without dithering.
    static func decode(_ data: [UInt8], width: Int, height: Int, base: Int) throws(WebPError) -> [UInt8] {
        guard let first = data.first else { throw .truncated(what: "ALPH chunk", offset: base) }
        let method = Int(first & 3), filterBits = Int(first >> 2) & 3, preprocessing = Int(first >> 4) & 3
        guard method <= 1, preprocessing <= 1, first >> 6 == 0 else {
            throw .invalid(what: "ALPH header", offset: base)
        }
        let filter = Filter(rawValue: filterBits)!
        var plane = [UInt8](repeating: 0, count: width * height)
        if method == 0 {
            guard data.count - 1 >= width * height else { throw .truncated(what: "ALPH raw data", offset: base + data.count) }
            for i in 0 ..< width * height { plane[i] = data[1 + i] }
        } else {
            var stream = VP8LStream(width: width, height: height, headerless: true)
            let body = Array(data.dropFirst())
            do throws(VP8LFailure) {
                try body.withUnsafeBufferPointer { buffer throws(VP8LFailure) in
                    try stream.advance(buffer, complete: true) { y, row in
                        for x in 0 ..< width { plane[y * width + x] = UInt8(truncatingIfNeeded: row[x] >> 8) }
                    }
                }
            } catch {
                switch error {
                case .needMoreData: throw .truncated(what: "ALPH lossless data", offset: base + data.count)
                case .invalid(let what, let byte): throw .invalid(what: "ALPH lossless \(what)", offset: base + 1 + byte)
                }
            }
        }
        unfilter(&plane, width: width, height: height, filter: filter)
        return plane
    }

    /// libwebp's unfilters (`filters.c`): each row predicted from the row above and the
    /// pixel to the left; the first row always horizontally from 0.
    static func unfilter(_ plane: inout [UInt8], width: Int, height: Int, filter: Filter) {
        guard filter != .none, width > 0 else { return }
        plane.withUnsafeMutableBufferPointer { p in
            for y in 0 ..< height {
                let row = y * width
                if y == 0 || filter == .horizontal {
                    var pred: UInt8 = y == 0 ? 0 : p[row - width]
                    for x in 0 ..< width { p[row + x] = p[row + x] &+ pred; pred = p[row + x] }
                } else if filter == .vertical {
                    for x in 0 ..< width { p[row + x] = p[row + x] &+ p[row - width + x] }
                } else {
                    var top = p[row - width], topLeft = top, left = top
                    for x in 0 ..< width {
                        top = p[row - width + x]
                        let g = Int(left) + Int(top) - Int(topLeft)
                        left = p[row + x] &+ UInt8(g < 0 ? 0 : (g > 255 ? 255 : g))
                        topLeft = top
                        p[row + x] = left
                    }
                }
            }
        }
    }
}
