/// One format-specific fact about a file, as `jpng info` lists it ("colour type": "rgba (6)").
public struct ImageDetail: Sendable, Equatable, Hashable {
    /// What the fact is ("process", "bit depth", "loop count", ...).
    public var label: String
    /// Its value, formatted for people.
    public var value: String

    /// A fact: its label and its value.
    public init(_ label: String, _ value: String) {
        self.label = label
        self.value = value
    }
}

/// What a file is: its format, size, colour, frames, metadata and format-specific facts, as
/// `jpng info` reports them.
///
/// ```swift
/// let description = try ImageSource.describe(bytes)
/// print(description.format, description.header.width, description.header.height)
/// for detail in description.details { print(detail.label, detail.value) }
/// print(description.jsonDocument())
/// ```
public struct ImageDescription: Sendable, Equatable {
    /// The container format.
    public var format: ImageFileFormat
    /// Size, pixel format, interlacing, progressive coding and frame count.
    public var header: ImageHeader
    /// ICC profile, EXIF, text and the other metadata the file carries.
    public var metadata: ImageMetadata
    /// Facts particular to the format (PNG colour type, JPEG process and sampling, ...).
    public var details: [ImageDetail]
    /// Every frame of an animation (empty for a still image).
    public var frames: [AnimationFrameInfo]
    /// The animation's loop count (nil: none given, plays once; 0: forever).
    public var loopCount: Int?
    /// Whether the file is an animation (a GIF, even of one frame).
    public var isAnimation: Bool
    /// The file's length in bytes.
    public var fileSize: Int

    /// A description from its parts (`ImageSource.describe(_:)` makes them from files).
    public init(format: ImageFileFormat, header: ImageHeader, metadata: ImageMetadata, details: [ImageDetail],
                frames: [AnimationFrameInfo] = [], loopCount: Int? = nil, isAnimation: Bool = false, fileSize: Int) {
        self.format = format
        self.header = header
        self.metadata = metadata
        self.details = details
        self.frames = frames
        self.loopCount = loopCount
        self.isAnimation = isAnimation
        self.fileSize = fileSize
    }

    /// The description as a JSON object with stable, sorted keys (what `jpng info --json`
    /// prints): `format`, `width`, `height`, `channels`, `bitDepth`, `pixelFormat`, `hasAlpha`,
    /// `frames`, `interlaced`, `progressive`, `fileSize`, `metadata` (the names of the fields
    /// set), `details` (label to value), and when present `orientation`, `iccProfileBytes`,
    /// `text`, and for animations `frameList` and `loopCount` (null when none is given).
    public func jsonDocument() -> String {
        let pixelFormat = header.pixelFormat
        var object: [String: JSONValue] = [
            "format": .string(format.rawValue),
            "width": .int(header.width),
            "height": .int(header.height),
            "channels": .int(pixelFormat.channels),
            "bitDepth": .int(pixelFormat.bitsPerSample),
            "pixelFormat": .string(pixelFormat.rawValue),
            "hasAlpha": .bool(pixelFormat.hasAlpha),
            "frames": .int(header.frameCount),
            "interlaced": .bool(header.isInterlaced),
            "progressive": .bool(header.isProgressive),
            "fileSize": .int(fileSize),
            "metadata": .array(metadata.keys.map(JSONValue.string)),
            "details": .object(Dictionary(details.map { ($0.label, JSONValue.string($0.value)) },
                                          uniquingKeysWith: { first, _ in first })),
        ]
        if metadata.orientation != .up { object["orientation"] = .int(Int(metadata.orientation.rawValue)) }
        if let icc = metadata.iccProfile { object["iccProfileBytes"] = .int(icc.count) }
        if !metadata.texts.isEmpty {
            object["text"] = .array(metadata.texts.map {
                .object(["keyword": .string($0.keyword), "text": .string($0.text)])
            })
        }
        if isAnimation {
            object["loopCount"] = loopCount.map(JSONValue.int) ?? .null
            object["frameList"] = .array(frames.map { frame in
                .object([
                    "index": .int(frame.index), "x": .int(frame.x), "y": .int(frame.y),
                    "width": .int(frame.width), "height": .int(frame.height),
                    "delayMilliseconds": .int(frame.delayMilliseconds),
                    "displayDelayMilliseconds": .int(frame.displayDelayMilliseconds),
                    "disposal": .string(frame.disposal.rawValue), "blend": .string(frame.blend.rawValue),
                ])
            })
        }
        var out = ""
        JSONValue.object(object).write(to: &out, indent: 0)
        return out
    }
}

/// Just enough JSON to print a description without Foundation: sorted keys, two-space indent.
enum JSONValue: Sendable {
    case string(String), int(Int), bool(Bool), null
    indirect case array([JSONValue])
    indirect case object([String: JSONValue])

    func write(to out: inout String, indent: Int) {
        switch self {
        case let .string(s): Self.quote(s, to: &out)
        case let .int(n): out += String(n)
        case let .bool(b): out += b ? "true" : "false"
        case .null: out += "null"
        case let .array(items):
            if items.isEmpty { out += "[]"; return }
            out += "[\n"
            for (i, item) in items.enumerated() {
                out += String(repeating: "  ", count: indent + 1)
                item.write(to: &out, indent: indent + 1)
                out += i == items.count - 1 ? "\n" : ",\n"
            }
            out += String(repeating: "  ", count: indent) + "]"
        case let .object(fields):
            if fields.isEmpty { out += "{}"; return }
            out += "{\n"
            let keys = fields.keys.sorted()
            for (i, key) in keys.enumerated() {
                out += String(repeating: "  ", count: indent + 1)
                Self.quote(key, to: &out)
                out += ": "
                fields[key]?.write(to: &out, indent: indent + 1)
                out += i == keys.count - 1 ? "\n" : ",\n"
            }
            out += String(repeating: "  ", count: indent) + "}"
        }
    }

    /// A JSON string literal (RFC 8259 section 7): quote, backslash and control characters escaped.
    static func quote(_ s: String, to out: inout String) {
        out += "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        out += "\""
    }
}
