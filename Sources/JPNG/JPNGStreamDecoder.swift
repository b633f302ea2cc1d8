import ImageCore
import PureJPEG
import PurePNG

/// Incremental decoding of a file that starts as a JPEG: a plain JPEG, or a JPNG whose mask and
/// footer follow the JPEG's EOI.
///
/// The JPEG part is decoded as it arrives (rows, progressive scans, previews, as a JPEG). The
/// bytes after EOI are kept (the mask PNG and the 16-byte footer, small beside the colour); as
/// soon as they end in a footer whose sizes add up to the bytes received, the mask is decoded
/// and `.end` reports the RGBA image. A file with nothing after EOI is a plain JPEG.
public struct JPNGStreamDecoder: IncrementalImageDecoder {
    public typealias Failure = JPNGError

    public let limits: DecodingLimits
    private var jpeg: JPEGDecoder
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

    public init(limits: DecodingLimits = .default, options: JPEGDecodingOptions = .init()) {
        self.limits = limits
        self.jpeg = JPEGDecoder(limits: limits, options: options)
    }

    public var header: ImageHeader? {
        guard var header = jpeg.header else { return nil }
        if fileFormat == .jpng {
            header.fileFormat = .jpng
            header.pixelFormat = .rgba8
        }
        return header
    }

    public var metadata: ImageMetadata { jpeg.metadata }

    public mutating func append(_ bytes: UnsafeRawBufferPointer) throws(JPNGError) -> [DecodingEvent] {
        if let failure { throw failure }
        if result != nil { return [] }
        let chunkStart = received
        received += bytes.count
        if jpegDone {
            tail.append(contentsOf: bytes)
            return try checkComplete()
        }
        var events: [DecodingEvent]
        do { events = try jpeg.append(bytes) } catch { throw fail(.colorPart(error)) }
        if events.contains(.end) {
            jpegDone = true
            events.removeAll { $0 == .end }
            tailStart = jpeg.bytesConsumed
            let skip = max(0, tailStart - chunkStart)
            if skip < bytes.count { tail.append(contentsOf: bytes[skip...]) }
            events += try checkComplete()
        }
        return events
    }

    public mutating func finish() throws(JPNGError) -> Image {
        if let failure { throw failure }
        if let result { return result }
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
        _ = try checkComplete()
        if let result { return result }
        // A mask began but no valid footer closes the file: truncated, show the colour opaque.
        let partial = try? jpeg.finish().converted(to: .rgba8)
        throw fail(.truncated(offset: received, partial: partial))
    }

    public func preview() -> Image? {
        if let result { return result }
        return jpeg.preview()
    }

    private mutating func fail(_ error: JPNGError) -> JPNGError {
        failure = error
        return error
    }

    /// Decodes the mask once the tail ends in a footer consistent with everything received.
    private mutating func checkComplete() throws(JPNGError) -> [DecodingEvent] {
        guard tail.count > JPNGFooter.size, tail.starts(with: pngSignature) else { return [] }
        let id = tail.readUInt32LE(at: tail.count - 4)
        guard id == JPNGFooter.identifier || id == JPNGFooter.legacyIdentifier else { return [] }
        var reader = ByteReader(tail, position: tail.count - JPNGFooter.size)
        guard let imageSize = reader.readUInt32LE(), let maskSize = reader.readUInt32LE(),
              let footerSize = reader.readUInt16LE(), let major = reader.readUInt8() else { return [] }
        // Sizes that do not add up to what has arrived: the footer identifier bytes were mask data; wait.
        guard Int(imageSize) + Int(maskSize) + Int(footerSize) == received else { return [] }
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
        let mask: Image
        do { mask = try JPNGDecoder.decodeMaskPart(maskBytes, maskOffset: Int(imageSize), limits: limits) } catch {
            throw fail(error)
        }
        do { result = try JPNGDecoder.combine(color: color, mask: mask) } catch { throw fail(error) }
        fileFormat = .jpng
        tail = []
        return [.end]
    }
}
