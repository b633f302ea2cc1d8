#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The few file-system calls the tile pyramid needs, on POSIX directly so the JPNG library does
/// not pull in Foundation.
enum TileFiles {
    static func makeDirectory(_ path: String) throws(TilePyramidError) {
        if mkdir(path, 0o755) != 0 && errno != EEXIST {
            throw .fileSystem(operation: "mkdir", path: path, errno: errno)
        }
    }

    static func exists(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0
    }

    static func isDirectory(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
    }

    /// Writes the whole of `bytes` to a new (or truncated) file.
    static func write(_ bytes: [UInt8], to path: String) throws(TilePyramidError) {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        guard fd >= 0 else { throw .fileSystem(operation: "open", path: path, errno: errno) }
        var failure: Int32 = 0
        bytes.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count, let base = raw.baseAddress {
                let n = posixWrite(fd, base + offset, raw.count - offset)
                if n < 0 {
                    if errno == EINTR { continue }
                    failure = errno
                    return
                }
                // write(2) returns 0 only for a zero-byte request; guard anyway so the loop ends.
                if n == 0 { failure = EIO; return }
                offset += n
            }
        }
        if close(fd) != 0 && failure == 0 { failure = errno }
        if failure != 0 { throw .fileSystem(operation: "write", path: path, errno: failure) }
    }

    static func read(_ path: String) throws(TilePyramidError) -> [UInt8] {
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else { throw .fileSystem(operation: "open", path: path, errno: errno) }
        defer { close(fd) }
        var result: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = chunk.withUnsafeMutableBytes { raw in posixRead(fd, raw.baseAddress, raw.count) }
            if n < 0 {
                if errno == EINTR { continue }
                throw .fileSystem(operation: "read", path: path, errno: errno)
            }
            if n == 0 { return result }
            result.append(contentsOf: chunk[0 ..< n])
        }
    }

    static func rename(_ from: String, to: String) throws(TilePyramidError) {
        if posixRename(from, to) != 0 { throw .fileSystem(operation: "rename", path: from, errno: errno) }
    }

    /// Deletes a file, or a folder and everything in it; a missing path is not an error.
    static func removeTree(_ path: String) {
        guard isDirectory(path) else {
            unlink(path)
            return
        }
        if let dir = opendir(path) {
            var names: [String] = []
            while let entry = readdir(dir) {
                let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                    String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
                }
                if name != "." && name != ".." { names.append(name) }
            }
            closedir(dir)
            for name in names { removeTree(path + "/" + name) }
        }
        rmdir(path)
    }

    static var processID: Int32 { getpid() }
}

// The module's own `write`/`read`/`rename` names would shadow the C functions inside `TileFiles`.
@inline(__always) private func posixWrite(_ fd: Int32, _ buffer: UnsafeRawPointer, _ count: Int) -> Int {
    write(fd, buffer, count)
}

@inline(__always) private func posixRead(_ fd: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
    read(fd, buffer, count)
}

@inline(__always) private func posixRename(_ from: String, _ to: String) -> Int32 {
    rename(from, to)
}
