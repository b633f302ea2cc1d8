import PureImage

/// The container formats the tool recognises by their first bytes.
func sniffFormat(_ bytes: [UInt8]) -> ImageFileFormat? {
    if bytes.starts(with: pngSignature) { return .png }
    if JPNGFooter.looksLikeJPNG(bytes) { return .jpng }
    if bytes.count >= 3 && bytes[0] == 0xFF && bytes[1] == 0xD8 && bytes[2] == 0xFF { return .jpeg }
    if bytes.starts(with: Array("GIF87a".utf8)) || bytes.starts(with: Array("GIF89a".utf8)) { return .gif }
    return nil
}

/// How to decode: the options of `decode` that apply to some formats only.
struct DecodeRequest {
    /// JPEG DCT scaling: 8 (full size), 4, 2 or 1 (1/8).
    var jpegScale = 8
    /// Turn the image upright per its EXIF orientation.
    var autoOrient = false
    /// GIF: the frame to return, composited on the canvas.
    var frame = 0
}

/// Decodes any readable image into its native pixel format.
func decodeImage(_ bytes: [UInt8], name: String, request: DecodeRequest = DecodeRequest()) throws -> Image {
    var image: Image
    do {
        switch sniffFormat(bytes) {
        case .png?:
            image = try PNGDecoder.decode(bytes)
        case .jpeg?:
            image = try JPEGDecoder.decode(bytes, options: JPEGDecodingOptions(scale: request.jpegScale))
        case .jpng?:
            if request.jpegScale != 8 { throw CLIError("\(name): --scale applies to JPEG files, not JPNG") }
            image = try JPNGDecoder.decode(bytes)
        case .gif?:
            if request.frame == 0 {
                var decoder = GIFDecoder()
                _ = try decoder.append(bytes)
                image = try decoder.finish()
            } else {
                let animation = try GIFAnimation(bytes: bytes)
                guard request.frame < animation.frames.count else {
                    throw CLIError("\(name): --frame \(request.frame) but the file has \(animation.frames.count) frames")
                }
                image = try animation.frame(at: request.frame)
            }
        case let format?:
            throw CLIError("\(name): \(format) decoding is not supported by this version of jpng")
        case nil:
            throw CLIError("\(name): not a recognised image (PNG, JPEG, GIF or JPNG)")
        }
    } catch let error as CLIError {
        throw error
    } catch {
        throw CLIError("\(name): \(error)")
    }
    if request.autoOrient { image = image.oriented(image.metadata.orientation) }
    return image
}

/// Every composited frame of an animation (a still image gives one), decoded one at a time.
func forEachFrame(_ bytes: [UInt8], name: String, _ body: (Int, Image) throws -> Void) throws {
    if sniffFormat(bytes) == .gif {
        let animation: GIFAnimation
        do { animation = try GIFAnimation(bytes: bytes) } catch { throw CLIError("\(name): \(error)") }
        var iterator = animation.makeIterator()
        var index = 0
        while let frame = iterator.next() {
            try body(index, frame)
            index += 1
        }
        if let error = iterator.error { throw CLIError("\(name): frame \(index): \(error)") }
    } else {
        try body(0, decodeImage(bytes, name: name))
    }
}

/// Everything `info` reports about a file.
struct FileDescription {
    var format: ImageFileFormat
    var width: Int
    var height: Int
    var pixelFormat: PixelFormat
    var frames: Int
    var interlaced: Bool
    var progressive: Bool
    var metadata: ImageMetadata
    /// Format-specific lines for the text listing: (label, value).
    var details: [(String, String)]
    /// Animation frames: one entry per frame.
    var frameList: [[String: Any]] = []
    var loopCount: Int?
}

/// Reads a file's structure and metadata for `info`.
func describeImage(_ bytes: [UInt8], name: String) throws -> FileDescription {
    do {
        switch sniffFormat(bytes) {
        case .png?: return try describePNG(bytes)
        case .jpeg?: return try describeJPEG(bytes)
        case .gif?: return try describeGIF(bytes)
        case .jpng?: return try describeJPNG(bytes)
        case let format?: throw CLIError("\(name): \(format) is not supported by this version of jpng")
        case nil: throw CLIError("\(name): not a recognised image (PNG, JPEG, GIF or JPNG)")
        }
    } catch let error as CLIError {
        throw error
    } catch {
        throw CLIError("\(name): \(error)")
    }
}

private func describePNG(_ bytes: [UInt8]) throws -> FileDescription {
    var decoder = PNGDecoder()
    _ = try decoder.append(bytes)
    _ = try decoder.finish()
    guard let header = decoder.header, let info = decoder.info else { throw CLIError("no PNG header") }
    var details: [(String, String)] = [
        ("colour type", "\(info.colorType) (\(info.colorType.rawValue))"),
        ("bit depth", "\(info.bitDepth)"),
    ]
    if let palette = info.palette { details.append(("palette", "\(palette.count) entries")) }
    return FileDescription(format: .png, width: header.width, height: header.height, pixelFormat: header.pixelFormat,
                           frames: 1, interlaced: info.interlaced, progressive: false,
                           metadata: decoder.metadata, details: details)
}

private func describeJPEG(_ bytes: [UInt8]) throws -> FileDescription {
    var decoder = JPEGDecoder()
    _ = try decoder.append(bytes)
    _ = try decoder.finish()
    guard let header = decoder.header, let info = decoder.info else { throw CLIError("no JPEG frame header") }
    let sampling = info.samplingFactors.map { "\($0.horizontal)x\($0.vertical)" }.joined(separator: ",")
    var details: [(String, String)] = [
        ("process", "\(info.process)"),
        ("components", "\(info.components)"),
        ("sampling", sampling),
        ("scans", "\(info.scanCount)"),
    ]
    if let q = info.estimatedQuality { details.append(("quality estimate", "\(q)")) }
    if info.restartInterval > 0 { details.append(("restart interval", "\(info.restartInterval) MCUs")) }
    if let t = info.adobeTransform { details.append(("Adobe transform", "\(t)")) }
    if info.isJFIF { details.append(("JFIF", "yes")) }
    return FileDescription(format: .jpeg, width: header.width, height: header.height, pixelFormat: header.pixelFormat,
                           frames: 1, interlaced: false, progressive: header.isProgressive,
                           metadata: decoder.metadata, details: details)
}

private func describeJPNG(_ bytes: [UInt8]) throws -> FileDescription {
    let (footer, color, mask) = try JPNGDecoder.parts(bytes)
    var d = try describeJPEG(Array(color))
    let maskImage = try PNGDecoder.decode(Array(mask))
    guard maskImage.width == d.width, maskImage.height == d.height else {
        throw JPNGError.sizeMismatch(colorWidth: d.width, colorHeight: d.height, maskWidth: maskImage.width, maskHeight: maskImage.height)
    }
    d.format = .jpng
    d.pixelFormat = .rgba8
    let legacy = footer.identifierValue == JPNGFooter.legacyIdentifier
    d.details = [
        ("JPNG version", "\(footer.majorVersion).\(footer.minorVersion)" + (legacy ? " (pre-1.1 identifier)" : "")),
        ("colour part", "\(footer.imageSize) bytes JPEG"),
        ("mask part", "\(footer.maskSize) bytes PNG (\(maskImage.format))"),
    ] + d.details
    return d
}

private func describeGIF(_ bytes: [UInt8]) throws -> FileDescription {
    let animation = try GIFAnimation(bytes: bytes)
    let loop: String = switch animation.loopCount {
    case nil: "none (plays once)"
    case 0?: "0 (forever)"
    case let n?: "\(n) (plays \(n + 1) times)"
    }
    var details: [(String, String)] = [("loop count", loop)]
    if let offset = animation.truncatedAt { details.append(("truncated at byte", "\(offset)")) }
    let frameList: [[String: Any]] = animation.frames.map { f in
        var entry: [String: Any] = [
            "index": f.index, "x": f.x, "y": f.y, "width": f.width, "height": f.height,
            "delayCentiseconds": f.delayCentiseconds, "displayDelayMilliseconds": f.displayDelayMilliseconds,
            "disposal": "\(f.disposal)", "interlaced": f.interlaced, "localColorTable": f.hasLocalColorTable,
        ]
        if let t = f.transparentIndex { entry["transparentIndex"] = Int(t) }
        return entry
    }
    var d = FileDescription(format: .gif, width: animation.width, height: animation.height, pixelFormat: .rgba8,
                            frames: animation.frames.count, interlaced: animation.frames.contains { $0.interlaced },
                            progressive: false, metadata: animation.metadata, details: details)
    d.frameList = frameList
    d.loopCount = animation.loopCount
    return d
}
