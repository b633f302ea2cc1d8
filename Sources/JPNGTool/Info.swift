import PureImage
import ArgumentParser

struct Info: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "info",
        abstract: "Describe an image: format, size, colour, frames and metadata.",
        discussion: """
        Examples:
          jpng info photo.png
          jpng info photo.png --json
          jpng info anim.gif
        """
    )

    @Argument(help: "The image to describe ('-' for stdin).")
    var input: String

    @Flag(help: "Print a JSON document with stable keys.")
    var json = false

    func run() throws {
        try reportingErrors {
            let bytes = try readInput(input)
            let d = try describeImage(bytes, name: input)
            print(json ? d.jsonDocument() : infoText(d, name: input))
        }
    }
}

/// The text listing: one fact a line (a JPEG's coding process is its "process" detail).
func infoText(_ d: ImageDescription, name: String) -> String {
    let h = d.header
    var lines = [
        "\(name): \(d.format) \(h.width)x\(h.height), \(h.pixelFormat) (\(h.pixelFormat.channels) channels, \(h.pixelFormat.bitsPerSample)-bit)",
        "  file size: \(d.fileSize) bytes",
    ]
    if h.isInterlaced { lines.append("  interlaced") }
    if h.frameCount != 1 { lines.append("  frames: \(h.frameCount)") }
    for detail in d.details { lines.append("  \(detail.label): \(detail.value)") }
    let m = d.metadata
    if let icc = m.iccProfile {
        lines.append("  ICC profile: \(icc.count) bytes" + (m.iccProfileName.map { " (\($0))" } ?? ""))
        // The profile's description, class, colour space and version, or why it cannot be read.
        do {
            let summary = try ICCProfile(icc).summary
            lines.append("    \(summary.name ?? "(no description)"): \(summary.profileClass), \(summary.colorSpace) -> \(summary.pcs), "
                         + "version \(summary.version)")
        } catch {
            lines.append("    unreadable: \(error)")
        }
    }
    if let exif = m.exif { lines.append("  EXIF: \(exif.count) bytes") }
    if m.orientation != .up { lines.append("  orientation: \(m.orientation) (\(m.orientation.rawValue))") }
    if let gamma = m.gamma { lines.append("  gamma: \(gamma)") }
    if let intent = m.sRGBIntent { lines.append("  sRGB intent: \(intent)") }
    if m.chromaticities != nil { lines.append("  chromaticities: present") }
    if let density = m.density { lines.append("  density: \(density.x)x\(density.y) \(density.unit)") }
    if let t = m.modificationTime { lines.append("  modified: \(t.year)-\(t.month)-\(t.day) \(t.hour):\(t.minute):\(t.second) UTC") }
    if let bg = m.background { lines.append("  background: \(bg.map(String.init).joined(separator: ","))") }
    if let sbit = m.significantBits { lines.append("  significant bits: \(sbit.map(String.init).joined(separator: ","))") }
    for text in m.texts { lines.append("  text \(text.keyword): \(text.text.prefix(200))") }
    for f in d.frames {
        lines.append("  frame \(f.index): \(f.width)x\(f.height) at \(f.x),\(f.y), delay \(f.delayMilliseconds) ms"
                     + " (plays \(f.displayDelayMilliseconds) ms), disposal \(f.disposal), blend \(f.blend)")
    }
    return lines.joined(separator: "\n")
}
