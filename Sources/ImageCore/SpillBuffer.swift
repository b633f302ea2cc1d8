#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Zeroed working memory in a temporary file, for what a decoder must keep whole but should
/// not hold in memory (a progressive JPEG's coefficients, an interlaced PNG's image): libjpeg's
/// "backing store". The file is unlinked the moment it exists, so nothing is left behind on any
/// path, a crash included; it is mapped, the kernel pages it in as it is touched, and
/// ``noteTouched(bytes:)`` drops the mapped pages from memory (``trim()``) whenever the bytes
/// touched since the last drop pass ``window``, so the process holds about a window of it.
///
/// ```swift
/// let store = try SpillBuffer(byteCount: 600 << 20, directory: SpillBuffer.defaultDirectory)
/// store.base.storeBytes(of: 7, toByteOffset: 0, as: UInt8.self)
/// store.noteTouched(bytes: 1)
/// ```
public final class SpillBuffer: @unchecked Sendable {
    /// The mapped bytes (``byteCount`` of them, zero until written).
    public let base: UnsafeMutableRawPointer
    public let byteCount: Int
    /// The folder the file was made in.
    public let directory: String
    private let mappedBytes: Int
    private var touched = 0
    /// Bytes touched between drops: the part held in memory.
    public static let window = 16 << 20

    /// Why a spill file could not be made (the codecs wrap it in their own error).
    public struct Failure: Error, Sendable {
        public let reason: String
    }

    /// `TMPDIR` when set, else `/var/tmp` (disk-backed where `/tmp` may be memory).
    public static var defaultDirectory: String {
        if let dir = getenv("TMPDIR"), dir.pointee != 0 { return String(cString: dir) }
        return "/var/tmp"
    }

    /// A zeroed, mapped temporary file of `byteCount` bytes in `directory`.
    public init(byteCount: Int, directory: String) throws(Failure) {
        let page = 1 << 16
        let length = max((byteCount + page - 1) / page * page, page)
        var template = Array((directory.hasSuffix("/") ? directory : directory + "/").utf8CString.dropLast())
            + Array("pureimage-spill-XXXXXX".utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else { throw Failure(reason: "cannot create a file in \(directory): \(String(cString: strerror(errno)))") }
        template.withUnsafeBufferPointer { _ = unlink($0.baseAddress!) }
        defer { close(fd) }
        guard ftruncate(fd, off_t(length)) == 0 else {
            throw Failure(reason: "cannot size a \(length)-byte file in \(directory): \(String(cString: strerror(errno)))")
        }
        guard let mapped = mmap(nil, length, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0), mapped != MAP_FAILED else {
            throw Failure(reason: "cannot map \(length) bytes in \(directory): \(String(cString: strerror(errno)))")
        }
        base = mapped
        self.byteCount = byteCount
        self.directory = directory
        mappedBytes = length
    }

    deinit { munmap(base, mappedBytes) }

    /// Counts `bytes` more touched; past the window, drops every page from memory.
    public func noteTouched(bytes: Int) {
        touched += bytes
        if touched >= Self.window { trim() }
    }

    /// Drops every page from memory (the values stay in the file, written back as needed).
    public func trim() {
        touched = 0
        _ = madvise(base, mappedBytes, MADV_DONTNEED)
    }
}
