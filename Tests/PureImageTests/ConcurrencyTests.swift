import Dispatch
@testable import PureImage
import Testing

/// Many tasks at once on the same and different images, through shared registries and options,
/// and copies of one decoder fed in parallel. `.ci/run` runs this suite under ThreadSanitizer
/// (`swift test --sanitize=thread --filter ConcurrencyTests`); every result is also checked
/// against a decode on one thread.
@Suite struct ConcurrencyTests {
    /// A few files of every format, small enough for a sanitizer run: valid, damaged, animated.
    static func files() throws -> [(name: String, bytes: [UInt8])] {
        let rgba = sampleRGBA(width: 72, height: 40)
        var files: [(String, [UInt8])] = [
            ("png", try PNGEncoder.encode(rgba)),
            ("png-adam7", try PNGEncoder.encode(rgba, options: PNGEncodingOptions(interlaced: true))),
            ("jpeg", try JPEGEncoder.encode(rgba)),
            ("jpeg-progressive", try JPEGEncoder.encode(rgba, options: JPEGEncodingOptions(progressive: true))),
            ("jpng", try JPNGEncoder.encode(rgba)),
        ]
        for (folder, ext, count) in [("gif", "gif", 3), ("apng", "png", 3), ("jpeg-damaged", "jpg", 6), ("png/damaged", "png", 4)] {
            for name in TestVectors.files(in: folder, withExtension: ext).prefix(count) {
                files.append(("\(folder)/\(name)", try TestVectors.bytes("\(folder)/\(name)")))
            }
        }
        return files
    }

    /// What one thread makes of a file: pixels or the error's description.
    static func outcome(_ bytes: [UInt8], options: ImageSourceOptions = .init(), registry: ImageDecoderRegistry = .standard) -> String {
        do {
            let image = try ImageSource.decode(bytes, registry: registry, options: options)
            return "\(image.width)x\(image.height) \(image.format) \(CRC32.checksum(image.pixels))"
        } catch {
            return "error \(error)"
        }
    }

    @Test func manyTasksDecodeTheSameAndDifferentImages() async throws {
        let files = try Self.files()
        let expected = files.map { Self.outcome($0.bytes) }
        // Shared: one registry with an app's entry added, one options value.
        var registry = ImageDecoderRegistry.standard
        registry.register(.init(format: ImageFileFormat(rawValue: "NONE"), minimumBytes: 4,
                                matches: { $0.starts(with: Array("NONE".utf8)) }, make: { PNGDecoder(limits: $0.limits) }))
        let shared = registry
        let options = ImageSourceOptions(threads: 2)
        let results = await withTaskGroup(of: (Int, String).self) { group in
            for round in 0 ..< 4 {
                for (i, file) in files.enumerated() {
                    group.addTask {
                        // Rounds alternate between one-shot decoding and 997-byte pieces.
                        if round % 2 == 0 { return (i, Self.outcome(file.bytes, options: options, registry: shared)) }
                        var source = ImageSource(registry: shared, options: options)
                        do {
                            var offset = 0
                            while offset < file.bytes.count {
                                let end = min(file.bytes.count, offset + 997)
                                _ = try source.append(file.bytes[offset ..< end])
                                _ = source.preview()
                                offset = end
                            }
                            let image = try source.finish()
                            return (i, "\(image.width)x\(image.height) \(image.format) \(CRC32.checksum(image.pixels))")
                        } catch {
                            return (i, "error \(error)")
                        }
                    }
                }
            }
            var all: [(Int, String)] = []
            for await result in group { all.append(result) }
            return all
        }
        #expect(results.count == files.count * 4)
        for (i, outcome) in results {
            // Incremental decoding of a damaged file may fail where one-shot gives the same error; pixels must agree.
            if outcome.hasPrefix("error") && expected[i].hasPrefix("error") { continue }
            #expect(outcome == expected[i], "\(files[i].name)")
        }
    }

    @Test("thumbnails, their reducers on threads of their own, made by many tasks at once")
    func thumbnailsInParallel() async throws {
        let files = try Self.files()
        func thumbnail(_ bytes: [UInt8], threads: Int?) -> [UInt8]? {
            var options = ImageSourceOptions(applyOrientation: true, threads: threads)
            options.limits = DecodingLimits(maxPixels: 4_000_000)
            var thumbnailer = ThumbnailDecoder(maxPixelSize: 17, options: options)
            thumbnailer.spillAbove = 0
            var offset = 0
            do {
                while offset < bytes.count {
                    try thumbnailer.append(bytes[offset ..< min(bytes.count, offset + 331)])
                    offset += 331
                }
                return try thumbnailer.finish().pixels
            } catch {
                return nil
            }
        }
        let expected = files.map { thumbnail($0.bytes, threads: 1) }
        let results = await withTaskGroup(of: (Int, [UInt8]?).self) { group in
            for _ in 0 ..< 3 {
                for (i, file) in files.enumerated() {
                    group.addTask { (i, thumbnail(file.bytes, threads: nil)) }
                }
            }
            var all: [(Int, [UInt8]?)] = []
            for await result in group { all.append(result) }
            return all
        }
        for (i, pixels) in results { #expect(pixels == expected[i], "\(files[i].name)") }
    }

    @Test func copiesOfOneDecoderFedInParallel() throws {
        let rgba = sampleRGBA(width: 96, height: 64)
        for bytes in [try JPEGEncoder.encode(rgba, options: JPEGEncodingOptions(progressive: true)),
                      try JPEGEncoder.encode(rgba), try PNGEncoder.encode(rgba, options: PNGEncodingOptions(interlaced: true))] {
            let expected = Self.outcome(bytes)
            // Half the file in one decoder, then eight copies finish it on eight threads (a
            // PNG's rows unfiltered on a second thread besides: the copies share its blocks
            // until each writes).
            var source = ImageSource(options: ImageSourceOptions(threads: 2))
            _ = try source.append(bytes.prefix(bytes.count / 2))
            _ = source.preview()
            let half = source
            let rest = Array(bytes.dropFirst(bytes.count / 2))
            let outcomes = Locked([String](repeating: "", count: 8))
            DispatchQueue.concurrentPerform(iterations: 8) { k in
                var copy = half
                var result: String
                do {
                    _ = try copy.append(rest)
                    _ = copy.preview()
                    let image = try copy.finish()
                    result = "\(image.width)x\(image.height) \(image.format) \(CRC32.checksum(image.pixels))"
                } catch {
                    result = "error \(error)"
                }
                outcomes.withLock { $0[k] = result }
            }
            #expect(outcomes.withLock { $0 } == [String](repeating: expected, count: 8))
        }
    }

    @Test("JPEG decodes with their own threads (a reconstruction worker, a final pass in parts) from many tasks")
    func threadedJPEGDecodesInParallel() async throws {
        let image = sampleRGBA(width: 72, height: 96)
        let files = [try JPEGEncoder.encode(image), try JPEGEncoder.encode(image, options: JPEGEncodingOptions(progressive: true))]
        var one = ImageSourceOptions()
        one.threads = 1
        let expected = files.map { Self.outcome($0, options: one) }
        let ok = await withTaskGroup(of: Bool.self) { group in
            for round in 0 ..< 4 {
                for (i, bytes) in files.enumerated() {
                    group.addTask {
                        var options = ImageSourceOptions()
                        options.threads = 2 + round % 2
                        return Self.outcome(bytes, options: options) == expected[i]
                    }
                }
            }
            var all = true
            for await result in group { all = all && result }
            return all
        }
        #expect(ok)
    }

    @Test func encodersAndPyramidsInParallel() async throws {
        let images = (0 ..< 6).map { sampleRGBA(width: 40 + 8 * $0, height: 30 + 4 * $0) }
        let expectedPNG = try images.map { try PNGEncoder.encode($0) }
        var oneThread = JPEGEncodingOptions(quality: 80)
        oneThread.threads = 1
        let expectedJPEG = try images.map { try JPEGEncoder.encode($0, options: oneThread) }
        // Big enough for three 256 KiB bands of PNG image data, deflated on threads.
        let big = sampleRGBA(width: 320, height: 640)
        let expectedBig = try PNGEncoder.encode(big, options: PNGEncodingOptions(threads: 1))
        let ok = await withTaskGroup(of: Bool.self) { group in
            for round in 0 ..< 3 {
                for (i, image) in images.enumerated() {
                    group.addTask {
                        // The JPEG encoders' transform pipelines (a queue each) with 1, 2 and 3 threads.
                        var jpegOptions = JPEGEncodingOptions(quality: 80)
                        jpegOptions.threads = round + 1
                        let png = try? PNGEncoder.encode(image)
                        var jpeg = try? JPEGEncoder.encode(image, options: jpegOptions)
                        if jpeg == expectedJPEG[i], var stream = try? JPEGStreamEncoder(width: image.width, height: image.height,
                                                                                          format: image.format, options: jpegOptions) {
                            let bytes = try? image.pixels.withUnsafeBytes { try stream.append(rows: $0) }
                            jpeg = (bytes ?? []) + ((try? stream.finish()) ?? [])
                        }
                        let frames = [APNGFrame(image: image, delayMilliseconds: 100), APNGFrame(image: image, delayMilliseconds: 50)]
                        let apng = try? APNGEncoder.encode(frames, options: APNGEncodingOptions(threads: round + 1))
                        let banded = try? PNGEncoder.encode(big, options: PNGEncodingOptions(threads: round + 2))
                        return png == expectedPNG[i] && jpeg == expectedJPEG[i] && apng != nil && banded == expectedBig
                    }
                }
            }
            var all = true
            for await result in group { all = all && result }
            return all
        }
        #expect(ok)
    }
}

/// A value behind a lock, for results written from several threads.
final class Locked<Value>: @unchecked Sendable {
    private var value: Value
    private let lock = DispatchSemaphore(value: 1)
    init(_ value: Value) { self.value = value }
    func withLock<R>(_ body: (inout Value) -> R) -> R {
        lock.wait()
        defer { lock.signal() }
        return body(&value)
    }
}
