import Foundation
import PureImage
import Testing

/// Thumbnails come out in sRGB with no profile, upright with EXIF saying so, and with colour
/// metadata only by default (issue: colour and metadata that stay true).
@Suite struct ThumbnailColorTests {
    /// A big-endian TIFF block: IFD0 with Orientation and an Exif IFD pointer, the Exif IFD
    /// with PixelXDimension and PixelYDimension (LONG).
    static func exif(orientation: Int, width: Int, height: Int) -> [UInt8] {
        func u16(_ v: Int) -> [UInt8] { [UInt8(v >> 8 & 255), UInt8(v & 255)] }
        func u32(_ v: Int) -> [UInt8] { [UInt8(v >> 24 & 255), UInt8(v >> 16 & 255), UInt8(v >> 8 & 255), UInt8(v & 255)] }
        func entry(_ tag: Int, _ type: Int, _ value: [UInt8]) -> [UInt8] {
            var e = u16(tag)
            e += u16(type)
            e += u32(1)
            e += value
            return e
        }
        var t: [UInt8] = [0x4D, 0x4D, 0, 42]
        t += u32(8)
        t += u16(2)
        t += entry(0x0112, 3, u16(orientation) + [0, 0])
        t += entry(0x8769, 4, u32(8 + 2 + 24 + 4))
        t += u32(0)
        t += u16(2)
        t += entry(0xA002, 4, u32(width))
        t += entry(0xA003, 4, u32(height))
        t += u32(0)
        return t
    }

    /// A 96x64 JPEG of a colour gradient tagged Adobe RGB (1998), EXIF orientation 6.
    static func taggedJPEG() throws -> [UInt8] {
        var image = Image(width: 96, height: 64, format: .rgb8)
        for y in 0 ..< 64 {
            for x in 0 ..< 96 {
                let i = (y * 96 + x) * 3
                image.pixels[i] = UInt8(x * 255 / 95); image.pixels[i + 1] = UInt8(y * 255 / 63); image.pixels[i + 2] = 180
            }
        }
        image.metadata.iccProfile = try TestVectors.bytes("icc/profiles/AdobeRGB1998.icc")
        image.metadata.exif = exif(orientation: 6, width: 96, height: 64)
        return try JPEGEncoder.encode(image, options: JPEGEncodingOptions(quality: 95))
    }

    @Test("sRGB by default: the profile applied after the reduction and dropped; as stored on request")
    func convertsToSRGB() throws {
        let bytes = try Self.taggedJPEG()
        let thumbnail = try ImageSource.thumbnail(bytes, maxPixelSize: 48)
        #expect(thumbnail.metadata.iccProfile == nil)
        let stored = try ImageSource.thumbnail(bytes, maxPixelSize: 48,
                                               options: ImageSourceOptions(applyOrientation: true, colorSpace: .asStored))
        #expect(stored.metadata.iccProfile != nil)
        let expected = try ColorTransform(iccProfile: try #require(stored.metadata.iccProfile)).apply(to: stored)
        #expect(thumbnail.pixels == expected.pixels)
        #expect(thumbnail.pixels != stored.pixels)
    }

    @Test("upright, and colour metadata only: no EXIF unless asked; with all, EXIF says Orientation 1 and the new size")
    func metadataPolicy() throws {
        let bytes = try Self.taggedJPEG()
        let thumbnail = try ImageSource.thumbnail(bytes, maxPixelSize: 48)
        #expect(thumbnail.width == 32 && thumbnail.height == 48)
        #expect(thumbnail.metadata.exif == nil && thumbnail.metadata.orientation == .up)
        let all = try ImageSource.thumbnail(bytes, maxPixelSize: 48, options: ImageSourceOptions(applyOrientation: true, metadata: .all))
        let exif = try #require(all.metadata.exif)
        #expect(EXIF.orientation(exif) == .up)
        #expect(exif == EXIF.upright(Self.exif(orientation: 6, width: 96, height: 64), width: 32, height: 48))
        #expect(exif == Self.exif(orientation: 1, width: 32, height: 48))
        // Written as a JPEG, the EXIF goes out as it is: a viewer does not turn it again.
        let written = try JPEGDecoder.decode(try JPEGEncoder.encode(all))
        #expect(written.metadata.orientation == .up)
        let none = try ImageSource.thumbnail(bytes, maxPixelSize: 48, options: ImageSourceOptions(applyOrientation: true, metadata: .dropAll))
        #expect(none.metadata.isEmpty)
    }

    @Test("a profile that cannot be used: a warning, the pixels as sRGB, no profile")
    func unusableProfile() throws {
        var image = Image(width: 8, height: 8, format: .rgb8)
        var cmyk = [UInt8](repeating: 0, count: 200)
        cmyk.replaceSubrange(16 ..< 20, with: Array("CMYK".utf8))
        image.metadata.iccProfile = cmyk
        let (out, warning) = image.inColorSpace(.sRGB)
        #expect(out.pixels == image.pixels && out.metadata.iccProfile == nil)
        #expect(warning?.contains("ICC profile") == true)
        #expect(image.inColorSpace(.asStored).image == image)
    }
}
