import Foundation
import ImageCore
import Testing
@_spi(Testing) import PureGIF

/// A small GIF built in the test: `frames` of `width` x `height` at the origin, literal-only LZW.
enum TinyGIF {
    static func make(canvasWidth: Int, canvasHeight: Int, frames: [(x: Int, y: Int, w: Int, h: Int)],
                     trailer: Bool = true) -> [UInt8] {
        var out = Array("GIF89a".utf8)
        out += [UInt8(canvasWidth & 255), UInt8(canvasWidth >> 8), UInt8(canvasHeight & 255), UInt8(canvasHeight >> 8), 0x80, 0, 0]
        out += [0, 0, 0, 255, 255, 255]   // two-entry global table
        for f in frames {
            out += [0x2C, UInt8(f.x & 255), UInt8(f.x >> 8), UInt8(f.y & 255), UInt8(f.y >> 8),
                    UInt8(f.w & 255), UInt8(f.w >> 8), UInt8(f.h & 255), UInt8(f.h >> 8), 0]
            // Min code size 2: clear, one white pixel, end (the rest of a larger frame is missing).
            let data = LZWTests.pack([(4, 3), (1, 3), (5, 3)])
            out += [2, UInt8(data.count)] + data + [0]
        }
        if trailer { out.append(0x3B) }
        return out
    }
}

@Suite("GIF incremental decoding and limits")
struct IncrementalTests {
    @Test func hugeCanvasFailsAtTheHeader() {
        let bytes = TinyGIF.make(canvasWidth: 65535, canvasHeight: 65535, frames: [(0, 0, 1, 1)])
        var decoder = GIFDecoder()
        #expect(throws: GIFError.limitExceeded(.pixels(requested: 65535 * 65535, limit: DecodingLimits.default.maxPixels), offset: 6)) {
            _ = try decoder.append(bytes.prefix(13))
        }
        // Sticky: every later call throws the same error.
        #expect(throws: GIFError.self) { _ = try decoder.append([0x3B]) }
        #expect(throws: GIFError.limitExceeded(.pixels(requested: 65535 * 65535, limit: DecodingLimits.default.maxPixels), offset: 6)) {
            _ = try decoder.finish()
        }
    }

    @Test func largeCanvasWithinLimitsDecodes() throws {
        let bytes = TinyGIF.make(canvasWidth: 3000, canvasHeight: 2000, frames: [(10, 10, 1, 1)])
        var decoder = GIFDecoder()
        _ = try decoder.append(bytes)
        let image = try decoder.finish()
        #expect(image.width == 3000 && image.height == 2000)
        #expect(image.pixels[(10 * 3000 + 10) * 4 ..< (10 * 3000 + 11) * 4] == [255, 255, 255, 255])
        #expect(image.pixels[0 ..< 4] == [0, 0, 0, 0])
    }

    @Test func hugeFrameInSmallCanvasIsCheckedBeforeAllocation() {
        let bytes = TinyGIF.make(canvasWidth: 10, canvasHeight: 10, frames: [(0, 0, 65535, 65535)])
        let run = Harness.decode(bytes)
        #expect(run.code == "limitExceeded")
        #expect(throws: GIFError.self) { try GIFAnimation(bytes: bytes) }
        // With room for it, the tiny stream just leaves most of the frame undrawn.
        var limits = DecodingLimits()
        limits.maxPixels = 10_000
        let small = TinyGIF.make(canvasWidth: 10, canvasHeight: 10, frames: [(0, 0, 90, 90)])
        #expect(Harness.decode(small, limits: limits).error == nil)
        #expect(Harness.decode(TinyGIF.make(canvasWidth: 10, canvasHeight: 10, frames: [(0, 0, 200, 200)]), limits: limits).code == "limitExceeded")
    }

    @Test func pixelLimitOnTheCanvas() {
        var limits = DecodingLimits()
        limits.maxPixels = 1_000_000
        let bytes = TinyGIF.make(canvasWidth: 2000, canvasHeight: 2000, frames: [(0, 0, 1, 1)])
        let run = Harness.decode(bytes, limits: limits)
        #expect(run.error == .limitExceeded(.pixels(requested: 4_000_000, limit: 1_000_000), offset: 6))
    }

    @Test func frameCountLimit() throws {
        let bytes = TinyGIF.make(canvasWidth: 4, canvasHeight: 4, frames: Array(repeating: (0, 0, 1, 1), count: 5))
        var limits = DecodingLimits()
        limits.maxFrames = 3
        let run = Harness.decode(bytes, limits: limits)
        #expect(run.code == "limitExceeded")
        if case let .limitExceeded(violation, _)? = run.error { #expect(violation == .frames(limit: 3)) }
        #expect(Harness.decode(bytes).frameCRCs.count == 5)
        #expect(throws: GIFError.self) { try GIFAnimation(bytes: bytes, limits: limits) }
    }

    @Test func eventsOfAnAnimation() throws {
        let bytes = try TestVectors.bytes("gif/disposal_keep.gif")
        let run = Harness.decode(bytes)
        var expected: [DecodingEvent] = []
        expected.append(.header(ImageHeader(fileFormat: .gif, width: 24, height: 20, pixelFormat: .rgba8, frameCount: 0)))
        for i in 0 ..< 4 {
            // Frame i covers rows i ..< i + 10 of the canvas.
            expected += [.frameStarted(i), .rows(i ..< i + 10), .frameComplete(i)]
        }
        expected.append(.end)
        #expect(run.events == expected)
    }

    @Test func interlacedPreviewReplicatesRows() throws {
        let bytes = try TestVectors.bytes("gif/interlace_h64.gif")
        var decoder = GIFDecoder()
        var passes: [Int] = []
        var checked = false
        for byte in bytes {
            let events = try decoder.append([byte])
            for case let .passComplete(k) in events { passes.append(k) }
            if passes == [0], !checked, let preview = decoder.preview() {
                // Only every 8th row is decoded: each block of 8 rows shows its first row.
                let w = preview.width * 4
                for row in 0 ..< 64 {
                    #expect(preview.pixels[row * w ..< (row + 1) * w] == preview.pixels[(row & ~7) * w ..< ((row & ~7) + 1) * w])
                }
                checked = true
            }
            #expect(events.allSatisfy { if case .rows = $0 { false } else { true } })
        }
        #expect(checked)
        #expect(passes == [0, 1, 2, 3])
        let image = try decoder.finish()
        #expect(decoder.preview() == image)
    }

    @Test func rowsArriveAsTheyAreDecoded() throws {
        let bytes = try TestVectors.bytes("gif/odd_97x61.gif")
        var decoder = GIFDecoder()
        var rows = 0
        var sawPartialPreview = false
        for start in stride(from: 0, to: bytes.count, by: 200) {
            for case let .rows(r) in try decoder.append(bytes[start ..< min(bytes.count, start + 200)]) {
                #expect(r.lowerBound == rows)
                rows = r.upperBound
                if rows < 61 { sawPartialPreview = decoder.preview() != nil }
            }
        }
        #expect(rows == 61 && sawPartialPreview)
        _ = try decoder.finish()
    }

    @Test func truncatedAnimationKeepsCompleteFramesAndThePartialOne() throws {
        let bytes = try TestVectors.bytes("gif/truncated_anim_mid_frame2.gif")
        var decoder = GIFDecoder()
        decoder.pausesAfterEachFrame = true
        var events = try decoder.append(bytes)
        while !events.isEmpty { events = try decoder.resume() }
        #expect(decoder.completedFrameCount == 2)
        #expect(decoder.frames.count == 3)
        let canvasAfterFrame1 = try #require(decoder.currentCanvas)
        let preview = try #require(decoder.preview())
        #expect(preview != canvasAfterFrame1)   // part of frame 2 is drawn
        do {
            _ = try decoder.finish()
            Issue.record("finish should throw")
        } catch {
            guard case let .truncated(offset, partial) = error else { Issue.record("\(error)"); return }
            #expect(offset == bytes.count)
            // The partial image is the first frame (complete), the image finish() would have returned.
            let animation = try GIFAnimation(bytes: bytes)
            #expect(partial == (try animation.frame(at: 0)))
            #expect(animation.truncatedAt == bytes.count)
            #expect(throws: GIFError.self) { try animation.frame(at: 2) }
        }
    }

    @Test func currentCanvasBetweenFrames() throws {
        let bytes = try TestVectors.bytes("gif/disposal_previous.gif")
        let animation = try GIFAnimation(bytes: bytes)
        var decoder = GIFDecoder()
        decoder.pausesAfterEachFrame = true
        var events = try decoder.append(bytes)
        var index = 0
        while !events.isEmpty {
            if events.contains(.frameComplete(index)) {
                #expect(decoder.currentCanvas == (try animation.frame(at: index)))
                index += 1
            }
            events = try decoder.resume()
        }
        #expect(index == 4)
        #expect(decoder.header?.frameCount == 4)
    }

    @Test func playCounts() {
        #expect(GIFLoop.playCount(loopCount: nil) == 1)
        #expect(GIFLoop.playCount(loopCount: 0) == nil)
        #expect(GIFLoop.playCount(loopCount: 3) == 4)
        #expect(GIFFrameInfo.displayDelay(centiseconds: 0) == 100)
        #expect(GIFFrameInfo.displayDelay(centiseconds: 1) == 100)
        #expect(GIFFrameInfo.displayDelay(centiseconds: 2) == 20)
    }

    @Test func disposalValues() {
        #expect(GIFDisposal(rawValue: 4) == .restorePrevious)
        #expect(GIFDisposal(rawValue: 7) == .reserved(7))
    }

    @Test func interlaceMap() {
        for h in 1 ... 40 {
            let map = InterlaceMap(height: h)
            let rows = (0 ..< h).map { map.row(ordinal: $0) }
            #expect(Set(rows) == Set(0 ..< h))
            for r in 0 ..< h { #expect(map.row(ordinal: map.ordinal(row: r)) == r) }
            #expect(map.passEnds[3] == h)
        }
    }

    @Test func metadataLimitDropsLongComments() throws {
        var bytes = Array("GIF89a".utf8) + [1, 0, 1, 0, 0x80, 0, 0, 0, 0, 0, 255, 255, 255]
        bytes += [0x21, 0xFE, 5] + Array("hello".utf8) + [0]
        let data = LZWTests.pack([(4, 3), (1, 3), (5, 3)])
        bytes += [0x2C, 0, 0, 0, 0, 1, 0, 1, 0, 0, 2, UInt8(data.count)] + data + [0, 0x3B]
        var limits = DecodingLimits()
        limits.maxMetadataBytes = 3
        var decoder = GIFDecoder(limits: limits)
        _ = try decoder.append(bytes)
        _ = try decoder.finish()
        #expect(decoder.metadata.texts.isEmpty)
        var unlimited = GIFDecoder()
        _ = try unlimited.append(bytes)
        #expect(try unlimited.finish().metadata.texts.map(\.text) == ["hello"])
    }

    /// `decodesFirstFrameOnly` (what `ImageSource` asks for): a later frame's image data is
    /// parsed, not decoded, so an undefined LZW code there (an error when every frame is
    /// decoded) passes; the frame list and the first frame are the same.
    @Test func firstFrameOnlySkipsLaterImageData() throws {
        var bytes = TinyGIF.make(canvasWidth: 2, canvasHeight: 2, frames: [(0, 0, 1, 1)], trailer: false)
        let bad = LZWTests.pack([(4, 3), (7, 3), (5, 3)])   // 7: not yet in the table after a clear
        bytes += [0x2C, 1, 0, 1, 0, 1, 0, 1, 0, 0, 2, UInt8(bad.count)] + bad + [0, 0x3B]
        #expect(throws: GIFError.self) {
            var decoder = GIFDecoder()
            _ = try decoder.append(bytes)
            _ = try decoder.finish()
        }
        var decoder = GIFDecoder()
        decoder.decodesFirstFrameOnly = true
        let events = try decoder.append(bytes)
        let image = try decoder.finish()
        #expect(decoder.frames.count == 2)
        #expect(events.contains(.frameComplete(1)))
        let first = TinyGIF.make(canvasWidth: 2, canvasHeight: 2, frames: [(0, 0, 1, 1)])
        var single = GIFDecoder()
        _ = try single.append(first)
        #expect(image.pixels == (try single.finish()).pixels)
    }
}
