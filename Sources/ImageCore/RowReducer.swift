#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A high-quality reduction fed rows top to bottom: memory is a few rows of the source and the
/// (small) result, whatever the source's height, so a thumbnail of a huge streamed image never
/// holds the image.
///
/// The reduction is libvips' `thumbnail`/`resize` recipe: a box average by the integer factor
/// that leaves between 2x and 4x to go (none when the factor is under 4), then a Lanczos-3
/// filter (support widened by the remaining factor, so it low-passes before it samples), each
/// axis on its own. Colour is weighted by alpha (premultiplied while filtered), so transparent
/// pixels do not darken edges. Every format: 8-bit results are rounded and clamped, 16-bit ones
/// likewise to 0...65535.
///
/// ```swift
/// var reducer = RowReducer(sourceWidth: 16000, sourceHeight: 12000, format: .rgb8, width: 1024, height: 768)
/// try decoder.finish { band in reducer.add(band) }
/// let thumbnail = reducer.finish(metadata: decoder.metadata)
/// ```
public struct RowReducer: Sendable {
    /// The size rows arrive in.
    public let sourceWidth: Int, sourceHeight: Int
    /// The size of the result.
    public let width: Int, height: Int
    /// The layout of the source rows and of the result.
    public let format: PixelFormat
    /// Whether colour is already premultiplied (then alpha is filtered like the other channels).
    public let isPremultiplied: Bool
    /// Source rows taken so far.
    public private(set) var rowsAdded = 0

    private let channels: Int
    private let alphaIndex: Int
    private let maxValue: Float
    private let boxX: Int, boxY: Int
    private let boxWidth: Int
    private let xTaps: FilterTaps, yTaps: FilterTaps
    /// Sums of the box row being gathered, then its averages.
    private var boxRow: [Float]
    /// The box row split into channel planes (8 floats of padding each) for the SIMD filter.
    private var planes: [Float]
    /// The planes hold the next box row already (no box: samples converted straight into them).
    private var planesReady = false
    private var boxRowsGathered = 0
    private var boxRowsDone = 0
    /// Horizontally filtered box rows, `ringRows` of them, row r in slot r % ringRows.
    private var ring: [Float]
    private let ringRows: Int
    private var nextOutputRow = 0
    private var output: [UInt8]

    /// A reducer from `sourceWidth` x `sourceHeight` to `width` x `height` (each at least 1 and
    /// at most the source's).
    ///
    /// Set `sourceIsCellAverages` when each source pixel is the average of the area it stands
    /// for rather than a sample (a JPEG decoded at 1/8, each pixel its block's DC term): the
    /// Lanczos windows then correct averages to centre values, which keeps the detail an 8x8
    /// average blurs (on the 192 MP benchmark photo, 1/8 then this filter comes within 50 dB of
    /// a float Lanczos-3 reduction of the full decode, 2 dB closer than without it).
    public init(sourceWidth: Int, sourceHeight: Int, format: PixelFormat, isPremultiplied: Bool = false,
                width: Int, height: Int, sourceIsCellAverages: Bool = false) {
        self.sourceWidth = max(sourceWidth, 1)
        self.sourceHeight = max(sourceHeight, 1)
        self.width = min(max(width, 1), self.sourceWidth)
        self.height = min(max(height, 1), self.sourceHeight)
        self.format = format
        self.isPremultiplied = isPremultiplied
        channels = format.channels
        alphaIndex = format.hasAlpha && !isPremultiplied ? format.channels - 1 : -1
        maxValue = format.is16Bit ? 65535 : 255
        boxX = Self.boxFactor(from: self.sourceWidth, to: self.width)
        boxY = Self.boxFactor(from: self.sourceHeight, to: self.height)
        boxWidth = (self.sourceWidth + boxX - 1) / boxX
        let boxHeight = (self.sourceHeight + boxY - 1) / boxY
        xTaps = FilterTaps(lanczos3From: boxWidth, to: self.width, cellAverages: sourceIsCellAverages)
        yTaps = FilterTaps(lanczos3From: boxHeight, to: self.height, cellAverages: sourceIsCellAverages)
        ringRows = max(yTaps.maxCount, 1)
        boxRow = [Float](repeating: 0, count: boxWidth * channels)
        planes = [Float](repeating: 0, count: (boxWidth + 8) * channels)
        ring = [Float](repeating: 0, count: ringRows * self.width * channels)
        output = [UInt8](repeating: 0, count: self.width * self.height * format.bytesPerPixel)
    }

    /// The result's size for a source reduced so its longer side is at most `maxPixelSize`
    /// (aspect kept, the shorter side rounded, at least 1; never enlarged).
    public static func size(width: Int, height: Int, maxPixelSize: Int) -> (width: Int, height: Int) {
        let longer = max(width, height)
        guard maxPixelSize > 0, longer > maxPixelSize else { return (width, height) }
        let scale = Double(maxPixelSize) / Double(longer)
        let w = width >= height ? maxPixelSize : max(1, Int((Double(width) * scale).rounded()))
        let h = height > width ? maxPixelSize : max(1, Int((Double(height) * scale).rounded()))
        return (w, h)
    }

    /// The box factor libvips' resize takes first: the integer part of half the factor, so the
    /// Lanczos filter has between 2x and 4x left (1 below 4x: Lanczos alone).
    static func boxFactor(from source: Int, to target: Int) -> Int {
        max(1, source / max(target, 1) / 2)
    }

    /// True once every source row has been added.
    public var isComplete: Bool { rowsAdded >= sourceHeight }

    /// Takes the rows of `band` (its width and format must be the reducer's; rows past the
    /// source's height are ignored).
    public mutating func add(_ band: RowBand) {
        precondition(band.width == sourceWidth && band.format == format, "band does not match the reducer")
        for i in 0 ..< band.count where rowsAdded < sourceHeight {
            addRow(band.base + i * band.bytesPerRow)
        }
    }

    /// The result, with `metadata`. After a short source (fewer rows added than `sourceHeight`)
    /// the filter windows are cut at the last row added and renormalised; result rows that only
    /// missing rows cover stay zero.
    public mutating func finish(metadata: ImageMetadata = ImageMetadata()) -> Image {
        if rowsAdded < sourceHeight, rowsAdded > 0 {
            if boxRowsGathered > 0 { emitBoxRow() }
        }
        // Output rows whose windows reach past the rows received use what arrived.
        while nextOutputRow < height, rowsAdded > 0 { emitOutputRow(availableRows: boxRowsDone) }
        var image = Image(width: width, height: height, format: format, metadata: metadata)
        image.pixels = output
        image.isPremultiplied = isPremultiplied
        return image
    }

    private mutating func addRow(_ row: UnsafeRawPointer) {
        if width == sourceWidth && height == sourceHeight {
            // Nothing to reduce: the rows as they are (the filter would round alpha-weighted colour).
            let bytesPerRow = width * format.bytesPerPixel, y = rowsAdded
            output.withUnsafeMutableBytes { $0.baseAddress!.advanced(by: y * bytesPerRow).copyMemory(from: row, byteCount: bytesPerRow) }
            rowsAdded += 1
            nextOutputRow = rowsAdded
            return
        }
        if alphaIndex < 0 && !format.is16Bit {
            addOpaqueRow8(row.assumingMemoryBound(to: UInt8.self))
        } else {
            addRowAnyFormat(row)
        }
        rowsAdded += 1
        boxRowsGathered += 1
        if boxRowsGathered == boxY || rowsAdded == sourceHeight { emitBoxRow() }
    }

    /// 8-bit samples without alpha weighting: plain sums into the box row (without a box, the
    /// samples go straight into the filter's planes).
    private mutating func addOpaqueRow8(_ src: UnsafePointer<UInt8>) {
        let channels = channels, boxX = boxX, width = sourceWidth, boxWidth = boxWidth
        if boxX == 1 && boxY == 1 {
            planes.withUnsafeMutableBufferPointer { planes in
                for c in 0 ..< channels {
                    let plane = planes.baseAddress! + c * (boxWidth + 8), s = src + c
                    for x in 0 ..< width { plane[x] = Float(s[x &* channels]) }
                }
            }
            planesReady = true
            return
        }
        boxRow.withUnsafeMutableBufferPointer { acc in
            let a = acc.baseAddress!
            if boxX == 1 {
                for i in 0 ..< width * channels { a[i] += Float(src[i]) }
                return
            }
            for bx in 0 ..< boxWidth {
                let dst = a + bx * channels
                for x in bx * boxX ..< min(bx * boxX + boxX, width) {
                    let s = src + x * channels
                    for c in 0 ..< channels { dst[c] += Float(s[c]) }
                }
            }
        }
    }

    /// Any format: 16-bit samples, colour weighted by alpha.
    private mutating func addRowAnyFormat(_ row: UnsafeRawPointer) {
        let channels = channels, boxX = boxX, width = sourceWidth, alpha = alphaIndex
        let inverseMax = 1 / maxValue, sixteen = format.is16Bit
        boxRow.withUnsafeMutableBufferPointer { acc in
            for bx in 0 ..< boxWidth {
                let x0 = bx * boxX, x1 = min(x0 + boxX, width)
                for x in x0 ..< x1 {
                    var a: Float = 1
                    if alpha >= 0 {
                        let p = x * channels + alpha
                        a = (sixteen ? Float(row.loadUnaligned(fromByteOffset: 2 * p, as: UInt16.self))
                            : Float(row.load(fromByteOffset: p, as: UInt8.self))) * inverseMax
                    }
                    for c in 0 ..< channels {
                        let p = x * channels + c
                        let v = sixteen ? Float(row.loadUnaligned(fromByteOffset: 2 * p, as: UInt16.self))
                            : Float(row.load(fromByteOffset: p, as: UInt8.self))
                        acc[bx * channels + c] += c == alpha ? v : v * a
                    }
                }
            }
        }
    }

    /// Averages the gathered box row, filters it horizontally into the ring, and emits every
    /// output row whose window it completes.
    private mutating func emitBoxRow() {
        let channels = channels, boxX = boxX, width = sourceWidth, outWidth = self.width
        let rowScale = 1 / Float(boxRowsGathered), plain = boxX == 1 && boxRowsGathered == 1
        let slot = boxRowsDone % ringRows, boxWidth = boxWidth
        boxRow.withUnsafeMutableBufferPointer { accBuffer in
            let acc = accBuffer.baseAddress!
            planes.withUnsafeMutableBufferPointer { planeBuffer in
                let planes = planeBuffer.baseAddress!
                // Averages, split into channel planes for the filter.
                for c in 0 ..< channels where !planesReady {
                    let plane = planes + c * (boxWidth + 8)
                    if plain {
                        for bx in 0 ..< boxWidth { plane[bx] = acc[bx * channels + c] }
                    } else {
                        for bx in 0 ..< boxWidth {
                            let n = min(bx * boxX + boxX, width) - bx * boxX
                            plane[bx] = acc[bx * channels + c] * rowScale / Float(n)
                        }
                    }
                }
                ring.withUnsafeMutableBufferPointer { ring in
                    let out = ring.baseAddress! + slot * outWidth * channels
                    for c in 0 ..< channels {
                        xTaps.applyPlane(planes + c * (boxWidth + 8), to: out, channel: c, channels: channels, count: outWidth)
                    }
                }
            }
            if !planesReady { acc.update(repeating: 0, count: accBuffer.count) }
        }
        planesReady = false
        boxRowsGathered = 0
        boxRowsDone += 1
        while nextOutputRow < height, yTaps.end(of: nextOutputRow) <= boxRowsDone {
            emitOutputRow(availableRows: boxRowsDone)
        }
    }

    /// Output row `nextOutputRow` from the ring: the vertical filter over its window (cut at
    /// `availableRows` for a short source, the weights renormalised), alpha divided out.
    private mutating func emitOutputRow(availableRows: Int) {
        let oy = nextOutputRow
        nextOutputRow += 1
        let rowFloats = width * channels
        var sum = [Float](repeating: 0, count: rowFloats)
        let (start, weights) = yTaps.window(of: oy)
        var total: Float = 0
        ring.withUnsafeBufferPointer { ring in
            sum.withUnsafeMutableBufferPointer { sum in
                let dst = sum.baseAddress!
                for (k, w) in weights.enumerated() where start + k < availableRows {
                    total += w
                    let src = ring.baseAddress! + ((start + k) % ringRows) * rowFloats
                    for i in 0 ..< rowFloats { dst[i] += w * src[i] }
                }
            }
        }
        let scale: Float = total != 0 && abs(total - 1) > 1e-6 ? 1 / total : 1
        let channels = channels, alpha = alphaIndex, maxValue = maxValue, sixteen = format.is16Bit
        let bytesPerRow = width * format.bytesPerPixel
        output.withUnsafeMutableBytes { out in
            let row = out.baseAddress! + oy * bytesPerRow
            for x in 0 ..< width {
                let p = x * channels
                var a: Float = 1
                if alpha >= 0 { a = min(max(sum[p + alpha] * scale, 0), maxValue) / maxValue }
                for c in 0 ..< channels {
                    var v = sum[p + c] * scale
                    if alpha >= 0 && c != alpha { v = a > 0 ? v / a : 0 }
                    // Clamped first, so truncating v + 0.5 rounds (half up, as rounded() for v >= 0).
                    v = min(max(v, 0), maxValue) + 0.5
                    if sixteen {
                        row.storeBytes(of: UInt16(v), toByteOffset: 2 * (p + c), as: UInt16.self)
                    } else {
                        row.storeBytes(of: UInt8(v), toByteOffset: p + c, as: UInt8.self)
                    }
                }
            }
        }
    }
}

/// One axis of a separable filter: for each output pixel, the first source pixel of its window
/// and the window's normalised weights.
struct FilterTaps: Sendable {
    private var starts: [Int] = []
    private var counts: [Int] = []
    /// `stride` weights per output pixel, the first `counts[i]` used.
    private var weights: [Float] = []
    private var stride = 0
    private(set) var maxCount = 0

    /// Lanczos-3 taps from `source` pixels to `target` (at most `source`): the kernel is
    /// stretched by the reduction factor, pixel centres aligned ((i + 0.5) * factor), and the
    /// taps outside the source dropped and the rest renormalised.
    ///
    /// With `cellAverages` the source pixels are taken for the averages of the cells they stand
    /// for (a JPEG decoded at 1/8 is its blocks' DC terms, 8x8 averages), where the kernel wants
    /// values at the cells' centres: the centre value is the average less a 24th of its second
    /// difference (f(0) = mean - f''/24 over a unit cell), so each window is convolved with
    /// [-1/24, 13/12, -1/24], the source's edge pixels repeated.
    init(lanczos3From source: Int, to target: Int, cellAverages: Bool = false) {
        let factor = Double(source) / Double(max(target, 1))
        let stretch = max(factor, 1)
        let support = 3 * stretch
        stride = (Int(2 * support) + 3 + (cellAverages ? 2 : 0) + 7) / 8 * 8
        starts = [Int](repeating: 0, count: target)
        counts = [Int](repeating: 0, count: target)
        weights = [Float](repeating: 0, count: target * stride)
        var w = [Double](repeating: 0, count: stride)
        for i in 0 ..< target {
            let centre = (Double(i) + 0.5) * factor
            let lo = max(Int((centre - support).rounded(.down)), 0)
            let hi = min(Int((centre + support).rounded(.up)), source)
            var n = 0, total = 0.0
            for j in lo ..< hi where n < stride - (cellAverages ? 2 : 0) {
                w[n] = Self.lanczos3((Double(j) + 0.5 - centre) / stretch)
                total += w[n]
                n += 1
            }
            // Trim zero weights at both ends, so windows are as short as the kernel.
            var first = 0, last = n
            while first < last && w[first] == 0 { first += 1 }
            while last > first && w[last - 1] == 0 { last -= 1 }
            if last == first {
                // A window the kernel misses entirely (cannot happen for factors >= 1): nearest.
                starts[i] = min(Int(centre), source - 1)
                counts[i] = 1
                weights[i * stride] = 1
            } else if cellAverages && source > 1 {
                // One more tap each side where the source has it; past an edge the edge pixel's.
                let start = max(lo + first - 1, 0), end = min(lo + last + 1, source)
                var corrected = [Double](repeating: 0, count: end - start)
                let a = 1.0 / 24
                for k in first ..< last {
                    let j = lo + k, v = w[k] / total
                    corrected[j - start] += (1 + 2 * a) * v
                    corrected[max(j - 1, 0) - start] -= a * v
                    corrected[min(j + 1, source - 1) - start] -= a * v
                }
                starts[i] = start
                counts[i] = end - start
                for k in corrected.indices { weights[i * stride + k] = Float(corrected[k]) }
            } else {
                starts[i] = lo + first
                counts[i] = last - first
                for k in first ..< last { weights[i * stride + k - first] = Float(w[k] / total) }
            }
            maxCount = max(maxCount, counts[i])
        }
    }

    /// The Lanczos kernel with a = 3: sinc(x) sinc(x / 3) on (-3, 3).
    static func lanczos3(_ x: Double) -> Double {
        if x == 0 { return 1 }
        if x <= -3 || x >= 3 { return 0 }
        let px = Double.pi * x
        return 3 * sin(px) * sin(px / 3) / (px * px)
    }

    /// The source index past the last tap of output `i`.
    func end(of i: Int) -> Int { starts[i] + counts[i] }

    /// The first source index and the weights of output `i`.
    func window(of i: Int) -> (start: Int, weights: ArraySlice<Float>) {
        (starts[i], weights[i * stride ..< i * stride + counts[i]])
    }

    /// Filters one channel plane into every `channels`-th float of `out`: each output is the dot
    /// product of its weights (zero-padded to a multiple of 8) with the plane from its start, 8
    /// lanes at a time. `plane` must hold 8 floats past the last tap (any finite values: their
    /// weights are zero). ``applyScalar(_:to:channels:count:)`` is its reference.
    func applyPlane(_ plane: UnsafePointer<Float>, to out: UnsafeMutablePointer<Float>, channel: Int, channels: Int, count: Int) {
        weights.withUnsafeBufferPointer { weights in
            starts.withUnsafeBufferPointer { starts in
                counts.withUnsafeBufferPointer { counts in
                    let w0 = UnsafeRawPointer(weights.baseAddress!), p0 = UnsafeRawPointer(plane)
                    let rowBytes = stride &* 4
                    for i in 0 ..< count {
                        let chunks = (counts[i] &+ 7) >> 3
                        let w = w0 + i &* rowBytes, p = p0 + starts[i] &* 4
                        var acc = SIMD8<Float>()
                        for k in 0 ..< chunks {
                            acc += w.loadUnaligned(fromByteOffset: 32 &* k, as: SIMD8<Float>.self)
                                * p.loadUnaligned(fromByteOffset: 32 &* k, as: SIMD8<Float>.self)
                        }
                        let half = acc.lowHalf + acc.highHalf
                        out[i &* channels &+ channel] = (half[0] + half[2]) + (half[1] + half[3])
                    }
                }
            }
        }
    }

    /// The scalar reference of ``applyPlane(_:to:channel:channels:count:)``: one row of
    /// `channels`-interleaved floats into `count` output pixels.
    func applyScalar(_ source: UnsafePointer<Float>, to out: UnsafeMutablePointer<Float>, channels: Int, count: Int) {
        weights.withUnsafeBufferPointer { weights in
            for i in 0 ..< count {
                let n = counts[i], w = weights.baseAddress! + i * stride
                let src = source + starts[i] * channels
                for c in 0 ..< channels {
                    var s: Float = 0
                    for k in 0 ..< n { s += w[k] * src[k * channels + c] }
                    out[i * channels + c] = s
                }
            }
        }
    }
}

extension Image {
    /// The image reduced (aspect kept) so its longer side is at most `maxPixelSize`, with
    /// ``RowReducer``'s filter (box average, then Lanczos-3); never enlarged.
    ///
    /// ```swift
    /// let small = photo.reduced(maxPixelSize: 512)
    /// ```
    public func reduced(maxPixelSize: Int) -> Image {
        let size = RowReducer.size(width: width, height: height, maxPixelSize: maxPixelSize)
        return reduced(width: size.width, height: size.height)
    }

    /// The image reduced to `width` x `height` (each at most the image's) with ``RowReducer``.
    public func reduced(width newWidth: Int, height newHeight: Int) -> Image {
        guard width > 0, height > 0, newWidth < width || newHeight < height else { return self }
        var reducer = RowReducer(sourceWidth: width, sourceHeight: height, format: format, isPremultiplied: isPremultiplied,
                                 width: newWidth, height: newHeight)
        withRowBand(0 ..< height) { reducer.add($0) }
        return reducer.finish(metadata: metadata)
    }
}
