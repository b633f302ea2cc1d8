import Testing
import TestSupport
@testable import PureWebP

/// Shared helpers of the lossy (VP8) tests: the vector list, PAM references, decoding in pieces.
enum LossyVectors {
    static let folder = "webp/lossy"

    static var names: [String] {
        TestVectors.files(in: folder, withExtension: "webp").map { String($0.dropLast(5)) }
    }

    static func file(_ name: String) throws -> [UInt8] {
        try TestVectors.bytes("\(folder)/\(name).webp")
    }

    /// `dwebp -pam` output: width, height, RGBA pixels.
    static func pam(_ name: String, fancy: Bool) throws -> (width: Int, height: Int, pixels: [UInt8]) {
        let bytes = try TestVectors.bytes("\(folder)/\(name)\(fancy ? "" : ".nofancy").pam")
        var fields: [String: Int] = [:]
        var i = 0
        var line = ""
        while i < bytes.count {
            let c = bytes[i]
            i += 1
            if c == 0x0a {
                if line == "ENDHDR" { break }
                let parts = line.split(separator: " ")
                if parts.count == 2, let v = Int(parts[1]) { fields[String(parts[0])] = v }
                line = ""
            } else {
                line.append(Character(UnicodeScalar(c)))
            }
        }
        return (fields["WIDTH"] ?? 0, fields["HEIGHT"] ?? 0, Array(bytes[i...]))
    }

    /// The `VP8 ` payload of a file.
    static func payload(_ file: [UInt8]) -> (bytes: [UInt8], offset: Int)? {
        file.withUnsafeBytes { raw in
            VP8Image.findChunk(raw).map { (Array(file[$0]), $0.lowerBound) }
        }
    }

    /// Decodes `payload` fed as a growing prefix in pieces of `step` bytes (nil: all at once),
    /// into RGBA; returns the pixels, the rows delivered and the error if any.
    static func decodeInPieces(_ payload: [UInt8], step: Int?, fancy: Bool, completeAtEnd: Bool = true)
        -> (pixels: [UInt8], rows: Int, error: WebPError?) {
        var pixels: [UInt8] = []
        var rows = 0
        var order = true
        do {
            let header = try payload.withUnsafeBytes { raw in
                try VP8Decoder.readHeader(raw, offset: 0)
            }
            var decoder = try VP8Decoder(header: header, fancyUpsampling: fancy)
            let stride = header.width * 4
            pixels = [UInt8](repeating: 0, count: stride * header.height)
            let size = step ?? max(payload.count, 1)
            var end = 0
            repeat {
                end = min(payload.count, end + size)
                let complete = completeAtEnd && end == payload.count
                try payload[0 ..< end].withUnsafeBytes { raw in
                    try pixels.withUnsafeMutableBufferPointer { out in
                        try decoder.decode(raw, isComplete: complete, offset: 0) { band in
                            if band.rows.lowerBound != rows { order = false }
                            band.write(to: out.baseAddress! + band.rows.lowerBound * stride, stride: stride, bytesPerPixel: 4)
                            rows = band.rows.upperBound
                        }
                    }
                }
            } while end < payload.count
        } catch let error as WebPError {
            return (pixels, order ? rows : -1, error)
        } catch {
            return (pixels, -1, .invalid(what: "\(error)", offset: 0))
        }
        return (pixels, order ? rows : -1, nil)
    }

    /// Where two RGBA images first differ, as text, or nil.
    static func firstDifference(_ a: [UInt8], _ b: [UInt8], width: Int) -> String? {
        guard a.count == b.count else { return "sizes \(a.count) and \(b.count)" }
        var count = 0
        var first: Int?
        for i in 0 ..< a.count where a[i] != b[i] {
            count += 1
            if first == nil { first = i }
        }
        guard let f = first else { return nil }
        let px = f / 4
        return "\(count) bytes differ; first at x \(px % width) y \(px / width) channel \(f % 4): \(a[f]) vs \(b[f])"
    }
}
