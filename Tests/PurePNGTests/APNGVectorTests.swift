import Foundation
import ImageCore
@testable import PurePNG
import Testing

/// One file of `Vectors/apng/` and what `Vectors/apng/expected.json` (written by
/// `Vectors/apng/make_vectors.py` from its own reference compositor, cross-checked against
/// apngdis, ffmpeg and Pillow) says of it.
struct APNGVector: Sendable, CustomStringConvertible {
    struct Frame: Sendable {
        var x, y, width, height, delayNum, delayDen, dispose, blend: Int
        var crc: UInt32
    }

    var name: String
    var animated: Bool
    var numPlays: Int?
    var defaultIsFrame0: Bool
    var defaultCRC: UInt32
    var frames: [Frame]
    var strictError: String?
    var description: String { name }

    static let all: [APNGVector] = {
        guard let data = try? Data(contentsOf: TestVectors.url("apng/expected.json")),
              let object = try? JSONSerialization.jsonObject(with: data) as? [String: [String: Any]] else { return [] }
        func hex(_ value: Any?) -> UInt32 { (value as? String).flatMap { UInt32($0, radix: 16) } ?? 0 }
        return object.keys.sorted().compactMap { name in
            guard let entry = object[name] else { return nil }
            let frames = (entry["frames"] as? [[String: Any]] ?? []).map { f in
                Frame(x: f["x"] as? Int ?? 0, y: f["y"] as? Int ?? 0, width: f["width"] as? Int ?? 0,
                      height: f["height"] as? Int ?? 0, delayNum: f["delayNum"] as? Int ?? 0,
                      delayDen: f["delayDen"] as? Int ?? 0, dispose: f["dispose"] as? Int ?? 0,
                      blend: f["blend"] as? Int ?? 0, crc: hex(f["crc"]))
            }
            return APNGVector(name: name, animated: entry["animated"] as? Bool ?? false,
                              numPlays: entry["numPlays"] as? Int, defaultIsFrame0: entry["defaultIsFrame0"] as? Bool ?? false,
                              defaultCRC: hex(entry["defaultCRC"]), frames: frames,
                              strictError: entry["strictError"] as? String)
        }
    }()

    var bytes: [UInt8] { (try? TestVectors.bytes("apng/\(name).png")) ?? [] }
}

/// The canvas's CRC at each `.frameComplete` (the decoder pausing after each frame), the events
/// other than rows, and the finished image, feeding `pieces`-byte pieces.
func apngFrames(_ bytes: [UInt8], pieces: Int, options: PNGDecodingOptions = .init()) throws -> ([UInt32], [DecodingEvent], Image) {
    var decoder = APNGDecoder(options: options)
    decoder.pausesAfterEachFrame = true
    var crcs: [UInt32] = []
    var events: [DecodingEvent] = []
    func note(_ got: [DecodingEvent]) {
        for case .frameComplete in got { crcs.append(decoder.preview()?.rgba16Checksum ?? 0) }
        events += got.filter { if case .rows = $0 { false } else { true } }
    }
    var offset = 0
    while offset < bytes.count {
        let end = min(bytes.count, offset + pieces)
        note(try decoder.append(bytes[offset ..< end]))
        while decoder.isPaused { note(try decoder.resume()) }
        offset = end
    }
    return (crcs, events, try decoder.finish())
}

/// Vectors whose frame data is damaged: the structure is sound, so `APNGAnimation` lists the
/// frames and throws `.apngFrameData` when the damaged frame is decoded; the incremental decoder
/// falls back to the static image.
func damagedFrameData(_ vector: APNGVector) -> Bool {
    vector.name == "broken_fdat_short_image" || vector.name == "broken_fdat_truncated"
}

@Suite("APNG vectors")
struct APNGVectorTests {
    @Test("the vectors are there") func present() {
        #expect(APNGVector.all.count >= 60)
        #expect(APNGVector.all.filter(\.animated).count >= 40)
        #expect(APNGVector.all.filter { $0.strictError != nil }.count >= 15)
    }

    @Test("static image, structure and every composited frame exact", arguments: APNGVector.all)
    func exact(vector: APNGVector) throws {
        let bytes = vector.bytes
        let still = try PNGDecoder.decode(bytes)
        #expect(still.rgba16Checksum == vector.defaultCRC)
        let animation = try APNGAnimation(bytes: bytes)
        if damagedFrameData(vector) {
            #expect(animation.isAnimated)
            for threads in [1, 2] {
                let walked = try APNGAnimation(bytes: bytes, options: PNGDecodingOptions(threads: threads))
                #expect { try walked.forEachFrame { _, _ in } } throws: { ($0 as? PNGError)?.code == "apngFrameData" }
            }
            return
        }
        #expect(animation.isAnimated == vector.animated)
        guard vector.animated else {
            // A still PNG or a broken animation: one frame, the static image.
            #expect(animation.frameInfo.count == 1)
            #expect(try animation.frame(at: 0).rgba16Checksum == vector.defaultCRC)
            #expect((animation.fallback != nil) == (vector.strictError != nil))
            return
        }
        #expect(animation.control?.plays == vector.numPlays)
        #expect(animation.frames.count == vector.frames.count)
        for (control, expected) in zip(animation.frames, vector.frames) {
            #expect(control.x == expected.x && control.y == expected.y && control.width == expected.width
                    && control.height == expected.height && Int(control.delayNumerator) == expected.delayNum
                    && Int(control.delayDenominator) == expected.delayDen)
            #expect([FrameDisposal.none, .background, .previous][expected.dispose] == control.dispose)
            #expect([FrameBlend.source, .over][expected.blend] == control.blend)
        }
        // Frames decoded when asked for (one thread) and decoded ahead on other threads.
        for threads in [1, 2, 3, 8] {
            let walked = try APNGAnimation(bytes: bytes, options: PNGDecodingOptions(threads: threads))
            var crcs: [UInt32] = []
            try walked.forEachFrame { _, canvas in crcs.append(canvas.rgba16Checksum) }
            #expect(crcs == vector.frames.map(\.crc), "\(threads) threads")
        }
        if let last = vector.frames.indices.last {
            #expect(try animation.frame(at: last).rgba16Checksum == vector.frames[last].crc)
        }
    }

    @Test("the incremental decoder gives the same frames whole, byte by byte and in pieces", arguments: APNGVector.all)
    func chunked(vector: APNGVector) throws {
        let bytes = vector.bytes
        let (whole, wholeEvents, wholeImage) = try apngFrames(bytes, pieces: bytes.count)
        if vector.animated { #expect(whole == vector.frames.map(\.crc)) }
        #expect(wholeImage.rgba16Checksum == vector.defaultCRC)
        for size in [1, 7, 4096] {
            let (frames, events, image) = try apngFrames(bytes, pieces: size)
            #expect(frames == whole, "pieces of \(size)")
            #expect(events == wholeEvents, "pieces of \(size)")
            #expect(image == wholeImage, "pieces of \(size)")
        }
        let started = wholeEvents.filter { if case .frameStarted = $0 { true } else { false } }.count
        let completed = wholeEvents.filter { if case .frameComplete = $0 { true } else { false } }.count
        if vector.strictError == nil {
            #expect(started == (vector.animated ? vector.frames.count : 1) && completed == started)
        } else {
            // The frames before the broken rule stand; then the static image is the result.
            #expect(started >= 1)
        }
    }

    @Test("a broken animation is its static image with a warning, and its error when strict",
          arguments: APNGVector.all.filter { $0.strictError != nil })
    func fallback(vector: APNGVector) throws {
        let bytes = vector.bytes
        let (_, events, image) = try apngFrames(bytes, pieces: bytes.count)
        #expect(events.contains { if case .warning = $0 { true } else { false } })
        #expect(image.rgba16Checksum == vector.defaultCRC)
        let strict = PNGDecodingOptions(strict: true)
        #expect { try apngFrames(bytes, pieces: 97, options: strict) } throws: { ($0 as? PNGError)?.code == vector.strictError }
        guard !damagedFrameData(vector) else { return }
        // Without decoding frames, the structural rules alone.
        #expect { try PNGDecoder.decode(bytes, options: strict) } throws: { ($0 as? PNGError)?.code == vector.strictError }
        #expect { try APNGAnimation(bytes: bytes, options: strict) } throws: { ($0 as? PNGError)?.code == vector.strictError }
    }
}
