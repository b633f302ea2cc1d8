import PureImage

/// Output formats chosen by extension (or `--format` for stdout).
enum OutputFormat: String, CaseIterable {
    case png, jpeg, jpng, pam, ppm, pgm
    /// Animated PNG: every frame of an animation (a still image gives one frame).
    case apng
    /// GIF: an animation keeps its frames; a still image is one frame (quantized to a palette).
    case gif

    init?(fileExtension ext: String) {
        switch ext {
        case "png": self = .png
        case "apng": self = .apng
        case "jpg", "jpeg": self = .jpeg
        case "jpng": self = .jpng
        case "pam": self = .pam
        case "ppm", "pnm": self = .ppm
        case "pgm": self = .pgm
        case "gif": self = .gif
        default: return nil
        }
    }

    static let names = "png, apng, gif, jpg/jpeg, jpng, pam, ppm, pgm"

    /// The file extension written for this format (an APNG is a .png).
    var fileExtension: String {
        switch self {
        case .jpeg: "jpg"
        case .apng: "png"
        default: rawValue
        }
    }
}

/// Encoder settings gathered from the command line.
struct EncodeSettings {
    var pngLevel = 6
    var jpegQuality = 85
    var progressive = false
    var subsampling = ChromaSubsampling.s420
    var optimize = false
    /// JPNG: quality in (0, 1]; nil takes `jpegQuality / 100`.
    var jpngQuality: Double?
    /// JPNG: zlib level of the mask.
    var maskLevel = 9
    /// Animations: threads decoding and compressing frames; PNG and JPEG: the encoder's threads
    /// (nil: the processors online; for JPEG from a megapixel up).
    var threads: Int?
    /// JPEG: arithmetic coding.
    var arithmetic = false
    /// JPEG: lossless (SOF3) settings.
    var lossless: JPEGLossless?
    /// JPEG: bits a sample of a DCT file (8 or 12).
    var precision = 8
    /// JPEG: MCUs between restart markers (0: none).
    var restartInterval = 0
    /// PNG: quantize to at most this many colours (PNG8); GIF: colours a frame.
    var colors: Int?
    /// PNG8 and GIF: Floyd-Steinberg strength 0...1.
    var dither: Float = 1
    /// PNG8: pngquant's `--quality min-max`.
    var paletteQuality: (Int, Int)?

    /// GIF options from these settings.
    var gifOptions: GIFEncodingOptions {
        GIFEncodingOptions(maxColors: colors ?? 256, dithering: dither > 0 ? .floydSteinberg(strength: dither) : .none,
                           threads: threads)
    }
}

/// Encodes `image` as `format`; `notice` hears of anything the format cannot keep (formats
/// without alpha drop a fully opaque alpha channel silently: nothing is lost).
func encodeImage(_ original: Image, as format: OutputFormat, settings: EncodeSettings,
                 notice: (String) -> Void = printNotice) throws -> [UInt8] {
    var image = original
    let keepsAlpha = format == .png || format == .jpng || format == .pam
    if image.format.hasAlpha && !keepsAlpha && !JPNGEncoder.hasTransparency(image) {
        image = image.converted(to: image.format.withoutAlpha)
    }
    switch format {
    case .png:
        var options = PNGEncodingOptions()
        options.compressionLevel = settings.pngLevel
        options.threads = settings.threads
        if let colors = settings.colors {
            options.quantization = PNGQuantization(maxColors: colors,
                                                   dithering: settings.dither > 0 ? .floydSteinberg(strength: settings.dither) : .none,
                                                   minimumQuality: settings.paletteQuality?.0, targetQuality: settings.paletteQuality?.1)
        }
        do { return try PNGEncoder.encode(image, options: options) } catch { throw CLIError("\(error)") }
    case .gif:
        if JPNGEncoder.hasTransparency(image) { notice("GIF keeps one level of transparency: alpha below 128 becomes transparent, the rest opaque") }
        do { return try GIFEncoder.encode(image, options: settings.gifOptions) } catch { throw CLIError("\(error)") }
    case .jpeg:
        if image.format.hasAlpha { notice("the alpha channel is dropped in JPEG output (use .jpng to keep it)") }
        var options = JPEGEncodingOptions(quality: settings.jpegQuality, subsampling: settings.subsampling,
                                          progressive: settings.progressive)
        if settings.optimize { options.optimizeHuffman = true }
        options.threads = settings.threads
        options.arithmetic = settings.arithmetic
        options.lossless = settings.lossless
        options.precision = settings.precision
        options.restartInterval = settings.restartInterval
        do { return try JPEGEncoder.encode(image, options: options) } catch { throw CLIError("\(error)") }
    case .jpng:
        if !image.format.hasAlpha { notice("the image has no alpha channel: the JPNG mask is all opaque") }
        let options = JPNGEncodingOptions(quality: settings.jpngQuality ?? Double(settings.jpegQuality) / 100,
                                          progressive: settings.progressive, subsampling: settings.subsampling,
                                          maskCompressionLevel: settings.maskLevel)
        do { return try JPNGEncoder.encode(image, options: options) } catch { throw CLIError("\(error)") }
    case .apng:
        return try encodeAnimation(StillFrames(image: image), settings: settings)
    case .pam:
        return Netpbm.pam(image)
    case .ppm, .pgm:
        if image.format.hasAlpha { notice("the alpha channel is dropped in .\(format.rawValue) output") }
        let target: PixelFormat = format == .pgm
            ? PixelFormat(color: false, alpha: false, sixteenBit: image.format.is16Bit)
            : PixelFormat(color: true, alpha: false, sixteenBit: image.format.is16Bit)
        return Netpbm.pnm(image.converted(to: target))
    }
}

/// Encodes every frame of a file as an APNG: the file's animation (GIF or APNG), frames as
/// composited, delays and play count kept; a still image gives one frame.
func encodeAnimation(_ bytes: [UInt8], name: String, settings: EncodeSettings) throws -> [UInt8] {
    let found: (any ImageAnimation)?
    do { found = try ImageSource.animation(bytes, options: ImageSourceOptions(threads: settings.threads)) } catch {
        throw CLIError("\(name): \(error)")
    }
    guard let animation = found else {
        return try encodeAnimation(StillFrames(image: try decodeImage(bytes, name: name)), settings: settings)
    }
    let frames = AnimationFrames(animation: animation)
    do {
        let encoded = try encodeAnimation(frames, plays: animation.playCount ?? 0, settings: settings)
        if let error = frames.failure.error { throw error }
        return encoded
    } catch let error as CLIError {
        throw error
    } catch {
        throw CLIError("\(name): \(frames.failure.error ?? error)")
    }
}

/// Every frame of a file as a GIF animation (loop count and delays kept); a still image is
/// one frame.
func encodeGIFAnimation(_ bytes: [UInt8], name: String, settings: EncodeSettings) throws -> [UInt8] {
    let found: (any ImageAnimation)?
    do { found = try ImageSource.animation(bytes, options: ImageSourceOptions(threads: settings.threads)) } catch {
        throw CLIError("\(name): \(error)")
    }
    do {
        guard let animation = found else {
            return try GIFEncoder.encode(try decodeImage(bytes, name: name), options: settings.gifOptions)
        }
        var options = settings.gifOptions
        options.loopCount = animation.loopCount
        return try GIFEncoder.encode(animation: animation, options: options)
    } catch let error as CLIError {
        throw error
    } catch {
        throw CLIError("\(name): \(error)")
    }
}

private func encodeAnimation<Frames: Sequence>(_ frames: Frames, plays: Int = 0,
                                                settings: EncodeSettings) throws -> [UInt8] where Frames.Element == APNGFrame {
    var png = PNGEncodingOptions()
    png.compressionLevel = settings.pngLevel
    return try APNGEncoder.encode(frames, options: APNGEncodingOptions(png: png, plays: plays, threads: settings.threads))
}

/// One still image as an animation's only frame.
private struct StillFrames: Sequence {
    let image: Image
    func makeIterator() -> IndexingIterator<[APNGFrame]> { [APNGFrame(image: image, delayMilliseconds: 0)].makeIterator() }
}

/// The frames of an animation for the APNG encoder, decoded one at a time each time the
/// sequence is iterated (the encoder reads it twice); a decoding error ends the sequence and
/// is kept in `failure`.
private struct AnimationFrames: Sequence {
    final class Failure: @unchecked Sendable { var error: (any Error)? }
    let animation: any ImageAnimation
    let failure = Failure()

    func makeIterator() -> Iterator {
        Iterator(frames: animation.makeFrameIterator(), info: animation.frameInfo, failure: failure)
    }

    struct Iterator: IteratorProtocol {
        var frames: any AnimationFrameIterator
        let info: [AnimationFrameInfo]
        let failure: Failure
        var index = 0

        mutating func next() -> APNGFrame? {
            do {
                guard let image = try frames.nextFrame(), index < info.count else { return nil }
                defer { index += 1 }
                return APNGFrame(image: image, delayMilliseconds: info[index].delayMilliseconds)
            } catch {
                failure.error = failure.error ?? error
                return nil
            }
        }
    }
}
