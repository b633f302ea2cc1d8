import ImageCore
import Testing
import TestSupport
@testable import PureColor

/// One thread and several give the same pixels (also run under ThreadSanitizer by `.ci/run`).
@Suite struct ColorThreadsTests {
    @Test(arguments: [PixelFormat.rgb8, .rgba8, .rgb16, .rgba16])
    func threadsGiveIdenticalResults(format: PixelFormat) throws {
        let transform = try ReferenceTests.rgbTransform("ProPhotoRGB.icc", sixteenBit: true)
        var image = Image(width: 701, height: 433, format: format)
        var state: UInt32 = 7
        for i in image.pixels.indices {
            state = state &* 1_664_525 &+ 1_013_904_223
            image.pixels[i] = UInt8(truncatingIfNeeded: state >> 24)
        }
        let one = transform.apply(to: image, threads: 1)
        for threads in [2, 3, 8] {
            #expect(transform.apply(to: image, threads: threads) == one)
        }
        #expect(transform.apply(to: image) == one)
    }

    @Test(arguments: [PixelFormat.gray8, .grayAlpha8, .gray16, .grayAlpha16])
    func grayThreadsGiveIdenticalResults(format: PixelFormat) throws {
        let profile = try ICCProfile(TestVectors.bytes("icc/profiles/Gray-CIE_L.icc"))
        let transform = try ColorTransform(source: profile)
        var image = Image(width: 999, height: 301, format: format)
        var state: UInt32 = 3
        for i in image.pixels.indices {
            state = state &* 1_664_525 &+ 1_013_904_223
            image.pixels[i] = UInt8(truncatingIfNeeded: state >> 24)
        }
        let one = transform.apply(to: image, threads: 1)
        #expect(one != image)
        for threads in [2, 3, 8] {
            #expect(transform.apply(to: image, threads: threads) == one)
        }
    }

    /// Several tasks share one transform.
    @Test func sharedTransformAcrossTasks() async throws {
        let transform = try ReferenceTests.rgbTransform("AdobeRGB1998.icc")
        var pixels = ReferenceTests.grid
        transform.apply(toPixels: &pixels, format: .rgb8)
        let expected = pixels
        try await withThrowingTaskGroup(of: [UInt8].self) { group in
            for _ in 0 ..< 8 {
                group.addTask {
                    var copy = ReferenceTests.grid
                    transform.apply(toPixels: &copy, format: .rgb8, threads: 2)
                    return copy
                }
            }
            for try await result in group { #expect(result == expected) }
        }
    }
}
