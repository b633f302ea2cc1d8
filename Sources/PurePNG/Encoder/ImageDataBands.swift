import CZlib
import ImageCore

/// The scanlines of an image's filtered datastream (PNG 7.3) in file order: one pass, or the
/// non-empty Adam7 passes one after another (PNG 8.2), numbered from 0 across passes.
struct ImageDataRows: Sendable {
    struct Pass: Sendable {
        let x: Int, y: Int, dx: Int, dy: Int
        /// Pixels in each of the pass's rows, and its rows.
        let width: Int, height: Int
        let rowBytes: Int
        /// The number of the pass's first row in the whole datastream.
        let firstRow: Int
    }

    let passes: [Pass]
    let count: Int

    init(plan: EncodingPlan) {
        var passes: [Pass] = []
        var first = 0
        for index in plan.options.interlaced ? Array(0 ..< 7) : [-1] {
            let g = index < 0 ? (x0: 0, y0: 0, dx: 1, dy: 1) : (x0: Adam7.passes[index].x0, y0: Adam7.passes[index].y0,
                                                                dx: Adam7.passes[index].dx, dy: Adam7.passes[index].dy)
            let (width, height) = index < 0 ? (plan.width, plan.height)
                                            : Adam7.size(pass: index, width: plan.width, height: plan.height)
            // PNG 8.2: an empty pass contributes nothing, not even filter bytes.
            if width == 0 || height == 0 { continue }
            passes.append(Pass(x: g.x0, y: g.y0, dx: g.dx, dy: g.dy, width: width, height: height,
                               rowBytes: plan.layout.bytesPerRow(width: width), firstRow: first))
            first += height
        }
        self.passes = passes
        count = first
    }

    /// The pass holding row `r` and the row's number within it.
    func locate(_ r: Int) -> (pass: Pass, k: Int) {
        var i = passes.count - 1
        while passes[i].firstRow > r { i -= 1 }
        return (passes[i], r - passes[i].firstRow)
    }

    /// Row `r`'s filter-type byte and filtered bytes.
    func length(_ r: Int) -> Int { locate(r).pass.rowBytes + 1 }
}

/// Where an image's zlib datastream is cut into bands that compress independently, so that
/// several threads can deflate one image (pigz's and mtpng's scheme).
///
/// A band ends after the row that brings its filtered bytes to ``targetBytes`` or more,
/// unless that row is the image's last. Each band is a raw deflate stream started with the
/// 32 KiB of filtered bytes before it as its dictionary and ended on a byte boundary (an empty
/// stored block, zlib's `Z_SYNC_FLUSH`), the last band ended with the final block; the bands
/// joined behind one zlib header, with the Adler-32 of the whole combined from the bands'
/// (`adler32_combine`), are one valid zlib stream. Matches may reach back into the previous
/// band, since a decoder's window holds it.
///
/// The cuts depend on the image alone, never on the thread count, so a file is the same
/// bytes whatever machine wrote it; an image of one band is today's single zlib stream.
struct ImageDataBands: Sendable {
    /// Filtered bytes per band: big enough that the cost of a restart (a flush, new Huffman
    /// tables, the first 32 KiB compressed with a primed but cold match finder) stays near a
    /// thousandth of the output, small enough for a megapixel image to give every core work.
    static let targetBytes = 256 * 1024

    /// The first row of each band, then the row count.
    let starts: [Int]
    let totalRows: Int
    let targetBytes: Int

    /// The cuts for `rows`; `targetBytes` other than ``targetBytes`` only in tests (the size
    /// of one zlib stream against bands).
    init(rows: ImageDataRows, targetBytes: Int = ImageDataBands.targetBytes) {
        self.targetBytes = targetBytes
        var starts = [0]
        var filled = 0
        var r = 0
        for pass in rows.passes {
            for _ in 0 ..< pass.height {
                filled += pass.rowBytes + 1
                r += 1
                if ImageDataBands.endsBand(filled: filled, rowsEncoded: r, totalRows: rows.count, target: targetBytes) {
                    starts.append(r)
                    filled = 0
                }
            }
        }
        starts.append(rows.count)
        self.starts = starts
        totalRows = rows.count
    }

    var count: Int { starts.count - 1 }

    /// Whether the band ends after the `rowsEncoded`-th row, `filled` bytes into it.
    func endsBand(filled: Int, rowsEncoded: Int) -> Bool {
        ImageDataBands.endsBand(filled: filled, rowsEncoded: rowsEncoded, totalRows: totalRows, target: targetBytes)
    }

    private static func endsBand(filled: Int, rowsEncoded: Int, totalRows: Int, target: Int) -> Bool {
        filled >= target && rowsEncoded < totalRows
    }
}

/// One band compressed: its raw deflate bytes, and the Adler-32 and length of what went in.
struct CompressedBand: Sendable {
    let bytes: [UInt8]
    let adler: UInt
    let length: Int
}

extension ImageDataBands {
    /// Filters and compresses band `b` of `image` on its own: the rows before it that make its
    /// 32 KiB dictionary are packed and filtered again (a row's filter depends only on it and
    /// the row above), then the band's rows are compressed with it.
    static func compress(band b: Int, of bands: ImageDataBands, rows: ImageDataRows, image: Image,
                         plan: EncodingPlan) throws(PNGError) -> CompressedBand {
        let first = bands.starts[b], end = bands.starts[b + 1]
        let engine = try plan.makeEngine(framing: .raw)
        let packer = plan.packer
        var out: [UInt8] = []
        try image.pixels.withPNGBytes { (raw) throws(PNGError) in
            guard let base = raw.baseAddress else { return }
            let stride = image.bytesPerRow
            func pack(_ pass: ImageDataRows.Pass, _ k: Int) throws(PNGError) {
                let y = pass.y + k * pass.dy
                try packer.pack(row: base + y * stride, first: pass.x, step: pass.dx, count: pass.width,
                                y: y, into: engine.currentRow)
            }
            // Puts row r in the engine's current row with the row above it as the previous.
            var loaded = -1
            func load(_ r: Int) throws(PNGError) {
                let (pass, k) = rows.locate(r)
                if k == 0 {
                    engine.beginPass(rowBytes: pass.rowBytes)
                } else if loaded != r - 1 {
                    engine.beginPass(rowBytes: pass.rowBytes)
                    try pack(pass, k - 1)
                    engine.skipRow()
                }
                try pack(pass, k)
                loaded = r
            }
            var start = first, dictionaryBytes = 0
            while start > 0 && dictionaryBytes < Deflater.windowSize {
                start -= 1
                dictionaryBytes += rows.length(start)
            }
            if start < first {
                var dictionary: [UInt8] = []
                dictionary.reserveCapacity(dictionaryBytes)
                for r in start ..< first {
                    try load(r)
                    dictionary.append(contentsOf: engine.filterRow())
                }
                let from = dictionary.count - min(dictionary.count, Deflater.windowSize)
                try dictionary.withPNGBytes { (bytes) throws(PNGError) in
                    try engine.compressor.restart(dictionary: UnsafeRawBufferPointer(rebasing: bytes[from...]))
                }
            }
            out.reserveCapacity((end - first) * (rows.length(first)) / 2)
            for r in first ..< end {
                try load(r)
                try engine.encodeRow { out.append(contentsOf: $0) }
            }
        }
        if b == bands.count - 1 {
            try engine.finish { out.append(contentsOf: $0) }
        } else {
            try engine.compressor.endBand(passingOut: true) { out.append(contentsOf: $0) }
        }
        return CompressedBand(bytes: out, adler: engine.compressor.adler, length: engine.compressor.totalIn)
    }
}

/// Joins compressed bands into one zlib stream (header, bands, combined Adler-32) cut into
/// IDAT chunks of ``Deflater/defaultBlockSize`` bytes: the chunks one zlib stream compressed
/// on one thread would have.
struct BandAssembler {
    private var pending: [UInt8] = []
    private var adler: UInt = 1
    private let blockSize = Deflater.defaultBlockSize

    init(level: Int) {
        let header = Deflater.zlibHeader(level: level)
        pending = [UInt8(header >> 8), UInt8(header & 0xFF)]
        pending.reserveCapacity(2 * blockSize)
    }

    mutating func append(_ band: CompressedBand, into w: inout ChunkWriter) {
        adler = adler32_combine(adler, band.adler, off_t(band.length))
        append(band.bytes, into: &w)
    }

    private mutating func append(_ bytes: [UInt8], into w: inout ChunkWriter) {
        var i = 0
        while i < bytes.count {
            let n = min(blockSize - pending.count, bytes.count - i)
            pending.append(contentsOf: bytes[i ..< i + n])
            i += n
            if pending.count == blockSize {
                pending.withUnsafeBytes { w.append(.IDAT, $0) }
                pending.removeAll(keepingCapacity: true)
            }
        }
    }

    /// The Adler-32 trailer and the last, possibly short, IDAT chunk.
    mutating func finish(into w: inout ChunkWriter) {
        append([24, 16, 8, 0].map { UInt8(truncatingIfNeeded: adler >> UInt($0)) }, into: &w)
        if !pending.isEmpty { pending.withUnsafeBytes { w.append(.IDAT, $0) } }
        pending = []
    }
}
