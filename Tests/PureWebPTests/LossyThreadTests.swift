import ImageCore
import Testing
import TestSupport
@testable import PureWebP

/// The two-thread pipeline (rows parsed ahead on the worker beside the reconstruction and
/// filtering, bands written out by either thread) on the vectors and damaged files: the same
/// rows, image and error as one thread, whatever fails where.
@Suite struct LossyThreadTests {
    static func same(_ bytes: [UInt8], _ what: String) {
        let one = Run(bytes)
        var workerWrites = WebPDecodingOptions(useThreads: true)
        workerWrites.workerWritesAllBands = true
        for (options, how) in [(WebPDecodingOptions(useThreads: true), "two threads"), (workerWrites, "worker writes")] {
            let two = Run(bytes, options: options)
            #expect(one.error == two.error, "\(what), \(how): \(String(describing: one.error)) vs \(String(describing: two.error))")
            #expect(one.image == two.image, "\(what), \(how): image")
            #expect(one.events == two.events, "\(what), \(how): events")
            #expect(one.decoder.preview() == two.decoder.preview(), "\(what), \(how): preview")
        }
    }

    @Test("whole vectors: the worker writing every band, or the bands shared", arguments: LossyVectors.names)
    func whole(_ name: String) throws {
        Self.same(try LossyVectors.file(name), name)
    }

    @Test("first partition declared shorter: the header parse fails on some row", arguments: LossyVectors.names)
    func shortFirstPartition(_ name: String) throws {
        let file = try LossyVectors.file(name)
        let (_, offset) = try #require(LossyVectors.payload(file))
        let tag = Int(file[offset]) | Int(file[offset + 1]) << 8 | Int(file[offset + 2]) << 16
        let size = tag >> 5
        for fraction in [10, 40, 70, 90, 98] {
            var bytes = file
            let t = (tag & 31) | ((size * fraction / 100) << 5)
            bytes[offset] = UInt8(t & 0xFF); bytes[offset + 1] = UInt8((t >> 8) & 0xFF); bytes[offset + 2] = UInt8(t >> 16)
            Self.same(bytes, "\(name) first partition at \(fraction)%")
        }
    }

    @Test("cut files and flipped bytes", arguments: LossyVectors.names)
    func damaged(_ name: String) throws {
        let file = try LossyVectors.file(name)
        let (_, offset) = try #require(LossyVectors.payload(file))
        for fraction in [30, 60, 90] {
            Self.same(Array(file.prefix(file.count * fraction / 100)), "\(name) cut at \(fraction)%")
        }
        var rng = SplitMix64(seed: UInt64(name.utf8.count))
        for trial in 0 ..< 4 {
            var bytes = file
            let at = offset + 10 + Int(rng.next() % UInt64(max(1, file.count - offset - 10)))
            bytes[at] ^= UInt8(truncatingIfNeeded: rng.next() | 1)
            Self.same(bytes, "\(name) flip \(trial) at \(at)")
        }
    }
}

extension LossyThreadTests {
    @Test("lossy stills with an ALPH plane: the worker writes alpha too",
          arguments: TestVectors.files(in: "webp", withExtension: "webp").filter { $0.hasPrefix("alpha_") })
    func alpha(_ file: String) throws {
        Self.same(try TestVectors.bytes("webp/\(file)"), file)
    }
}
