import ImageCore
import PureJPEG
import PurePNG

/// Incremental decoding of a file that starts as a JPEG: a plain JPEG, or a JPNG whose mask and
/// footer follow the JPEG's EOI.
///
/// The JPEG part is decoded as it arrives (rows, progressive scans, previews, as a JPEG). The
/// bytes after EOI are kept (the mask PNG and the 16-byte footer, small beside the colour); as
/// soon as they end in a footer whose sizes add up to the bytes received, the mask is decoded
/// and a second `.header` (now JPNG, RGBA) and `.end` report the RGBA image. A file with
/// nothing after EOI is a plain JPEG, complete at its EOI.
public struct JPNGStreamDecoder: IncrementalImageDecoder {
    /// Every method throws ``JPNGError`` (JPEG errors wrapped in ``JPNGError/colorPart(_:)``).
    public typealias Failure = JPNGError

    /// The limits applied to the colour part and the mask.
    public let limits: DecodingLimits
    private var jpeg: JPEGDecoder
    /// With a size target: bytes held until the frame header tells the size, so the JPEG
    /// decoder can be made with the right DCT scale. Nil once decoding has started.
    private var pendingPrefix: [UInt8]?
    private let baseOptions: JPEGDecodingOptions
    private let maxPixelSize: Int?
    private var jpegDone = false
    /// Bytes after the JPEG's EOI.
    private var tail: [UInt8] = []
    /// Absolute offset of `tail[0]` (the JPEG's length).
    private var tailStart = 0
    private var received = 0
    private var result: Image?
    private var failure: JPNGError?
    /// JPNG once the mask has been recognised, JPEG until then.
    public private(set) var fileFormat: ImageFileFormat = .jpeg
    /// The container's footer, once the mask has been recognised (nil for a plain JPEG).
    public private(set) var footer: JPNGFooter?
    /// The mask PNG's pixel format as stored (it is read as 8-bit gray), once recognised.
    public private(set) var maskFormat: PixelFormat?

    /// Whether the JPEG colour part has ended (its EOI read): errors before that are the JPEG's.
    public var colorPartComplete: Bool { jpegDone }

    /// The colour part's frame facts (process, sampling, quality estimate, ...), once its frame
    /// header has arrived.
    public var jpegInfo: JPEGInfo? { jpeg.info }
    /// The colour part's warnings so far (`JPEGDecoder.warnings`: damage decoded past,
    /// including a file cut short, which `finish()` completes).
    public var jpegWarnings: [String] { jpeg.warnings.filter { !$0.hasPrefix("data after EOI") } }

    /// `maxPixelSize`: decode at the smallest DCT scale (1/2, 1/4, 1/8) whose longer side is
    /// still at least this many pixels.
    public init(limits: DecodingLimits = .default, options: JPEGDecodingOptions = .init(), maxPixelSize: Int? = nil) {
        self.limits = limits
        // The mask and footer follow the JPEG's EOI: bytes after EOI are the container's, never damage.
        var colorOptions = options
        colorOptions.leniencies.insert(.dataAfterEnd)
        self.baseOptions = colorOptions
        self.maxPixelSize = maxPixelSize
        self.jpeg = JPEGDecoder(limits: limits, options: colorOptions)
        if maxPixelSize != nil { pendingPrefix = [] }
    }

    /// The DCT scale (8 = full size) for a frame of this size and a target longer side.
    static func dctScale(width: Int, height: Int, maxPixelSize: Int) -> Int {
        let longer = max(width, height)
        for scale in [1, 2, 4] where (longer * scale + 7) / 8 >= maxPixelSize { return scale }
        return 8
    }

    /// The frame size from the SOFn segment, scanning marker segments from SOI (T.81 B.2);
    /// `.some(nil)` when the bytes are not laid out as expected (let the decoder report it).
    static func frameSize(_ bytes: [UInt8]) -> (Int, Int)?? {
        var i = 2
        while true {
            while i < bytes.count && bytes[i] == 0xFF && i + 1 < bytes.count && bytes[i + 1] == 0xFF { i += 1 }
            guard i + 4 <= bytes.count else { return nil }
            guard bytes[i] == 0xFF else { return .some(nil) }
            let marker = bytes[i + 1]
            let length = Int(bytes[i + 2]) << 8 | Int(bytes[i + 3])
            if (0xC0 ... 0xCF).contains(marker) && marker != 0xC4 && marker != 0xC8 && marker != 0xCC {
                guard i + 9 <= bytes.count else { return nil }
                return .some((Int(bytes[i + 7]) << 8 | Int(bytes[i + 8]), Int(bytes[i + 5]) << 8 | Int(bytes[i + 6])))
            }
            if marker == 0xDA || marker == 0xD9 || length < 2 { return .some(nil) }
            i += 2 + length
        }
    }

    /// The JPEG's header (`fileFormat` `.jpeg`, RGB or gray) until the mask is recognised, then
    /// `fileFormat` `.jpng` with `pixelFormat` `.rgba8`.
    public var header: ImageHeader? {
        guard var header = jpeg.header else { return nil }
        if fileFormat == .jpng {
            header.fileFormat = .jpng
            header.pixelFormat = .rgba8
        }
        return header
    }

    /// The colour part's metadata (EXIF, ICC, JFIF density, comments) as far as read.
    public var metadata: ImageMetadata { jpeg.metadata }

    /// Feeds the next bytes; returns the JPEG's events, then (for a JPNG, once the mask and footer
    /// are complete) a second `.header` and `.end`. Bytes arriving after a recognised footer
    /// reopen the decision, as whole-file decoding would.
    public mutating func append(_ bytes: UnsafeRawBufferPointer) throws(JPNGError) -> [DecodingEvent] {
        if let failure { throw failure }
        if result != nil {
            // Bytes after what looked like the end: the file goes on, so the footer seen was not
            // the last 16 bytes. Decide again at the next footer or at finish(), as whole-file
            // decoding would.
            result = nil
            fileFormat = .jpeg
        }
        if pendingPrefix != nil {
            pendingPrefix?.append(contentsOf: bytes)
            let prefix = pendingPrefix ?? []
            guard let size = JPNGStreamDecoder.frameSize(prefix), !prefix.isEmpty else { return [] }
            pendingPrefix = nil
            var options = baseOptions
            if let (w, h) = size, let maxPixelSize {
                options.scale = min(options.scale, JPNGStreamDecoder.dctScale(width: w, height: h, maxPixelSize: maxPixelSize))
            }
            jpeg = JPEGDecoder(limits: limits, options: options)
            return try appendArray(prefix)
        }
        let chunkStart = received
        received += bytes.count
        if jpegDone {
            tail.append(contentsOf: bytes)
            return try checkComplete(atEnd: false)
        }
        var events: [DecodingEvent]
        do { events = try jpeg.append(bytes) } catch { throw fail(.colorPart(error)) }
        if let end = events.firstIndex(of: .end) {
            // The JPEG decoder's note on the bytes after its EOI: here they are the mask.
            events = Array(events[...end]) + events[(end + 1)...].filter { if case .warning = $0 { false } else { true } }
            // The JPEG is complete: `.end` stands (finish() returns it as a plain JPEG). A mask
            // arriving afterwards is announced by a second `.header` (JPNG, RGBA) and `.end`.
            jpegDone = true
            tailStart = jpeg.bytesConsumed
            let skip = max(0, tailStart - chunkStart)
            if skip < bytes.count { tail.append(contentsOf: bytes[skip...]) }
            events += try checkComplete(atEnd: false)
        }
        return events
    }

    /// Ends the input: the RGBA8 image for a complete JPNG, the JPEG's image for a plain JPEG
    /// (trailing bytes that are not a mask are ignored, as libjpeg does).
    ///
    /// Throws ``JPNGError/truncated(offset:partial:)`` when the JPEG or the mask is cut short
    /// (`partial` is the colour decoded so far, opaque), or the container and part errors.
    public mutating func finish() throws(JPNGError) -> Image {
        if let failure { throw failure }
        if let result { return result }
        if let prefix = pendingPrefix {
            // The input ended before a frame header: decode what there is at full scale.
            pendingPrefix = nil
            _ = try appendArray(prefix)
        }
        if !jpegDone {
            do { _ = try jpeg.finish() } catch {
                if case let .truncated(offset, partial) = error { throw fail(.truncated(offset: offset, partial: partial)) }
                throw fail(.colorPart(error))
            }
        }
        if tail.isEmpty || !tail.starts(with: pngSignature.prefix(min(tail.count, 8))) {
            // Nothing, or not a mask, after EOI: a plain JPEG (trailing bytes ignored as libjpeg does).
            do { return try jpeg.finish() } catch { throw fail(.colorPart(error)) }
        }
        _ = try checkComplete(atEnd: true)
        if let result { return result }
        // A mask began but no valid footer closes the file: truncated, show the colour opaque.
        let partial = try? jpeg.finish().converted(to: .rgba8)
        throw fail(.truncated(offset: received, partial: partial))
    }

    /// The JPEG's preview (rows or scans so far, the rest mid-gray) until the JPNG is complete,
    /// then its RGBA image; nil before the header.
    public func preview() -> Image? {
        if let result { return result }
        return jpeg.preview()
    }

    /// `append` for an array (`withUnsafeBytes` rethrows untyped, so the error travels in a Result).
    private mutating func appendArray(_ bytes: [UInt8]) throws(JPNGError) -> [DecodingEvent] {
        let result = bytes.withUnsafeBytes { raw in
            Result { () throws(JPNGError) -> [DecodingEvent] in try append(raw) }
        }
        return try result.get()
    }

    private mutating func fail(_ error: JPNGError) -> JPNGError {
        failure = error
        return error
    }

    /// Decodes the mask once the tail ends in a footer consistent with everything received:
    /// while bytes may still come, the parts must add up to exactly what arrived; at the end,
    /// to at most that (JPNG-FORMAT.md's rule for whole files).
    private mutating func checkComplete(atEnd: Bool) throws(JPNGError) -> [DecodingEvent] {
        guard tail.count > JPNGFooter.size, tail.starts(with: pngSignature) else { return [] }
        let id = tail.readUInt32LE(at: tail.count - 4)
        guard id == JPNGFooter.identifier || id == JPNGFooter.legacyIdentifier else { return [] }
        var reader = ByteReader(tail, position: tail.count - JPNGFooter.size)
        guard let imageSize = reader.readUInt32LE(), let maskSize = reader.readUInt32LE(),
              let footerSize = reader.readUInt16LE(), let major = reader.readUInt8() else { return [] }
        // Sizes that do not add up to what has arrived: the footer identifier bytes were mask data; wait.
        let total = Int(imageSize) + Int(maskSize) + Int(footerSize)
        guard atEnd ? total <= received : total == received else { return [] }
        guard major == 1 else { throw fail(.unsupportedVersion(major: major, minor: reader.readUInt8() ?? 0, offset: received - 6)) }
        guard footerSize >= 16 else { throw fail(.invalidFooterSize(footerSize, offset: received - 8)) }
        let maskStart = Int(imageSize) - tailStart
        guard maskStart >= 0, maskStart + Int(maskSize) <= tail.count else {
            throw fail(.partsExceedFile(imageSize: imageSize, maskSize: maskSize, footerSize: footerSize, fileLength: received))
        }
        let maskBytes = Array(tail[maskStart ..< maskStart + Int(maskSize)])
        guard maskBytes.starts(with: pngSignature) else { throw fail(.maskPartNotPNG(offset: Int(imageSize))) }
        let color: Image
        do { color = try jpeg.finish().converted(to: .rgb8) } catch { throw fail(.colorPart(error)) }
        let stored: Image
        do { stored = try PNGDecoder.decode(maskBytes, limits: limits) } catch {
            throw fail(.maskPart(error, maskOffset: Int(imageSize)))
        }
        var mask = JPNGDecoder.maskToGray8(stored)
        if color.width != mask.width || color.height != mask.height,
           (mask.width * jpeg.options.scale + 7) / 8 == color.width, (mask.height * jpeg.options.scale + 7) / 8 == color.height {
            // The colour part was decoded at a DCT scale: the mask follows by area average.
            mask = mask.downsampled(width: color.width, height: color.height)
        }
        do { result = try JPNGDecoder.combine(color: color, mask: mask) } catch { throw fail(error) }
        fileFormat = .jpng
        maskFormat = stored.format
        footer = JPNGFooter(imageSize: imageSize, maskSize: maskSize, footerSize: footerSize, majorVersion: major,
                            minorVersion: reader.readUInt8() ?? 0, identifierValue: id)
        return header.map { [.header($0), .end] } ?? [.end]
    }
}
