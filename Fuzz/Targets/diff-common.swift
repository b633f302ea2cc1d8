#if canImport(Glibc)
import Glibc
#endif

// Shared by the differential targets (diff-jpeg, diff-png, diff-gif): outcome classes counted
// per run and printed to stderr, and divergences (same input, different pixels where both
// decoders succeed) trapped or, with DIFF_KEEP_GOING=1, saved and counted.

/// The target's name in messages and file names ("jpeg", "png", "gif").
nonisolated(unsafe) var diffTarget = "?"
/// Outcome class -> count: "both decode", "both reject", "libjpeg decodes / PureJPEG corruptData", ...
nonisolated(unsafe) var diffClasses: [String: Int] = [:]
nonisolated(unsafe) var diffExecutions = 0
nonisolated(unsafe) var diffSaved: [String: Int] = [:]
let diffKeepGoing = getenv("DIFF_KEEP_GOING").map { String(cString: $0) == "1" } ?? false
/// Where divergences and examples of each reject/accept class are written.
let diffFindings = getenv("DIFF_FINDINGS").map { String(cString: $0) } ?? "/tmp/diff-findings"

/// Counts one execution; prints the class table at exit, after 1,000, 2,000, 4,000, ...
/// executions and then every 100,000.
func diffBegin(_ target: String) {
    diffExecutions += 1
    if diffExecutions == 1 {
        diffTarget = target
        atexit { diffPrintClasses() }
    }
    let n = diffExecutions
    if n >= 1000 && (n & (n - 1) == 0 || n % 100_000 == 0) { diffPrintClasses() }
}

func diffPrintClasses() {
    var text = "diff-\(diffTarget): outcome classes after \(diffExecutions) executions\n"
    for (name, count) in diffClasses.sorted(by: { $0.value > $1.value || ($0.value == $1.value && $0.key < $1.key) }) {
        text += "  \(count)\t\(name)\n"
    }
    fputs(text, stderr)
}

func fnv1a(_ bytes: [UInt8]) -> UInt64 {
    var h: UInt64 = 0xcbf2_9ce4_8422_2325
    for b in bytes { h = (h ^ UInt64(b)) &* 0x100_0000_01b3 }
    return h
}

/// Counts an outcome; the first three inputs of a class that is not plain agreement are saved
/// under DIFF_FINDINGS/classes/ so the class can be explained.
func diffCount(_ name: String, _ bytes: [UInt8], example: Bool = true) {
    diffClasses[name, default: 0] += 1
    if example { diffSave(bytes, folder: "classes", name: name, keep: 3) }
}

/// Two successful decodes disagree: trap (a fuzzer finding), or with DIFF_KEEP_GOING=1 save the
/// input under DIFF_FINDINGS (the first 20 per class) and count it.
func diffDiverge(_ name: String, _ detail: String, _ bytes: [UInt8]) {
    let path = diffSave(bytes, folder: "", name: "DIVERGENCE " + name, keep: 20)
    if !diffKeepGoing { fatalError("diff-\(diffTarget): DIVERGENCE \(name): \(detail)") }
    if diffClasses["DIVERGENCE " + name] == nil {
        fputs("diff-\(diffTarget): DIVERGENCE \(name): \(detail) (\(path ?? "not saved"))\n", stderr)
    }
    diffClasses["DIVERGENCE " + name, default: 0] += 1
}

@discardableResult
func diffSave(_ bytes: [UInt8], folder: String, name: String, keep: Int) -> String? {
    let key = folder + "/" + name
    guard diffSaved[key, default: 0] < keep else { return nil }
    diffSaved[key, default: 0] += 1
    let safe = String(name.map { $0.isLetter || $0.isNumber || $0 == "-" ? $0 : "_" }.prefix(120))
    let dir = folder.isEmpty ? diffFindings : diffFindings + "/" + folder
    mkdir(diffFindings, 0o755)
    mkdir(dir, 0o755)
    let hex = String(fnv1a(bytes), radix: 16)
    let path = "\(dir)/\(diffTarget)-\(safe)-\(hex).bin"
    guard let file = fopen(path, "wb") else { return nil }
    _ = bytes.withUnsafeBytes { fwrite($0.baseAddress, 1, $0.count, file) }
    fclose(file)
    return path
}
