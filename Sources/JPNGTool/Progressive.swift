import ArgumentParser
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PureImage

struct Progressive: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "progressive",
        abstract: "Feed a file to the incremental decoder in pieces and save every preview it shows.",
        discussion: """
        Writes DIR/NNN-at-BYTES.png for each preview (a progressive JPEG scan, an Adam7 or GIF \
        interlace pass, a GIF frame, or a further eighth of a sequential image's rows) and \
        DIR/previews.txt listing them with the event that produced each, so a person can see how an \
        image builds up while it downloads.

        Examples:
          jpng progressive photo-progressive.jpg --out previews/
          jpng progressive large.png --out previews/ --chunk 4096
        """
    )

    @Argument(help: "The image file.")
    var input: String

    @Option(help: "The folder for the previews.")
    var out: String

    @Option(help: "Bytes fed per step (a slow download's packet).")
    var chunk: Int = 2048

    func validate() throws {
        guard chunk >= 1 else { throw ValidationError("--chunk must be at least 1") }
    }

    func run() throws {
        try reportingErrors {
            let bytes = try readInput(input)
            var source = ImageSource()
            var log: [String] = []
            var count = 0
            var rowsSinceSave = 0
            var height = 0
            func save(_ image: Image?, at offset: Int, because reason: String) throws {
                guard let image else { return }
                let name = "\(zeroPadded(count, 3))-at-\(offset).png"
                let png = try encodeImage(image.converted(to: image.format.hasAlpha ? .rgba8 : .rgb8), as: .png,
                                          settings: EncodeSettings(pngLevel: 1))
                try writeOutput(png, to: URL(fileURLWithPath: out).appendingPathComponent(name).path)
                log.append("\(name)\t\(offset) bytes\t\(reason)")
                count += 1
            }
            var offset = 0
            while offset < bytes.count {
                let end = min(bytes.count, offset + chunk)
                let events = try source.append(bytes[offset ..< end])
                offset = end
                for event in events {
                    switch event {
                    case let .header(header):
                        height = header.height
                        log.append("header at \(offset) bytes: \(header.fileFormat) \(header.width)x\(header.height)")
                    case let .rows(rows):
                        rowsSinceSave += rows.count
                    case let .scanComplete(k): try save(source.preview(), at: offset, because: "scan \(k + 1) complete")
                    case let .passComplete(k): try save(source.preview(), at: offset, because: "interlace pass \(k + 1) complete")
                    case let .frameComplete(k): try save(source.preview(), at: offset, because: "frame \(k + 1) complete")
                    case let .warning(text): log.append("warning at \(offset) bytes: \(text)")
                    default: break
                    }
                }
                if height > 0 && rowsSinceSave * 8 >= height {
                    rowsSinceSave = 0
                    try save(source.preview(), at: offset, because: "rows arrived")
                }
            }
            let image = try source.finish()
            try save(image, at: bytes.count, because: "complete")
            try writeOutput(Array((log.joined(separator: "\n") + "\n").utf8),
                            to: URL(fileURLWithPath: out).appendingPathComponent("previews.txt").path)
            print("\(count) previews in \(out)")
        }
    }
}
