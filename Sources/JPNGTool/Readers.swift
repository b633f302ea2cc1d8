import PureImage

// The tool reads every format through ImageSource and its registry: a format the library learns
// is one the tool reads, with no format switch here.

/// How to decode: the options of `decode` that not every file needs.
struct DecodeRequest {
    /// Decode at 1/N size (1, 2, 4 or 8): JPEG in the DCT domain, other formats by area average.
    var subsample = 1
    /// Turn the image upright per its EXIF orientation.
    var autoOrient = false
    /// Animations: the frame to return, composited on the canvas.
    var frame = 0
    /// Threads: a PNG's rows unfiltered beside inflating, animation frames decoded ahead (nil:
    /// the processors online).
    var threads: Int?
    /// Damaged files are errors instead of being decoded as libjpeg-turbo, libpng and browsers do.
    var strict = false
    /// `--profile srgb`: the pixels converted to sRGB, the profile dropped. nil keeps an RGB or
    /// gray profile with its pixels; a CMYK source is always converted through its profile.
    var colorSpace: OutputColorSpace?
}

/// Decodes any readable image into its native pixel format.
func decodeImage(_ bytes: [UInt8], name: String, request: DecodeRequest = DecodeRequest()) throws -> Image {
    try naming(name) {
        guard request.frame > 0 else {
            // A CMYK JPEG is written as RGB through its profile (the formula's RGB would be wrong
            // under any profile): an sRGB decode, which applies a CMYK profile and otherwise
            // gives the formula's RGB, as the default decode does.
            let cmyk = request.colorSpace == nil && isCMYKJPEG(bytes[...])
            let options = ImageSourceOptions(limits: DecodingLimits.default.knowingInputSize(bytes.count),
                                             applyOrientation: request.autoOrient, subsampleFactor: request.subsample,
                                             threads: request.threads, strict: request.strict,
                                             colorSpace: cmyk ? .sRGB : request.colorSpace)
            var source = ImageSource(options: options)
            _ = try source.append(bytes)
            let image = try source.finish()
            // Damage decoded past is reported as djpeg reports its warnings, and the decode succeeds.
            for warning in source.warnings { printNotice("\(name): warning: \(warning)") }
            return image
        }
        guard let animation = try ImageSource.animation(bytes, options: ImageSourceOptions(threads: request.threads,
                                                                                          strict: request.strict)) else {
            throw CLIError("\(name): --frame \(request.frame) but the file is not an animation")
        }
        let count = animation.frameInfo.count
        guard request.frame < count else {
            throw CLIError("\(name): --frame \(request.frame) but the file has \(count) frames")
        }
        var image = try animation.frame(at: request.frame)
        if request.subsample > 1 {
            let factor = request.subsample
            image = image.downsampled(width: (image.width + factor - 1) / factor, height: (image.height + factor - 1) / factor)
        }
        if request.autoOrient { image = image.oriented(image.metadata.orientation) }
        return image
    }
}

/// Every composited frame of an animation (a still image gives one), decoded one at a time.
func forEachFrame(_ bytes: [UInt8], name: String, threads: Int? = nil, _ body: (Int, Image) throws -> Void) throws {
    let animation = try naming(name) { try ImageSource.animation(bytes, options: ImageSourceOptions(threads: threads)) }
    guard let animation else { return try body(0, decodeImage(bytes, name: name)) }
    var done = 0
    do {
        try animation.forEachFrame { index, frame in
            try body(index, frame)
            done = index + 1
        }
    } catch let error as CLIError {
        throw error
    } catch {
        throw CLIError("\(name): frame \(done): \(error)")
    }
}

/// Reads a file's structure and metadata for `info`.
func describeImage(_ bytes: [UInt8], name: String) throws -> ImageDescription {
    try naming(name) { try ImageSource.describe(bytes) }
}

/// Runs `body`, turning a library error into one line that names the file.
private func naming<R>(_ name: String, _ body: () throws -> R) throws -> R {
    do {
        return try body()
    } catch let error as CLIError {
        throw error
    } catch {
        throw CLIError("\(name): \(error)")
    }
}
