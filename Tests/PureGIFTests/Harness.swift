import Foundation
import ImageCore
@_spi(Testing) import PureGIF

/// One decoding run: every event, the canvas CRC after each completed frame, the error if any.
struct DecodeRun: Equatable {
    var events: [DecodingEvent] = []
    var frameCRCs: [UInt32] = []
    var frames: [GIFFrameInfo] = []
    var loopCount: Int?
    var error: GIFError?
    var finished: Image?
    /// CRC of the finished image, or of a truncation's partial image.
    var imageCRC: UInt32?

    /// The run in a few words, for comparisons whose failure messages stay readable.
    /// A failing `append` throws instead of returning its events, so where the input was cut
    /// decides how many events came before a decoding error: only the error is compared then.
    var summary: String {
        if let error, error.code != "truncated" { return "error \(error.code) at \(error.offset ?? -1)" }
        return "events \(events)\ncrcs \(frameCRCs.map(Harness.hex)) loop \(String(describing: loopCount)) error \(code ?? "-") at \(error?.offset ?? -1) image \(imageCRC.map(Harness.hex) ?? "-")"
    }

    /// The error code, or nil.
    var code: String? { error?.code }
}

enum Harness {
    /// Decodes `bytes` fed in pieces of `chunk` bytes (nil: all at once), then finishes.
    static func decode(_ bytes: [UInt8], chunk: Int? = nil, options: GIFDecodingOptions = .init(),
                       limits: DecodingLimits = .default) -> DecodeRun {
        var decoder = GIFDecoder(limits: limits, options: options)
        decoder.pausesAfterEachFrame = true
        var run = DecodeRun()
        let size = max(1, chunk ?? max(bytes.count, 1))
        var start = 0
        do {
            repeat {
                let end = min(bytes.count, start + size)
                var events = try decoder.append(bytes[start ..< end])
                while !events.isEmpty {
                    for event in events {
                        append(event, to: &run.events)
                        if case .frameComplete = event, let canvas = decoder.currentCanvas {
                            run.frameCRCs.append(CRC32.checksum(canvas.pixels))
                        }
                    }
                    events = try decoder.resume()
                }
                start = end
            } while start < bytes.count
            run.finished = try decoder.finish()
        } catch {
            run.error = error
            if case let .truncated(_, partial?) = error { run.imageCRC = CRC32.checksum(partial.pixels) }
        }
        if let finished = run.finished { run.imageCRC = CRC32.checksum(finished.pixels) }
        run.frames = decoder.frames
        run.loopCount = decoder.loopCount
        return run
    }

    /// Adds `event`, merging a `.rows` range into an adjacent previous one (the split of rows
    /// into events depends on where the input was cut; the rows reported do not).
    static func append(_ event: DecodingEvent, to events: inout [DecodingEvent]) {
        if case let .rows(r) = event, case let .rows(last)? = events.last, last.upperBound == r.lowerBound {
            events[events.count - 1] = .rows(last.lowerBound ..< r.upperBound)
        } else {
            events.append(event)
        }
    }

    static func hex(_ v: UInt32) -> String {
        let s = String(v, radix: 16)
        return String(repeating: "0", count: 8 - s.count) + s
    }
}

/// The table `Vectors/gif/make_vectors.py` writes.
struct ExpectedVector: Sendable, CustomStringConvertible {
    struct Frame: Sendable {
        var x, y, width, height, delay, disposal: Int
        var transparent: Int?
        var interlaced, local, userInput: Bool
        var crc: String?
        var partial: Bool
    }
    var name: String
    var error: String?
    var strictError: String?
    var width = 0, height = 0
    var loop: Int?
    var truncated = false
    var frames: [Frame] = []
    var comments: [String] = []
    var defaultTableCRC: String?

    var description: String { name }

    static let all: [ExpectedVector] = {
        guard let data = try? Data(contentsOf: TestVectors.url("gif/expected.json")),
              let table = (try? JSONSerialization.jsonObject(with: data)) as? [String: [String: Any]] else { return [] }
        return table.keys.sorted().compactMap { name in
            guard let e = table[name] else { return nil }
            var v = ExpectedVector(name: name)
            v.error = e["error"] as? String
            v.strictError = e["strictError"] as? String
            v.width = e["width"] as? Int ?? 0
            v.height = e["height"] as? Int ?? 0
            v.loop = e["loop"] as? Int
            v.truncated = e["truncated"] as? Bool ?? false
            v.comments = e["comments"] as? [String] ?? []
            v.defaultTableCRC = e["defaultTableCRC"] as? String
            for f in e["frames"] as? [[String: Any]] ?? [] {
                v.frames.append(Frame(x: f["x"] as? Int ?? 0, y: f["y"] as? Int ?? 0, width: f["width"] as? Int ?? 0,
                                      height: f["height"] as? Int ?? 0, delay: f["delay"] as? Int ?? 0,
                                      disposal: f["disposal"] as? Int ?? 0, transparent: f["transparent"] as? Int,
                                      interlaced: f["interlaced"] as? Bool ?? false, local: f["local"] as? Bool ?? false,
                                      userInput: f["userInput"] as? Bool ?? false, crc: f["crc"] as? String,
                                      partial: f["partial"] as? Bool ?? false))
            }
            return v
        }
    }()

    func bytes() throws -> [UInt8] { try TestVectors.bytes("gif/\(name).gif") }

    /// Frames whose block terminator is in the file.
    var completeFrames: [Frame] { frames.filter { !$0.partial } }
}
