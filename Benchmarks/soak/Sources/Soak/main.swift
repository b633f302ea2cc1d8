// Decodes every vector (one-shot, incrementally in 4 KiB pieces with previews, and as rows),
// re-encodes what decoded (PNG, JPEG, JPNG, APNG for animations), in a loop for N minutes, and
// prints the resident set size once a minute: after warm-up it must stay flat.
//   Soak MINUTES VECTOR_FOLDER
import Foundation
import PureImage

let arguments = CommandLine.arguments
guard arguments.count == 3, let minutes = Double(arguments[1]), minutes > 0 else {
    FileHandle.standardError.write(Data("usage: Soak MINUTES VECTOR_FOLDER\n".utf8))
    exit(2)
}
let root = URL(fileURLWithPath: arguments[2])

/// Resident set size in MiB, from /proc/self/statm (pages), or Mach task info elsewhere.
func residentMiB() -> Double {
    #if os(Linux)
    guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
    let fields = text.split(separator: " ")
    guard fields.count > 1, let pages = Double(fields[1]) else { return 0 }
    return pages * Double(sysconf(Int32(_SC_PAGESIZE))) / 1_048_576
    #else
    return 0
    #endif
}

var files: [[UInt8]] = []
if let walker = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil) {
    for case let url as URL in walker where ["jpg", "jpeg", "png", "gif", "jpng"].contains(url.pathExtension.lowercased()) {
        if let data = try? Data(contentsOf: url), data.count <= 4 << 20 { files.append([UInt8](data)) }
    }
}
files.sort { $0.count < $1.count }
let limits = DecodingLimits(maxPixels: 40_000_000, maxBytes: 512 << 20)
/// One line on stdout, written at once (print buffers when stdout is a file).
func say(_ line: String) { FileHandle.standardOutput.write(Data((line + "\n").utf8)) }

say("soak: \(files.count) files, \(files.reduce(0) { $0 + $1.count }) bytes, \(minutes) minutes")
say("minute\tpasses\tdecodes\tencodes\terrors\trss_mib")

let start = Date()
var nextReport = 0.0
var passes = 0, decodes = 0, encodes = 0, errors = 0

@MainActor func report(_ elapsed: Double) {
    say(String(format: "%.0f\t%d\t%d\t%d\t%d\t%.1f", elapsed / 60, passes, decodes, encodes, errors, residentMiB()))
}

report(0)
nextReport = 60
while Date().timeIntervalSince(start) < minutes * 60 {
    for bytes in files {
        do {
            let options = ImageSourceOptions(limits: limits)
            // One-shot.
            if let image = try? ImageSource.decode(bytes, options: options) {
                decodes += 1
                let small = image.width * image.height <= 1 << 20
                if small {
                    if (try? PNGEncoder.encode(image)) != nil { encodes += 1 }
                    if (try? JPEGEncoder.encode(image.converted(to: .rgb8))) != nil { encodes += 1 }
                    if image.format.hasAlpha, (try? JPNGEncoder.encode(image.converted(to: .rgba8))) != nil { encodes += 1 }
                }
            } else {
                errors += 1
            }
            // Incremental, 4 KiB pieces, a preview after each.
            var source = ImageSource(options: options)
            var offset = 0
            var failed = false
            while offset < bytes.count && !failed {
                let end = min(bytes.count, offset + 4096)
                do { _ = try source.append(bytes[offset ..< end]) } catch { failed = true }
                _ = source.preview()
                offset = end
            }
            if !failed { _ = try? source.finish() }
            // Rows.
            var rows = RowStreamDecoder(options: options)
            if (try? rows.append(bytes, rows: { _ in })) != nil { try? rows.finish { _ in } }
            // Animations: every frame, and APNG out.
            if let animation = try? ImageSource.animation(bytes, options: options), animation.frameInfo.count <= 50 {
                _ = try? animation.forEachFrame { _, _ in }
            }
        }
        let elapsed = Date().timeIntervalSince(start)
        if elapsed >= nextReport {
            report(elapsed)
            nextReport += 60
        }
    }
    passes += 1
}
report(Date().timeIntervalSince(start))
