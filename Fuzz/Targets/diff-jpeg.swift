#if canImport(Glibc)
import Glibc
#endif
import ImageCore
import PureJPEG

// Differential target: PureJPEG's default decode against libjpeg-turbo 2.1.5's default
// decompression (Fuzz/C/diff_jpeg.c), at full size and at one DCT scale (1/2, 1/4 or 1/8,
// picked by the input's hash). Whenever libjpeg-turbo finishes a decode (with or without
// warnings) and PureJPEG decodes too, the two images must be identical; where one rejects and
// the other decodes, the pair of reasons is counted (see FUZZING.md, "Differential targets").

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    diffBegin("jpeg")
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let denominator = [2, 4, 8][Int((fnv1a(bytes) >> 8) % 3)]
    compareJPEG(bytes, denominator: 1)
    compareJPEG(bytes, denominator: denominator)
    return 0
}

func compareJPEG(_ bytes: [UInt8], denominator: Int) {
    var reference = diff_jpeg_result()
    bytes.withUnsafeBufferPointer {
        diff_jpeg_decode($0.baseAddress, $0.count, Int32(denominator), fuzzLimits.maxPixels, Int32(fuzzLimits.maxScans), &reference)
    }
    defer { diff_jpeg_free(&reference) }
    let scale = denominator == 1 ? "" : " [1/\(denominator)]"
    var pure: Image?
    var failure: JPEGError?
    do throws(JPEGError) {
        pure = try JPEGDecoder.decode(bytes, limits: fuzzLimits, options: JPEGDecodingOptions(scale: 8 / denominator))
    } catch {
        failure = error
    }
    let process = jpegProcess(bytes)
    let damaged = reference.warnings > 0 ? "warnings: " + jpegMessage(reference.first_warning) : "no warnings"
    if reference.status == Int32(DIFF_JPEG_SKIPPED) {
        diffCount("skipped: libjpeg " + jpegMessage(reference.msg_code) + scale, bytes, example: false)
        return
    }
    if let failure, failure.code == "limitExceeded" || failure.code == "tooManyScans" {
        diffCount("skipped: PureJPEG \(failure.code)" + scale, bytes, example: false)
        return
    }
    switch (reference.status == Int32(DIFF_JPEG_OK), pure) {
    case (false, nil):
        diffCount("both reject" + scale, bytes, example: false)
    case (false, .some):
        diffCount("libjpeg rejects (\(jpegMessage(reference.msg_code))), PureJPEG decodes [\(process)]" + scale, bytes)
    case (true, nil):
        diffCount("libjpeg decodes (\(damaged)), PureJPEG \(failure?.code ?? "?") [\(process)]" + scale, bytes)
    case let (true, .some(image)):
        let format: PixelFormat? = reference.channels == 1 ? .gray8 : reference.channels == 3 ? .rgb8 : nil
        guard let format else {
            diffCount("both decode, libjpeg gives \(reference.channels) channels [\(reference.num_components) components]" + scale, bytes)
            return
        }
        let what = "\(process), \(reference.num_components) components, \(damaged)" + scale
        if image.width != Int(reference.width) || image.height != Int(reference.height) {
            diffDiverge("size differs [\(what)]", "libjpeg \(reference.width)x\(reference.height), PureJPEG \(image.width)x\(image.height)", bytes)
        } else if image.format != format {
            diffDiverge("format differs [\(what)]", "libjpeg \(format), PureJPEG \(image.format)", bytes)
        } else {
            let count = image.pixels.count
            let same = image.pixels.withUnsafeBufferPointer { count == 0 || memcmp($0.baseAddress!, reference.pixels!, count) == 0 }
            if same {
                diffCount("both decode, same pixels" + (reference.warnings > 0 ? " (libjpeg warned)" : ""), bytes, example: false)
            } else if process.hasPrefix("SOF0") || process.hasPrefix("SOF1"), hasFFFF00(bytes) {
                // The one explained divergence (Sources/PureJPEG/Notes.md, IDCT): libjpeg-turbo's
                // decode_mcu_fast reads FF FF 00 in entropy data as a marker and decodes zero
                // bits, then decode_mcu_slow decodes the MCU again over the unzeroed blocks;
                // whether the fast path runs depends on the bytes left in libjpeg's source buffer.
                diffCount("known: FF FF 00 in a sequential scan (libjpeg's fast path) [\(what)]", bytes)
            } else {
                let first = (0 ..< count).first { image.pixels[$0] != reference.pixels![$0] } ?? -1
                let differing = (0 ..< count).reduce(0) { $0 + (image.pixels[$1] != reference.pixels![$1] ? 1 : 0) }
                diffDiverge("pixels differ [\(what)]",
                            "\(image.width)x\(image.height) \(format): \(differing) of \(count) bytes differ, the first at byte \(first)",
                            bytes)
            }
        }
    }
}

/// FF, one or more FF, then 00 after the first SOS: stuffing no encoder writes, which libjpeg-turbo's
/// fast Huffman path reads as a marker and its slow path as a data byte FF.
func hasFFFF00(_ bytes: [UInt8]) -> Bool {
    guard let sos = (0 ..< max(bytes.count - 1, 0)).first(where: { bytes[$0] == 0xFF && bytes[$0 + 1] == 0xDA }) else { return false }
    var i = sos + 2
    while i + 2 < bytes.count {
        if bytes[i] == 0xFF && bytes[i + 1] == 0xFF {
            var j = i + 1
            while j < bytes.count && bytes[j] == 0xFF { j += 1 }
            if j < bytes.count && bytes[j] == 0 { return true }
            i = j
        } else {
            i += 1
        }
    }
    return false
}

/// libjpeg's message (its format string, e.g. "Corrupt JPEG data: %u extraneous bytes before marker 0x%02x").
func jpegMessage(_ code: Int32) -> String {
    "\(code) " + String(cString: diff_jpeg_message(code))
}

/// The first SOF marker's process, e.g. "SOF2".
func jpegProcess(_ bytes: [UInt8]) -> String {
    var i = 2
    while i + 3 < bytes.count {
        guard bytes[i] == 0xFF else { i += 1; continue }
        let marker = bytes[i + 1]
        if marker == 0xFF || marker == 0x00 || marker == 0x01 || (0xD0 ... 0xD8).contains(marker) { i += marker == 0xFF ? 1 : 2; continue }
        if (0xC0 ... 0xCF).contains(marker) && marker != 0xC4 && marker != 0xC8 && marker != 0xCC {
            return "SOF\(marker - 0xC0)"
        }
        if marker == 0xDA || marker == 0xD9 { return "no SOF" }
        i += 2 + (Int(bytes[i + 2]) << 8 | Int(bytes[i + 3]))
    }
    return "no SOF"
}
