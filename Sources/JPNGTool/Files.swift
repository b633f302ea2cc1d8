import PureImage
import Foundation

/// Reads a whole file, or standard input for "-".
func readInput(_ path: String) throws -> [UInt8] {
    if path == "-" {
        return [UInt8](FileHandle.standardInput.readDataToEndOfFile())
    }
    guard FileManager.default.fileExists(atPath: path) else { throw CLIError("\(path): no such file") }
    do {
        return [UInt8](try Data(contentsOf: URL(fileURLWithPath: path), options: .mappedIfSafe))
    } catch {
        throw CLIError("\(path): cannot read (\(error.localizedDescription))")
    }
}

/// Writes `bytes` to `path` atomically: a temporary file in the same folder, renamed over the
/// target only once complete, so an error never leaves a half-written file. "-" is stdout.
func writeOutput(_ bytes: [UInt8], to path: String, force: Bool = true) throws {
    if path == "-" {
        FileHandle.standardOutput.write(Data(bytes))
        return
    }
    let url = URL(fileURLWithPath: path)
    let fm = FileManager.default
    if !force && fm.fileExists(atPath: path) {
        throw CLIError("\(path): already exists (use --force to overwrite)")
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
        throw CLIError("\(path): cannot write (\(error.localizedDescription))")
    }
}

/// The lower-cased extension of a path ("" when none).
func fileExtension(_ path: String) -> String {
    URL(fileURLWithPath: path).pathExtension.lowercased()
}

func fileExists(_ path: String) -> Bool { FileManager.default.fileExists(atPath: path) }
