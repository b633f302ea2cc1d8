import PureImage
import ArgumentParser

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
        let text = oneLine(String(describing: error))
        Console.error("jpng: \(text)\n")
        throw ExitCode.failure
    }
}

func printNotice(_ text: String) {
    Console.error("jpng: \(text)\n")
}
