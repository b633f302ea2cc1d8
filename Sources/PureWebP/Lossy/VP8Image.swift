import ImageCore

/// Whole-picture conveniences over `VP8Decoder`, for tests and simple callers: locating the
/// `VP8 ` chunk in a RIFF WebP file (simple or extended layout; no validation beyond what the
/// walk needs, which is the container decoder's job) and decoding a payload to RGB(A) at once.
enum VP8Image {
    /// The payload range of the first `VP8 ` chunk in a RIFF WebP file, or nil.
    static func findChunk(_ file: UnsafeRawBufferPointer) -> Range<Int>? {
        guard file.count >= 12, file[0] == 0x52, file[1] == 0x49, file[2] == 0x46, file[3] == 0x46,
              file[8] == 0x57, file[9] == 0x45, file[10] == 0x42, file[11] == 0x50 else { return nil }
        var p = 12
        while p + 8 <= file.count {
            let size = Int(file[p + 4]) | Int(file[p + 5]) << 8 | Int(file[p + 6]) << 16 | Int(file[p + 7]) << 24
            let start = p + 8
            if file[p] == 0x56, file[p + 1] == 0x50, file[p + 2] == 0x38, file[p + 3] == 0x20 {
                return start ..< min(start + size, file.count)
            }
            p = start + size + (size & 1)
        }
        return nil
    }

    /// Decodes a whole `VP8 ` payload to `bytesPerPixel` (3: RGB, 4: RGBA with alpha 255) pixels.
    static func decode(_ payload: UnsafeRawBufferPointer, offset: Int = 0, fancyUpsampling: Bool = true,
                       bytesPerPixel: Int = 4, limits: DecodingLimits = .default,
                       useThreads: Bool = false) throws(WebPError)
        -> (width: Int, height: Int, pixels: [UInt8]) {
        let header = try VP8Decoder.readHeader(payload, offset: offset, payloadSize: payload.count)
        var decoder = try VP8Decoder(header: header, limits: limits, fancyUpsampling: fancyUpsampling,
                                     useThreads: useThreads)
        var pixels = [UInt8](repeating: 0, count: header.width * header.height * bytesPerPixel)
        let stride = header.width * bytesPerPixel
        try pixels.withUnsafeMutableBufferPointer { out throws(WebPError) in
            let output = VP8Output(pixels: out.baseAddress!, stride: stride, bytesPerPixel: bytesPerPixel)
            try decoder.decode(payload, isComplete: true, offset: offset, output: output) { _ in }
        }
        return (header.width, header.height, pixels)
    }
}
