import PureImage
import ArgumentParser
import Foundation

/// A failure the tool reports as one line on stderr before exiting non-zero.
struct CLIError: Error, CustomStringConvertible {
    let message: String
    init(_ message: String) { self.message = message }
    var description: String { message }
}

/// Runs `body`; any error becomes one line `jpng: <message>` on stderr and exit status 1
/// (ArgumentParser's own error printing adds usage text, which is noise for runtime failures).
func reportingErrors(_ body: () throws -> Void) throws {
    do {
        try body()
    } catch let error as ExitCode {
        throw error
    } catch {
        let text = String(describing: error).replacingOccurrences(of: "\n", with: " ")
        FileHandle.standardError.write(Data("jpng: \(text)\n".utf8))
        throw ExitCode.failure
    }
}

func printNotice(_ text: String) {
    FileHandle.standardError.write(Data("jpng: \(text)\n".utf8))
}
