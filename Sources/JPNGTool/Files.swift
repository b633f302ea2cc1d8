import PureImage
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads a whole file, or standard input for "-".
func readInput(_ path: String) throws -> [UInt8] {
    if path == "-" {
        return try Console.readStandardInput()
    }
    guard FileManager.default.fileExists(atPath: path) else { throw CLIError("\(path): no such file") }
    let fd = open(path, O_RDONLY)
    guard fd >= 0 else { throw CLIError("\(path): cannot read (\(systemError()))") }
    defer { _ = close(fd) }
    var info = stat()
    guard fstat(fd, &info) == 0 else { throw CLIError("\(path): cannot read (\(systemError()))") }
    var bytes = [UInt8](repeating: 0, count: Int(info.st_size))
    var done = 0
    while done < bytes.count {
        let n = bytes.withUnsafeMutableBytes { read(fd, $0.baseAddress! + done, $0.count - done) }
        if n < 0 && errno == EINTR { continue }
        guard n >= 0 else { throw CLIError("\(path): cannot read (\(systemError()))") }
        if n == 0 { break }
        done += n
    }
    if done < bytes.count { bytes.removeSubrange(done...) }
    return bytes
}

/// The first `count` bytes of a file (fewer when it is shorter; none when it cannot be read).
func readPrefix(_ path: String, count: Int) -> [UInt8] {
    let fd = open(path, O_RDONLY)
    guard fd >= 0 else { return [] }
    defer { _ = close(fd) }
    var bytes = [UInt8](repeating: 0, count: count)
    var done = 0
    while done < count {
        let n = bytes.withUnsafeMutableBytes { read(fd, $0.baseAddress! + done, count - done) }
        if n < 0 && errno == EINTR { continue }
        if n <= 0 { break }
        done += n
    }
    return Array(bytes[0 ..< done])
}

/// Writes `bytes` to `path` atomically: a temporary file in the same folder, renamed over the
/// target only once complete, so an error never leaves a half-written file. "-" is stdout.
func writeOutput(_ bytes: [UInt8], to path: String, force: Bool = true) throws {
    if path == "-" {
        Console.output(bytes)
        return
    }
    let url = URL(fileURLWithPath: path)
    let fm = FileManager.default
    if !force && outputExists(path) {
        throw CLIError("\(path): already exists (use --force to overwrite)")
    }
    if isSpecialFile(path) {
        let fd = open(path, O_WRONLY)
        guard fd >= 0 else { throw CLIError("\(path): cannot write (\(String(cString: strerror(errno))))") }
        defer { _ = systemClose(fd) }
        try bytes.withUnsafeBytes { try OutputSink.writeAll(fd, $0, path: path) }
        return
    }
    let dir = url.deletingLastPathComponent()
    if !fm.fileExists(atPath: dir.path) {
        try fm.createDirectory(at: dir, withIntermediateDirectories: true)
    }
    let temp = dir.appendingPathComponent(".\(url.lastPathComponent).\(ProcessInfo.processInfo.processIdentifier).tmp")
    do {
        try Data(bytes).write(to: temp)
        // rename(2) replaces an existing target atomically: readers see the old file or the new one.
        guard rename(temp.path, url.path) == 0 else {
            throw CLIError("\(path): cannot write (\(String(cString: strerror(errno))))")
        }
    } catch let error as CLIError {
        try? fm.removeItem(at: temp)
        throw error
    } catch {
        try? fm.removeItem(at: temp)
        throw CLIError("\(path): cannot write (\(error))")
    }
}

/// The lower-cased extension of a path ("" when none).
func fileExtension(_ path: String) -> String {
    URL(fileURLWithPath: path).pathExtension.lowercased()
}

func fileExists(_ path: String) -> Bool { FileManager.default.fileExists(atPath: path) }
