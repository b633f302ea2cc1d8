import Foundation
import ImageCore
import Testing
@_spi(Testing) import PureGIF

@Suite("GIF vectors")
struct VectorTests {
    @Test func tableIsPresent() {
        #expect(ExpectedVector.all.count >= 90)
    }

    @Test("default options: frames, checksums, delays, loop count or the error", arguments: ExpectedVector.all)
    func defaultOptions(_ v: ExpectedVector) throws {
        let run = Harness.decode(try v.bytes())
        if let error = v.error {
            #expect(run.code == error, "\(v.name): \(String(describing: run.error))")
            return
        }
        #expect(run.frameCRCs.map(Harness.hex) == v.completeFrames.map { $0.crc ?? "" })
        #expect(run.frames.count == v.frames.count)
        for (info, f) in zip(run.frames, v.frames) {
            #expect(info.x == f.x && info.y == f.y && info.width == f.width && info.height == f.height)
            #expect(info.delayCentiseconds == f.delay)
            #expect(info.displayDelayMilliseconds == (f.delay <= 1 ? 100 : f.delay * 10))
            #expect(info.transparentIndex.map(Int.init) == f.transparent)
            #expect(info.interlaced == f.interlaced && info.hasLocalColorTable == f.local && info.userInputFlag == f.userInput)
            #expect(info.disposal == GIFDisposal(rawValue: UInt8(f.disposal)))
        }
        #expect(run.loopCount == v.loop)
        let cleanEnd = !v.truncated || (v.frames.allSatisfy { !$0.partial } && !v.frames.isEmpty)
        if cleanEnd {
            #expect(run.error == nil, "\(v.name): \(String(describing: run.error))")
            let first = try #require(run.finished)
            #expect(first.width == v.width && first.height == v.height && first.format == .rgba8)
            #expect(Harness.hex(CRC32.checksum(first.pixels)) == v.frames.first?.crc)
            #expect(run.events.last == .end || v.truncated)
        } else {
            #expect(run.code == "truncated")
            if case let .truncated(_, partial)? = run.error, let partial {
                #expect(partial.width == v.width && partial.height == v.height)
                // Cut inside the first frame: the partial image is that frame so far.
                if v.frames.count == 1, let crc = v.frames[0].crc { #expect(Harness.hex(CRC32.checksum(partial.pixels)) == crc) }
            }
        }
    }

    @Test("strict options: the error code of each leniency", arguments: ExpectedVector.all)
    func strictOptions(_ v: ExpectedVector) throws {
        let run = Harness.decode(try v.bytes(), options: .strict)
        #expect(run.code == v.strictError, "\(v.name): \(String(describing: run.error))")
        if v.strictError == nil {
            #expect(run.frameCRCs.map(Harness.hex) == v.frames.map { $0.crc ?? "" })
        }
    }

    @Test("the same frames and events whatever the chunking", arguments: ExpectedVector.all)
    func chunkingInvariance(_ v: ExpectedVector) throws {
        let bytes = try v.bytes()
        let whole = Harness.decode(bytes)
        for chunk in [1, 7, 13, 787, 4096] {
            var run = Harness.decode(bytes, chunk: chunk)
            // Offsets of a truncation are the same; the partial image may differ only where
            // the whole-file run decoded a row that a cut run had not (never: same bytes).
            #expect(run.summary == whole.summary, "\(v.name) in \(chunk)-byte pieces")
            run = Harness.decode(bytes, chunk: chunk, options: .strict)
            #expect(run.code == v.strictError, "\(v.name) strict in \(chunk)-byte pieces")
        }
    }

    @Test("GIFAnimation gives the same frames, lazily", arguments: ExpectedVector.all.filter { $0.error == nil })
    func animation(_ v: ExpectedVector) throws {
        let bytes = try v.bytes()
        let animation = try GIFAnimation(bytes: bytes)
        #expect(animation.width == v.width && animation.height == v.height)
        #expect(animation.frames.count == v.frames.count)
        #expect(animation.loopCount == v.loop)
        #expect(animation.metadata.texts.map(\.text) == v.comments)
        var crcs: [String] = []
        var iterator = animation.makeIterator()
        while let frame = iterator.next() { crcs.append(Harness.hex(CRC32.checksum(frame.pixels))) }
        #expect(crcs == v.completeFrames.map { $0.crc ?? "" })
        if v.frames.last?.partial == true {
            #expect(iterator.error?.code == "truncated")
            #expect(animation.truncatedAt != nil)
        } else {
            #expect(iterator.error == nil)
        }
        if let last = v.completeFrames.indices.last {
            let image = try animation.frame(at: last)
            #expect(Harness.hex(CRC32.checksum(image.pixels)) == v.completeFrames[last].crc)
        }
        #expect(throws: GIFError.frameIndexOutOfRange(index: v.frames.count, count: v.frames.count)) {
            try animation.frame(at: v.frames.count)
        }
    }

    @Test func defaultColorTableOption() throws {
        let v = try #require(ExpectedVector.all.first { $0.name == "lenient_default_table" })
        var options = GIFDecodingOptions()
        options.defaultColorTable = GIFDecodingOptions.grayColorTable
        let run = Harness.decode(try v.bytes(), options: options)
        #expect(run.error == nil)
        #expect(run.frameCRCs.map(Harness.hex) == [v.defaultTableCRC ?? ""])
    }

    @Test func comments() throws {
        let bytes = try TestVectors.bytes("gif/extensions_skipped.gif")
        var decoder = GIFDecoder()
        _ = try decoder.append(bytes)
        _ = try decoder.finish()
        #expect(decoder.metadata.texts == [TextEntry(keyword: "Comment", text: "made by make_vectors.py")])
    }
}
