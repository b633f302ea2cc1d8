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
        if !isKnownUniquelyReferenced(&coefficientState.store) { coefficientState.store = coefficientState.store.copy() }
    }
}

/// A progressive component's block in the store when its scaled IDCT reads only some of the
/// coefficients. libjpeg-turbo's reduced IDCTs (jidctred.c) read rows and columns 0, 1, 3, 5
/// and 7 at 2x2 and the DC term alone at 1x1 (its 4x4 reads all but row and column 4, and is
/// stored whole). Such a block keeps those values (25, or 1), then a 64-bit map, bit n set
/// where natural-order coefficient n is nonzero: refinement scans (T.81 G.1.2.3) read a
/// correction bit for every coefficient already nonzero and count runs over the zero ones, so
/// the map is all they need of the others. A block of 1x1 components whose AC scans are passed
/// over unread (``JPEGDecodingOptions/dcScaleToFit``, ``SkippedScan``) keeps its DC term alone.
///
/// A scan decodes such a block through a 64-value scratch block: ``expand(_:valuesPerBlock:into:history:)``
/// puts back the kept values and a stand-in 1 where the map says nonzero (a refinement moves a
/// nonzero value away from zero, so it stays nonzero); ``compress(_:valuesPerBlock:into:)``
/// keeps the values and the new map.
///
/// A 192 MP 4:2:0 progressive photo at 1/8 stores 30 MB of luma (DC terms and maps) and 87 MB
/// of chroma instead of 576 MB; 6 MB of luma when its AC scans are passed over.
enum CompactBlock {
    /// Int16 values a block takes for an IDCT of `k` x `k` outputs (`dcOnly`: 1x1 blocks whose
    /// AC scans are passed over).
    static func valuesPerBlock(idctSize k: Int, dcOnly: Bool) -> Int {
        switch k {
        case 1: dcOnly ? 1 : 5
        case 2: 29
        default: 64
        }
    }

    /// Natural-order positions a 2x2 IDCT reads, in the order a compact block keeps them.
    static let kept: [Int] = [0, 1, 3, 5, 7].flatMap { row in [0, 1, 3, 5, 7].map { row * 8 + $0 } }

    /// Writes the kept values of `stored` (and with `history`, 1 wherever its map is set) into
    /// the 64-value `block`, which is zero except at kept positions.
    @inline(__always)
    static func expand(_ stored: UnsafePointer<Int16>, valuesPerBlock n: Int, into block: UnsafeMutablePointer<Int16>,
                       history: Bool) {
        let count = n == 1 ? 1 : n - 4
        if history && n > 1 {
            var map = UnsafeRawPointer(stored + count).loadUnaligned(as: UInt64.self)
            while map != 0 {
                block[map.trailingZeroBitCount] = 1
                map &= map &- 1
            }
        }
        if count == 1 {
            block[0] = stored[0]
            return
        }
        kept.withUnsafeBufferPointer { kept in
            for i in 0 ..< count { block[kept[i]] = stored[i] }
        }
    }

    /// Keeps `block`'s values at the kept positions, and its map of nonzero values, in `stored`.
    @inline(__always)
    static func compress(_ block: UnsafePointer<Int16>, valuesPerBlock n: Int, into stored: UnsafeMutablePointer<Int16>) {
        let count = n == 1 ? 1 : n - 4
        if count == 1 {
            stored[0] = block[0]
        } else {
            kept.withUnsafeBufferPointer { kept in
                for i in 0 ..< count { stored[i] = block[kept[i]] }
            }
        }
        guard n > 1 else { return }
        var map: UInt64 = 0
        for k in 0 ..< 64 where block[k] != 0 { map |= 1 &<< UInt64(k) }
        UnsafeMutableRawPointer(stored + count).storeBytes(of: map, as: UInt64.self)
    }
}
