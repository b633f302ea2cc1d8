/// Lane conversions the codecs' SIMD kernels share, written lane by lane with constant indices.
///
/// The standard library's generic conversions (`SIMD16<UInt8>(truncatingIfNeeded:)` and the
/// like) are specialised in another file's LLVM module under SwiftPM and stay calls in hot
/// loops; a vector built from constant lanes of other vectors inlines and becomes one or two
/// SSE2 instructions (here `pand` + `packuswb`, or a single `packuswb` when the lanes are known
/// to be 0...255).
extension SIMD16 where Scalar == UInt8 {
    /// The low byte of every lane of `low`, then of every lane of `high`.
    ///
    /// ```swift
    /// let bytes = SIMD16<UInt8>(truncatingLanesOf: SIMD8<Int16>(repeating: 300), SIMD8<Int16>(repeating: 7))
    /// // bytes[0] == 44 (300 & 255), bytes[8] == 7
    /// ```
    @inlinable @inline(__always)
    public init(truncatingLanesOf low: SIMD8<Int16>, _ high: SIMD8<Int16>) {
        self.init(UInt8(truncatingIfNeeded: low[0]), UInt8(truncatingIfNeeded: low[1]),
                  UInt8(truncatingIfNeeded: low[2]), UInt8(truncatingIfNeeded: low[3]),
                  UInt8(truncatingIfNeeded: low[4]), UInt8(truncatingIfNeeded: low[5]),
                  UInt8(truncatingIfNeeded: low[6]), UInt8(truncatingIfNeeded: low[7]),
                  UInt8(truncatingIfNeeded: high[0]), UInt8(truncatingIfNeeded: high[1]),
                  UInt8(truncatingIfNeeded: high[2]), UInt8(truncatingIfNeeded: high[3]),
                  UInt8(truncatingIfNeeded: high[4]), UInt8(truncatingIfNeeded: high[5]),
                  UInt8(truncatingIfNeeded: high[6]), UInt8(truncatingIfNeeded: high[7]))
    }
}
