#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PureImage

/// `convert --to auto` for one input: the format chosen per image, and never a file larger
/// than its input.
///
/// - An animation is written as APNG or GIF, whichever is smaller; the GIF is a candidate only
///   when it shows every frame exactly (always so for a GIF source, whose frames fit 256
///   colours each), so the choice is lossless either way.
/// - A still image gets ``chooseFormat(for:)``'s format. A JPEG for which that is JPEG again
///   keeps its data: its bytes are copied, or with `--metadata color|none` only its marker
///   segments are rewritten (``JPEGSegments``); nothing is decoded and encoded again.
/// - An output not smaller than its input is not written: the input is kept as it is, copied
///   with its own extension to the output folder, or left where it is when the outputs go
///   beside the inputs. Only when `--profile srgb` or `--metadata` asks for a change the input
///   needs (an ICC profile to convert, metadata to drop) is the larger output written, its line
///   saying why.
struct AutoConversion {
    var settings: EncodeSettings
    var request: DecodeRequest
    var metadata: MetadataPolicy
    var force: Bool

    /// What became of one input.
    struct Result {
        /// The bytes at the output (the input's own, when kept in place).
        var bytesOut: Int
        var line: String
        /// The input was kept as it is (no output smaller).
        var kept: Bool
    }

    func convert(_ task: Convert.Task, bytes: [UInt8], note: (String) -> Void) throws -> Result {
        let name = task.input
        let encoded: [UInt8]
        let format: OutputFormat
        let reason: String
        var orientation = Orientation.up
        if isAnimation(bytes) {
            // Beside a GIF input, a GIF output would be the input itself: APNG only.
            (format, encoded, reason) = try smallerAnimation(bytes, name: name, gif: task.outputBase + ".gif" != task.input)
        } else {
            let image = try decodeImage(bytes, name: name, request: request).keeping(metadata)
            (format, reason) = chooseFormat(for: image)
            orientation = image.metadata.orientation
            if format == .jpeg, keepsJPEGData(bytes) {
                let rewritten = try rewriteSegments(bytes, name: name, orientation: orientation)
                let how = rewritten == bytes ? "its JPEG data kept, not encoded again"
                    : "its JPEG data kept, the metadata segments rewritten for --metadata \(metadata.rawValue)"
                return try keep(rewritten, task: task, inputSize: bytes.count, rewritten: rewritten != bytes,
                                why: "JPEG: \(reason); \(how)")
            }
            encoded = try encodeImage(image, as: format, settings: settings, notice: note)
        }
        let label = format == .apng ? "APNG" : format.rawValue.uppercased()
        var why = reason
        if encoded.count >= bytes.count {
            let larger = "\(label) would be \(byteSize(encoded.count)), not smaller than its \(byteSize(bytes.count))"
            if keepsJPEGData(bytes) {
                // A JPEG kept follows --metadata through its marker segments.
                let rewritten = try rewriteSegments(bytes, name: name, orientation: orientation)
                let how = rewritten == bytes ? "" : "; the metadata segments rewritten for --metadata \(metadata.rawValue)"
                return try keep(rewritten, task: task, inputSize: bytes.count, rewritten: rewritten != bytes, why: larger + how)
            }
            if let refusal = keepingRefused(bytes) {
                why += "; larger than the input, written as \(refusal)"
            } else {
                return try keep(bytes, task: task, inputSize: bytes.count, rewritten: false, why: larger)
            }
        }
        let output = task.outputBase + "." + format.fileExtension
        if output == task.input { throw CLIError("\(task.input): the output would overwrite the input (use --out-dir)") }
        if !force && outputExists(output) { throw CLIError("\(output): already exists (use --force to overwrite)") }
        try writeOutput(encoded, to: output)
        return Result(bytesOut: encoded.count, line: "\(task.input) -> \(output) (\(label): \(why))", kept: false)
    }

    /// Writes `bytes` (the input's, or its JPEG with rewritten segments) under the input's own
    /// extension; when that is the input itself and nothing changed, leaves it in place.
    private func keep(_ bytes: [UInt8], task: Convert.Task, inputSize: Int, rewritten: Bool, why: String) throws -> Result {
        let ext = URL(fileURLWithPath: task.input).pathExtension
        let output = ext.isEmpty ? task.outputBase : task.outputBase + "." + ext
        let keptWord = rewritten ? "kept" : "kept as it is"
        if output == task.input {
            if rewritten { throw CLIError("\(task.input): the output would overwrite the input (use --out-dir)") }
            return Result(bytesOut: inputSize, line: "\(task.input): \(keptWord), left in place (\(why))", kept: true)
        }
        if !force && outputExists(output) { throw CLIError("\(output): already exists (use --force to overwrite)") }
        try writeOutput(bytes, to: output)
        return Result(bytesOut: bytes.count, line: "\(task.input) -> \(output): \(keptWord), copied (\(why))", kept: true)
    }

    /// Why the input cannot be kept as it is (nil when it can): `--profile srgb` asks for the
    /// pixels of a file with an ICC profile to be converted, or `--metadata` drops metadata the
    /// file holds. (A JPEG's segments are rewritten instead; this is for the other formats.)
    private func keepingRefused(_ bytes: [UInt8]) -> String? {
        guard request.colorSpace != nil || metadata != .all else { return nil }
        guard let found = (try? ImageSource.describe(bytes))?.metadata else { return nil }
        if request.colorSpace != nil && found.iccProfile != nil { return "--profile srgb converts its ICC profile" }
        if found.kept(metadata) != found { return "--metadata \(metadata.rawValue) drops metadata it holds" }
        return nil
    }

    /// Whether a JPEG source keeps its entropy-coded data when JPEG is chosen: a JPEG (not a
    /// JPNG), and with `--profile srgb` one without an ICC profile (a profile asks for the
    /// pixels to be converted).
    private func keepsJPEGData(_ bytes: [UInt8]) -> Bool {
        guard bytes.starts(with: [0xFF, 0xD8]), !JPNGFooter.looksLikeJPNG(bytes) else { return false }
        guard request.colorSpace != nil else { return true }
        return (try? ImageSource.describe(bytes))?.metadata.iccProfile == nil
    }

    private func rewriteSegments(_ bytes: [UInt8], name: String, orientation: Orientation) throws -> [UInt8] {
        do { return try JPEGSegments.rewrite(bytes, keeping: metadata, orientation: orientation) } catch {
            throw CLIError("\(name): \(error)")
        }
    }

    /// The smaller of the APNG and the exact GIF of an animation (APNG only when `allowed` is
    /// false).
    private func smallerAnimation(_ bytes: [UInt8], name: String, gif allowed: Bool) throws -> (OutputFormat, [UInt8], String) {
        let apng = try encodeAnimation(bytes, name: name, settings: settings)
        guard allowed else { return (.apng, apng, "animation: APNG keeps every frame (a GIF would overwrite the input)") }
        guard let gif = exactGIF(bytes) else {
            return (.apng, apng, "animation: APNG keeps every frame (a GIF could not show every frame exactly)")
        }
        let sizes = "APNG \(byteSize(apng.count)), GIF \(byteSize(gif.count)), both lossless"
        return gif.count < apng.count ? (.gif, gif, "animation: \(sizes)") : (.apng, apng, "animation: \(sizes)")
    }

    /// The animation as a GIF when every frame shows exactly as decoded (nil otherwise, or when
    /// the GIF encoder refuses the canvas).
    private func exactGIF(_ bytes: [UInt8]) -> [UInt8]? {
        guard let animation = try? ImageSource.animation(bytes, options: ImageSourceOptions(threads: settings.threads)) else {
            return nil
        }
        let options = GIFEncodingOptions(maxColors: 256, dithering: .none, loopCount: animation.loopCount, threads: settings.threads)
        guard var encoder = try? GIFAnimationEncoder(width: animation.canvasWidth, height: animation.canvasHeight, options: options) else {
            return nil
        }
        let info = animation.frameInfo
        var iterator = animation.makeFrameIterator()
        var out: [UInt8] = []
        var index = 0
        do {
            while index < info.count, let frame = try iterator.nextFrame() {
                out += try encoder.add(frame, delayMilliseconds: info[index].delayMilliseconds)
                guard encoder.isExact else { return nil }
                index += 1
            }
            out += try encoder.finish()
        } catch {
            return nil
        }
        return encoder.isExact ? out : nil
    }
}

/// Whether the file is an animation of more than one frame (a GIF, APNG or WebP); a file that
/// cannot be read says no here and fails when it is decoded.
func isAnimation(_ bytes: [UInt8]) -> Bool {
    guard let animation = try? ImageSource.animation(bytes) else { return false }
    return animation.frameInfo.count > 1
}

/// The `--to auto` choice for a still image, with the reason shown to the user.
func chooseFormat(for image: Image) -> (OutputFormat, String) {
    let rgba = image.converted(to: .rgba8)
    var colours = Set<UInt32>()
    var flatPairs = 0
    rgba.pixels.withUnsafeBytes { raw in
        let p = raw.bindMemory(to: UInt32.self)
        for i in 0 ..< p.count {
            if colours.count <= 256 { colours.insert(p[i]) }
            if i % rgba.width != 0 && p[i] == p[i - 1] { flatPairs += 1 }
        }
    }
    let pairs = max(1, rgba.height * (rgba.width - 1))
    if colours.count <= 256 { return (.png, "\(colours.count) colours: PNG is exact and smaller") }
    if flatPairs * 2 > pairs { return (.png, "large flat areas: PNG keeps sharp edges") }
    if JPNGEncoder.hasTransparency(image) { return (.jpng, "photograph with transparency") }
    return (.jpeg, "opaque photograph")
}

/// What a file's first bytes say when no decoder recognises them: the reason it is skipped.
func unreadableReason(_ head: [UInt8]) -> String? {
    if ImageDecoderRegistry.standard.entries.contains(where: { $0.matches(head) }) { return nil }
    func at(_ offset: Int, _ text: String) -> Bool {
        let sig = Array(text.utf8)
        return head.count >= offset + sig.count && Array(head[offset ..< offset + sig.count]) == sig
    }
    let known: String? = if at(0, "II*\0") || at(0, "MM\0*") { "TIFF" }
        else if at(0, "BM") { "BMP" }
        else if at(4, "ftypavif") || at(4, "ftypavis") { "AVIF" }
        else if at(4, "ftyphei") || at(4, "ftypmif1") || at(4, "ftyphev") { "HEIF" }
        else if head.starts(with: [0xFF, 0x0A]) || at(4, "JXL ") { "JPEG XL" }
        else if at(0, "8BPS") { "Photoshop" }
        else if head.starts(with: [0, 0, 1, 0]) { "ICO" }
        else { nil }
    if let known { return "\(known), a format the tool does not read" }
    return "not an image: no PNG, JPEG, GIF, WebP or Netpbm signature"
}

extension Image {
    /// This image with only the metadata `policy` keeps.
    func keeping(_ policy: MetadataPolicy) -> Image {
        guard policy != .all else { return self }
        var image = self
        image.metadata = image.metadata.kept(policy)
        return image
    }
}
