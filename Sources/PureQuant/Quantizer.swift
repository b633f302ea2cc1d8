import ImageCore

/// Reduces an RGBA image to at most 256 colours (libimagequant's method).
///
/// 1. A histogram of the distinct colours, each pixel weighted by the importance map
///    (`Histogram`); an image with no more colours than asked for is kept exactly.
/// 2. Median cut over the histogram in a premultiplied, gamma-weighted space (`MedianCut`),
///    then k-means rounds (`KMeans`). Fully transparent pixels get one exact entry of their
///    own; partly transparent colours stay apart from opaque ones (alpha is a lane).
/// 3. Remapping: nearest entry (a vantage-point tree), ordered dithering, or serpentine
///    Floyd-Steinberg with a strength.
///
/// The result depends on the image and the options only, never on `threads`.
///
/// ```swift
/// let q = try Quantizer.quantize(image, options: QuantizationOptions(maxColors: 256))
/// let again = try Quantizer.remap(nextFrame, palette: q.palette)   // same colour, same index
/// ```
public enum Quantizer {
    /// Palette and indices for `image` (any format; premultiplied and 16-bit images are
    /// brought to straight 8-bit RGBA first).
    public static func quantize(_ image: Image, options: QuantizationOptions = .init()) throws(QuantizationError) -> QuantizedImage {
        try quantize(image, mask: nil, options: options)
    }

    /// As ``quantize(_:options:)``, with only the pixels whose `mask` byte is non-zero taken
    /// into the palette and mapped (the others get index 0): an animation frame's changed
    /// pixels.
    public static func quantize(_ image: Image, mask: [UInt8]?, options: QuantizationOptions) throws(QuantizationError) -> QuantizedImage {
        try options.validate()
        let pixels = try rgbaWords(image, mask: mask)
        let palette = makePalette(pixels: pixels, width: image.width, height: image.height, mask: mask, options: options)
        return remap(pixels: pixels, width: image.width, height: image.height, mask: mask, palette: palette,
                     dithering: palette.exact ? .none : options.dithering, threads: options.threads)
    }

    /// The palette alone (non-opaque entries first, then opaque ones, each group sorted).
    public static func palette(for image: Image, mask: [UInt8]? = nil, options: QuantizationOptions = .init()) throws(QuantizationError) -> [RGBAColor] {
        try options.validate()
        let pixels = try rgbaWords(image, mask: mask)
        return makePalette(pixels: pixels, width: image.width, height: image.height, mask: mask, options: options)
            .colors.map(RGBAColor.init(packed:))
    }

    /// Maps `image` to a given palette (1...256 entries): the same colour goes to the same
    /// index in every image mapped with the same palette and no error diffusion.
    public static func remap(_ image: Image, palette: [RGBAColor], mask: [UInt8]? = nil,
                             dithering: Dithering = .none, threads: Int? = nil) throws(QuantizationError) -> QuantizedImage {
        guard (1 ... 256).contains(palette.count) else {
            throw .invalidParameter("a palette of \(palette.count) entries (1...256 allowed)")
        }
        try QuantizationOptions(dithering: dithering, threads: threads).validate()
        let pixels = try rgbaWords(image, mask: mask)
        return remap(pixels: pixels, width: image.width, height: image.height, mask: mask,
                     palette: BuiltPalette(colors: palette.map(\.packed), exact: false),
                     dithering: dithering, threads: threads)
    }

    /// As ``remap(_:palette:mask:dithering:threads:)`` with a palette prepared once (its
    /// searches built) for many images: the same result, without the set-up per image.
    public static func remap(_ image: Image, prepared: PreparedPalette, mask: [UInt8]? = nil,
                             dithering: Dithering = .none, threads: Int? = nil) throws(QuantizationError) -> QuantizedImage {
        try QuantizationOptions(dithering: dithering, threads: threads).validate()
        let pixels = try rgbaWords(image, mask: mask)
        return remap(pixels: pixels, width: image.width, height: image.height, mask: mask,
                     remapper: prepared.remapper, dithering: dithering, threads: threads)
    }

    struct BuiltPalette {
        var colors: [UInt32]
        /// Every colour of the image is in `colors`.
        var exact: Bool
    }

    static func rgbaWords(_ image: Image, mask: [UInt8]?) throws(QuantizationError) -> [UInt32] {
        if let mask, mask.count != image.pixelCount {
            throw .invalidParameter("mask of \(mask.count) bytes for \(image.pixelCount) pixels")
        }
        var rgba = image.isPremultiplied ? image.unpremultiplied() : image
        if rgba.format != .rgba8 { rgba = rgba.fullRange().converted(to: .rgba8) }
        return rgba.pixels.withUnsafeBytes { Array($0.bindMemory(to: UInt32.self)) }
    }

    static func makePalette(pixels: [UInt32], width: Int, height: Int, mask: [UInt8]?,
                            options: QuantizationOptions) -> BuiltPalette {
        let histogram = pixels.withUnsafeBufferPointer { p in
            if let mask {
                return mask.withUnsafeBufferPointer { m in
                    Histogram.build(pixels: p, width: width, height: height, mask: m, importance: options.importanceMap,
                                    threads: options.threads ?? Processors.online)
                }
            }
            return Histogram.build(pixels: p, width: width, height: height, mask: nil, importance: options.importanceMap,
                                   threads: options.threads ?? Processors.online)
        }
        if histogram.count == 0 { return BuiltPalette(colors: [0], exact: true) }
        if histogram.ignoredBits == 0 && histogram.count <= options.maxColors {
            return BuiltPalette(colors: sorted(histogram.keys), exact: true)
        }
        let reserve = histogram.keys[0] == 0   // keys ascend: a transparent bucket is first
        let start = reserve ? 1 : 0
        let points = Array(histogram.points[start...])
        var weights = Array(histogram.weights[start...])
        if options.targetQuality != nil {
            weights = capped(weights, total: histogram.weights.reduce(0.0) { $0 + Double($1) })
        }
        let target = options.targetQuality.map(QuantizationQuality.maximumError(forQuality:))
        var palette = MedianCut.palette(points: points, weights: weights, count: options.maxColors - start,
                                        targetError: target)
        let refined = KMeans.refine(palette: &palette, points: points, weights: weights,
                                    iterations: options.kMeansIterations, threads: options.threads ?? Processors.online)
        // An entry serving mostly opaque pixels is made opaque (its colour kept): opaque
        // pixels map to opaque entries only, and a mean alpha of 250 would waste it.
        let full = Perceptual.weights[3]
        for k in palette.indices where k < refined.opaqueShare.count && refined.opaqueShare[k] >= 0.5 && palette[k][3] > 0 {
            let scale = full / palette[k][3]
            palette[k] = Point(palette[k][0] * scale, palette[k][1] * scale, palette[k][2] * scale, full)
        }
        var colors = Set(palette.map(Perceptual.color))
        if reserve { colors.insert(0) }
        return BuiltPalette(colors: sorted(colors), exact: false)
    }

    /// libimagequant's cap, used when a target quality decides the colour count: no colour
    /// weighs more than a tenth of the image (`total`, transparent pixels included), so a large
    /// flat area does not hide the error of the rest from the target. Whole numbers, so the
    /// sums stay exact.
    static func capped(_ weights: [Float], total: Double) -> [Float] {
        let cap = max(1, Float((0.1 * total).rounded(.down)))
        return weights.map { min($0, cap) }
    }

    /// Non-opaque entries first (by alpha, then colour), then opaque ones by colour.
    static func sorted(_ colors: some Collection<UInt32>) -> [UInt32] {
        colors.sorted { x, y in
            let (ax, ay) = (x & 0xFF, y & 0xFF)
            return ax != ay ? ax < ay : x < y
        }
    }

    static func remap(pixels: [UInt32], width: Int, height: Int, mask: [UInt8]?, palette: BuiltPalette,
                      dithering: Dithering, threads: Int?) -> QuantizedImage {
        remap(pixels: pixels, width: width, height: height, mask: mask, remapper: Remapper(colors: palette.colors),
              dithering: dithering, threads: threads)
    }

    /// Pixels below which a dithered remap does not start a thread for its contrast map.
    static let minimumPixelsForAThread = 16_384

    static func remap(pixels: [UInt32], width: Int, height: Int, mask: [UInt8]?, remapper: Remapper,
                      dithering: Dithering, threads: Int?) -> QuantizedImage {
        let result: (indices: [UInt8], error: Double, mapped: Int)
        switch dithering {
        case let .floydSteinberg(strength) where strength > 0:
            // libimagequant's order: an undithered remap measures the palette's error and
            // finds the flat runs for the dither map, then the dithered one. With more than
            // one thread the contrast map (which needs the pixels alone) is made on a thread
            // of its own meanwhile (`ThreadWork`: Dispatch's pool may be busy with the
            // caller's other work), the plain remap in pieces beside it.
            let threads = threads ?? Processors.online
            let apart = threads > 1 && width * height >= Self.minimumPixelsForAThread
            let contrast = apart ? ThreadWork { DitherMap.contrast(pixels: pixels, width: width, height: height) } : nil
            let plain = remapper.remap(pixels: pixels, width: width, height: height, mask: mask, ordered: 0,
                                       threads: threads)
            // The palette's error (on a thread of its own when the contrast map is) while the
            // map is weighed by the plain remap's runs.
            let plainIndices = plain.indices
            let measured = apart ? ThreadWork { remapper.weightedError(pixels: pixels, indices: plainIndices, mask: mask) } : nil
            var map = if let contrast { contrast.value() } else { DitherMap.contrast(pixels: pixels, width: width, height: height) }
            if map != nil { DitherMap.weighByRuns(&map!, indices: plain.indices, width: width, height: height) }
            let paletteError = measured?.value() ?? remapper.weightedError(pixels: pixels, indices: plain.indices, mask: mask)
            result = remapper.diffuse(pixels: pixels, width: width, height: height, mask: mask, strength: strength,
                                      map: map, maxError: max(paletteError * 2.4, Remapper.minimumDitherError),
                                      plain: plain.indices)
        case let .ordered(strength):
            result = remapper.remap(pixels: pixels, width: width, height: height, mask: mask, ordered: strength,
                                    threads: threads ?? Processors.online)
        default:
            result = remapper.remap(pixels: pixels, width: width, height: height, mask: mask, ordered: 0,
                                    threads: threads ?? Processors.online)
        }
        return QuantizedImage(width: width, height: height, palette: remapper.colors.map(RGBAColor.init(packed:)),
                              indices: result.indices,
                              meanSquaredError: result.mapped > 0 ? result.error / Double(result.mapped) : 0)
    }
}

/// A palette with its nearest-entry searches built, for remapping many images to it (the
/// frames of an animation sharing one table): ``Quantizer/remap(_:prepared:mask:dithering:threads:)``.
public struct PreparedPalette: Sendable {
    public let palette: [RGBAColor]
    let remapper: Remapper

    public init(_ palette: [RGBAColor]) throws(QuantizationError) {
        guard (1 ... 256).contains(palette.count) else {
            throw .invalidParameter("a palette of \(palette.count) entries (1...256 allowed)")
        }
        self.palette = palette
        remapper = Remapper(colors: palette.map(\.packed))
    }
}
