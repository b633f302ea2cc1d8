// The shared test helpers (TestVectors, SplitMix64) for every file of this target.
@_exported import TestSupport
import Foundation
import ImageCore
import Testing
@testable import PureWebP

/// One line of Vectors/webp/manifest.tsv.
struct WebPVector: Sendable, CustomTestStringConvertible {
    struct Frame: Sendable { var x, y, width, height, duration: Int; var disposeBackground, blend, hasAlpha: Bool }
    var name: String
    var isAnimation: Bool
    var tool: String
    var width: Int
    var height: Int
    var loop = 0
    var background: UInt32 = 0
    var frames: [Frame] = []

    var testDescription: String { name }
    var isLossy: Bool { name.hasPrefix("alpha_") || name.hasPrefix("lossy") || name.contains("lossy") || name.contains("mixed") || name.contains("perframe") || name == "meta_all_lossy_alpha" }

    func bytes() throws -> [UInt8] { try TestVectors.bytes("webp/\(name).webp") }
    /// The reference RGBA: the whole image, or every composited canvas one after another.
    func reference() throws -> [UInt8] { try PAM.rgba(TestVectors.bytes("webp/\(name).pam")) }

    static let all: [WebPVector] = {
        guard let text = try? String(contentsOf: TestVectors.url("webp/manifest.tsv"), encoding: .utf8) else { return [] }
        return text.split(separator: "\n").map { line in
            let f = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            var v = WebPVector(name: f[0], isAnimation: f[1] == "anim", tool: f[2], width: Int(f[3])!, height: Int(f[4])!)
            if v.isAnimation {
                v.loop = Int(f[5])!
                v.background = UInt32(f[6], radix: 16)!
                v.frames = f[8...].map { s in
                    let n = s.split(separator: ",").map { Int($0)! }
                    return Frame(x: n[0], y: n[1], width: n[2], height: n[3], duration: n[4],
                                 disposeBackground: n[5] == 1, blend: n[6] == 1, hasAlpha: n[7] == 1)
                }
            }
            return v
        }
    }()
    static let stills = all.filter { !$0.isAnimation }
    static let animations = all.filter { $0.isAnimation }
}

enum PAM {
    /// The samples of a PAM (RGB_ALPHA, 8-bit) written by dwebp or the harness.
    static func rgba(_ bytes: [UInt8]) -> [UInt8] {
        let marker = Array("ENDHDR\n".utf8)
        var i = 0
        while i + marker.count <= bytes.count, Array(bytes[i ..< i + marker.count]) != marker { i += 1 }
        return Array(bytes[(i + marker.count)...])
    }
}

/// Runs a decoder over `bytes` fed in pieces of `chunk` bytes.
struct Run {
    var events: [DecodingEvent] = []
    var image: Image?
    var error: WebPError?
    var decoder: WebPDecoder

    init(_ bytes: [UInt8], chunk: Int = .max, limits: DecodingLimits = .default, options: WebPDecodingOptions = .init()) {
        decoder = WebPDecoder(limits: limits, options: options)
        do {
            var start = 0
            while start < bytes.count {
                let end = min(bytes.count, start + min(chunk, bytes.count))
                events += try decoder.append(bytes[start ..< end])
                start = end
            }
            image = try decoder.finish()
        } catch {
            self.error = error
        }
    }
}

extension Image {
    /// The pixels as RGBA8 (alpha 255 added to RGB).
    var rgba: [UInt8] {
        if format == .rgba8 { return pixels }
        var out = [UInt8](); out.reserveCapacity(width * height * 4)
        for i in stride(from: 0, to: pixels.count, by: 3) { out += [pixels[i], pixels[i + 1], pixels[i + 2], 255] }
        return out
    }
}
