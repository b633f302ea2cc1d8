#if canImport(Glibc)
import Glibc
#endif
import ImageCore
import PureGIF

// Differential target: PureGIF (GIFAnimation, default options) against giflib 5.2.1
// (Fuzz/C/diff_gif.c: DGifOpen over memory and DGifSlurp's loop). For every frame giflib read
// whole, PureGIF must report the same rectangle, interlace flag, colour-table choice and
// graphic control block (DGifSavedExtensionToGCB: delay, disposal, transparent index, user
// input flag), and its composited canvas after the frame must equal the one this file composites
// from giflib's colour maps and raster indices by PureGIF's documented rules (canvas starts
// transparent; disposal 2 clears to transparent, 3 and 4 restore; indices past the colour
// table draw opaque black). The frame count must agree when both read the file to its end.
// Where one rejects and the other decodes, the pair of reasons is counted.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    diffBegin("gif")
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    var reference = diff_gif_result()
    bytes.withUnsafeBufferPointer {
        diff_gif_decode($0.baseAddress, $0.count, fuzzLimits.maxPixels, Int32(fuzzLimits.maxFrames), &reference)
    }
    defer { diff_gif_close(&reference) }
    if reference.status == Int32(DIFF_GIF_SKIPPED) {
        diffCount("skipped: giflib over the pixel or frame limit", bytes, example: false)
        return 0
    }
    if reference.empty_extension != 0 {
        // giflib's DGifSlurp misreads what follows an empty extension (FUZZING.md, diff-gif).
        diffCount("giflib reads past an empty extension's terminator", bytes, example: false)
        return 0
    }
    let giflib = gifOutcome(reference)
    let animation: GIFAnimation
    do throws(GIFError) {
        animation = try GIFAnimation(bytes: bytes, limits: fuzzLimits)
    } catch {
        if error.code == "limitExceeded" {
            diffCount("skipped: PureGIF limitExceeded", bytes, example: false)
        } else if reference.complete == 0 {
            diffCount("both reject", bytes, example: false)
        } else {
            diffCount("giflib reads \(reference.complete == 1 ? "1 frame" : "frames") (\(giflib)), PureGIF \(error.code)", bytes)
        }
        return 0
    }
    let complete = Int(reference.complete)
    if complete == 0 {
        diffCount("giflib reads no frame (\(giflib)), PureGIF parses \(animation.frames.count == 1 ? "1 frame" : "frames")", bytes)
        return 0
    }
    if animation.width != Int(reference.width) || animation.height != Int(reference.height) {
        diffDiverge("canvas size differs", "giflib \(reference.width)x\(reference.height), PureGIF \(animation.width)x\(animation.height)", bytes)
        return 0
    }
    var canvas = ReferenceCanvas(width: animation.width, height: animation.height)
    var iterator = animation.makeIterator()
    for index in 0 ..< complete {
        let frame = reference.frames[index]
        guard index < animation.frames.count else {
            diffCount("giflib reads more frames (\(giflib)), PureGIF ends" + (animation.truncatedAt == nil ? "" : " truncated"), bytes)
            return 0
        }
        let info = animation.frames[index]
        let giflibInfo = gifFrameInfo(index, frame, disposal: frame.disposal, userInput: frame.user_input, delay: frame.delay,
                                      transparent: frame.transparent)
        let browserInfo = gifFrameInfo(index, frame, disposal: frame.browser_disposal, userInput: frame.browser_user_input,
                                       delay: frame.browser_delay, transparent: frame.browser_transparent)
        if info != giflibInfo {
            // giflib's DGifSavedExtensionToGCB takes the first graphic control extension and only
            // when its block has exactly 4 bytes; PureGIF (like browsers) the last with at least 4.
            if info == browserInfo {
                diffCount("graphic control extension read as browsers do (giflib: \(frame.gce_count) extension(s), the first of \(frame.gce_first_size) bytes)", bytes)
            } else {
                diffDiverge("frame info differs" + gifInfoFields(info, giflibInfo), "frame \(index): giflib \(giflibInfo), PureGIF \(info)", bytes)
                return 0
            }
        }
        let image: Image
        do throws(GIFError) {
            guard let next = try iterator.nextFrame() else {
                diffCount("giflib reads frame, PureGIF's iterator ends", bytes)
                return 0
            }
            image = next
        } catch {
            diffCount("giflib reads frame (\(giflib)), PureGIF \(error.code)", bytes)
            return 0
        }
        guard frame.color_count > 0, let colors = frame.colors else {
            diffCount("giflib reads frame without a colour table, PureGIF decodes", bytes)
            return 0
        }
        canvas.draw(frame, colors: colors, disposal: gifDisposalCode(info.disposal), transparent: info.transparentIndex)
        if image.format != .rgba8 || image.pixels != canvas.pixels {
            let first = zip(image.pixels, canvas.pixels).enumerated().first { $0.element.0 != $0.element.1 }?.offset ?? -1
            diffDiverge("composited frame differs",
                        "frame \(index) (\(info)): first difference at byte \(first) (pixel \(first / 4))", bytes)
            return 0
        }
    }
    if reference.status == Int32(DIFF_GIF_OK) {
        if animation.frames.count != complete || animation.truncatedAt != nil {
            diffDiverge("frame count differs", "giflib \(complete), PureGIF \(animation.frames.count)" + (animation.truncatedAt == nil ? "" : " (truncated)"), bytes)
        } else {
            diffCount("both decode, same frames", bytes, example: false)
        }
    } else if animation.frames.count == complete {
        diffCount("giflib fails after its frames (\(giflib)), PureGIF reads the same frames", bytes)
    } else {
        diffCount("giflib fails (\(giflib)) after \(complete > 1 ? "frames" : "1 frame"), PureGIF has more", bytes)
    }
    return 0
}

func gifFrameInfo(_ index: Int, _ frame: diff_gif_frame, disposal: Int32, userInput: Int32, delay: Int32, transparent: Int32) -> GIFFrameInfo {
    GIFFrameInfo(index: index, x: Int(frame.left), y: Int(frame.top), width: Int(frame.width), height: Int(frame.height),
                 delayCentiseconds: Int(delay), disposal: GIFDisposal(rawValue: UInt8(truncatingIfNeeded: disposal)),
                 transparentIndex: transparent >= 0 ? UInt8(truncatingIfNeeded: transparent) : nil,
                 interlaced: frame.interlace != 0, hasLocalColorTable: frame.has_local_map != 0, userInputFlag: userInput != 0)
}

/// The disposal as the 3-bit code the reference canvas applies (2: clear, 3: restore, else keep).
func gifDisposalCode(_ disposal: GIFDisposal) -> Int {
    switch disposal {
    case .restoreBackground: 2
    case .restorePrevious: 3
    default: 0
    }
}

/// "stage: error" of a failed giflib read, e.g. "pixels: D_GIF_ERR_EOF_TOO_SOON".
func gifOutcome(_ result: diff_gif_result) -> String {
    if result.status == Int32(DIFF_GIF_OK) { return "ok" }
    let stages = ["", "open", "record type", "extension", "image descriptor", "pixels", "no image"]
    let stage = Int(result.stage) < stages.count ? stages[Int(result.stage)] : "?"
    let errors = [101: "OPEN_FAILED", 102: "READ_FAILED", 103: "NOT_GIF_FILE", 104: "NO_SCRN_DSCR", 105: "NO_IMAG_DSCR",
                  106: "NO_COLOR_MAP", 107: "WRONG_RECORD", 108: "DATA_TOO_BIG", 109: "NOT_ENOUGH_MEM",
                  110: "CLOSE_FAILED", 111: "NOT_READABLE", 112: "IMAGE_DEFECT", 113: "EOF_TOO_SOON"]
    // DGifSlurp's own check of the descriptor (width or height 0) fails without an error code.
    if result.stage == 4 && result.error == 0 { return "image descriptor: zero width or height" }
    return "\(stage): " + (errors[Int(result.error)] ?? "\(result.error)")
}

/// " (delay, disposal)": the fields that differ.
func gifInfoFields(_ a: GIFFrameInfo, _ b: GIFFrameInfo) -> String {
    var fields: [String] = []
    if (a.x, a.y, a.width, a.height) != (b.x, b.y, b.width, b.height) { fields.append("rectangle") }
    if a.delayCentiseconds != b.delayCentiseconds { fields.append("delay") }
    if a.disposal != b.disposal { fields.append("disposal") }
    if a.transparentIndex != b.transparentIndex { fields.append("transparency") }
    if a.interlaced != b.interlaced { fields.append("interlace") }
    if a.hasLocalColorTable != b.hasLocalColorTable { fields.append("local colour table") }
    if a.userInputFlag != b.userInputFlag { fields.append("user input") }
    return " (" + fields.joined(separator: ", ") + ")"
}

/// The canvas PureGIF's rules make of giflib's frames, written plainly (one pixel at a time).
struct ReferenceCanvas {
    let width: Int, height: Int
    var pixels: [UInt8]
    /// The last frame's disposal and clipped rectangle, applied when the next frame begins.
    var pending: (disposal: Int, x0: Int, y0: Int, x1: Int, y1: Int)?
    var saved: [UInt8] = []

    init(width: Int, height: Int) {
        self.width = width
        self.height = height
        pixels = [UInt8](repeating: 0, count: width * height * 4)
    }

    mutating func draw(_ frame: diff_gif_frame, colors: UnsafePointer<UInt8>, disposal: Int, transparent: UInt8?) {
        if let (disposal, x0, y0, x1, y1) = pending {
            for y in y0 ..< y1 {
                for x in x0 ..< x1 {
                    for c in 0 ..< 4 {
                        let i = (y * width + x) * 4 + c
                        if disposal == 2 { pixels[i] = 0 }
                        if disposal == 3 { pixels[i] = saved[((y - y0) * (x1 - x0) + x - x0) * 4 + c] }
                    }
                }
            }
        }
        let fx = Int(frame.left), fy = Int(frame.top), fw = Int(frame.width), fh = Int(frame.height)
        let x0 = min(max(fx, 0), width), x1 = max(min(max(fx + fw, 0), width), x0)
        let y0 = min(max(fy, 0), height), y1 = max(min(max(fy + fh, 0), height), y0)
        if disposal == 3 {
            saved = []
            for y in y0 ..< y1 { saved += pixels[(y * width + x0) * 4 ..< (y * width + x1) * 4] }
        }
        for y in y0 ..< y1 {
            for x in x0 ..< x1 {
                let index = Int(frame.raster[(y - fy) * fw + (x - fx)])
                if let transparent, index == Int(transparent) { continue }
                let i = (y * width + x) * 4
                if index < Int(frame.color_count) {
                    pixels[i] = colors[3 * index]; pixels[i + 1] = colors[3 * index + 1]; pixels[i + 2] = colors[3 * index + 2]
                } else {
                    pixels[i] = 0; pixels[i + 1] = 0; pixels[i + 2] = 0
                }
                pixels[i + 3] = 255
            }
        }
        pending = (disposal, x0, y0, x1, y1)
    }
}
