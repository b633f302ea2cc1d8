#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Hints to the kernel about large buffers about to be written.
public enum PageHints {
    /// Buffers from this size up are worth the hint.
    public static let hugePageMinimum = 4 << 20

    /// Asks Linux to back the 2 MiB-aligned part of a fresh buffer with transparent huge pages
    /// (`madvise(MADV_HUGEPAGE)`, honoured where THP is in `madvise` or `always` mode): the
    /// first write to each 2 MiB then costs one page fault instead of 512. Call it before
    /// anything touches the buffer; it changes no contents. Elsewhere, and below
    /// ``hugePageMinimum``, it does nothing.
    public static func preferHugePages(_ start: UnsafeMutableRawPointer, count: Int) {
        #if os(Linux)
        guard count >= hugePageMinimum else { return }
        let huge = 2 << 20
        let first = (Int(bitPattern: start) + huge - 1) & ~(huge - 1)
        let end = (Int(bitPattern: start) + count) & ~(huge - 1)
        guard end > first, let aligned = UnsafeMutableRawPointer(bitPattern: first) else { return }
        _ = madvise(aligned, end - first, MADV_HUGEPAGE)
        #endif
    }
}
