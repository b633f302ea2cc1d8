import Foundation
import ImageCore
import Testing
@testable import PureJPEG

/// The preview cache redoes only what the scans since the last render changed; these tests hold
/// every such render to a full render of the same coefficients.
@Suite("JPEG preview cache")
struct PreviewCacheTests {
    /// Every valid vector the decoder keeps as coefficients (progressive and multi-scan).
    static let files: [String] = {
        let dir = TestVectors.url("jpeg/valid")
        let names = (try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? []
        return names.filter { $0.hasSuffix(".jpg") }.sorted()
    }()

    /// Feeds `bytes` in `chunk`-byte pieces and checks the preview against the plain render
    /// after each completed scan and after every `every`-th piece (mid-scan states too; with
    /// `holdsScans` false, scans are decoded as they arrive, as one longer than the decoder
    /// holds back is, so those states have part of a scan). Returns how many were checked.
    static func check(_ bytes: [UInt8], chunk: Int, every: Int, options: JPEGDecodingOptions = .init(),
                      holdsScans: Bool = true) throws -> Int {
        var d = JPEGDecoder(options: options)
        d.holdsScans = holdsScans
        var checked = 0
        var piece = 0
        for start in stride(from: 0, to: bytes.count, by: chunk) {
            let events = try d.append(bytes[start ..< min(bytes.count, start + chunk)])
            piece += 1
            let scanDone = events.contains { if case .scanComplete = $0 { true } else { false } }
            guard scanDone || piece % every == 0, d.mode == .coefficients, d.phase != .done,
                  let frame = d.frame, let geometry = d.geometry else { continue }
            let preview = try #require(d.preview())
            let full = d.render(frame: frame, geometry: geometry)
            let difference = preview.pixels.indices.first { preview.pixels[$0] != full.pixels[$0] }
            #expect(preview.pixels.count == full.pixels.count && difference == nil,
                    "preview at byte \(start + chunk): first difference at pixel byte \(difference ?? -1)")
            if difference != nil { return checked }
            checked += 1
        }
        let final = try d.finish()
        #expect(final == (try JPEGDecoder.decode(bytes, options: options)))
        return checked
    }

    @Test("every preview equals a full render of the same coefficients", arguments: files)
    func matchesFullRender(_ name: String) throws {
        let bytes = try TestVectors.bytes("jpeg/valid/" + name)
        _ = try Self.check(bytes, chunk: max(bytes.count / 23, 16), every: 3)
        _ = try Self.check(bytes, chunk: max(bytes.count / 23, 16), every: 3, holdsScans: false)
    }

    @Test("scaled decodes keep their previews exact too", arguments: [2, 4, 1])
    func scaled(_ scale: Int) throws {
        for name in ["progressive_420.jpg", "progressive_411.jpg", "progressive_odd.jpg", "photo256_progressive.jpg"] {
            let bytes = try TestVectors.bytes("jpeg/valid/" + name)
            for holds in [true, false] {
                let checked = try Self.check(bytes, chunk: max(bytes.count / 40, 8), every: 2,
                                             options: JPEGDecodingOptions(scale: scale), holdsScans: holds)
                #expect(checked > 5, "\(name)")
            }
        }
    }

    /// The rule for progressive previews: only completed scans are shown. Feeding one
    /// byte at a time finds the preview as each scan completes; every preview in between, with
    /// any chunking, must be the last of those (part of the next scan having arrived or not).
    @Test("a preview shows the completed scans and nothing of the scan still arriving",
          arguments: ["photo256_progressive.jpg", "progressive_successive.jpg", "progressive_411.jpg", "restart_progressive.jpg"])
    func completedScansOnly(_ name: String) throws {
        let bytes = try TestVectors.bytes("jpeg/valid/" + name)
        var reference: [Image] = []
        var d = JPEGDecoder()
        for i in bytes.indices {
            let events = try d.append(bytes[i ... i])
            for event in events { if case .scanComplete = event { reference.append(try #require(d.preview())) } }
        }
        _ = try d.finish()
        #expect(reference.count == d.info?.scanCount)
        for chunk in [97, 1000, 4096] {
            var d = JPEGDecoder()
            var midScan = 0
            for start in stride(from: 0, to: bytes.count, by: chunk) {
                _ = try d.append(bytes[start ..< min(bytes.count, start + chunk)])
                guard d.mode == .coefficients, d.phase != .done, d.scansCompleted > 0 else { continue }
                if d.phase == .scan { midScan += 1 }
                let shown = try #require(d.preview())
                let same = shown == reference[d.scansCompleted - 1]
                #expect(same, "\(name), \(chunk)-byte pieces, byte \(start + chunk): not the preview of scan \(d.scansCompleted)")
            }
            #expect(midScan > 0 || chunk > bytes.count / 8)
            #expect(try d.finish() == reference.last)
        }
    }

    /// A scan longer than the decoder holds back is decoded (and previewed) as it arrives.
    @Test("a scan longer than the held-back limit is shown as it arrives")
    func longScanShownAsItArrives() throws {
        let bytes = try TestVectors.bytes("jpeg/valid/photo256_progressive.jpg")
        var d = JPEGDecoder()
        var held = JPEGDecoder()
        var partial = 0
        for start in stride(from: 0, to: bytes.count, by: 512) {
            let piece = bytes[start ..< min(bytes.count, start + 512)]
            _ = try d.append(piece)
            _ = try held.append(piece)
            if d.phase == .scan { d.coefficientState.heldScanLimit = 600 }
            guard d.mode == .coefficients, d.phase == .scan, let frame = d.frame, let geometry = d.geometry else { continue }
            // Past the limit, part of the scan is decoded: previews leave the held decoder's.
            if d.entropy.mcu > 0 && d.entropy.mcu < (d.plan?.mcuCount ?? 0) {
                partial += 1
                #expect(d.preview()?.pixels == d.render(frame: frame, geometry: geometry).pixels)
            }
        }
        #expect(partial > 3)
        #expect(try d.finish() == held.finish())
    }

    @Test("a preview kept by the caller is not changed by later previews")
    func keptPreviewUnchanged() throws {
        let bytes = try TestVectors.bytes("jpeg/valid/photo256_progressive.jpg")
        var d = JPEGDecoder()
        var kept: [(Image, [UInt8])] = []
        for start in stride(from: 0, to: bytes.count, by: 1024) {
            for event in try d.append(bytes[start ..< min(bytes.count, start + 1024)]) {
                if case .scanComplete = event, let p = d.preview() { kept.append((p, p.pixels)) }
            }
        }
        _ = try d.finish()
        #expect(kept.count > 5)
        for (image, pixels) in kept { #expect(image.pixels == pixels) }
        #expect(Set(kept.map(\.1)).count > 5)
    }

    /// A fuzzer input (33 x 65500 progressive, previews every other byte) timed out when every
    /// render walked every output row: a render now visits only rows made from changed blocks.
    @Test("a render after a small change visits only the rows it changed")
    func tallImageSmallChange() throws {
        // 48 x 1024, progressive 4:2:0 (a tall image: 64 MCU rows), a pattern with detail.
        var pixels = [UInt8](repeating: 0, count: 48 * 1024 * 3)
        for i in pixels.indices { pixels[i] = UInt8(truncatingIfNeeded: (i &* 7919) >> 5 ^ (i / 144) &* 3) }
        let image = Image(width: 48, height: 1024, format: .rgb8, pixels: pixels)
        let bytes = try JPEGEncoder.encode(image, options: JPEGEncodingOptions(quality: 90, progressive: true))
        // Scans decoded as they arrive (as one past the held-back limit is): small changes.
        var d = JPEGDecoder()
        d.holdsScans = false
        var visits: [(rows: Int, height: Int)] = []
        for start in stride(from: 0, to: bytes.count, by: 16) {
            _ = try d.append(bytes[start ..< min(bytes.count, start + 16)])
            guard d.mode == .coefficients, d.phase != .done, let height = d.geometry?.height else { continue }
            _ = d.preview()
            visits.append((d.coefficientState.previewCache.withLock { $0.rowsVisited }, height))
        }
        #expect(visits.count > 10)
        // The first render is everything; 16 bytes of entropy data later change a few MCU rows.
        #expect(visits.first.map { $0.rows == $0.height } == true)
        let small = visits.dropFirst().filter { $0.rows < $0.height / 4 }
        #expect(small.count > visits.count / 2)
    }

    @Test("previews render uncached, still exact, when the cache would break maxBytes")
    func cacheOverMemoryLimit() throws {
        let bytes = try TestVectors.bytes("jpeg/valid/photo256_progressive.jpg")
        // What the cached render needs on top of the image: one byte less than that is allowed.
        var probe = JPEGDecoder()
        _ = try probe.append(bytes)
        let frame = try #require(probe.frame), geometry = try #require(probe.geometry)
        let needed = geometry.width * geometry.height * geometry.format.bytesPerPixel + geometry.workingBytes
            + frame.coefficientBytes + probe.cachedPlaneBytes(frame: frame, geometry: geometry)
        var d = JPEGDecoder(limits: DecodingLimits(maxBytes: needed - 1))
        var checked = 0
        for start in stride(from: 0, to: bytes.count, by: 1500) {
            _ = try d.append(bytes[start ..< min(bytes.count, start + 1500)])
            guard d.mode == .coefficients, d.phase != .done, let frame = d.frame, let geometry = d.geometry else { continue }
            #expect(d.preview()?.pixels == d.render(frame: frame, geometry: geometry).pixels)
            #expect(!d.coefficientState.previewCache.isTracking)
            checked += 1
        }
        #expect(checked > 5)
        #expect(try d.finish() == JPEGDecoder.decode(bytes))
    }

    @Test("the change map marks only blocks a scan changed")
    func changeMapIsSparse() throws {
        // Successive approximation: refinement scans change some blocks, not all.
        let bytes = try TestVectors.bytes("jpeg/valid/photo256_progressive.jpg")
        var d = JPEGDecoder()
        var fractions: [Double] = []
        var cuts = (0 ..< bytes.count - 1).filter { bytes[$0] == 0xFF && bytes[$0 + 1] == 0xDA }.map { $0 + 2 }
        cuts.append(bytes.count)
        var start = 0
        for cut in cuts {
            _ = try d.append(bytes[start ..< cut])
            start = cut
            guard d.mode == .coefficients, d.phase != .done else { continue }
            let marked = d.coefficientState.previewCache.withLock { state -> Int? in
                guard let base = state.changes.baseAddress else { return nil }
                return (0 ..< state.changes.count).reduce(0) { $0 + Int(base[$1]) }
            }
            if let marked { fractions.append(Double(marked) / Double(d.coefficientState.store.count / 64)) }
            _ = d.preview()
        }
        #expect(fractions.count > 5)
        #expect(fractions.contains { $0 < 0.9 })
        #expect(fractions.allSatisfy { $0 <= 1 })
    }

    @Test("span merging joins overlapping and nearby spans and widens short ones")
    func merge() {
        var union: [Range<Int>] = []
        let gap = JPEGDecoder.joinedPixels, least = JPEGDecoder.minimumSpan
        func merge(_ lists: [[Range<Int>]], into union: inout [Range<Int>], width: Int) {
            union = lists.flatMap { $0 }
            JPEGDecoder.merge(&union, width: width)
        }
        merge([[0 ..< 40], [40 + gap + 1 ..< 300]], into: &union, width: 1000)
        #expect(union == [0 ..< 40, 40 + gap + 1 ..< 300])
        merge([[40 + gap ..< 300], [0 ..< 40]], into: &union, width: 1000)
        #expect(union == [0 ..< 300])
        merge([[0 ..< 40, 500 ..< 600], [30 ..< 80]], into: &union, width: 1000)
        #expect(union == [0 ..< 80, 500 ..< 600])
        merge([[300 ..< 301]], into: &union, width: 1000)
        #expect(union == [300 ..< 300 + least])
        merge([[], []], into: &union, width: 1000)
        #expect(union.isEmpty)
        merge([[990 ..< 995]], into: &union, width: 1000)
        #expect(union == [1000 - least ..< 1000])
        merge([[3 ..< 5]], into: &union, width: 20)
        #expect(union == [0 ..< 20])
        // Block runs of two rows: joined where they overlap or touch, nothing widened.
        var runs: [Range<Int>] = []
        JPEGDecoder.merge([0 ..< 2, 5 ..< 9, 20 ..< 21][...], [2 ..< 3, 7 ..< 12, 30 ..< 31][...], into: &runs)
        #expect(runs == [0 ..< 3, 5 ..< 12, 20 ..< 21, 30 ..< 31])
        JPEGDecoder.merge([][...], [4 ..< 6][...], into: &runs)
        #expect(runs == [4 ..< 6])
    }
}
