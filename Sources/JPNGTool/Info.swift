import PureImage
import ArgumentParser
import Foundation

struct Info: ParsableCommand {
    static let configuration = CommandConfiguration(
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
            print(json ? infoJSON(d, fileSize: bytes.count) : infoText(d, fileSize: bytes.count, name: input))
        }
    }
}

/// The `info --json` document. Keys are stable; absent values are omitted, never renamed.
func infoJSON(_ d: FileDescription, fileSize: Int) -> String {
    var object: [String: Any] = [
        "format": d.format.rawValue,
        "width": d.width,
        "height": d.height,
        "channels": d.pixelFormat.channels,
        "bitDepth": d.pixelFormat.bitsPerSample,
        "pixelFormat": d.pixelFormat.rawValue,
        "hasAlpha": d.pixelFormat.hasAlpha,
        "frames": d.frames,
        "interlaced": d.interlaced,
        "progressive": d.progressive,
        "fileSize": fileSize,
        "metadata": d.metadata.keys,
    ]
    var details: [String: String] = [:]
    for (key, value) in d.details { details[key] = value }
    object["details"] = details
    if d.metadata.orientation != .up { object["orientation"] = d.metadata.orientation.rawValue }
    if d.format == .gif {
        object["frameList"] = d.frameList
        object["loopCount"] = d.loopCount.map { $0 as Any } ?? NSNull()
    }
    if let icc = d.metadata.iccProfile { object["iccProfileBytes"] = icc.count }
    if !d.metadata.texts.isEmpty {
        object["text"] = d.metadata.texts.map { ["keyword": $0.keyword, "text": $0.text] }
    }
    guard let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .prettyPrinted]) else {
        return "{}"
    }
    return String(decoding: data, as: UTF8.self)
}

func infoText(_ d: FileDescription, fileSize: Int, name: String) -> String {
    var lines = [
        "\(name): \(d.format) \(d.width)x\(d.height), \(d.pixelFormat) (\(d.pixelFormat.channels) channels, \(d.pixelFormat.bitsPerSample)-bit)",
        "  file size: \(fileSize) bytes",
    ]
    if d.interlaced { lines.append("  interlaced") }
    if d.progressive { lines.append("  progressive") }
    if d.frames != 1 { lines.append("  frames: \(d.frames)") }
    for (key, value) in d.details { lines.append("  \(key): \(value)") }
    let m = d.metadata
    if let icc = m.iccProfile { lines.append("  ICC profile: \(icc.count) bytes" + (m.iccProfileName.map { " (\($0))" } ?? "")) }
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
    for f in d.frameList {
        func v(_ key: String) -> String { f[key].map { "\($0)" } ?? "-" }
        var line = "  frame \(v("index")): \(v("width"))x\(v("height")) at \(v("x")),\(v("y")), delay \(v("delayCentiseconds")) cs"
        line += " (plays \(v("displayDelayMilliseconds")) ms), disposal \(v("disposal"))"
        if let t = f["transparentIndex"] { line += ", transparent \(t)" }
        if f["interlaced"] as? Bool == true { line += ", interlaced" }
        lines.append(line)
    }
    return lines.joined(separator: "\n")
}
