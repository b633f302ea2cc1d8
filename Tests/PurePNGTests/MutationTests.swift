import Foundation
import ImageCore
import PurePNG
import Testing

/// Hostile input never traps and decodes the same in any pieces: valid vectors with bytes
/// changed inside one chunk (its CRC recomputed, so the change reaches the parsers, zlib and
/// the unfilter) must give, whole and in 1-, 13- and 787-byte pieces, the same image or the
/// same error code.
@Suite struct MutationTests {
    static let sources = [
        "valid/rgb8_seq_33x9.png", "valid/pal2_adam7_33x9.png", "valid/gray16_trns_adam7_13x7.png",
        "valid/rgba16_seq_7x5.png", "valid/chunk_all_ancillary_12x8.png", "valid/gray1_adam7_33x9.png",
        "valid/idat_split3_rgb8_15x10.png", "valid/chunk_iCCP_9x5.png", "valid/graya8_adam7_7x5.png",
    ]

    @Test(arguments: sources)
    func mutatedFilesBehaveTheSameInAnyPieces(_ path: String) throws {
        let original = try TestVectors.bytes("png/" + path)
        var rng = SplitMix(seed: UInt64(truncatingIfNeeded: original.count))
        var outcomes: [String: Int] = [:]
        for round in 0 ..< 60 {
            let mutated = Self.mutate(original, &rng)
            let whole = ChunkingTests.decode(mutated, pieces: nil)
            let key = whole.error?.code ?? "decoded"
            outcomes[key, default: 0] += 1
            // Byte-at-a-time feeding is the slow one in debug builds: every fourth round.
            for sizes in round % 4 == 0 ? [[1], [13], [787]] : [[13], [787]] {
                let outcome = ChunkingTests.decode(mutated, pieces: sizes)
                #expect(outcome.error?.code == whole.error?.code, "round \(round), pieces \(sizes)")
                #expect(outcome.image == whole.image, "round \(round), pieces \(sizes)")
            }
        }
        // The mutations must reach more than one outcome, or they test nothing.
        #expect(outcomes.count > 1, "\(outcomes)")
    }

    /// One of: change 1-3 bytes inside a chunk's data and fix its CRC; change a byte
    /// anywhere (CRC left wrong); cut the file short.
    static func mutate(_ bytes: [UInt8], _ rng: inout SplitMix) -> [UInt8] {
        var out = bytes
        var chunks: [(start: Int, length: Int)] = []
        var pos = 8
        while pos + 12 <= bytes.count {
            let length = bytes[pos ..< pos + 4].reduce(0) { $0 << 8 | Int($1) }
            chunks.append((pos, length))
            pos += 12 + length
        }
        switch rng.below(10) {
        case 0:
            out[rng.below(out.count)] ^= UInt8(1 + rng.below(255))
        case 1:
            out.removeLast(1 + rng.below(out.count - 1))
        default:
            let candidates = chunks.filter { $0.length > 0 }
            let chunk = candidates[rng.below(candidates.count)]
            for _ in 0 ..< 1 + rng.below(3) {
                let i = chunk.start + 8 + rng.below(chunk.length)
                out[i] = rng.below(3) == 0 ? UInt8(rng.below(256)) : out[i] ^ UInt8(1 << rng.below(8))
            }
            let crc = CRC32.checksum(out[chunk.start + 4 ..< chunk.start + 8 + chunk.length])
            let at = chunk.start + 8 + chunk.length
            out[at ..< at + 4] = [UInt8(crc >> 24), UInt8(crc >> 16 & 0xFF), UInt8(crc >> 8 & 0xFF), UInt8(crc & 0xFF)]
        }
        return out
    }
}

/// A small deterministic generator (SplitMix64) so that failures reproduce.
struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    mutating func below(_ n: Int) -> Int { Int(next() % UInt64(n)) }
}
