/// SplitMix64: a small deterministic generator, so random tests reproduce from their seed.
public struct SplitMix64: RandomNumberGenerator, Sendable {
    public var state: UInt64

    public init(state: UInt64) { self.state = state }
    public init(seed: UInt64) { self.state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A value in 0..<n (0 when n <= 1).
    public mutating func below(_ n: Int) -> Int { Int(next() % UInt64(max(n, 1))) }
}

/// Bytes from SplitMix64: `next()` gives the low byte of each draw.
public struct SplitMixBytes: Sendable {
    public var generator: SplitMix64
    public init(state: UInt64) { generator = SplitMix64(state: state) }
    public mutating func next() -> UInt8 { UInt8(truncatingIfNeeded: generator.next()) }
}
