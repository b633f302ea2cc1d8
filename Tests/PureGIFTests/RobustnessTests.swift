import Foundation
import ImageCore
import Testing
@_spi(Testing) import PureGIF

/// Corrupted files never trap, and decode the same whole and in pieces.
@Suite("GIF robustness")
struct RobustnessTests {
    /// A deterministic generator (SplitMix64) so failures reproduce.
    struct Random {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        mutating func below(_ n: Int) -> Int { Int(next() % UInt64(max(n, 1))) }
    }

    @Test(arguments: ["disposal_chain_mixed", "anim_local_tables_interlaced", "lzw_deferred_clear_smooth",
                      "pillow_anim", "extensions_skipped", "codesize_1"])
    func mutatedFilesDecodeTheSameInPieces(_ name: String) throws {
        let original = try TestVectors.bytes("gif/\(name).gif")
        var random = Random(state: name.utf8.reduce(UInt64(7)) { $0 &* 31 &+ UInt64($1) })
        for _ in 0 ..< 60 {
            var bytes = original
            for _ in 0 ..< 1 + random.below(4) {
                let i = random.below(bytes.count)
                switch random.below(3) {
                case 0: bytes[i] = UInt8(truncatingIfNeeded: random.next())
                case 1: bytes[i] ^= UInt8(1 << random.below(8))
                default: bytes.removeSubrange(i ..< min(bytes.count, i + random.below(16)))
                }
            }
            let whole = Harness.decode(bytes)
            let pieces = Harness.decode(bytes, chunk: 7)
            #expect(whole.summary == pieces.summary)
            if let animation = try? GIFAnimation(bytes: bytes) {
                var iterator = animation.makeIterator()
                var count = 0
                while iterator.next() != nil { count += 1 }
                #expect(count <= animation.frames.count)
            }
        }
    }

    @Test func everyPrefixIsTruncatedOrComplete() throws {
        let bytes = try TestVectors.bytes("gif/disposal_previous_transparent.gif")
        for n in 0 ..< bytes.count {
            let run = Harness.decode(Array(bytes.prefix(n)))
            // A prefix ending at a block boundary after whole frames is complete (no trailer needed).
            if run.error != nil { #expect(run.code == "truncated", "prefix \(n)") }
        }
    }
}
