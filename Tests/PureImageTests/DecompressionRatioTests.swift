import PureImage
import Testing

/// `DecodingLimits.maxDecompressionRatio`: a small input declaring a huge image is refused at
/// the header, before the output is allocated, by every one-shot decoder; valid files pass.
@Suite struct DecompressionRatioTests {
    /// A PNG signature and IHDR for a `width` x `height` RGBA image, and nothing else (27 bytes of
    /// declaration standing for `width * height * 4` bytes of output).
    static func pngHeader(width: UInt32, height: UInt32) -> [UInt8] {
        var ihdr: [UInt8] = Array("IHDR".utf8)
        for v in [width, height] { ihdr += [UInt8(v >> 24), UInt8(v >> 16 & 255), UInt8(v >> 8 & 255), UInt8(v & 255)] }
        ihdr += [8, 6, 0, 0, 0]
        let crc = CRC32.checksum(ihdr)
        return [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13] + ihdr
            + [UInt8(crc >> 24), UInt8(crc >> 16 & 255), UInt8(crc >> 8 & 255), UInt8(crc & 255)]
    }

    /// A GIF header with a `width` x `height` logical screen and no image.
    static func gifHeader(width: UInt16, height: UInt16) -> [UInt8] {
        Array("GIF89a".utf8) + [UInt8(width & 255), UInt8(width >> 8), UInt8(height & 255), UInt8(height >> 8), 0, 0, 0]
            + [0x2C, 0, 0, 0, 0, 1, 0, 1, 0, 0, 2, 2, 0x44, 0x01, 0, 0x3B]
    }

    static func isRatio(_ violation: LimitViolation) -> Bool {
        if case .decompressionRatio = violation { return true }
        return false
    }

    @Test func checkArithmetic() {
        let limits = DecodingLimits(maxDecompressionRatio: 1000, inputSize: 10_000)
        // 10 MB allowed for 10 KB of input at 1000:1.
        #expect(limits.check(width: 1000, height: 1000, bytesPerPixel: 10) == nil)
        #expect(limits.check(width: 1000, height: 1001, bytesPerPixel: 10)
            == .decompressionRatio(requested: 10_010_000, inputBytes: 10_000, limit: 1000))
        // Under 1 MiB always passes; unknown input size never checks the ratio.
        #expect(DecodingLimits(maxDecompressionRatio: 1, inputSize: 1).check(width: 512, height: 512, bytesPerPixel: 4) == nil)
        #expect(DecodingLimits(maxDecompressionRatio: 1).check(width: 4000, height: 4000, bytesPerPixel: 4) == nil)
        // Overflowing products do not wrap into a pass.
        #expect(DecodingLimits(maxDecompressionRatio: .max, inputSize: .max).check(width: 100, height: 100, bytesPerPixel: 4) == nil)
        #expect(DecodingLimits().knowingInputSize(5).inputSize == 5)
        #expect(DecodingLimits(inputSize: 7).knowingInputSize(5).inputSize == 7)
    }

    @Test func pngBomb() {
        let bytes = Self.pngHeader(width: 8000, height: 8000)
        // 33 bytes cannot hold 256 MB of filtered rows, deflated at best 1,032:1.
        #expect {
            try PNGDecoder.decode(bytes)
        } throws: { error in
            guard case let .limitExceeded(violation, _)? = error as? PNGError, case .implausibleSize = violation else { return false }
            return true
        }
        // Without that check, the memory the header declares is over the ratio.
        #expect {
            try PNGDecoder.decode(bytes, limits: DecodingLimits(requiresPlausibleInput: false))
        } throws: { error in
            guard case let .limitExceeded(violation, offset)? = error as? PNGError else { return false }
            return Self.isRatio(violation) && offset < bytes.count
        }
        // Incremental decoding checks it too once the input size is given.
        var decoder = PNGDecoder(limits: DecodingLimits(inputSize: bytes.count))
        #expect(throws: PNGError.self) { try decoder.append(bytes) }
        // Without an input size the header passes and the file is merely truncated.
        var open = PNGDecoder()
        #expect(throws: Never.self) { try open.append(bytes) }
        #expect {
            try open.finish()
        } throws: { error in
            guard case .truncated? = error as? PNGError else { return false }
            return true
        }
    }

    @Test func gifCanvasBomb() {
        let bytes = Self.gifHeader(width: 12000, height: 12000)
        #expect {
            try GIFAnimation(bytes: bytes)
        } throws: { error in
            guard case let .limitExceeded(violation, _)? = error as? GIFError else { return false }
            return Self.isRatio(violation)
        }
        #expect {
            try ImageSource.decode(bytes)
        } throws: { error in
            guard case let .limitExceeded(violation, _)? = error as? GIFError else { return false }
            return Self.isRatio(violation)
        }
    }

    @Test func jpegTruncatedHugeHeader() throws {
        // The first 600 bytes of a valid JPEG, with its frame size patched to 12000 x 9000.
        let source = try JPEGEncoder.encode(Image(width: 64, height: 64, format: .rgb8), options: JPEGEncodingOptions(quality: 85))
        var bytes = Array(source.prefix(600))
        guard let sof = (0 ..< bytes.count - 9).first(where: { bytes[$0] == 0xFF && bytes[$0 + 1] == 0xC0 }) else {
            Issue.record("no SOF0"); return
        }
        bytes[sof + 5] = UInt8(9000 >> 8); bytes[sof + 6] = UInt8(9000 & 255)
        bytes[sof + 7] = UInt8(12000 >> 8); bytes[sof + 8] = UInt8(12000 & 255)
        // 600 bytes cannot hold 2.5 M blocks: refused as implausible at the frame header.
        #expect {
            try JPEGDecoder.decode(bytes)
        } throws: { error in
            guard case let .limitExceeded(violation, _)? = error as? JPEGError,
                  case .implausibleSize(_, inputBytes: 600) = violation else { return false }
            return true
        }
        // Without that check, the memory the header declares is over the ratio.
        #expect {
            try JPEGDecoder.decode(bytes, limits: DecodingLimits(requiresPlausibleInput: false))
        } throws: { error in
            guard case let .limitExceeded(violation, _)? = error as? JPEGError else { return false }
            return Self.isRatio(violation)
        }
    }

    @Test(arguments: ["png/valid", "png/pngsuite", "jpeg/valid", "gif"])
    func validVectorsPass(folder: String) throws {
        // Every committed vector of the folder still decodes with the default ratio.
        for name in TestVectors.files(in: folder) where name.hasSuffix(".png") || name.hasSuffix(".jpg") || name.hasSuffix(".gif") {
            let url = folder + "/" + name
            let bytes = try TestVectors.bytes(url)
            do { _ = try ImageSource.decode(bytes) } catch let error as PNGError {
                if case let .limitExceeded(violation, _) = error, Self.isRatio(violation) { Issue.record("\(url): \(error)") }
            } catch let error as JPEGError {
                if case let .limitExceeded(violation, _) = error, Self.isRatio(violation) { Issue.record("\(url): \(error)") }
            } catch let error as GIFError {
                if case let .limitExceeded(violation, _) = error, Self.isRatio(violation) { Issue.record("\(url): \(error)") }
            } catch {}
        }
    }
}
