#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#elseif canImport(Musl)
import Musl
#endif

/// The whole-image coefficients of coefficient mode (progressive and multi-scan sequential
/// files): one zeroed allocation per component, 64 `Int16` a block in natural order, block rows
/// of `paddedBlocksWide` blocks.
///
/// One allocation per component rather than one for the image, as libjpeg's per-component
/// arrays: a 12 MP 4:2:0 file needs 24 + 6 + 6 MB, and glibc's malloc keeps blocks up to
/// 32 MB on its heap for reuse once such a block has been freed, where a single 36 MB block is
/// mapped afresh and page-faulted in on every decode (18,000 faults a 12 MP progressive decode
/// against libjpeg-turbo's 11,800; `Sources/PureJPEG/Notes.md`, "Sixth round"). `calloc` also
/// skips the zero fill when the memory comes straight from the system.
///
/// Copies of a ``JPEGDecoder`` share the store; a decoder about to write coefficients takes its
/// own copy first unless it holds the store alone (``JPEGDecoder/ownCoefficients()``), so a
/// store is only ever written by one decoder and read by any number.
final class DecodedCoefficients: @unchecked Sendable {
    /// Per component: its coefficients (`counts[c]` values).
    let planes: UnsafeMutablePointer<UnsafeMutablePointer<Int16>>
    let counts: [Int]
    /// All components' values.
    let count: Int

    static let empty = DecodedCoefficients(counts: [])

    /// Zeroed storage of `counts[c]` values for component `c`.
    init(counts: [Int]) {
        self.counts = counts
        count = counts.reduce(0, +)
        planes = .allocate(capacity: max(counts.count, 1))
        for (c, n) in counts.enumerated() {
            // calloc of at least one value, so that every plane is a valid pointer.
            guard let raw = calloc(max(n, 1), MemoryLayout<Int16>.stride) else {
                fatalError("DecodedCoefficients: out of memory for \(n) coefficients")
            }
            (planes + c).initialize(to: raw.bindMemory(to: Int16.self, capacity: max(n, 1)))
        }
    }

    deinit {
        for c in 0 ..< counts.count { free(planes[c]) }
        planes.deallocate()
    }

    /// A store with the same values.
    func copy() -> DecodedCoefficients {
        let other = DecodedCoefficients(counts: counts)
        for c in 0 ..< counts.count { other.planes[c].update(from: planes[c], count: counts[c]) }
        return other
    }
}

extension JPEGDecoder {
    /// Before a scan writes coefficients: a store shared with a copy of this decoder stays
    /// with the copy, and this decoder goes on with its own copy of the values.
    mutating func ownCoefficients() {
        if !isKnownUniquelyReferenced(&coefficients) { coefficients = coefficients.copy() }
    }
}
