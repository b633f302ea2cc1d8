#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#elseif canImport(Musl)
import Musl
#endif
import ImageCore

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
///
/// A spilled store (``init(counts:spillDirectory:)``, libjpeg's "backing store") lives in a
/// `SpillBuffer`: an unlinked, mapped temporary file of which about a 16 MB window is held in
/// memory, whatever the image's size.
final class DecodedCoefficients: @unchecked Sendable {
    /// Per component: its coefficients (`counts[c]` values).
    let planes: UnsafeMutablePointer<UnsafeMutablePointer<Int16>>
    let counts: [Int]
    /// All components' values.
    let count: Int
    /// A spilled store's file (nil in memory).
    private let spill: SpillBuffer?
    /// Bytes a spilled store may touch between trims: the part of it held in memory.
    static let window = SpillBuffer.window

    static let empty = DecodedCoefficients(counts: [])

    /// True when the values live in a temporary file.
    var isSpilled: Bool { spill != nil }

    /// Zeroed storage in a temporary file in `directory` (``SpillBuffer``); each component's
    /// plane starts on a 64 KB boundary.
    init(counts: [Int], spillDirectory directory: String) throws(JPEGError) {
        self.counts = counts
        count = counts.reduce(0, +)
        let page = 1 << 16
        var offsets: [Int] = [], total = 0
        for n in counts {
            offsets.append(total)
            total += (max(n, 1) * MemoryLayout<Int16>.stride + page - 1) / page * page
        }
        do {
            spill = try SpillBuffer(byteCount: total, directory: directory)
        } catch {
            throw .temporaryStorage(reason: error.reason)
        }
        planes = .allocate(capacity: max(counts.count, 1))
        for c in counts.indices {
            (planes + c).initialize(to: (spill!.base + offsets[c]).bindMemory(to: Int16.self, capacity: max(counts[c], 1)))
        }
    }

    /// Drops the spilled store's pages from memory once `bytes` more have been touched since the
    /// last drop passed the window (the values stay in the file). Nothing for a store in memory.
    func noteTouched(bytes: Int) {
        spill?.noteTouched(bytes: bytes)
    }

    /// Zeroed storage of `counts[c]` values for component `c`.
    init(counts: [Int]) {
        spill = nil
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
        if spill == nil {
            for c in 0 ..< counts.count { free(planes[c]) }
        }
        planes.deallocate()
    }

    /// A store with the same values (a spilled one in another temporary file, or in memory if
    /// that cannot be made).
    func copy() -> DecodedCoefficients {
        let other = spill.flatMap { try? DecodedCoefficients(counts: counts, spillDirectory: $0.directory) }
            ?? DecodedCoefficients(counts: counts)
        for c in 0 ..< counts.count {
            other.planes[c].update(from: planes[c], count: counts[c])
            other.noteTouched(bytes: counts[c] * 2)
        }
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
