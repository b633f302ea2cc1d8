import Foundation
import TestSupport
import ImageCore
import Testing
@testable import PureJPEG

/// One row of a manifest of djpeg references (Vectors/jpeg-progressive-scaled,
/// Vectors/jpeg-smoothing): a file, and djpeg's decode of it at `scale`/8.
struct ScaledReference: Sendable, CustomStringConvertible {
    var file: String
    var scale: Int
    var expected: String
    var description: String { "\(file) at \(scale)/8" }

    /// The rows after the header line of `folder`/manifest.tsv: file, scale (eighths), expected
    /// output (in `folder`), and anything after (ignored).
    static func load(_ folder: String) -> [ScaledReference] {
        guard let text = try? String(contentsOf: TestVectors.url(folder + "/manifest.tsv"), encoding: .utf8) else { return [] }
        return text.split(separator: "\n").dropFirst().compactMap { line in
            let f = line.split(separator: "\t").map(String.init)
            guard f.count >= 3, let scale = Int(f[1]) else { return nil }
            return ScaledReference(file: f[0], scale: scale, expected: folder + "/" + f[2])
        }
    }

    /// Every progressive vector (gray or three components) at 1/2, 1/4 and 1/8; `file` is
    /// relative to Vectors/.
    static let progressive = load("jpeg-progressive-scaled")
}

/// Progressive files decoded at 1/8 and 1/4 keep only what the scaled IDCT reads
/// (``CompactBlock``): the DC term (AC scans skipped unread), or 25 values and a history map.
/// The pixels are djpeg's whatever the chunking, in row mode and through a spilled store.
@Suite("JPEG compact coefficient stores")
struct CompactStoreTests {
    @Test("the scaled progressive manifest is present")
    func present() { #expect(ScaledReference.progressive.count >= 120) }

    @Test("djpeg's pixels: whole, in pieces, in row mode and spilled", arguments: ScaledReference.progressive)
    func exact(_ vector: ScaledReference) throws {
        let bytes = try TestVectors.bytes(vector.file)
        let reference = try #require(readPNM(try TestVectors.bytes(vector.expected)))
        var options = JPEGDecodingOptions(scale: vector.scale)
        for size in [nil, bytes.count < 4000 ? 1 : 7, 4096] as [Int?] {
            let (_, result) = decodeInPieces(bytes, size: size, options: options)
            let image = try result.get()
            #expect(image.width == reference.width && image.height == reference.height)
            #expect(image.pixels == reference.pixels, "pieces of \(size ?? bytes.count)")
        }
        #expect(decodeRows(bytes, size: 7, options: options).pixels == reference.pixels, "row mode")
        let dir = try Scratch.folder("compact")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        options.spillAbove = 0
        options.spillDirectory = dir
        #expect(decodeRows(bytes, size: 4096, options: options).pixels == reference.pixels, "spilled")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir).isEmpty)
    }

    @Test("the store holds per block what the component's scaled IDCT reads",
          arguments: [(1, false, [5, 29, 29]), (1, true, [1, 29, 29]), (2, false, [29, 64, 64]), (4, false, [64, 64, 64]),
                      (8, false, [64, 64, 64])])
    func storeSizes(scale: Int, dcFit: Bool, perBlock: [Int]) throws {
        // 4:2:0: at 1/8 luma is 1x1 (its AC scans passed over with dcScaleToFit) and chroma 2x2;
        // at 1/4 luma 2x2 and chroma 4x4.
        let bytes = try TestVectors.bytes("jpeg/valid/progressive_420.jpg")
        var options = JPEGDecodingOptions(scale: scale)
        if dcFit { options.dcScaleToFit = 1 }
        var decoder = JPEGDecoder(options: options)
        _ = try decoder.append(bytes)
        let frame = try #require(decoder.frame)
        #expect(frame.components.map(\.valuesPerBlock) == perBlock)
        #expect(decoder.coefficientState.store.counts == frame.components.map { $0.paddedBlocksWide * $0.paddedBlocksHigh * $0.valuesPerBlock })
    }

    /// The undamaged progressive vectors (the damaged ones are only checked for chunking).
    static let whole = ScaledReference.progressive.filter { $0.scale == 1 && !$0.file.hasPrefix("jpeg-damaged/") && !$0.file.hasPrefix("regressions/") }

    @Test("dcScaleToFit passes over AC scans of 1x1 components, with scale 1's pixels, in any pieces", arguments: whole)
    func passedOver(_ vector: ScaledReference) throws {
        let bytes = try TestVectors.bytes(vector.file)
        let reference = try #require(readPNM(try TestVectors.bytes(vector.expected)))
        var options = JPEGDecodingOptions()
        options.dcScaleToFit = 1
        var decoder = JPEGDecoder(options: options)
        let events = try decoder.append(bytes)
        let image = try decoder.finish()
        #expect(image.pixels == reference.pixels)
        let full = decodeInPieces(bytes, size: nil).events.filter { if case .scanComplete = $0 { true } else { false } }
        #expect(events.filter { if case .scanComplete = $0 { true } else { false } }.count == full.count, "every scan reported")
        if decoder.frame?.components.count == 1 { #expect(decoder.coefficientState.scansPassedOver > 0) }
        for size in [1, 7] {
            #expect(try decodeInPieces(bytes, size: size, options: options).result.get().pixels == reference.pixels)
        }
        #expect(decodeRows(bytes, size: 7, options: options).pixels == reference.pixels, "row mode")
        // Strict decoding reads every scan.
        options.strict = true
        var strict = JPEGDecoder(options: options)
        _ = try strict.append(bytes)
        #expect(try strict.finish().pixels == reference.pixels)
        #expect(strict.coefficientState.scansPassedOver == 0)
    }

    @Test("damaged files passed over give the same pixels whole and in pieces",
          arguments: ScaledReference.progressive.filter { $0.scale == 1 && $0.file.hasPrefix("jpeg-damaged/") })
    func damagedPassedOver(_ vector: ScaledReference) throws {
        let bytes = try TestVectors.bytes(vector.file)
        var options = JPEGDecodingOptions()
        options.dcScaleToFit = 1
        let whole = decodeInPieces(bytes, size: nil, options: options).result
        for size in [1, 7, 4096] {
            let pieces = decodeInPieces(bytes, size: size, options: options).result
            switch (whole, pieces) {
            case let (.success(a), .success(b)): #expect(a.pixels == b.pixels, "pieces of \(size)")
            case (.failure, .failure): break
            default: Issue.record("whole and \(size)-byte pieces disagree: \(whole) \(pieces)")
            }
        }
    }

    @Test("compress then expand: the kept values, and a nonzero stand-in wherever a value was nonzero",
          arguments: [29, 5])
    func roundTrip(valuesPerBlock n: Int) {
        var state: UInt64 = 42
        let block = UnsafeMutablePointer<Int16>.allocate(capacity: 64)
        let back = UnsafeMutablePointer<Int16>.allocate(capacity: 64)
        let stored = UnsafeMutablePointer<Int16>.allocate(capacity: n)
        defer { block.deallocate(); back.deallocate(); stored.deallocate() }
        #expect(CompactBlock.valuesPerBlock(idctSize: 1, dcOnly: true) == 1 && CompactBlock.valuesPerBlock(idctSize: 4, dcOnly: false) == 64)
        #expect(CompactBlock.kept.count == 25 && Set(CompactBlock.kept).count == 25)
        let kept = n == 29 ? Set(CompactBlock.kept) : [0]
        for _ in 0 ..< 200 {
            for k in 0 ..< 64 {
                state = state &* 6364136223846793005 &+ 1442695040888963407
                // About a third nonzero, of either sign, some large.
                block[k] = state >> 58 < 42 ? 0 : Int16(truncatingIfNeeded: Int(state >> 20 & 0x7FF) - 1024)
            }
            CompactBlock.compress(block, valuesPerBlock: n, into: stored)
            back.initialize(repeating: 0, count: 64)
            CompactBlock.expand(stored, valuesPerBlock: n, into: back, history: true)
            for k in 0 ..< 64 {
                if kept.contains(k) {
                    #expect(back[k] == block[k], "kept position \(k)")
                } else {
                    #expect((back[k] != 0) == (block[k] != 0), "history at \(k)")
                }
            }
            back.initialize(repeating: 0, count: 64)
            CompactBlock.expand(stored, valuesPerBlock: n, into: back, history: false)
            for k in 0 ..< 64 where !kept.contains(k) { #expect(back[k] == 0) }
        }
    }
}
