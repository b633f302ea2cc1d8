// What the tool needs beyond PureImage and ArgumentParser: FoundationEssentials (file manager,
// URL, Data, ProcessInfo) where the toolchain has it, which leaves out Foundation's ICU and
// internationalization libraries, whose loading and relocation cost every run a few milliseconds;
// the C library for descriptors and formatting.
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Dispatch
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Standard input, output and error as descriptors: whole writes, retried on EINTR and short
/// counts (a pipe takes what it has room for).
enum Console {
    static func write(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) {
        guard var base = bytes.baseAddress else { return }
        var left = bytes.count
        while left > 0 {
            let n = systemWrite(fd, base, left)
            if n < 0 {
                if errno == EINTR { continue }
                return
            }
            base += n
            left -= n
        }
    }

    static func write(_ fd: Int32, _ text: String) {
        var text = text
        text.withUTF8 { write(fd, UnsafeRawBufferPointer($0)) }
    }

    static func error(_ text: String) { write(STDERR_FILENO, text) }
    static func output(_ text: String) { write(STDOUT_FILENO, text) }
    static func output(_ bytes: [UInt8]) { bytes.withUnsafeBytes { write(STDOUT_FILENO, $0) } }

    /// Everything left on standard input.
    static func readStandardInput() throws -> [UInt8] {
        var all: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = chunk.withUnsafeMutableBytes { read(STDIN_FILENO, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                throw CLIError("-: cannot read (\(String(cString: strerror(errno))))")
            }
            if n == 0 { return all }
            all.append(contentsOf: chunk[0 ..< n])
        }
    }
}

/// `value` with `digits` decimals, rounded half away from zero (what `%.Nf` prints).
func fixed(_ value: Double, _ digits: Int) -> String {
    guard value.isFinite else { return "\(value)" }
    var scale = 1.0
    for _ in 0 ..< digits { scale *= 10 }
    let scaled = (abs(value) * scale).rounded(.toNearestOrAwayFromZero)
    guard scaled < 9e15 else { return "\(value)" }
    let whole = Int(scaled)
    let units = whole / Int(scale), fraction = whole % Int(scale)
    var text = (value < 0 && whole != 0 ? "-" : "") + String(units)
    if digits > 0 {
        let digitsText = String(fraction)
        text += "." + String(repeating: "0", count: digits - digitsText.count) + digitsText
    }
    return text
}

/// `value` in decimal, left-padded with zeros to `width` digits (`%0Nd`).
func zeroPadded(_ value: Int, _ width: Int) -> String {
    let digits = String(value)
    return digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
}

/// The size of the file at `path`, 0 when it cannot be read.
func fileSize(atPath path: String) -> Int {
    var info = stat()
    return stat(path, &info) == 0 ? Int(info.st_size) : 0
}

/// close(2) and write(2), named apart from the methods of the same names that call them.
@inline(__always) func systemClose(_ fd: Int32) -> Int32 { close(fd) }
@inline(__always) func systemWrite(_ fd: Int32, _ bytes: UnsafeRawPointer, _ count: Int) -> Int { write(fd, bytes, count) }

/// A lock around a critical section (a semaphore of one).
final class Lock: @unchecked Sendable {
    private let semaphore = DispatchSemaphore(value: 1)
    func lock() { semaphore.wait() }
    func unlock() { semaphore.signal() }
}

/// The text on one line: each newline a space.
func oneLine(_ text: String) -> String { String(text.map { $0 == "\n" ? " " : $0 }) }

/// True when `path` is a device, pipe or socket (`/dev/null`, `/dev/stdout`, a FIFO): output
/// goes into it as it is, never through a temporary file renamed over it, and it needs no
/// `--force` (as cjpeg and djpeg write to it).
func isSpecialFile(_ path: String) -> Bool {
    var info = stat()
    guard stat(path, &info) == 0 else { return false }
    return [S_IFCHR, S_IFBLK, S_IFIFO, S_IFSOCK].contains(info.st_mode & S_IFMT)
}

/// An output path that holds a file or folder `--force` must allow replacing.
func outputExists(_ path: String) -> Bool { fileExists(path) && !isSpecialFile(path) }

/// What is at `path`: nil when nothing, else whether it is a folder.
func isDirectory(_ path: String) -> Bool? {
    var info = stat()
    guard stat(path, &info) == 0 else { return nil }
    return (info.st_mode & S_IFMT) == S_IFDIR
}

/// The paths under `root`, relative to it, every level down (folders included), as
/// FileManager's enumerator lists them; unreadable folders are passed over.
func allPaths(under root: String) -> [String] {
    var found: [String] = []
    var pending = [""]
    while let relative = pending.popLast() {
        let folder = relative.isEmpty ? root : root + "/" + relative
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder) else { continue }
        for name in names {
            let path = relative.isEmpty ? name : relative + "/" + name
            found.append(path)
            if isDirectory(root + "/" + path) == true { pending.append(path) }
        }
    }
    return found
}

/// The text of the current `errno`.
func systemError() -> String { String(cString: strerror(errno)) }
