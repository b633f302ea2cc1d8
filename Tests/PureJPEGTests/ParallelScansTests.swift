import ImageCore
import Testing
@testable import PureJPEG

/// Scans of a whole file decoded side by side (``ScanWorkers``): the one-thread pixels, events
/// and errors; clean files go that way, damaged ones start over on one thread.
@Suite struct ParallelScansTests {
    /// A whole-file decode on `threads`, with how many scans it handed to the workers.
    static func decode(_ bytes: [UInt8], threads: Int, strict: Bool = false)
        -> (events: [DecodingEvent], result: Result<Image, JPEGError>, ahead: Int) {
        var options = JPEGDecodingOptions(strict: strict)
        options.threads = threads
        var decoder = JPEGDecoder(options: options)
        var events: [DecodingEvent] = []
        let result = Result { () throws(JPEGError) -> Image in
            events = try decoder.append(bytes)
            return try decoder.finish()
        }
        return (events, result, decoder.scansDecodedAhead)
    }

    /// Checks 2, 3 and 8 threads against one; returns the scans the 2-thread decode handed over.
    @discardableResult
    static func sameAsOneThread(_ bytes: [UInt8], _ label: String, strict: Bool = false) -> Int {
        let one = decode(bytes, threads: 1, strict: strict)
        #expect(one.ahead == 0)
        var ahead = 0
        for threads in [2, 3, 8] {
            let outcome = decode(bytes, threads: threads, strict: strict)
            if threads == 2 { ahead = outcome.ahead }
            #expect(outcome.events == one.events, "\(label), \(threads) threads: events")
            switch (one.result, outcome.result) {
            case let (.success(a), .success(b)): #expect(a == b, "\(label), \(threads) threads: pixels")
            case let (.failure(a), .failure(b)): #expect(a == b, "\(label), \(threads) threads: errors")
            default: Issue.record("\(label), \(threads) threads: \(outcome.result) against \(one.result)")
            }
        }
        return ahead
    }

    /// A noisy gradient of odd size (partial MCUs at the right and bottom).
    static let image: Image = {
        var image = Image(width: 333, height: 251, format: .rgb8)
        var state: UInt32 = 11
        for i in 0 ..< image.pixels.count {
            state = state &* 1_103_515_245 &+ 12345
            image.pixels[i] = UInt8(truncatingIfNeeded: (i / 3) % 333 / 2 + (i / 999) / 3 + Int(state >> 28))
        }
        return image
    }()

    static func scan(_ c: [Int], _ ss: Int, _ se: Int, _ ah: Int, _ al: Int) -> JPEGScan {
        JPEGScan(components: c, spectralStart: ss, spectralEnd: se, successiveHigh: ah, successiveLow: al)
    }

    /// Scan scripts whose scans depend on each other in different ways: DC scans one component
    /// at a time then refined together (a component one block high per MCU row in one scan and
    /// two in the other), AC bands refined in several steps, chroma between luma scans.
    static let scripts: [(String, [JPEGScan])] = [
        ("separate DC, joint refinement", [
            scan([0], 0, 0, 0, 1), scan([1], 0, 0, 0, 1), scan([2], 0, 0, 0, 1),
            scan([0], 1, 5, 0, 2), scan([0], 6, 63, 0, 2), scan([1], 1, 63, 0, 1), scan([2], 1, 63, 0, 1),
            scan([0, 1, 2], 0, 0, 1, 0), scan([0], 1, 63, 2, 1), scan([0], 1, 63, 1, 0),
            scan([2], 1, 63, 1, 0), scan([1], 1, 63, 1, 0)]),
        ("many bands", [
            scan([0, 1, 2], 0, 0, 0, 0),
            scan([0], 1, 2, 0, 0), scan([0], 3, 9, 0, 0), scan([1], 1, 63, 0, 0), scan([0], 10, 30, 0, 0),
            scan([2], 1, 63, 0, 0), scan([0], 31, 63, 0, 0)]),
        ("three refinements", [
            scan([0, 1, 2], 0, 0, 0, 2), scan([0], 1, 63, 0, 3), scan([0, 1, 2], 0, 0, 2, 1),
            scan([1], 1, 63, 0, 0), scan([0], 1, 63, 3, 2), scan([2], 1, 63, 0, 0), scan([0, 1, 2], 0, 0, 1, 0),
            scan([0], 1, 63, 2, 1), scan([0], 1, 63, 1, 0)]),
    ]

    @Test(arguments: [ChromaSubsampling.s420, .s422, .s444])
    func scanScripts(_ subsampling: ChromaSubsampling) throws {
        for (name, script) in Self.scripts {
            for restartInterval in [0, 7] {
                var options = JPEGEncodingOptions(quality: 90)
                options.subsampling = subsampling
                options.progressive = true
                options.scanScript = script
                options.restartInterval = restartInterval
                let jpeg = try JPEGEncoder.encode(Self.image, options: options)
                let ahead = Self.sameAsOneThread(jpeg, "\(name) \(subsampling) rst \(restartInterval)")
                #expect(ahead == script.count, "\(name) \(subsampling) rst \(restartInterval): every scan decoded ahead")
            }
        }
    }

    @Test func cleanVectorsGoAhead() throws {
        var checked = 0
        for vector in JPEGVector.valid {
            let bytes = try vector.bytes()
            var one = JPEGDecoder(options: { var o = JPEGDecodingOptions(); o.threads = 1; return o }())
            guard (try? one.append(bytes)) != nil, (try? one.finish()) != nil, one.warnings.isEmpty,
                  one.mode == .coefficients, let frame = one.frame, !frame.isArithmetic else { continue }
            let ahead = Self.sameAsOneThread(bytes, vector.file)
            #expect(ahead == one.scansCompleted, "\(vector.file): \(ahead) of \(one.scansCompleted) scans decoded ahead")
            checked += 1
        }
        #expect(checked >= 10)
    }

    @Test func damageStartsOverOnOneThread() throws {
        var options = JPEGEncodingOptions(quality: 85)
        options.progressive = true
        let jpeg = try JPEGEncoder.encode(Self.image, options: options)
        #expect(Self.sameAsOneThread(jpeg, "clean") > 5)
        // Corrupt bytes late in the file (the last scans), and a marker inside a scan.
        var corrupt = jpeg
        for k in stride(from: jpeg.count * 3 / 4, to: jpeg.count - 10, by: 53) { corrupt[k] ^= 0x5A }
        #expect(Self.sameAsOneThread(corrupt, "corrupt") == 0)
        Self.sameAsOneThread(corrupt, "corrupt strict", strict: true)
        var marked = jpeg
        marked[jpeg.count / 2] = 0xFF
        marked[jpeg.count / 2 + 1] = 0xD9
        #expect(Self.sameAsOneThread(marked, "marker") == 0)
        // Garbage between a scan's data and the marker after it (extraneous bytes): a warning
        // at the marker, which the marker loop cannot see coming.
        let scans = (2 ..< jpeg.count - 1).filter { jpeg[$0] == 0xFF && jpeg[$0 + 1] == 0xDA }
        let data = scans[scans.count / 2] + 2 + (Int(jpeg[scans[scans.count / 2] + 2]) << 8 | Int(jpeg[scans[scans.count / 2] + 3]))
        if let end = (data ..< jpeg.count - 1).first(where: { jpeg[$0] == 0xFF && jpeg[$0 + 1] != 0 }) {
            let padded = Array(jpeg[..<end]) + [0x12, 0x34, 0x56] + jpeg[end...]
            let events = Self.decode(padded, threads: 1).events
            #expect(events.contains { if case .warning = $0 { true } else { false } }, "\(events)")
            #expect(Self.sameAsOneThread(padded, "extraneous") == 0)
            Self.sameAsOneThread(padded, "extraneous strict", strict: true)
        }
        // Cut short: the scans before the cut go ahead, the cut one is decoded in place.
        Self.sameAsOneThread(Array(jpeg.prefix(jpeg.count * 2 / 3)), "cut")
    }

    @Test("random damage: one and two threads agree on every mutated file")
    func mutations() throws {
        var options = JPEGEncodingOptions(quality: 80)
        options.progressive = true
        options.restartInterval = 5
        let jpeg = try JPEGEncoder.encode(Self.image, options: options)
        var state: UInt32 = 2026
        func next(_ n: Int) -> Int {
            state = state &* 1_664_525 &+ 1_013_904_223
            return Int(state >> 8) % n
        }
        for round in 0 ..< 40 {
            var bytes = jpeg
            // A few bytes of the entropy-coded data and segments after the header, sometimes a marker.
            for _ in 0 ..< 1 + next(3) {
                let at = 600 + next(bytes.count - 600)
                bytes[at] = next(4) == 0 ? 0xFF : UInt8(next(256))
            }
            for strict in [false, true] {
                let one = Self.decode(bytes, threads: 1, strict: strict)
                let two = Self.decode(bytes, threads: 2, strict: strict)
                #expect(two.events == one.events, "round \(round) strict \(strict): events")
                switch (one.result, two.result) {
                case let (.success(a), .success(b)): #expect(a == b, "round \(round) strict \(strict): pixels")
                case let (.failure(a), .failure(b)): #expect(a == b, "round \(round) strict \(strict): errors")
                default: Issue.record("round \(round) strict \(strict): \(two.result) against \(one.result)")
                }
            }
        }
    }
}
