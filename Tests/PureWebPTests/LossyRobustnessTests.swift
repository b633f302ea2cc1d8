import ImageCore
import Testing
import TestSupport
@testable import PureWebP

/// Damaged and hostile VP8 payloads: truncation throws after the rows before it, bit flips never
/// trap, limits refuse before allocating, and a copied decoder is an independent rollback point.
@Suite struct LossyRobustnessTests {
    static let sample = ["photo64_q80", "parts4_photo97x75", "grad17x31_q5", "photo64_simple", "noise33x18_q100"]

    @Test(arguments: sample)
    func truncatedPayloadThrowsAfterTheRowsBefore(name: String) throws {
        let (payload, _) = try #require(LossyVectors.payload(try LossyVectors.file(name)))
        let reference = try LossyVectors.pam(name, fancy: true)
        let stride = reference.width * 4
        for fraction in [0, 1, 5, 20, 50, 80, 95] {
            let cut = Array(payload[0 ..< payload.count * fraction / 100])
            let result = LossyVectors.decodeInPieces(cut, step: nil, fancy: true)
            #expect(result.error != nil, "\(name) cut at \(fraction)%: no error")
            #expect(result.rows >= 0 && result.rows < reference.height, "\(name) cut at \(fraction)%: rows \(result.rows)")
            // The rows handed out before the error are the reference rows.
            if result.rows > 0 {
                let n = result.rows * stride
                #expect(Array(result.pixels[0 ..< n]) == Array(reference.pixels[0 ..< n]), "\(name) cut at \(fraction)%")
            }
            // Fed in pieces, the same prefix delivers the same rows and the same error.
            let pieces = LossyVectors.decodeInPieces(cut, step: 13, fancy: true)
            #expect(pieces.rows == result.rows && pieces.error == result.error, "\(name) cut at \(fraction)% in pieces: \(pieces.rows) \(String(describing: pieces.error)) vs \(result.rows) \(String(describing: result.error))")
        }
    }

    @Test func incompleteInputWaitsWithoutError() throws {
        let (payload, _) = try #require(LossyVectors.payload(try LossyVectors.file("photo250x187_q80")))
        let half = Array(payload[0 ..< payload.count / 2])
        let result = LossyVectors.decodeInPieces(half, step: 100, fancy: true, completeAtEnd: false)
        #expect(result.error == nil)
        #expect(result.rows > 0 && result.rows < 187)
    }

    @Test(arguments: sample)
    func bitFlipsNeverTrap(name: String) throws {
        let (payload, _) = try #require(LossyVectors.payload(try LossyVectors.file(name)))
        var rng = SplitMix64(seed: 0x5eed_0000 &+ UInt64(payload.count))
        var errors = 0
        for trial in 0 ..< 150 {
            var damaged = payload
            let flips = 1 + trial % 4
            for _ in 0 ..< flips {
                // Mostly after the 10-byte frame header, so the decode gets somewhere.
                let lower = trial % 10 == 0 ? 0 : min(10, damaged.count - 1)
                let i = Int.random(in: lower ..< damaged.count, using: &rng)
                damaged[i] ^= UInt8(1) << UInt8.random(in: 0 ..< 8, using: &rng)
            }
            let step: Int? = trial % 3 == 0 ? 5 : nil
            let result = LossyVectors.decodeInPieces(damaged, step: step, fancy: trial & 1 == 0)
            if result.error != nil { errors += 1 }
        }
        // Flipped bits desynchronise the entropy decoder: some decodes fail, none traps.
        #expect(errors < 150)
    }

    @Test func randomPayloadsNeverTrap() {
        var rng = SplitMix64(seed: 42)
        for size in [10, 11, 20, 64, 300, 2000] {
            for _ in 0 ..< 40 {
                var bytes = (0 ..< size).map { _ in UInt8.random(in: 0 ... 255, using: &rng) }
                // A valid frame tag and start code so the header passes and the rest is exercised.
                let firstPartition = min(size / 2, 1000)
                let tag = (firstPartition << 5) | 0x10
                bytes[0] = UInt8(tag & 0xff); bytes[1] = UInt8((tag >> 8) & 0xff); bytes[2] = UInt8(tag >> 16)
                bytes[3] = 0x9d; bytes[4] = 0x01; bytes[5] = 0x2a
                bytes[6] = 40; bytes[7] = 0; bytes[8] = 30; bytes[9] = 0
                _ = LossyVectors.decodeInPieces(bytes, step: nil, fancy: true)
            }
        }
    }

    @Test func headerErrors() throws {
        let (payload, offset) = try #require(LossyVectors.payload(try LossyVectors.file("photo64_q80")))
        func read(_ bytes: [UInt8]) -> WebPError? {
            bytes.withUnsafeBytes { raw -> WebPError? in
                do { _ = try VP8Decoder.readHeader(raw, offset: offset, payloadSize: raw.count); return nil } catch let e as WebPError { return e } catch { return nil }
            }
        }
        #expect(read(payload) == nil)
        #expect(read(Array(payload[0 ..< 9])) == .truncated(what: "VP8 frame header", offset: offset + 9))
        var interframe = payload
        interframe[0] |= 1
        #expect(read(interframe) == .unsupported(what: "VP8 interframe (not a key frame)", offset: offset))
        var code = payload
        code[4] = 0
        #expect(read(code) == .invalid(what: "VP8 start code", offset: offset + 3))
        var zero = payload
        zero[6] = 0; zero[7] = 0
        #expect(read(zero) == .invalid(what: "VP8 size 0x64", offset: offset + 6))
    }

    @Test func limitsRefuseBeforeAllocating() throws {
        let (payload, _) = try #require(LossyVectors.payload(try LossyVectors.file("photo250x187_q80")))
        let header = try payload.withUnsafeBytes { raw in try VP8Decoder.readHeader(raw, offset: 0) }
        var limits = DecodingLimits()
        limits.maxPixels = 250 * 187 - 1
        #expect(throws: WebPError.self) { try VP8Decoder(header: header, limits: limits) }
        limits.maxPixels = 250 * 187
        #expect(throws: Never.self) { try VP8Decoder(header: header, limits: limits) }
        // A tiny input claiming a huge picture is implausible.
        var huge = payload
        huge[6] = 0x40; huge[7] = 0x1f; huge[8] = 0x40; huge[9] = 0x1f
        let small = Array(huge[0 ..< 200])
        let hugeHeader = try small.withUnsafeBytes { raw in try VP8Decoder.readHeader(raw, offset: 0) }
        var decoder = try VP8Decoder(header: hugeHeader, limits: DecodingLimits().knowingInputSize(200))
        #expect(throws: WebPError.self) {
            try small.withUnsafeBytes { raw in try decoder.decode(raw, isComplete: true, offset: 0) { _ in } }
        }
    }

    @Test func copiedDecoderIsARollbackPoint() throws {
        let name = "parts8_photo250x187"
        let (payload, _) = try #require(LossyVectors.payload(try LossyVectors.file(name)))
        let reference = try LossyVectors.pam(name, fancy: false)
        let header = try payload.withUnsafeBytes { raw in try VP8Decoder.readHeader(raw, offset: 0) }
        var decoder = try VP8Decoder(header: header, fancyUpsampling: false)
        let stride = header.width * 4
        var first = [UInt8](repeating: 0, count: stride * header.height)
        let prefix = Array(payload[0 ..< payload.count * 2 / 3])
        try prefix.withUnsafeBytes { raw in
            try first.withUnsafeMutableBufferPointer { out in
                try decoder.decode(raw, isComplete: false, offset: 0) { band in
                    band.write(to: out.baseAddress! + band.rows.lowerBound * stride, stride: stride, bytesPerPixel: 4)
                }
            }
        }
        let saved = decoder
        var second = first
        for (copy, target) in [(decoder, 0), (saved, 1)] {
            var d = copy
            var out = target == 0 ? first : second
            try payload.withUnsafeBytes { raw in
                try out.withUnsafeMutableBufferPointer { o in
                    try d.decode(raw, isComplete: true, offset: 0) { band in
                        band.write(to: o.baseAddress! + band.rows.lowerBound * stride, stride: stride, bytesPerPixel: 4)
                    }
                }
            }
            #expect(d.isFinished)
            if target == 0 { first = out } else { second = out }
        }
        #expect(first == reference.pixels)
        #expect(second == reference.pixels)
    }
}
