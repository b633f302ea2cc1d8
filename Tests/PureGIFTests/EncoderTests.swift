import Testing
import ImageCore
import PureQuant
@testable import PureGIF

/// A frame of a small moving scene: a gradient background, a square that moves, and an
/// optional transparent hole that grows (so pixels go from opaque to transparent).
private func scene(_ t: Int, width: Int = 48, height: Int = 32, colours: Bool = false, hole: Bool = false,
                   smooth: Bool = false) -> Image {
    var image = Image(width: width, height: height, format: .rgba8)
    for y in 0 ..< height {
        for x in 0 ..< width {
            let o = (y * width + x) * 4
            var c: [UInt8] = colours ? [UInt8((x / 8) * 40), UInt8((y / 8) * 60), 90, 255]
                                     : [UInt8(x * 5), UInt8(y * 7), UInt8(smooth ? (x + y) * 3 : (x * y) & 255), 255]
            if (t * 3 ..< t * 3 + 10).contains(x) && (8 ..< 18).contains(y) { c = [250, 20, 20, 255] }
            if hole && x < t * 4 && y < 6 { c = [0, 0, 0, 0] }
            image.pixels.replaceSubrange(o ..< o + 4, with: c)
        }
    }
    return image
}

private func decodeAll(_ gif: [UInt8]) throws -> [Image] {
    let animation = try GIFAnimation(bytes: gif)
    var frames: [Image] = []
    var it = animation.makeIterator()
    while let f = try it.nextFrame() { frames.append(f) }
    return frames
}

@Suite struct GIFEncoderTests {
    @Test func lzwRoundTripsThroughTheDecoder() throws {
        // Long enough for several table resets, with runs and noise.
        var rng = SplitMix64(seed: 3)
        for codeSize in [2, 3, 5, 8] {
            let n = 1 << codeSize
            var indices: [UInt8] = []
            for i in 0 ..< 60_000 { indices.append(i % 97 < 40 ? UInt8(i / 300 % n) : UInt8(rng.next() % UInt64(n))) }
            let palette = (0 ..< n).map { RGBAColor(r: UInt8($0), g: UInt8(255 - $0), b: 7) }
            var out: [UInt8] = []
            BlockWriter.header(width: 300, height: 200, globalTable: palette, into: &out)
            BlockWriter.imageDescriptor(x: 0, y: 0, width: 300, height: 200, localTable: nil, into: &out)
            indices.withUnsafeBufferPointer { LZWEncoder.encode($0, minimumCodeSize: codeSize, into: &out) }
            BlockWriter.trailer(into: &out)
            let strict = GIFDecodingOptions(allowExcessPixelData: false, allowIncompletePixelData: false,
                                            allowMissingEndCode: false, allowDataAfterEndCode: false)
            let frame = try GIFAnimation(bytes: out, options: strict).frame(at: 0)
            for p in stride(from: 0, to: indices.count, by: 1) {
                let c = palette[Int(indices[p])]
                #expect(frame.pixels[p * 4] == c.r && frame.pixels[p * 4 + 1] == c.g, "pixel \(p)")
                if frame.pixels[p * 4] != c.r { break }
            }
        }
    }

    @Test func stillImageDecodesToTheRemappedPixels() throws {
        let image = scene(2)
        for dithering in [Dithering.none, .floydSteinberg(strength: 1)] {
            let options = GIFEncodingOptions(maxColors: 32, dithering: dithering)
            let gif = try GIFEncoder.encode(image, options: options)
            let decoded = try GIFAnimation(bytes: gif).frame(at: 0)
            let expected = try Quantizer.quantize(image, options: QuantizationOptions(maxColors: 32, dithering: dithering)).rgbaImage()
            #expect(decoded.pixels == expected.pixels)
        }
    }

    @Test func stillImageWithTransparency() throws {
        let image = scene(3, colours: true, hole: true)
        let gif = try GIFEncoder.encode(image, options: GIFEncodingOptions(maxColors: 256, dithering: .none))
        let decoded = try GIFAnimation(bytes: gif).frame(at: 0)
        #expect(decoded.pixels == image.pixels, "few colours: exact")
    }

    @Test func animationRoundTripIsExactWithFewColours() throws {
        // Frames 0, 1, 1, 2, 3 with a growing hole: the repeated frame merges, the hole needs
        // background disposal.
        let source = [0, 1, 1, 2, 3].map { scene($0, colours: true, hole: true) }
        var encoder = try GIFAnimationEncoder(width: 48, height: 32, options: GIFEncodingOptions(dithering: .none, loopCount: 0, comment: "made by PureGIF"))
        var gif: [UInt8] = []
        for (k, f) in source.enumerated() { gif += try encoder.add(f, delayMilliseconds: 40 + k) }
        gif += try encoder.finish()
        #expect(encoder.framesWritten == 4)
        let animation = try GIFAnimation(bytes: gif)
        #expect(animation.loopCount == 0)
        #expect(animation.metadata.texts.first?.text == "made by PureGIF")
        let frames = try decodeAll(gif)
        #expect(frames.count == 4)
        for (k, s) in [0, 1, 3, 4].enumerated() { #expect(frames[k].pixels == source[s].pixels, "frame \(k)") }
        // 40 + 41 + 42 ms for the merged frame: the timeline rounds at frame starts.
        #expect(animation.frames.map(\.delayCentiseconds) == [4, 8, 5, 4])
    }

    /// 255 opaque colours and transparent pixels in one frame: 256 colours, the transparent
    /// one among them, fit one palette exactly; so do 256 opaque ones in a frame that needs no
    /// transparent entry. 257 colours, or alpha 128, do not, and `isExact` says so.
    @Test func fullPalettesAreExact() throws {
        func frame(opaque: Int, hole: Bool, modulo: Int = 256) -> Image {
            var image = Image(width: 32, height: 16, format: .rgba8)
            for p in 0 ..< 512 {
                let k = p % modulo
                let c: [UInt8] = hole && k >= opaque ? [0, 0, 0, 0] : [UInt8(k % 256), UInt8(255 - k % 256), UInt8(k / 3), 255]
                image.pixels.replaceSubrange(p * 4 ..< p * 4 + 4, with: c)
            }
            return image
        }
        for source in [[frame(opaque: 255, hole: true), frame(opaque: 200, hole: true), frame(opaque: 255, hole: true)],
                       [frame(opaque: 256, hole: false), frame(opaque: 255, hole: true), frame(opaque: 256, hole: false)]] {
            var encoder = try GIFAnimationEncoder(width: 32, height: 16, options: GIFEncodingOptions(dithering: .none))
            var gif: [UInt8] = []
            for f in source { gif += try encoder.add(f, delayMilliseconds: 50) }
            gif += try encoder.finish()
            #expect(encoder.isExact)
            let frames = try decodeAll(gif)
            #expect(frames.count == 3)
            for k in 0 ..< min(3, frames.count) { #expect(frames[k].pixels == source[k].pixels, "frame \(k)") }
        }
        var many = try GIFAnimationEncoder(width: 32, height: 16, options: GIFEncodingOptions(dithering: .none))
        _ = try many.add(frame(opaque: 257, hole: false, modulo: 257), delayMilliseconds: 50)
        _ = try many.finish()
        #expect(!many.isExact)
        var soft = try GIFAnimationEncoder(width: 32, height: 16)
        var translucent = frame(opaque: 8, hole: false)
        translucent.pixels[3] = 128
        _ = try soft.add(translucent, delayMilliseconds: 50)
        #expect(!soft.isExact, "alpha 128 is not kept")
    }

    @Test func framesAreTrimmedToTheirChanges() throws {
        let source = (0 ..< 3).map { scene($0, colours: true) }
        var encoder = try GIFAnimationEncoder(width: 48, height: 32, options: GIFEncodingOptions(dithering: .none))
        var gif: [UInt8] = []
        for f in source { gif += try encoder.add(f, delayMilliseconds: 100) }
        gif += try encoder.finish()
        let animation = try GIFAnimation(bytes: gif)
        #expect(animation.frames[0].width == 48 && animation.frames[0].height == 32)
        // The square moves 3 pixels right: 13 columns and its 10 rows change.
        #expect(animation.frames[1].width == 13 && animation.frames[1].height == 10)
        #expect(animation.frames[1].x == 0 && animation.frames[1].y == 8)
        let frames = try decodeAll(gif)
        for (f, s) in zip(frames, source) { #expect(f.pixels == s.pixels) }
    }

    @Test func lossyAnimationStaysClose() throws {
        let source = (0 ..< 4).map { scene($0, smooth: true) }
        var encoder = try GIFAnimationEncoder(width: 48, height: 32, options: GIFEncodingOptions(maxColors: 64))
        var gif: [UInt8] = []
        for f in source { gif += try encoder.add(f, delayMilliseconds: 100) }
        gif += try encoder.finish()
        let frames = try decodeAll(gif)
        #expect(frames.count == 4)
        for (f, s) in zip(frames, source) {
            var sum = 0
            for i in 0 ..< f.pixels.count { let d = Int(f.pixels[i]) - Int(s.pixels[i]); sum += d * d }
            #expect(Double(sum) / Double(f.pixels.count) < 100)   // above 28 dB
        }
        #expect(encoder.canvas.pixels == frames[3].pixels)
    }

    @Test func lzwWithAlternativesDecodesToOneOfThem() throws {
        // Pixels with a choice between two values (a transparent index and a shown colour):
        // each decodes to one of its two, and a choice that makes runs codes smaller.
        var rng = SplitMix64(seed: 5)
        var indices: [UInt8] = [], alternatives: [UInt8] = []
        for i in 0 ..< 40_000 {
            let v = UInt8(rng.next() % 16)
            indices.append(v)
            alternatives.append(i % 5 < 3 ? 0 : v)
        }
        let palette = (0 ..< 16).map { RGBAColor(r: UInt8($0 * 16), g: 3, b: UInt8(255 - $0)) }
        func file(_ a: [UInt8], _ b: [UInt8]) -> [UInt8] {
            var out: [UInt8] = []
            BlockWriter.header(width: 200, height: 200, globalTable: palette, into: &out)
            BlockWriter.imageDescriptor(x: 0, y: 0, width: 200, height: 200, localTable: nil, into: &out)
            a.withUnsafeBufferPointer { a in
                b.withUnsafeBufferPointer { b in LZWEncoder.encode(a, alternatives: b, minimumCodeSize: 4, into: &out) }
            }
            BlockWriter.trailer(into: &out)
            return out
        }
        let chosen = file(indices, alternatives)
        let strict = GIFDecodingOptions(allowExcessPixelData: false, allowIncompletePixelData: false,
                                        allowMissingEndCode: false, allowDataAfterEndCode: false)
        let frame = try GIFAnimation(bytes: chosen, options: strict).frame(at: 0)
        var wrong = 0
        for p in 0 ..< indices.count {
            let r = frame.pixels[p * 4], b = frame.pixels[p * 4 + 2]
            let one = palette[Int(indices[p])], other = palette[Int(alternatives[p])]
            if !((r == one.r && b == one.b) || (r == other.r && b == other.b)) { wrong += 1 }
        }
        #expect(wrong == 0)
        #expect(chosen.count < file(indices, indices).count)
    }

    @Test func animationFromFramesSharesOnePalette() throws {
        // Frames whose colours together fit one table: `encode(animation:)` makes it the
        // global table from every frame, so no frame needs a local one, and all are exact.
        // Each frame adds a patch of a colour the first frame lacks.
        let source = (0 ..< 5).map { k in
            var image = scene(k, colours: true)
            for y in 24 ..< 30 {
                for x in k * 6 ..< k * 6 + 6 {
                    image.pixels.replaceSubrange((y * 48 + x) * 4 ..< (y * 48 + x) * 4 + 4, with: [UInt8(k * 50), 200, 10, 255])
                }
            }
            return image
        }
        var first = try GIFAnimationEncoder(width: 48, height: 32, options: GIFEncodingOptions(dithering: .none))
        var gif: [UInt8] = []
        for f in source { gif += try first.add(f, delayMilliseconds: 100) }
        gif += try first.finish()
        let again = try GIFEncoder.encode(animation: try GIFAnimation(bytes: gif))
        let animation = try GIFAnimation(bytes: again)
        #expect(animation.frames.allSatisfy { !$0.hasLocalColorTable })
        let frames = try decodeAll(again)
        #expect(frames.count == 5)
        for (f, s) in zip(frames, source) { #expect(f.pixels == s.pixels) }
    }

    @Test func sameFileOnOneThreadAndTwo() throws {
        // The quantizer works in pieces on threads; the file must not depend on their count.
        // Frame 3 repeats 2; frame 4 opens a hole (a clear).
        let source = [0, 1, 2, 2, 3, 4].map { scene($0, hole: $0 == 4, smooth: true) }
        var palette = try Quantizer.palette(for: source[0], options: QuantizationOptions(maxColors: 63))
        palette.append(RGBAColor(r: 0, g: 0, b: 0, a: 0))
        var files: [[UInt8]] = []
        for threads in [1, 2] {
            var encoder = try GIFAnimationEncoder(width: 48, height: 32, options: GIFEncodingOptions(maxColors: 64, threads: threads),
                                                  globalPalette: palette)
            var gif: [UInt8] = []
            for f in source { gif += try encoder.add(f, delayMilliseconds: 50) }
            gif += try encoder.finish()
            files.append(gif)
        }
        #expect(files[0] == files[1])
        #expect(try decodeAll(files[0]).count == 5)
        // The same through `encode(animation:)` (one palette from every frame).
        var first = try GIFAnimationEncoder(width: 48, height: 32, options: GIFEncodingOptions(dithering: .none))
        var gif: [UInt8] = []
        for f in source { gif += try first.add(f, delayMilliseconds: 50) }
        gif += try first.finish()
        let animation = try GIFAnimation(bytes: gif)
        let one = try GIFEncoder.encode(animation: animation, options: GIFEncodingOptions(maxColors: 32, threads: 1))
        let two = try GIFEncoder.encode(animation: animation, options: GIFEncodingOptions(maxColors: 32, threads: 2))
        #expect(one == two)
        #expect(try decodeAll(one).count == 5)
    }

    @Test func rejectsBadInput() {
        #expect(throws: GIFEncodingError.self) { try GIFEncoder.encode(Image(width: 0, height: 3, format: .rgba8)) }
        #expect(throws: GIFEncodingError.self) { try GIFEncoder.encode(scene(0), options: GIFEncodingOptions(maxColors: 1)) }
        #expect(throws: GIFEncodingError.self) {
            var e = try GIFAnimationEncoder(width: 4, height: 4)
            _ = try e.add(scene(0), delayMilliseconds: 10)
        }
        #expect(throws: GIFEncodingError.self) { var e = try GIFAnimationEncoder(width: 4, height: 4); _ = try e.finish() }
    }
}
