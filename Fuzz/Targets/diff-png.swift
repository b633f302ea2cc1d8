#if canImport(Glibc)
import Glibc
#endif
import ImageCore
import PurePNG

// Differential target: PurePNG's default decode against libpng 1.6's sequential read with its
// default settings (Fuzz/C/diff_png.c, after Vectors/png/damaged/libpng_ref.c). Whenever libpng
// delivers the image (an error in png_read_end, after every row, leaves it standing), PurePNG
// must decode it to the same RGBA8 or RGBA16 pixels; where one rejects and the other decodes,
// the pair of reasons is counted (see FUZZING.md, "Differential targets").

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    diffBegin("png")
    var bytes = Array(UnsafeBufferPointer(start: data, count: size))
    // Mutations break chunk CRCs, which both decoders reject at once: on half the inputs (by the
    // input's hash) every complete chunk's CRC is made right first, so the image data is reached.
    if fnv1a(bytes) & 0x100 != 0 { fixChunkCRCs(&bytes) }
    var reference = diff_png_result()
    bytes.withUnsafeBufferPointer { diff_png_decode($0.baseAddress, $0.count, fuzzLimits.maxPixels, &reference) }
    defer { diff_png_free(&reference) }
    var pure: Image?
    var failure: PNGError?
    do throws(PNGError) {
        pure = try PNGDecoder.decode(bytes, limits: fuzzLimits)
    } catch {
        failure = error
    }
    let message = pngMessage(reference)
    if reference.status == Int32(DIFF_PNG_SKIPPED) {
        diffCount("skipped: libpng over the pixel limit", bytes, example: false)
        return 0
    }
    if let failure, failure.code == "limitExceeded" {
        diffCount("skipped: PurePNG limitExceeded", bytes, example: false)
        return 0
    }
    let libpngDecodes = reference.status == Int32(DIFF_PNG_OK)
    switch (libpngDecodes, pure) {
    case (false, nil):
        diffCount("both reject", bytes, example: false)
    case (false, .some):
        diffCount("libpng rejects (\(message)), PurePNG decodes", bytes)
    case (true, nil):
        let how = reference.error_after_image != 0 ? "error after the image: \(message)" : reference.warnings > 0 ? "warned: \(message)" : "clean"
        diffCount("libpng decodes (\(how)), PurePNG \(failure?.code ?? "?")", bytes)
    case let (true, .some(image)):
        let sixteen = reference.depth == 16
        let what = "\(pngHeader(bytes))" + (reference.error_after_image != 0 ? ", libpng error after the image" : reference.warnings > 0 ? ", libpng warned" : "")
        if image.width != Int(reference.width) || image.height != Int(reference.height) {
            diffDiverge("size differs [\(what)]", "libpng \(reference.width)x\(reference.height), PurePNG \(image.width)x\(image.height)", bytes)
        } else if image.format.is16Bit != sixteen {
            diffDiverge("bit depth differs [\(what)]", "libpng \(reference.depth)-bit, PurePNG \(image.format)", bytes)
        } else {
            let rgba = image.converted(to: sixteen ? .rgba16 : .rgba8).pixels
            let same = rgba.withUnsafeBufferPointer { $0.isEmpty || memcmp($0.baseAddress!, reference.pixels!, $0.count) == 0 }
            if same {
                diffCount("both decode, same pixels" + (reference.error_after_image != 0 ? " (libpng: error after the image)" : reference.warnings > 0 ? " (libpng warned)" : ""), bytes, example: false)
            } else {
                let first = (0 ..< rgba.count).first { rgba[$0] != reference.pixels![$0] } ?? -1
                diffDiverge("pixels differ [\(what)]",
                            "\(image.width)x\(image.height) \(sixteen ? "RGBA16" : "RGBA8"): first difference at byte \(first)", bytes)
            }
        }
    }
    return 0
}

/// libpng's message with the parts that vary between inputs of one kind (chunk names that are
/// not real chunks, numbers) masked, so that it names a class.
func pngMessage(_ result: diff_png_result) -> String {
    var message = withUnsafeBytes(of: result.message) { raw in
        String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
    }
    let known: Set<String> = ["IHDR", "PLTE", "IDAT", "IEND", "tRNS", "gAMA", "cHRM", "sRGB", "iCCP", "sBIT", "bKGD",
                              "hIST", "pHYs", "sPLT", "tIME", "tEXt", "zTXt", "iTXt", "oFFs", "pCAL", "sCAL", "eXIf",
                              "acTL", "fcTL", "fdAT"]
    if let colon = message.firstRange(of: ": "), !known.contains(String(message[..<colon.lowerBound])) {
        message = "(chunk)" + message[colon.lowerBound...]
    }
    return String(message.map { $0.isNumber ? "#" : $0 })
}

/// Rewrites the CRC of every chunk that lies wholly inside the input.
func fixChunkCRCs(_ bytes: inout [UInt8]) {
    var i = 8
    while i + 12 <= bytes.count {
        let length = Int(bytes[i]) << 24 | Int(bytes[i + 1]) << 16 | Int(bytes[i + 2]) << 8 | Int(bytes[i + 3])
        guard length <= bytes.count - i - 12 else { return }
        let crc = CRC32.checksum(bytes[i + 4 ..< i + 8 + length])
        for k in 0 ..< 4 { bytes[i + 8 + length + k] = UInt8(truncatingIfNeeded: crc >> (24 - 8 * k)) }
        i += 12 + length
    }
}

/// "colour type 3, 8-bit, interlaced" from IHDR.
func pngHeader(_ bytes: [UInt8]) -> String {
    guard bytes.count >= 29 else { return "short" }
    return "colour type \(bytes[25]), \(bytes[24])-bit" + (bytes[28] == 1 ? ", interlaced" : "")
}
