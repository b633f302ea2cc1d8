import Foundation
import Testing
import TestSupport
import ImageCore
@testable import PurePNG

/// APNGEncoder: the file's structure parsed here, and losslessness checked with a reference
/// decoder + compositor written in this file (each frame's data is made into a standalone PNG
/// and decoded by ``PNGDecoder``; frames are composited per the APNG spec with apngdis's
/// integer OVER formula), over generated animations.
@Suite struct APNGEncoderTests {
    // MARK: Reference decoder

    struct FrameControl: Equatable {
        var sequence: UInt32, width: Int, height: Int, x: Int, y: Int
        var delayNumerator: UInt16, delayDenominator: UInt16, dispose: UInt8, blend: UInt8
    }

    struct Parsed {
        var width = 0, height = 0, bitDepth: UInt8 = 0, colorType: UInt8 = 0
        var plte: [UInt8]?, trns: [UInt8]?
        var numFrames: UInt32 = 0, plays: UInt32 = 0
        var controls: [FrameControl] = []
        /// Each frame's zlib stream (IDAT for frame 0, fdAT payloads after their sequence number).
        var data: [[UInt8]] = []
        var chunkTypes: [String] = []
    }

    static func be32(_ b: ArraySlice<UInt8>) -> UInt32 { b.reduce(0) { $0 << 8 | UInt32($1) } }
    static func be16(_ b: ArraySlice<UInt8>) -> UInt16 { b.reduce(0) { $0 << 8 | UInt16($1) } }

    /// Parses and checks the chunk layout: signature, CRCs, IHDR first, acTL and frame 0's fcTL
    /// before one run of IDAT, sequence numbers 0, 1, 2, ... over fcTL and fdAT, rectangles
    /// inside the canvas, every frame with data, IEND last.
    static func parse(_ file: [UInt8], sourceLocation: SourceLocation = #_sourceLocation) throws -> Parsed {
        try #require(Array(file.prefix(8)) == pngSignature, sourceLocation: sourceLocation)
        var p = Parsed()
        var i = 8
        var nextSequence: UInt32 = 0
        var sawIDAT = false, idatEnded = false, sawIEND = false
        while i < file.count {
            try #require(!sawIEND, "bytes after IEND", sourceLocation: sourceLocation)
            try #require(i + 12 <= file.count, sourceLocation: sourceLocation)
            let length = Int(be32(file[i ..< i + 4]))
            try #require(i + 12 + length <= file.count, sourceLocation: sourceLocation)
            let type = String(decoding: file[i + 4 ..< i + 8], as: UTF8.self)
            let data = Array(file[i + 8 ..< i + 8 + length])
            let crc = be32(file[i + 8 + length ..< i + 12 + length])
            #expect(crc == CRC32.checksum(file[i + 4 ..< i + 8 + length]), "CRC of \(type)", sourceLocation: sourceLocation)
            p.chunkTypes.append(type)
            if p.chunkTypes.count == 1 { try #require(type == "IHDR", sourceLocation: sourceLocation) }
            if sawIDAT && type != "IDAT" { idatEnded = true }
            switch type {
            case "IHDR":
                p.width = Int(be32(data[0 ..< 4])); p.height = Int(be32(data[4 ..< 8]))
                p.bitDepth = data[8]; p.colorType = data[9]
                #expect(data[12] == 0, "not interlaced", sourceLocation: sourceLocation)
            case "PLTE": p.plte = data
            case "tRNS": p.trns = data
            case "acTL":
                #expect(!sawIDAT, "acTL before IDAT", sourceLocation: sourceLocation)
                p.numFrames = be32(data[0 ..< 4]); p.plays = be32(data[4 ..< 8])
            case "fcTL":
                try #require(data.count == 26, sourceLocation: sourceLocation)
                let c = FrameControl(sequence: be32(data[0 ..< 4]), width: Int(be32(data[4 ..< 8])),
                                     height: Int(be32(data[8 ..< 12])), x: Int(be32(data[12 ..< 16])),
                                     y: Int(be32(data[16 ..< 20])), delayNumerator: be16(data[20 ..< 22]),
                                     delayDenominator: be16(data[22 ..< 24]), dispose: data[24], blend: data[25])
                #expect(c.sequence == nextSequence, "fcTL sequence", sourceLocation: sourceLocation)
                nextSequence = c.sequence &+ 1
                #expect(c.width > 0 && c.height > 0 && c.x + c.width <= p.width && c.y + c.height <= p.height,
                        "frame \(p.controls.count) rectangle \(c) inside \(p.width)x\(p.height)", sourceLocation: sourceLocation)
                #expect(c.dispose <= 2 && c.blend <= 1, sourceLocation: sourceLocation)
                if p.controls.isEmpty {
                    #expect(!sawIDAT, "frame 0's fcTL before IDAT", sourceLocation: sourceLocation)
                    #expect(c.x == 0 && c.y == 0 && c.width == p.width && c.height == p.height && c.blend == 0,
                            sourceLocation: sourceLocation)
                } else {
                    #expect(sawIDAT, sourceLocation: sourceLocation)
                    #expect(p.data.count == p.controls.count && !p.data[p.controls.count - 1].isEmpty,
                            "previous frame has data", sourceLocation: sourceLocation)
                }
                p.controls.append(c)
                p.data.append([])
            case "IDAT":
                try #require(!idatEnded, "IDAT chunks are consecutive", sourceLocation: sourceLocation)
                try #require(p.controls.count == 1, "IDAT is frame 0", sourceLocation: sourceLocation)
                sawIDAT = true
                p.data[0] += data
            case "fdAT":
                try #require(p.controls.count > 1 && data.count > 4, sourceLocation: sourceLocation)
                #expect(be32(data[0 ..< 4]) == nextSequence, "fdAT sequence", sourceLocation: sourceLocation)
                nextSequence &+= 1
                p.data[p.controls.count - 1] += data[4...]
            case "IEND": sawIEND = true
            default: break
            }
            i += 12 + length
        }
        #expect(sawIEND, sourceLocation: sourceLocation)
        #expect(p.controls.count == Int(p.numFrames), "acTL num_frames", sourceLocation: sourceLocation)
        #expect(p.data.allSatisfy { !$0.isEmpty }, sourceLocation: sourceLocation)
        return p
    }

    static func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let typeBytes = Array(type.utf8)
        var out: [UInt8] = []
        for s in [24, 16, 8, 0] { out.append(UInt8(truncatingIfNeeded: data.count >> s)) }
        out += typeBytes + data
        let crc = CRC32.checksum(typeBytes + data)
        for s in [24, 16, 8, 0] { out.append(UInt8(truncatingIfNeeded: crc >> UInt32(s))) }
        return out
    }

    /// One frame's data decoded as a standalone PNG of the frame's size, as RGBA at the file's depth.
    static func decodeFrame(_ p: Parsed, _ k: Int) throws -> Image {
        let c = p.controls[k]
        var ihdr: [UInt8] = []
        ihdr.appendBigEndian32(UInt32(c.width)); ihdr.appendBigEndian32(UInt32(c.height))
        ihdr += [p.bitDepth, p.colorType, 0, 0, 0]
        var png = pngSignature + chunk("IHDR", ihdr)
        if let plte = p.plte { png += chunk("PLTE", plte) }
        if let trns = p.trns { png += chunk("tRNS", trns) }
        png += chunk("IDAT", p.data[k]) + chunk("IEND", [])
        return try PNGDecoder.decode(png).converted(to: p.bitDepth == 16 ? .rgba16 : .rgba8)
    }

    static func samples(_ image: Image) -> [UInt32] {
        image.format.is16Bit ? image.pixels.withUnsafeBytes { $0.bindMemory(to: UInt16.self).map(UInt32.init) }
                             : image.pixels.map(UInt32.init)
    }

    static func image(_ s: [UInt32], _ w: Int, _ h: Int, sixteen: Bool) -> Image {
        if !sixteen { return Image(width: w, height: h, format: .rgba8, pixels: s.map { UInt8($0) }) }
        var out = Image(width: w, height: h, format: .rgba16)
        out.pixels.withUnsafeMutableBytes { raw in
            for (i, v) in s.enumerated() { raw.storeBytes(of: UInt16(v), toByteOffset: 2 * i, as: UInt16.self) }
        }
        return out
    }

    /// Composites every frame per the APNG spec (fcTL dispose and blend ops). OVER is apngdis's
    /// integer formula, at 8 or 16 bits.
    static func composite(_ p: Parsed) throws -> [Image] {
        let sixteen = p.bitDepth == 16
        let maxV: UInt64 = sixteen ? 65535 : 255
        var canvas = [UInt32](repeating: 0, count: p.width * p.height * 4)
        var frames: [Image] = []
        for k in 0 ..< p.controls.count {
            let c = p.controls[k]
            let src = samples(try decodeFrame(p, k))
            let saved = canvas
            for y in 0 ..< c.height {
                for x in 0 ..< c.width {
                    let s = (y * c.width + x) * 4, d = ((c.y + y) * p.width + c.x + x) * 4
                    let sa = UInt64(src[s + 3]), da = UInt64(canvas[d + 3])
                    if c.blend == 0 || sa == maxV || (sa != 0 && da == 0) {
                        for ch in 0 ..< 4 { canvas[d + ch] = src[s + ch] }
                    } else if sa != 0 {
                        let u = sa * maxV, v = (maxV - sa) * da, al = u + v
                        for ch in 0 ..< 3 {
                            canvas[d + ch] = UInt32((UInt64(src[s + ch]) * u + UInt64(canvas[d + ch]) * v) / al)
                        }
                        canvas[d + 3] = UInt32(al / maxV)
                    }
                }
            }
            frames.append(image(canvas, p.width, p.height, sixteen: sixteen))
            // APNG spec: PREVIOUS on the first frame is treated as BACKGROUND.
            if c.dispose == 2 && k > 0 {
                canvas = saved
            } else if c.dispose >= 1 {
                for y in c.y ..< c.y + c.height { for i in (y * p.width + c.x) * 4 ..< (y * p.width + c.x + c.width) * 4 { canvas[i] = 0 } }
            }
        }
        return frames
    }

    /// Encodes, parses, composites and compares every frame with its input, all four channels.
    @discardableResult
    static func checkLossless(_ frames: [APNGFrame], _ options: APNGEncodingOptions = .init(),
                              sourceLocation: SourceLocation = #_sourceLocation) throws -> (file: [UInt8], parsed: Parsed) {
        let file = try APNGEncoder.encode(frames, options: options)
        let p = try parse(file, sourceLocation: sourceLocation)
        #expect(p.width == frames[0].image.width && p.height == frames[0].image.height, sourceLocation: sourceLocation)
        #expect(Int(p.numFrames) == frames.count && p.plays == UInt32(options.plays), sourceLocation: sourceLocation)
        let decoded = try composite(p)
        for (k, frame) in frames.enumerated() {
            let expected = frame.image.unpremultiplied().converted(to: p.bitDepth == 16 ? .rgba16 : .rgba8)
            if decoded[k].pixels != expected.pixels {
                let a = samples(decoded[k]), b = samples(expected)
                let i = (a.indices.first { a[$0] != b[$0] } ?? 0) / 4
                let previous = k > 0 ? "\(p.controls[k - 1])" : "-"
                let message = "frame \(k) differs at (\(i % p.width), \(i / p.width)): got \(Array(a[i * 4 ..< i * 4 + 4])), "
                    + "want \(Array(b[i * 4 ..< i * 4 + 4])); fcTL \(p.controls[k]), previous \(previous)"
                Issue.record(Comment(rawValue: message), sourceLocation: sourceLocation)
            }
            #expect(p.controls[k].delayNumerator == frame.delayNumerator
                    && p.controls[k].delayDenominator == frame.delayDenominator, sourceLocation: sourceLocation)
        }
        return (file, p)
    }

    // MARK: Generated animations

    /// Draws into an image of any format; values are at the image's depth.
    struct Painter {
        var image: Image
        init(_ w: Int, _ h: Int, _ format: PixelFormat) { image = Image(width: w, height: h, format: format) }

        mutating func set(_ x: Int, _ y: Int, _ v: [Int]) {
            let f = image.format, base = (y * image.width + x) * f.channels
            image.pixels.withUnsafeMutableBytes { raw in
                for ch in 0 ..< f.channels {
                    if f.is16Bit { raw.storeBytes(of: UInt16(v[ch]), toByteOffset: 2 * (base + ch), as: UInt16.self) }
                    else { raw[base + ch] = UInt8(v[ch]) }
                }
            }
        }

        mutating func fill(_ x0: Int, _ y0: Int, _ w: Int, _ h: Int, _ v: [Int]) {
            let xs = max(0, x0), xe = min(image.width, x0 + w), ys = max(0, y0), ye = min(image.height, y0 + h)
            guard xs < xe, ys < ye else { return }
            for y in ys ..< ye { for x in xs ..< xe { set(x, y, v) } }
        }
    }

    static func frames(_ images: [Image], ms: Int = 40) -> [APNGFrame] {
        images.map { APNGFrame(image: $0, delayMilliseconds: ms) }
    }

    /// A disc with a colour gradient and a soft (partially transparent) edge moving across a
    /// transparent, or an opaque textured, background.
    static func movingSprite(_ w: Int, _ h: Int, count: Int, format: PixelFormat = .rgba8,
                             opaqueBackground: Bool = false, softEdge: Bool = true) -> [APNGFrame] {
        let maxV = format.is16Bit ? 65535 : 255
        return frames((0 ..< count).map { t in
            var p = Painter(w, h, format)
            if opaqueBackground {
                // A gradient with some texture, as in a photograph.
                for y in 0 ..< h {
                    for x in 0 ..< w { p.set(x, y, [x * maxV / w, y * maxV / h, (x * 7919 ^ y * 104_729) % 23 * maxV / 64, maxV]) }
                }
            }
            let r = min(w, h) / 4, cx = r + t * (w - 2 * r) / max(count - 1, 1), cy = h / 2 + (t % 3) - 1
            for y in max(0, cy - r) ..< min(h, cy + r + 1) {
                for x in max(0, cx - r) ..< min(w, cx + r + 1) {
                    let d2 = (x - cx) * (x - cx) + (y - cy) * (y - cy)
                    guard d2 <= r * r else { continue }
                    let edge = softEdge && d2 > (r - 2) * (r - 2)
                    let a = edge && !opaqueBackground ? maxV / 3 + (d2 % 7) * maxV / 20 : maxV
                    p.set(x, y, [(x - cx + r) * maxV / (2 * r + 1), (y - cy + r) * 37 % (maxV + 1), maxV - (x - cx + r) * 11 % (maxV / 2), a])
                }
            }
            return p.image.converted(to: opaqueBackground ? format.withoutAlpha : format)
        })
    }

    /// Six colours cycling through stripes: palette-eligible, most pixels change every frame.
    static func colourCycling(count: Int) -> [APNGFrame] {
        let colours = [[255, 0, 0, 255], [0, 255, 0, 255], [0, 0, 255, 255], [255, 255, 0, 128], [0, 0, 0, 0], [9, 9, 9, 0]]
        return frames((0 ..< count).map { t in
            var p = Painter(24, 16, .rgba8)
            for y in 0 ..< 16 { for x in 0 ..< 24 { p.set(x, y, colours[(x / 4 + y / 4 + t) % colours.count]) } }
            return p.image
        })
    }

    /// Random rectangle edits on a running canvas: solid fills (alpha 0, partial or opaque, and
    /// transparent pixels with colour), noise, clears, and returns to an earlier frame.
    /// `colours` limits fills to a fixed set (palette-eligible), 0 for any colour.
    static func randomEdits(seed: UInt64, count: Int, w: Int = 29, h: Int = 19, colours: Int = 0,
                            format: PixelFormat = .rgba8) -> [APNGFrame] {
        var rng = SplitMix64(seed: seed)
        let maxV = format.is16Bit ? 65535 : 255
        let fixed: [[Int]] = (0 ..< max(colours, 1)).map { _ in
            [rng.below(256) * 257, rng.below(256) * 257, rng.below(256) * 257, [0, 255, 100, 255][rng.below(4)] * 257]
                .map { format.is16Bit ? $0 : $0 / 257 }
        }
        func colour() -> [Int] {
            if colours > 0 { return fixed[rng.below(colours)] }
            let a = [0, maxV, maxV / 2, maxV][rng.below(4)]
            return [rng.below(maxV + 1), rng.below(maxV + 1), rng.below(maxV + 1), a]
        }
        var p = Painter(w, h, format)
        p.fill(0, 0, w, h, colour())
        var images = [p.image]
        while images.count < count {
            switch rng.below(7) {
            case 0: p.image = images[rng.below(images.count)]  // back to an earlier frame
            case 1: p.fill(rng.below(w), rng.below(h), rng.below(w) + 1, rng.below(h) + 1, [0, 0, 0, 0])
            case 2 where colours == 0:
                let x0 = rng.below(w), y0 = rng.below(h), fw = rng.below(6) + 1, fh = rng.below(6) + 1
                for y in y0 ..< min(h, y0 + fh) { for x in x0 ..< min(w, x0 + fw) { p.set(x, y, colour()) } }
            case 3: break  // the same frame again
            default:
                for _ in 0 ..< rng.below(3) + 1 {
                    p.fill(rng.below(w) - 2, rng.below(h) - 2, rng.below(w / 2) + 1, rng.below(h / 2) + 1, colour())
                }
            }
            images.append(p.image)
        }
        return frames(images, ms: 10 + Int(seed % 90))
    }

    struct Case: CustomTestStringConvertible, Sendable {
        let name: String
        let make: @Sendable () -> [APNGFrame]
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(name: "sprite on transparent") { movingSprite(40, 24, count: 8) },
        Case(name: "sprite on opaque") { movingSprite(40, 24, count: 6, opaqueBackground: true) },
        Case(name: "sprite 16-bit") { movingSprite(33, 20, count: 5, format: .rgba16) },
        Case(name: "colour cycling") { colourCycling(count: 7) },
        Case(name: "static frames") { Array(repeating: movingSprite(20, 10, count: 1)[0], count: 4) },
        Case(name: "single frame") { movingSprite(13, 9, count: 1) },
        Case(name: "full-canvas noise") {
            var rng = SplitMix64(seed: 7)
            return frames((0 ..< 4).map { _ in
                Image(width: 17, height: 11, format: .rgba8, pixels: (0 ..< 17 * 11 * 4).map { _ in UInt8(truncatingIfNeeded: rng.next()) })
            })
        },
        Case(name: "gray opaque") {
            frames((0 ..< 5).map { t in
                var p = Painter(21, 13, .gray8)
                p.fill(t * 3, 2, 6, 6, [200])
                return p.image
            })
        },
        Case(name: "mixed formats") {
            let base = movingSprite(24, 12, count: 4)
            return [APNGFrame(image: base[0].image.converted(to: .rgb8), delayNumerator: 1, delayDenominator: 3),
                    APNGFrame(image: base[1].image, delayNumerator: 0, delayDenominator: 0),
                    APNGFrame(image: base[2].image.converted(to: .grayAlpha8), delayNumerator: 65535, delayDenominator: 1),
                    APNGFrame(image: base[3].image.converted(to: .rgba16), delayMilliseconds: 100)]
        },
        Case(name: "random edits, wide colours") { randomEdits(seed: 1, count: 12) },
        Case(name: "random edits, 5 colours") { randomEdits(seed: 2, count: 12, colours: 5) },
        Case(name: "random edits, 200 colours") { randomEdits(seed: 3, count: 16, w: 40, h: 30, colours: 200) },
        Case(name: "random edits, 16-bit") { randomEdits(seed: 4, count: 10, format: .rgba16) },
        Case(name: "random edits, 16-bit palette") { randomEdits(seed: 5, count: 10, colours: 9, format: .rgba16) },
    ]

    struct Variant: CustomTestStringConvertible, Sendable {
        let options: APNGEncodingOptions
        let testDescription: String
        static let all = [
            Variant(options: .init(), testDescription: "default"),
            Variant(options: .init(optimizeFrames: false), testDescription: "full frames"),
            Variant(options: .init(allowPalette: false), testDescription: "no palette"),
            Variant(options: .init(png: .init(compressionLevel: 1, filter: .paeth), plays: 3, allowPalette: false),
                    testDescription: "level 1, paeth, 3 plays"),
        ]
    }

    // MARK: Tests

    @Test(arguments: cases, Variant.all)
    func generatedAnimationsAreLossless(_ c: Case, _ variant: Variant) throws {
        let frames = c.make()
        let (_, p) = try Self.checkLossless(frames, variant.options)
        if !variant.options.optimizeFrames {
            #expect(p.controls.allSatisfy { $0.width == p.width && $0.height == p.height && $0.dispose == 0 && $0.blend == 0 })
        }
        if !variant.options.allowPalette { #expect(p.colorType != 3) }
    }

    /// More random animations, each checked through the reference decoder.
    @Test(arguments: 10 ..< 40)
    func randomAnimationsAreLossless(seed: UInt64) throws {
        let colours = [0, 3, 40, 300][Int(seed % 4)]
        let format: PixelFormat = seed % 5 == 0 ? .rgba16 : .rgba8
        try Self.checkLossless(Self.randomEdits(seed: seed, count: 14, w: 11 + Int(seed % 13), h: 7 + Int(seed % 5),
                                                colours: colours, format: format))
    }

    @Test func outputLayouts() throws {
        func header(_ frames: [APNGFrame], _ options: APNGEncodingOptions = .init()) throws -> (UInt8, UInt8, Parsed) {
            let p = try Self.checkLossless(frames, options).parsed
            return (p.colorType, p.bitDepth, p)
        }
        // 6 colours, one of them alpha 0: palette at 4 bits, tRNS only for the leading non-opaque entries.
        let (ct, depth, p) = try header(Self.colourCycling(count: 3))
        #expect(ct == 3 && depth == 4 && p.plte?.count == 18 && p.trns == [0, 0, 128])
        #expect(try header(Self.movingSprite(40, 24, count: 3), .init(allowPalette: false)).0 == 6)
        #expect(try header(Self.movingSprite(40, 24, count: 3, opaqueBackground: true)).0 == 2)
        #expect(try header(Self.cases[7].make()).0 == 3)  // two gray levels: a 1-bit palette
        // Gray and opaque, no palette: gray with a tRNS key (an unused level) for OVER.
        let gray = try header(Self.cases[7].make(), .init(allowPalette: false))
        #expect(gray.0 == 0 && gray.1 == 8 && gray.2.trns == [0, 1])
        #expect(try header(Self.cases[7].make(), .init(optimizeFrames: false, allowPalette: false)).2.trns == nil)
        let wide = try header(Self.movingSprite(33, 20, count: 3, format: .rgba16))
        #expect(wide.0 == 6 && wide.1 == 16)
        // Two opaque colours: depth 1, no room for a transparent "keep" entry, so no tRNS.
        var a = Painter(8, 8, .rgb8), b = a
        b.fill(2, 2, 3, 3, [255, 255, 255])
        let two = try header(Self.frames([a.image, b.image, a.image]))
        #expect(two.0 == 3 && two.1 == 1 && two.2.trns == nil)
        // Three opaque colours: depth 2 leaves room for transparent black (for OVER).
        b.fill(0, 0, 1, 1, [255, 0, 0])
        let three = try header(Self.frames([a.image, b.image, a.image]))
        #expect(three.0 == 3 && three.1 == 2 && three.2.trns == [0] && three.2.plte?.count == 12)
        // Forced layouts.
        #expect(try header(Self.movingSprite(20, 10, count: 3, opaqueBackground: true),
                           .init(png: .init(colorType: .rgba, bitDepth: 16))).0 == 6)
        #expect(try header(Self.colourCycling(count: 3), .init(png: .init(colorType: .palette, bitDepth: 8))).1 == 8)
    }

    @Test func identicalFramesAreOnePixel() throws {
        let frame = Self.movingSprite(20, 10, count: 1)[0]
        let p = try Self.checkLossless([frame, frame, frame]).parsed
        #expect(p.controls.dropFirst().allSatisfy { $0.width == 1 && $0.height == 1 })
    }

    @Test func spriteFramesShrinkAndDispose() throws {
        let frames = Self.movingSprite(120, 60, count: 10)
        let p = try Self.checkLossless(frames).parsed
        // Later frames cover the sprite's path, not the canvas; clearing the old sprite
        // (BACKGROUND) leaves less to draw than keeping it.
        #expect(p.controls.dropFirst().allSatisfy { $0.width * $0.height < 120 * 60 / 2 })
        #expect(p.controls.dropLast().contains { $0.dispose == 1 })
    }

    /// A popup shown for one frame over a busy background: PREVIOUS restores the background, so
    /// the frame after the popup is empty.
    static func popup() -> [APNGFrame] {
        var base = Painter(30, 20, .rgb8)
        for y in 0 ..< 20 { for x in 0 ..< 30 { base.set(x, y, [x * 8, y * 12, (x * y) % 256]) } }
        var popup = base
        popup.fill(5, 5, 10, 6, [255, 255, 255])
        return frames([base.image, base.image, popup.image, base.image])
    }

    @Test func previousDisposeForAPopup() throws {
        let p = try Self.checkLossless(Self.popup()).parsed
        #expect(p.controls[2].dispose == 2 && p.controls[2].width == 10 && p.controls[2].height == 6)
        #expect(p.controls[3].width == 1 && p.controls[3].height == 1)
    }

    /// A busy opaque picture where a grid of single pixels changes: OVER stores the others as
    /// transparent runs.
    static func checkerOver() -> [APNGFrame] {
        var a = Painter(64, 64, .rgba8)
        var rng = SplitMix64(seed: 9)
        for y in 0 ..< 64 { for x in 0 ..< 64 { a.set(x, y, [rng.below(256), rng.below(256), rng.below(256), 255]) } }
        var b = a
        for y in stride(from: 0, to: 64, by: 8) { for x in stride(from: 0, to: 64, by: 8) { b.set(x, y, [0, 0, 0, 255]) } }
        return frames([a.image, b.image])
    }

    @Test func overIsUsedWhenItHelps() throws {
        let p = try Self.checkLossless(Self.checkerOver(), .init(allowPalette: false)).parsed
        let (a, b) = (Self.checkerOver()[0].image, Self.checkerOver()[1].image)
        // Opaque: RGB, with an unused colour (1, 0, 0) as the tRNS key for OVER's kept pixels.
        #expect(p.colorType == 2 && p.trns == [0, 1, 0, 0, 0, 0])
        #expect(p.controls[1].blend == 1)
        let wide = try Self.checkLossless(Self.frames([a.converted(to: .rgb16), b.converted(to: .rgb16)])).parsed
        #expect(wide.colorType == 2 && wide.bitDepth == 16 && wide.trns == [0, 1, 0, 0, 0, 0] && wide.controls[1].blend == 1)
    }

    @Test func premultipliedInputIsUnpremultiplied() throws {
        var frames = Self.movingSprite(16, 12, count: 3)
        for k in frames.indices { frames[k].image = frames[k].image.premultiplied() }
        try Self.checkLossless(frames)
    }

    @Test func delays() throws {
        #expect(APNGFrame.fraction(milliseconds: 40) == (1, 25))
        #expect(APNGFrame.fraction(milliseconds: 1000) == (1, 1))
        #expect(APNGFrame.fraction(milliseconds: 0) == (0, 1))
        #expect(APNGFrame.fraction(milliseconds: 33) == (33, 1000))
        #expect(APNGFrame.fraction(milliseconds: 65535) == (13107, 200))
        #expect(APNGFrame.fraction(milliseconds: 70000) == (70, 1))
        let (n, d) = APNGFrame.fraction(milliseconds: 70001)
        #expect(n <= 65535 && abs(Double(n) / Double(d) - 70.001) < 0.002)
        #expect(APNGFrame.fraction(milliseconds: 100_000_000) == (65535, 1))
    }

    /// Frames compressed on other threads give the same bytes as on one.
    @Test(arguments: [2, 3, 8])
    func threadsGiveTheSameBytes(threads: Int) throws {
        for frames in [Self.randomEdits(seed: 5, count: 12), Self.movingSprite(64, 48, count: 10), Self.popup()] {
            let one = try APNGEncoder.encode(frames, options: .init(threads: 1))
            #expect(try APNGEncoder.encode(frames, options: .init(threads: threads)) == one)
            var pieces: [UInt8] = []
            try APNGEncoder.encode(frames, options: .init(threads: threads)) { pieces += $0 }
            #expect(pieces == one)
        }
    }

    @Test func streamingOutputMatches() throws {
        let frames = Self.randomEdits(seed: 77, count: 9)
        let whole = try APNGEncoder.encode(frames, options: .init(plays: 2))
        var pieces: [[UInt8]] = []
        try APNGEncoder.encode(frames, options: .init(plays: 2)) { pieces.append(Array($0)) }
        #expect(pieces.flatMap { $0 } == whole)
        #expect(pieces.count >= frames.count)  // handed out frame by frame
        // A lazily made sequence works (iterated twice).
        let lazy = (0 ..< 9).lazy.map { frames[$0] }
        #expect(try APNGEncoder.encode(lazy, options: .init(plays: 2)) == whole)
        struct Stop: Error {}
        #expect(throws: Stop.self) { try APNGEncoder.encode(frames) { _ in throw Stop() } }
    }

    @Test func refusals() throws {
        let sprite = Self.movingSprite(10, 8, count: 2)
        #expect(throws: PNGError.self) { try APNGEncoder.encode([APNGFrame]()) }
        let small = APNGFrame(image: Image(width: 4, height: 4, format: .rgba8), delayMilliseconds: 10)
        func isInvalid(_ body: () throws(PNGError) -> [UInt8]) -> Bool {
            do { _ = try body(); return false } catch { if case .invalidParameter = error { return true }; return false }
        }
        func isUnrepresentable(_ body: () throws(PNGError) -> [UInt8]) -> Bool {
            do { _ = try body(); return false } catch { if case .unrepresentable = error { return true }; return false }
        }
        #expect(isInvalid { () throws(PNGError) in try APNGEncoder.encode([APNGFrame]()) })
        #expect(isInvalid { () throws(PNGError) in try APNGEncoder.encode(sprite + [small]) })
        #expect(isInvalid { () throws(PNGError) in try APNGEncoder.encode(sprite, options: .init(png: .init(interlaced: true))) })
        #expect(isInvalid { () throws(PNGError) in try APNGEncoder.encode(sprite, options: .init(plays: -1)) })
        #expect(isInvalid { () throws(PNGError) in try APNGEncoder.encode(sprite, options: .init(png: .init(compressionLevel: 11))) })
        // A one-shot sequence gives nothing the second time.
        #expect(isInvalid { () throws(PNGError) in
            var it = sprite.makeIterator()
            return try APNGEncoder.encode(AnySequence { AnyIterator { it.next() } })
        })
        #expect(isUnrepresentable { () throws(PNGError) in
            try APNGEncoder.encode(Self.cases[6].make(), options: .init(png: .init(colorType: .palette)))
        })
        #expect(isUnrepresentable { () throws(PNGError) in
            try APNGEncoder.encode(sprite, options: .init(png: .init(colorType: .rgb)))
        })
        #expect(isUnrepresentable { () throws(PNGError) in
            try APNGEncoder.encode(sprite, options: .init(png: .init(colorType: .grayAlpha)))
        })
    }

    @Test func singleFrameIsAPlainPNGToo() throws {
        let frames = Self.movingSprite(13, 9, count: 1)
        let file = try Self.checkLossless(frames).file
        #expect(try PNGDecoder.decode(file).pixels == frames[0].image.pixels)
    }

    /// The first frame is the default image: a decoder without APNG support shows it.
    @Test func defaultImageIsFirstFrame() throws {
        let frames = Self.randomEdits(seed: 5, count: 6, colours: 0)
        let file = try APNGEncoder.encode(frames)
        #expect(try PNGDecoder.decode(file).converted(to: .rgba8).pixels == frames[0].image.pixels)
    }

    /// The decoder in this package (APNGAnimation) reads back every frame exactly.
    @Test(arguments: cases)
    func roundTripThroughAPNGAnimation(_ c: Case) throws {
        let frames = c.make()
        let file = try APNGEncoder.encode(frames)
        let animation = try APNGAnimation(bytes: file)
        #expect(animation.frameInfo.count == frames.count)
        let sixteen = try Self.parse(file).bitDepth == 16
        try animation.forEachFrame { k, canvas in
            let want = frames[k].image.converted(to: sixteen ? .rgba16 : .rgba8)
            #expect(canvas.converted(to: want.format).pixels == want.pixels, "frame \(k)")
        }
        let last = try animation.frame(at: frames.count - 1)
        #expect(last.converted(to: sixteen ? .rgba16 : .rgba8).pixels
                == frames[frames.count - 1].image.converted(to: sixteen ? .rgba16 : .rgba8).pixels)
    }

    /// Prints the sizes of a moving-sprite animation with and without frame optimisation.
    @Test(arguments: [false, true])
    func optimisationShrinksASpriteAnimation(opaqueBackground: Bool) throws {
        let frames = Self.movingSprite(200, 120, count: 24, opaqueBackground: opaqueBackground)
        let optimised = try APNGEncoder.encode(frames)
        let full = try APNGEncoder.encode(frames, options: .init(optimizeFrames: false))
        print("APNG moving sprite 200x120x24 on \(opaqueBackground ? "an opaque" : "a transparent") background: "
              + "optimized \(optimised.count) bytes, full frames \(full.count) bytes")
        #expect(optimised.count < full.count)
        if opaqueBackground { #expect(optimised.count * 2 < full.count) }
    }

    /// Writes sample animations and their expected frames (raw RGBA) for checking with Pillow
    /// and apngdis by hand: `APNG_ENCODER_OUT=/tmp/apng swift test --filter APNGEncoderTests`.
    @Test(.enabled(if: ProcessInfo.processInfo.environment["APNG_ENCODER_OUT"] != nil))
    func writeSamples() throws {
        let dir = ProcessInfo.processInfo.environment["APNG_ENCODER_OUT"]!
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let samples: [(String, [APNGFrame])] = [
            ("sprite", Self.movingSprite(120, 60, count: 10)),
            ("sprite_opaque", Self.movingSprite(80, 40, count: 6, opaqueBackground: true)),
            ("cycling", Self.colourCycling(count: 7)),
            ("edits", Self.randomEdits(seed: 1, count: 12)),
            ("edits_palette", Self.randomEdits(seed: 2, count: 12, colours: 5)),
            ("static", Array(repeating: Self.movingSprite(20, 10, count: 1)[0], count: 3)),
            ("popup", Self.popup()),
            ("checker_over", Self.checkerOver()),
            ("gray_key", Self.cases[7].make()),
        ]
        var options = APNGEncodingOptions()
        for (name, frames) in samples {
            options.allowPalette = name != "gray_key"
            try Data(try APNGEncoder.encode(frames, options: options)).write(to: URL(fileURLWithPath: "\(dir)/\(name).png"))
            for (k, f) in frames.enumerated() {
                try Data(f.image.converted(to: .rgba8).pixels).write(to: URL(fileURLWithPath: "\(dir)/\(name).\(k).rgba"))
            }
        }
    }
}
