#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import PureImage

/// Whether `decode` (or `convert`) to `format` can pass rows from the decoder to the encoder
/// without the image: PNG, and baseline JPEG with the standard Huffman tables (progressive and
/// optimized tables need every block before the first byte).
/// The limits of the commands that stream rows (decode to PPM/PGM/PNG/JPEG, thumbnail, tile):
/// memory does not grow with the pixels there, so the pixel limit is 4 gigapixels (a 20000 x
/// 20000 PNG, a 65500 x 65500 JPEG) instead of 256 MP; `maxBytes` (1 GiB) still bounds what
/// a non-streamable input must hold, and spilled stores hold a window of their file.
let streamingLimits = DecodingLimits(maxPixels: 4_300_000_000)

/// A JPNG file (read whole, so its mask becomes the alpha channel) is not streamed; from stdin
/// its JPEG colour streams and its mask is not read.
func canStreamEncode(_ format: OutputFormat, settings: EncodeSettings, input: String) -> Bool {
    switch format {
    case .png: return settings.colors == nil && !isJPNGFile(input)
    case .jpeg: return !settings.progressive && !settings.optimize && !settings.arithmetic && settings.lossless == nil && settings.precision == 8 && !isJPNGFile(input)
    default: return false
    }
}

/// True when the regular file at `path` starts like a JPEG and ends in a JPNG footer identifier.
func isJPNGFile(_ path: String) -> Bool {
    guard path != "-" else { return false }
    let fd = open(path, O_RDONLY)
    guard fd >= 0 else { return false }
    defer { close(fd) }
    var info = stat()
    guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG, info.st_size > 18 else { return false }
    var head = [UInt8](repeating: 0, count: 2), tail = [UInt8](repeating: 0, count: 4)
    guard pread(fd, &head, 2, 0) == 2, pread(fd, &tail, 4, off_t(info.st_size) - 4) == 4 else { return false }
    return JPNGFooter.looksLikeJPNG(head + [UInt8](repeating: 0, count: 16) + tail)
}

/// True when the regular file at `path` is a JPEG whose frame header (within its first
/// 1 MiB) declares four components: CMYK, which goes whole through its profile instead of
/// streaming the formula's RGB.
func isCMYKJPEGFile(_ path: String) -> Bool {
    guard path != "-" else { return false }
    let fd = open(path, O_RDONLY)
    guard fd >= 0 else { return false }
    defer { close(fd) }
    var head = [UInt8](repeating: 0, count: 1 << 20)
    let count = pread(fd, &head, head.count, 0)
    return count > 0 && isCMYKJPEG(head[0 ..< count])
}

/// True when `bytes` (a file's start) are a JPEG whose frame header declares four components.
func isCMYKJPEG(_ bytes: ArraySlice<UInt8>) -> Bool {
    let head = bytes, base = bytes.startIndex, count = bytes.count
    guard count > 4, head[base] == 0xFF, head[base + 1] == 0xD8 else { return false }
    var at = 2
    while at + 9 < count {
        guard head[base + at] == 0xFF else { return false }
        let marker = head[base + at + 1]
        if marker == 0xFF { at += 1; continue }
        let length = Int(head[base + at + 2]) << 8 | Int(head[base + at + 3])
        // SOF0-SOF15 but DHT (C4), JPG (C8) and DAC (CC): byte 9 is the component count.
        if (0xC0 ... 0xCF).contains(marker) && ![0xC4, 0xC8, 0xCC].contains(marker) { return head[base + at + 9] == 4 }
        if marker == 0xDA || length < 2 { return false }
        at += 2 + length
    }
    return false
}

/// `decode` to PNG or baseline JPEG without holding the image: the input is read in pieces,
/// rows go from `RowStreamDecoder` to `PNGStreamEncoder` or `JPEGStreamEncoder` band by band,
/// and the output is a temporary file renamed at the end (or stdout). The bytes are those of
/// the whole-image path (`encodeImage(_:as:settings:)`) with the metadata read before the
/// first row (as libpng's `png_read_info` and libvips see it: a PNG's text chunks after its
/// image data are not carried). Formats whose rows are final only at the end (progressive
/// JPEG, Adam7 PNG, GIF) are held by the decoder until then.
func streamDecodeToEncoded(input: String, output: String, format: OutputFormat, settings: EncodeSettings,
                           strict: Bool) throws {
    try streamConversion(input: input, output: output, strict: strict) {
        EncoderRowWriter(format: format, settings: settings, sink: $0)
    }
}

/// Feeds bands to the stream encoder of the output format once the image's size is known;
/// bands that come before it wait in memory (a few rows: the input is fed in small pieces
/// until the header).
struct EncoderRowWriter: StreamedOutput {
    let format: OutputFormat
    let settings: EncodeSettings
    let sink: OutputSink
    private var png: PNGStreamEncoder?
    private var jpeg: JPEGStreamEncoder?
    private var waiting: [UInt8] = []
    private var waitingFormat: PixelFormat?
    /// The header and metadata of the last ``start(_:metadata:)`` that came before any row: if
    /// rows pile up past ``waitLimit`` before the next call, the encoder starts from them
    /// rather than holding the rows. Rows past the limit with no header yet are refused.
    private var pendingStart: (header: ImageHeader, metadata: ImageMetadata)?
    /// What may wait: a 4 KB piece of any plausible file decodes to far fewer rows.
    static let waitLimit = 32 << 20
    private var scratch: [UInt8] = []
    private(set) var droppedTransparency = false

    /// True once the encoder exists (it starts between calls, once rows have come: a PNG's
    /// chunks before its image data are all read then).
    var isStarted: Bool { png != nil || jpeg != nil }
    var droppedTransparencyNotice: String { "the alpha channel is dropped in JPEG output (use .jpng to keep it)" }

    init(format: OutputFormat, settings: EncodeSettings, sink: OutputSink) {
        self.format = format
        self.settings = settings
        self.sink = sink
    }

    /// Starts the encoder for the image (once), then writes the bands that waited for it.
    mutating func start(_ header: ImageHeader, metadata: ImageMetadata) throws {
        guard png == nil && jpeg == nil else { return }
        guard let rowFormat = waitingFormat else {
            pendingStart = (header, metadata)
            return
        }
        pendingStart = nil
        do {
            if format == .png {
                var options = PNGEncodingOptions()
                options.compressionLevel = settings.pngLevel
                png = try PNGStreamEncoder(width: header.width, height: header.height, format: rowFormat,
                                           metadata: metadata, options: options)
            } else {
                var options = JPEGEncodingOptions(quality: settings.jpegQuality, subsampling: settings.subsampling)
                options.threads = settings.threads
                options.restartInterval = settings.restartInterval
                jpeg = try JPEGStreamEncoder(width: header.width, height: header.height, format: rowFormat,
                                             metadata: metadata, options: options)
            }
        } catch {
            throw CLIError("\(error)")
        }
        let held = waiting
        waiting = []
        try held.withUnsafeBytes { try encode($0) }
    }

    /// The rows of `band`, to the encoder or into the wait.
    mutating func write(_ band: RowBand) throws {
        if waitingFormat == nil { waitingFormat = band.format }
        let rowBytes = band.width * band.format.bytesPerPixel
        if format == .jpeg && band.format.hasAlpha && !droppedTransparency {
            scratch.removeAll(keepingCapacity: true)
            for i in 0 ..< band.count { scratch.append(contentsOf: band.row(i)) }
            let rows = Image(width: band.width, height: band.count, format: band.format, pixels: scratch)
            droppedTransparency = JPNGEncoder.hasTransparency(rows)
        }
        if png == nil && jpeg == nil {
            for i in 0 ..< band.count { waiting.append(contentsOf: band.row(i)) }
            if waiting.count > Self.waitLimit {
                guard let pending = pendingStart else {
                    // Only a few input bytes that decode to a huge image in the same call as their
                    // header get here (a pipe, whose size cannot be checked against the header).
                    throw CLIError("more than \(Self.waitLimit >> 20) MB of rows came with the image header, from a few bytes of input; refused")
                }
                try start(pending.header, metadata: pending.metadata)
            }
            return
        }
        if band.bytesPerRow == rowBytes {
            try encode(UnsafeRawBufferPointer(start: band.base, count: rowBytes * band.count))
        } else {
            scratch.removeAll(keepingCapacity: true)
            for i in 0 ..< band.count { scratch.append(contentsOf: band.row(i)) }
            try scratch.withUnsafeBytes { try encode($0) }
        }
    }

    private mutating func encode(_ rows: UnsafeRawBufferPointer) throws {
        guard rows.count > 0 else { return }
        do {
            let bytes = try png?.append(rows: rows) ?? jpeg?.append(rows: rows) ?? []
            try sink.write(bytes)
        } catch let error as CLIError {
            throw error
        } catch {
            throw CLIError("\(error)")
        }
    }

    /// The encoder's last bytes (it checks that every row arrived).
    mutating func end() throws {
        guard png != nil || jpeg != nil else { throw CLIError("the decoder gave no rows") }
        do {
            let bytes = try png?.finish() ?? jpeg?.finish() ?? []
            try sink.write(bytes)
        } catch {
            throw CLIError("\(error)")
        }
    }
}
