#if canImport(Glibc)
import Glibc
#endif
import ImageCore
import PureWebP

// Differential target: PureWebP (default options) against libwebp 1.2.4 (Fuzz/C/diff_webp.c).
// A still: WebPDecode into RGBA, what `dwebp -pam` writes (WebPDecodeRGBA's decoder, fancy
// upsampling; libwebp's C kernels, see Fuzz/C/diff_webp.c); whenever both decode, the RGBA8 pixels must be equal. PureWebP decodes a
// still that declares no alpha as `.rgb8`: its RGB is compared (libwebp writes a VP8L stream's
// alpha even when the alpha hint is unset; that case is counted). An animation: WebPAnimDecoder (RGBA, as anim_dump); whenever both decode, the frame
// count, canvas size, loop count, each frame's end timestamp and every composited canvas must
// be equal. Where one rejects and the other decodes, the pair of reasons is counted (libwebp's
// status code, PureWebP's error code and what it is about).

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    diffBegin("webp")
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    var reference = diff_webp_result()
    bytes.withUnsafeBufferPointer {
        diff_webp_decode($0.baseAddress, $0.count, fuzzLimits.maxPixels, Int32(fuzzLimits.maxFrames), &reference)
    }
    defer { diff_webp_free(&reference) }
    if reference.status == Int32(DIFF_WEBP_SKIPPED) {
        diffCount("skipped: libwebp over the pixel or frame limit", bytes, example: false)
        return 0
    }
    let libwebp = reference.status == Int32(DIFF_WEBP_OK)
    let stage = ["", "features", "still decode", "demux", "a frame"][Int(min(max(reference.stage, 0), 4))]
    let limits = fuzzLimits.knowingInputSize(bytes.count)
    if reference.animated == 0 || !libwebp {
        var pure: Image?
        var failure: WebPError?
        do throws(WebPError) {
            var decoder = WebPDecoder(limits: limits)
            _ = try decoder.append(bytes)
            if decoder.isAnimated { return animated(bytes, reference, libwebp, stage) }
            pure = try decoder.finish()
        } catch {
            failure = error
        }
        if let failure, failure.code == "limitExceeded" {
            diffCount("skipped: PureWebP limit", bytes, example: false)
            return 0
        }
        switch (libwebp, pure) {
        case (false, nil):
            diffCount("both reject", bytes, example: false)
        case (false, .some):
            diffCount("libwebp rejects (\(stage), status \(reference.vp8_status)), PureWebP decodes", bytes)
        case (true, nil):
            diffCount("libwebp decodes, PureWebP \(reason(failure))", bytes)
        case let (true, .some(image)):
            if image.format == .rgb8, let pixels = reference.pixels {
                // No alpha declared (no VP8X flag, ALPH or VP8L alpha hint): PureWebP decodes RGB,
                // as the file says; libwebp writes the VP8L stream's alpha whatever the hint.
                var declaredOpaque = true
                for i in stride(from: 3, to: Int(reference.width) * Int(reference.height) * 4, by: 4) where pixels[i] != 255 {
                    pixels[i] = 255
                    declaredOpaque = false
                }
                if !declaredOpaque { diffCount("libwebp decodes alpha the file does not declare (compared as RGB)", bytes, example: false) }
            }
            compare(image.converted(to: .rgba8), reference.pixels, Int(reference.width), Int(reference.height), "still", bytes)
        }
        return 0
    }
    return animated(bytes, reference, libwebp, stage)
}

private func animated(_ bytes: [UInt8], _ reference: diff_webp_result, _ libwebp: Bool, _ stage: String) -> CInt {
    var frames: [Image] = []
    var failure: WebPError?
    var animation: WebPAnimation?
    do throws(WebPError) {
        let parsed = try WebPAnimation(bytes: bytes, limits: fuzzLimits)
        animation = parsed
        var iterator = parsed.makeIterator()
        while let frame = try iterator.nextFrame() { frames.append(frame) }
    } catch {
        failure = error
    }
    if let failure, failure.code == "limitExceeded" {
        diffCount("skipped: PureWebP limit (animation)", bytes, example: false)
        return 0
    }
    switch (libwebp, failure == nil) {
    case (false, false):
        diffCount("both reject (animation)", bytes, example: false)
    case (false, true):
        diffCount("libwebp rejects (\(stage)), PureWebP decodes the animation", bytes)
    case (true, false):
        diffCount("libwebp decodes the animation, PureWebP \(reason(failure))", bytes)
    case (true, true):
        guard let animation else { return 0 }
        let count = Int(reference.frame_count)
        if frames.count != count || animation.width != Int(reference.width) || animation.height != Int(reference.height) {
            diffDiverge("animation structure differs",
                        "libwebp \(count) frames \(reference.width)x\(reference.height), PureWebP \(frames.count) \(animation.width)x\(animation.height)", bytes)
            return 0
        }
        if (animation.animLoopCount ?? 0) != Int(reference.loop_count) {
            diffDiverge("loop count differs", "libwebp \(reference.loop_count), PureWebP \(animation.animLoopCount ?? -1)", bytes)
        }
        var end = 0
        for (i, info) in animation.frames.enumerated() {
            end += info.durationMilliseconds
            if reference.timestamps![i] != Int32(truncatingIfNeeded: end) {
                diffDiverge("timestamps differ", "frame \(i): libwebp \(reference.timestamps![i]), PureWebP \(end)", bytes)
                return 0
            }
        }
        let canvasBytes = animation.width * animation.height * 4
        for (i, frame) in frames.enumerated() {
            if !compare(frame, reference.pixels.map { $0 + i * canvasBytes }, animation.width, animation.height, "frame \(i)", bytes, count: false) { return 0 }
        }
        diffCount("both decode the animation, same canvases", bytes, example: false)
    }
    return 0
}

/// The error's code and what it is about (no offset), so the classes say which rule refused.
private func reason(_ error: WebPError?) -> String {
    switch error {
    case let .truncated(what, _)?, let .invalid(what, _)?, let .unsupported(what, _)?: "\(error!.code) (\(what))"
    case let error?: error.code
    case nil: "?"
    }
}

@discardableResult
private func compare(_ image: Image, _ pixels: UnsafeMutablePointer<UInt8>?, _ width: Int, _ height: Int,
                     _ what: String, _ bytes: [UInt8], count: Bool = true) -> Bool {
    guard image.width == width && image.height == height, image.format == .rgba8 else {
        diffDiverge("size differs (\(what))", "libwebp \(width)x\(height), PureWebP \(image.width)x\(image.height) \(image.format)", bytes)
        return false
    }
    let same = image.pixels.withUnsafeBufferPointer { $0.isEmpty || memcmp($0.baseAddress!, pixels!, $0.count) == 0 }
    if !same {
        let first = (0 ..< image.pixels.count).first { image.pixels[$0] != pixels![$0] } ?? -1
        diffDiverge("pixels differ (\(what))", "\(width)x\(height): first difference at byte \(first)", bytes)
        return false
    }
    if count { diffCount("both decode, same pixels", bytes, example: false) }
    return true
}
