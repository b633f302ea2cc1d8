import ImageCore

/// What an image's data takes, worked out from IHDR before anything is allocated: the limits
/// checks (working memory, the least compressed size), block and band sizes, spilling.
extension ImageDataDecoder {
    /// Working memory beside the output image, for the limits check.
    static func workingBytes(info: PNGInfo, pipelined: Bool = false) -> Int {
        let stride = info.rowBytes(width: info.width) + 1
        return 2 * blockCapacity(stride: stride, pipelined: pipelined) + 2 * stride + info.width * 8
            + 4 * Unfilter.slack + (64 << 10)
    }

    /// Output room of one inflate call: at least two rows, normally 64 KiB. Where a call stops
    /// decides the offset an error in its rows names, so it is the same for every thread count.
    static func stepCapacity(stride: Int) -> Int { max(2 * stride, 1 << 16) }

    /// Bytes of each inflate block: one step, or pipelined four, so that a block handed to the
    /// other thread is worth the hand-over.
    static func blockCapacity(stride: Int, pipelined: Bool) -> Int {
        (pipelined ? 4 : 1) * stepCapacity(stride: stride)
    }

    /// The filtered bytes (filter-type bytes included) of the whole image: what the zlib
    /// stream inflates to (PNG 7.3, 8.2).
    static func filteredBytes(info: PNGInfo) -> Int {
        guard info.interlaced else { return info.height * (info.rowBytes(width: info.width) + 1) }
        var total = 0
        for p in 0 ..< 7 {
            let (w, h) = Adam7.size(pass: p, width: info.width, height: info.height)
            if w > 0 && h > 0 { total += h * (info.rowBytes(width: w) + 1) }
        }
        return total
    }

    /// The fewest bytes a zlib stream of this image's filtered rows can take, for
    /// ``DecodingLimits/requiresPlausibleInput``: deflate codes at most 258 bytes (a longest
    /// match) in 2 bits, 1,032:1. Saturates instead of overflowing for any IHDR.
    static func leastCompressedBytes(info: PNGInfo) -> Int {
        var total = 0
        for p in 0 ..< (info.interlaced ? 7 : 1) {
            let (w, h) = info.interlaced ? Adam7.size(pass: p, width: info.width, height: info.height) : (info.width, info.height)
            guard w > 0 && h > 0 else { continue }
            let (bytes, o1) = h.multipliedReportingOverflow(by: info.rowBytes(width: w) + 1)
            let (sum, o2) = total.addingReportingOverflow(bytes)
            if o1 || o2 { return Int.max / 1032 }
            total = sum
        }
        return total / 1032
    }

    /// Below this many filtered bytes the image is unfiltered on the decoding thread: handing
    /// blocks to another thread costs microseconds each, which a smaller image does not repay.
    static let minimumPipelinedBytes = 1 << 20

    /// Row mode keeps an interlaced image above `spillAbove` bytes in a ``SpillBuffer``.
    static func spills(info: PNGInfo, rowMode: Bool, spillAbove: Int?) -> Bool {
        guard rowMode, info.interlaced, let spillAbove else { return false }
        return info.width * info.height * info.outputFormat.bytesPerPixel > spillAbove
    }

    /// Bytes per output pixel of the image and extra bytes a decode allocates, for the limits
    /// check: row mode (non-interlaced) holds one block's rows instead of the image, and a
    /// spilled interlaced image a window of its file.
    static func outputBytes(info: PNGInfo, rowMode: Bool, spillAbove: Int? = nil,
                            pipelined: Bool = false) -> (imageBytesPerPixel: Int, extraBytes: Int) {
        if spills(info: info, rowMode: rowMode, spillAbove: spillAbove) {
            return (0, workingBytes(info: info) + SpillBuffer.window)
        }
        let working = workingBytes(info: info, pipelined: pipelined)
        guard rowMode && !info.interlaced else { return (info.outputFormat.bytesPerPixel, working) }
        return (0, working + bandRows(info: info) * info.width * info.outputFormat.bytesPerPixel)
    }

    /// Row mode: most rows one block of filtered rows can hold.
    static func bandRows(info: PNGInfo) -> Int {
        let stride = info.rowBytes(width: info.width) + 1
        return max(2 * stride, 1 << 16) / stride
    }
}

extension ImageDataDecoder {
    /// The largest palette index in one unfiltered row of `width` pixels of `bits` bits.
    static func largestIndex(_ raw: UnsafePointer<UInt8>, width: Int, bits: Int) -> Int {
        var top: UInt8 = 0
        if bits == 8 {
            for x in 0 ..< width { top = max(top, raw[x]) }
            return Int(top)
        }
        let perByte = 8 / bits, mask = UInt8((1 << bits) - 1)
        for x in 0 ..< width {
            let shift = 8 - bits * (x % perByte + 1)
            top = max(top, raw[x / perByte] >> UInt8(shift) & mask)
        }
        return Int(top)
    }
}
