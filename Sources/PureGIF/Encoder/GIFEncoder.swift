import ImageCore
import PureQuant

/// Choices for ``GIFEncoder`` and ``GIFAnimationEncoder``.
///
/// ```swift
/// var options = GIFEncodingOptions(maxColors: 64)
/// options.dithering = .floydSteinberg(strength: 0.8)
/// let gif = try GIFEncoder.encode(image, options: options)
/// ```
public struct GIFEncodingOptions: Sendable, Equatable {
    /// Colours in a frame's palette, 2...256 (the transparent entry included).
    public var maxColors: Int
    /// How pixels map to the palette (`PureQuant.Dithering`).
    public var dithering: Dithering
    /// Pixels with alpha below this are transparent; the rest opaque (GIF has one
    /// transparent index and no partial alpha).
    public var alphaThreshold: UInt8
    /// Animations: the NETSCAPE2.0 loop count (0 forever, N for N + 1 plays); nil writes no
    /// loop extension (browsers play once).
    public var loopCount: Int?
    /// A comment extension written after the header.
    public var comment: String?
    /// Threads for quantization (`QuantizationOptions.threads`); the file is the same for
    /// any count.
    public var threads: Int?

    public init(maxColors: Int = 256, dithering: Dithering = .floydSteinberg(strength: 1), alphaThreshold: UInt8 = 128,
                loopCount: Int? = 0, comment: String? = nil, threads: Int? = nil) {
        self.maxColors = maxColors
        self.dithering = dithering
        self.alphaThreshold = alphaThreshold
        self.loopCount = loopCount
        self.comment = comment
        self.threads = threads
    }

    func quantization(colors: Int) -> QuantizationOptions {
        QuantizationOptions(maxColors: colors, dithering: dithering, threads: threads)
    }

    var undithered: GIFEncodingOptions {
        var o = self
        o.dithering = .none
        return o
    }

    func validate() throws(GIFEncodingError) {
        guard (2 ... 256).contains(maxColors) else { throw .invalidParameter("maxColors \(maxColors) is outside 2...256") }
        guard (0 ... 1).contains(dithering.strength) else {
            throw .invalidParameter("dithering strength \(dithering.strength) is outside 0...1")
        }
        if let loopCount, !(0 ... 65535).contains(loopCount) {
            throw .invalidParameter("loop count \(loopCount) is outside 0...65535")
        }
        if let threads, threads < 1 { throw .invalidParameter("threads \(threads) is not at least 1") }
    }
}

/// What the GIF encoders refuse.
public enum GIFEncodingError: Error, Sendable, Equatable, CustomStringConvertible {
    /// An option or an image the format cannot take (sizes above 65535, frames of another size).
    case invalidParameter(String)
    /// The animation's frames could not be decoded (the decoder's message).
    case frameSource(String)

    public var description: String {
        switch self {
        case let .invalidParameter(m): "GIF encoding: \(m)"
        case let .frameSource(m): "GIF encoding: reading frames: \(m)"
        }
    }
}

/// Writes GIF89a files: one image, or an animation from an `ImageAnimation` (see
/// ``GIFAnimationEncoder`` to feed frames one at a time).
///
/// ```swift
/// let still = try GIFEncoder.encode(photo, options: GIFEncodingOptions(maxColors: 128))
/// let moving = try GIFEncoder.encode(animation: try GIFAnimation(bytes: data))
/// ```
public enum GIFEncoder {
    /// One image: quantized to one global palette, a graphic control extension only when some
    /// pixel is transparent.
    public static func encode(_ image: Image, options: GIFEncodingOptions = .init()) throws(GIFEncodingError) -> [UInt8] {
        try options.validate()
        try checkSize(image.width, image.height)
        let words = binarized(image, threshold: options.alphaThreshold)
        let q = quantize(words, width: image.width, height: image.height, mask: nil,
                         options: options.quantization(colors: options.maxColors))
        var out: [UInt8] = []
        BlockWriter.header(width: image.width, height: image.height, globalTable: q.palette, into: &out)
        if let comment = options.comment { BlockWriter.comment(comment, into: &out) }
        let transparent = q.palette.firstIndex { $0.a == 0 }
        if let transparent {
            BlockWriter.graphicControl(disposal: 0, delayCentiseconds: 0, transparentIndex: transparent, into: &out)
        }
        BlockWriter.imageDescriptor(x: 0, y: 0, width: image.width, height: image.height, localTable: nil, into: &out)
        q.indices.withUnsafeBufferPointer {
            LZWEncoder.encode($0, minimumCodeSize: LZWEncoder.minimumCodeSize(forTableEntries: q.palette.count), into: &out)
        }
        BlockWriter.trailer(into: &out)
        return out
    }

    /// Every frame of `animation` (composited canvases, each with its delay); the loop count
    /// is the animation's unless `options.loopCount` differs from the default.
    public static func encode(animation: any ImageAnimation, options: GIFEncodingOptions = .init()) throws(GIFEncodingError) -> [UInt8] {
        var options = options
        if options.loopCount == 0 { options.loopCount = animation.loopCount }
        var encoder: GIFAnimationEncoder
        var kept: [Image] = []
        if let palette = try globalPalette(for: animation, options: options, keeping: &kept) {
            encoder = try GIFAnimationEncoder(width: animation.canvasWidth, height: animation.canvasHeight, options: options,
                                              globalPalette: palette)
        } else {
            encoder = try GIFAnimationEncoder(width: animation.canvasWidth, height: animation.canvasHeight, options: options)
        }
        var out: [UInt8] = []
        let info = animation.frameInfo
        var iterator = animation.makeFrameIterator()
        var index = 0
        while true {
            let frame: Image?
            if index < kept.count { frame = kept[index] } else if !kept.isEmpty { frame = nil } else {
                do { frame = try iterator.nextFrame() } catch { throw .frameSource(String(describing: error)) }
            }
            guard let frame, index < info.count else { break }
            out += try encoder.add(frame, delayMilliseconds: info[index].delayMilliseconds)
            index += 1
        }
        out += try encoder.finish()
        return out
    }

    /// Pixels of the frames the global palette is made from, at most (frames are taken at
    /// even steps to stay under it).
    static let paletteSamplePixels = 1_000_000
    /// Pixels of all frames together up to which the frames decoded for the palette are kept
    /// for the encoding (32 MB of RGBA8), so they are decoded once.
    static let keptPixels = 8_000_000

    /// One palette for every frame of `animation` (as ffmpeg's `palettegen`): the colours of
    /// frames at even steps (all of them up to `paletteSamplePixels`), stacked into one image
    /// and quantized to `maxColors - 1` colours and a transparent entry (or, when they hold at
    /// most `maxColors` colours, those exactly). Nil for a single frame. When all frames come
    /// to at most `keptPixels`, the decoded frames are left in `kept` (not decoded again).
    static func globalPalette(for animation: any ImageAnimation, options: GIFEncodingOptions,
                              keeping kept: inout [Image]) throws(GIFEncodingError) -> [RGBAColor]? {
        let w = animation.canvasWidth, h = animation.canvasHeight, n = animation.frameInfo.count
        guard n > 1, w > 0, h > 0 else { return nil }
        let step = max(1, (n * w * h + paletteSamplePixels - 1) / paletteSamplePixels)
        let keep = n * w * h <= keptPixels
        var words: [UInt32] = []
        var iterator = animation.makeFrameIterator()
        var k = 0
        while k < n {
            let frame: Image?
            do { frame = try iterator.nextFrame() } catch { throw .frameSource(String(describing: error)) }
            guard let frame else { break }
            if k % step == 0 { words += binarized(frame, threshold: options.alphaThreshold) }
            if keep { kept.append(frame) }
            k += 1
        }
        let rows = words.count / w
        guard rows > 0 else { return nil }
        var distinct = Set<UInt32>()
        var last: UInt32? = nil
        for c in words where c != last {
            last = c
            distinct.insert(c)
            if distinct.count > options.maxColors { break }
        }
        var palette: [RGBAColor]
        if distinct.count <= options.maxColors {
            palette = distinct.sorted().map { RGBAColor(packed: UInt32(bigEndian: $0)) }
            if palette.count < options.maxColors && !distinct.contains(0) { palette.append(RGBAColor(r: 0, g: 0, b: 0, a: 0)) }
            return palette
        }
        // As `GIFAnimationEncoder.ownPalette`: transparent pixels take an entry of their own in
        // the quantizer; otherwise one is kept back for the transparent index.
        let hasTransparent = words.contains(0)
        let colors = hasTransparent ? options.maxColors : max(2, options.maxColors - 1)
        do { palette = try Quantizer.palette(for: image(words, width: w, height: rows), options: options.quantization(colors: colors)) } catch {
            preconditionFailure("validated quantization options refused: \(error)")
        }
        if !palette.contains(where: { $0.a == 0 }) { palette.append(RGBAColor(r: 0, g: 0, b: 0, a: 0)) }
        return palette
    }

    static func checkSize(_ width: Int, _ height: Int) throws(GIFEncodingError) {
        guard (1 ... 65535).contains(width), (1 ... 65535).contains(height) else {
            throw .invalidParameter("image size \(width)x\(height): GIF needs 1...65535 in each dimension")
        }
    }

    /// RGBA8 words (memory order) with alpha made 0 or 255; transparent pixels all (0, 0, 0, 0).
    static func binarized(_ image: Image, threshold: UInt8) -> [UInt32] {
        var rgba = image.isPremultiplied ? image.unpremultiplied() : image
        if rgba.format != .rgba8 { rgba = rgba.fullRange().converted(to: .rgba8) }
        var words = rgba.pixels.withUnsafeBytes { Array($0.bindMemory(to: UInt32.self)) }
        let threshold = UInt32(threshold)
        for i in words.indices {
            let c = UInt32(bigEndian: words[i])
            words[i] = c & 0xFF < threshold ? 0 : (c | 0xFF).bigEndian
        }
        return words
    }

    /// Whether `words` (from `binarized(_:threshold:)`) hold `image` exactly: 8-bit
    /// samples, alpha 0 or 255, the colour of a fully transparent pixel aside.
    static func isExactlyRepresented(_ image: Image, by words: [UInt32]) -> Bool {
        if image.format.is16Bit || image.isPremultiplied { return false }
        guard image.format.hasAlpha else { return true }
        let rgba = image.format == .rgba8 ? image : image.fullRange().converted(to: .rgba8)
        return rgba.pixels.withUnsafeBytes { raw in
            let p = raw.bindMemory(to: UInt32.self)
            for i in 0 ..< min(p.count, words.count) {
                let alpha = UInt32(bigEndian: p[i]) & 0xFF
                if alpha != 0 && p[i] != words[i] { return false }
                if alpha == 0 && words[i] != 0 { return false }
            }
            return true
        }
    }

    static func image(_ words: [UInt32], width: Int, height: Int) -> Image {
        let bytes = words.withUnsafeBytes { Array($0) }
        return Image(width: width, height: height, format: .rgba8, pixels: bytes)
    }

    /// Quantizes (options already validated, so this cannot fail).
    static func quantize(_ words: [UInt32], width: Int, height: Int, mask: [UInt8]?,
                         options: QuantizationOptions) -> QuantizedImage {
        let img = image(words, width: width, height: height)
        do { return try Quantizer.quantize(img, mask: mask, options: options) } catch {
            preconditionFailure("validated quantization options refused: \(error)")
        }
    }

    static func remap(_ words: [UInt32], width: Int, height: Int, mask: [UInt8]?, prepared: PreparedPalette,
                      options: GIFEncodingOptions) -> QuantizedImage {
        let img = image(words, width: width, height: height)
        do {
            return try Quantizer.remap(img, prepared: prepared, mask: mask, dithering: options.dithering, threads: options.threads)
        } catch {
            preconditionFailure("validated remap refused: \(error)")
        }
    }

    /// The same through a palette prepared for this one image.
    static func remap(_ words: [UInt32], width: Int, height: Int, mask: [UInt8]?, palette: [RGBAColor],
                      options: GIFEncodingOptions) -> QuantizedImage {
        do {
            return remap(words, width: width, height: height, mask: mask, prepared: try PreparedPalette(palette), options: options)
        } catch {
            preconditionFailure("validated palette refused: \(error)")
        }
    }
}
