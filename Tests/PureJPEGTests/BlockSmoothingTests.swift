import Foundation
import ImageCore
import Testing
@testable import PureJPEG

/// Vectors/jpeg-smoothing/manifest.tsv: progressive files whose scans stop before the first AC
/// coefficients are exact, and djpeg's output at one scale.
extension ScaledReference {
    static let smoothing = load("jpeg-smoothing")

    static var smoothingFiles: [String] { Array(Set(smoothing.map(\.file))).sorted() }

    /// The one file djpeg renders without smoothing: cut after its luma DC scan, so chroma has no
    /// DC and no latched table (smoothing_ok refuses).
    static let unsmoothed: Set<String> = ["cutsplit1_420_33x31.jpg"]
}

@Suite("Progressive block smoothing against djpeg")
struct BlockSmoothingTests {
    @Test("smoothing manifest is present")
    func present() { #expect(ScaledReference.smoothing.count >= 80) }

    @Test("bit-exact with djpeg, whole and in 7-byte pieces", arguments: ScaledReference.smoothing)
    func exact(_ vector: ScaledReference) throws {
        let bytes = try TestVectors.bytes("jpeg-smoothing/" + vector.file)
        let options = JPEGDecodingOptions(scale: vector.scale)
        let image = try JPEGDecoder.decode(bytes, options: options)
        let reference = try #require(readPNM(try TestVectors.bytes(vector.expected)))
        let (maxDiff, psnr) = compare(image, reference)
        #expect(maxDiff == 0, "max difference \(maxDiff), PSNR \(psnr) dB")
        #expect(try decodeInPieces(bytes, size: 7, options: options).result.get() == image)
        // The final pass in parallel parts (each part's first band smoothed from its own window).
        for threads in [2, 3] {
            var parallel = options
            parallel.threads = threads
            #expect(try JPEGDecoder.decode(bytes, options: parallel) == image, "\(threads) threads")
        }
    }

    @Test("smoothing applies as smoothing_ok decides", arguments: ScaledReference.smoothingFiles)
    func applies(_ file: String) throws {
        var decoder = JPEGDecoder()
        _ = try decoder.append(try TestVectors.bytes("jpeg-smoothing/" + file))
        let frame = try #require(decoder.frame), geometry = try #require(decoder.geometry)
        let smooths = !ScaledReference.unsmoothed.contains(file)
        #expect((decoder.blockSmoothingPlan(frame: frame) != nil) == smooths)
        // Where smoothing applies, it changes pixels (the vector tests something).
        #expect((try decoder.finish() != decoder.render(frame: frame, geometry: geometry)) == smooths)
    }

    @Test("previews are not smoothed; the final image after previews is",
          arguments: ["dcal1_420_100x75.jpg", "noref_420_100x75.jpg", "split_420_33x31.jpg", "gray_33x31.jpg"])
    func previews(_ file: String) throws {
        let original = try TestVectors.bytes("jpeg-smoothing/" + file)
        let smoothed = try JPEGDecoder.decode(original)
        // An empty COM segment before EOI ends the last scan, so its coefficients are decoded
        // while EOI has not arrived.
        let bytes = Array(original.dropLast(2)) + [0xFF, 0xFE, 0x00, 0x02]
        var decoder = JPEGDecoder()
        var previews = 0
        for start in stride(from: 0, to: bytes.count, by: 97) {
            for event in try decoder.append(bytes[start ..< min(start + 97, bytes.count)]) {
                if case .scanComplete = event {
                    _ = decoder.preview()
                    previews += 1
                }
            }
        }
        #expect(previews == decoder.scansStarted)
        let frame = try #require(decoder.frame), geometry = try #require(decoder.geometry)
        let plain = decoder.render(frame: frame, geometry: geometry)
        #expect(decoder.preview() == plain)
        #expect(plain.pixels != smoothed.pixels)
        _ = try decoder.append([0xFF, 0xD9])
        // Pixels only: the COM segment is in the metadata.
        #expect(try decoder.finish().pixels == smoothed.pixels)
        #expect(decoder.preview()?.pixels == smoothed.pixels)
    }

    @Test("estimates round half away from zero and stay below 2^Al")
    func estimates() {
        // num / (q * 256): 2.5 rounds to 3, -2.5 to -3, 2.49 to 2.
        #expect(BlockSmoothing.estimate(640 * 3, 3, 0) == 3)
        #expect(BlockSmoothing.estimate(-640 * 3, 3, 0) == -3)
        #expect(BlockSmoothing.estimate(637 * 3, 3, -1) == 2)
        // Al 2: a magnitude of 4 or more would have been sent, so 3 at most.
        #expect(BlockSmoothing.estimate(256 * 7 * 5, 5, 2) == 3)
        #expect(BlockSmoothing.estimate(-256 * 7 * 5, 5, 2) == -3)
        #expect(BlockSmoothing.estimate(256 * 7 * 5, 5, -1) == 7)
    }

    @Test("a complete progressive file is not smoothed")
    func complete() throws {
        var decoder = JPEGDecoder()
        _ = try decoder.append(try TestVectors.bytes("jpeg-extra/prog_420.jpg"))
        let frame = try #require(decoder.frame)
        #expect(decoder.blockSmoothingPlan(frame: frame) == nil)
    }
}
