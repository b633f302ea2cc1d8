import ImageCore

/// Everything that can go wrong reading or writing a PNG. Each decoding case carries the
/// byte offset in the file where the problem was found (and its evidence where useful).
public enum PNGError: Error, Sendable, Equatable, CustomStringConvertible {
    // Container (PNG 5.2-5.6)
    /// The file does not start with the 8-byte PNG signature (PNG 5.2); `offset` is the first byte that differs.
    case invalidSignature(offset: Int)
    /// A chunk length over 2^31 - 1 (PNG 5.3).
    case invalidChunkLength(length: UInt32, offset: Int)
    /// A chunk type whose bytes are not all ASCII letters (PNG 5.4).
    case invalidChunkType(type: String, offset: Int)
    /// A chunk's CRC does not match its type and data (PNG 5.3); only when
    /// ``PNGDecodingOptions/checkCRC`` is on. By default an ancillary chunk with a wrong CRC
    /// is dropped with a `.warning` (libpng's default); ``PNGDecodingOptions/strict`` throws.
    case badCRC(chunk: String, declared: UInt32, computed: UInt32, offset: Int)
    /// The first chunk is not IHDR.
    case missingHeader(offset: Int)
    /// A chunk that may appear once (IHDR, PLTE, tRNS, ...) appears again (PNG 5.6).
    case duplicateChunk(chunk: String, offset: Int)
    /// A chunk where the ordering rules forbid it, such as PLTE after IDAT (PNG 5.6).
    case chunkOutOfOrder(chunk: String, offset: Int)
    /// A critical chunk (upper-case first letter) this decoder does not know (PNG 5.4).
    case unknownCriticalChunk(chunk: String, offset: Int)
    /// Bytes follow the IEND chunk. Only with ``PNGDecodingOptions/strict``: by default they
    /// are ignored, as libpng never reads them.
    case chunkAfterEnd(offset: Int)
    /// IDAT chunks separated by another chunk (PNG 5.6: they must be consecutive).
    case nonContiguousImageData(offset: Int)
    /// IEND arrived with no IDAT before it.
    case missingImageData(offset: Int)
    // Header values (PNG 11.2.2)
    /// Width or height 0 or over 2^31 - 1 (PNG 11.2.2).
    case invalidDimensions(width: UInt32, height: UInt32, offset: Int)
    /// A colour type PNG does not define, or a bit depth it does not allow for that type (PNG 11.2.2, Table 11.1).
    case invalidColorTypeAndDepth(colorType: UInt8, bitDepth: UInt8, offset: Int)
    /// An IHDR compression method other than 0 (deflate).
    case invalidCompressionMethod(UInt8, offset: Int)
    /// An IHDR filter method other than 0 (adaptive filtering).
    case invalidFilterMethod(UInt8, offset: Int)
    /// An IHDR interlace method other than 0 (none) or 1 (Adam7).
    case invalidInterlaceMethod(UInt8, offset: Int)
    /// An IHDR chunk whose length is not 13.
    case invalidHeaderLength(length: UInt32, offset: Int)
    // Palette and transparency (PNG 11.2.3, 11.3.2.1)
    /// A palette image reached its image data without a PLTE chunk.
    case missingPalette(offset: Int)
    /// A PLTE chunk in a gray or gray-alpha image (PNG 11.2.3 forbids it).
    case unexpectedPalette(offset: Int)
    /// A PLTE that is not a whole number of RGB triples, has 0 or more than 256 entries, or more
    /// than the bit depth can index.
    case invalidPalette(entries: Int, offset: Int)
    /// A tRNS chunk of the wrong length for the colour type, with more alphas than palette
    /// entries, or in an image that already has alpha (PNG 11.3.2.1).
    case invalidTransparency(reason: String, offset: Int)
    // Image data (PNG 9, 10)
    /// A row whose filter-type byte is not 0-4 (PNG 9.2); `row` is the row in the (pass) image.
    case invalidFilterType(UInt8, row: Int, offset: Int)
    /// The zlib stream of the image data is invalid; `message` is zlib's.
    case corruptImageData(message: String, offset: Int)
    /// The image data decompresses to more bytes than the image's rows hold, or compressed
    /// bytes follow the end of its zlib stream (in the same IDAT or in more IDAT chunks).
    /// By default libpng's leniency: a `.warning`, the image stands.
    case tooMuchImageData(offset: Int)
    /// The image data ends (IDAT over, or the zlib stream ended) before the last row.
    case notEnoughImageData(offset: Int)
    /// Every row is decoded but the zlib stream of the image data has not ended where the IDAT
    /// chunks do (libpng: "Not enough image data"); `offset` is the chunk after the last IDAT.
    case unterminatedImageData(offset: Int)
    /// A palette index at or past the number of PLTE entries (PNG 11.2.3); `row` is the image
    /// row. By default the pixel is opaque black, as libpng gives it, with a `.warning`.
    case paletteIndexOutOfRange(index: Int, row: Int, offset: Int)
    /// A chunk that libpng reads past with a warning: an ancillary chunk of the wrong length or
    /// contents, misplaced or repeated, or an IEND with data. Only with
    /// ``PNGDecodingOptions/strict``; by default the chunk is ignored with a `.warning`.
    case malformedChunk(chunk: String, reason: String, offset: Int)
    // Limits and truncation
    /// The input breaks one of the `DecodingLimits` (pixels, memory, decompression ratio,
    /// metadata); the violation says which, with the amounts.
    case limitExceeded(LimitViolation, offset: Int)
    /// The input ended early; `partial` holds the rows decoded so far (the rest zero).
    case truncated(offset: Int, partial: Image?)
    // Animation (APNG); in the default mode each is a `.warning` and the file decodes as its
    // static image, as browsers show it; strict decoding throws them.
    /// An fcTL or fdAT whose sequence number is not the next one (0, 1, 2, ... over both).
    case apngSequence(expected: UInt32, found: UInt32, offset: Int)
    /// A frame of zero size, or one that reaches past the canvas.
    case apngFrameOutsideCanvas(x: UInt32, y: UInt32, width: UInt32, height: UInt32, offset: Int)
    /// An acTL or fcTL that breaks the specification (length, values, placement); the text says how.
    case apngInvalidChunk(chunk: String, reason: String, offset: Int)
    /// The file has a different number of frames than its acTL declares.
    case apngFrameCount(declared: UInt32, found: Int, offset: Int)
    /// A frame's compressed data is missing, corrupt, or not the frame's size.
    case apngFrameData(frame: Int, reason: String, offset: Int)
    // Encoding
    /// Encoding: an option, argument or metadata value out of range; the text says which.
    case invalidParameter(String)
    /// Encoding: the requested colour type or bit depth cannot hold the image exactly (more than
    /// 256 colours for a palette, colour for gray, ...); the text says why.
    case unrepresentable(String)
    /// Encoding: zlib's deflate returned the error `status`.
    case compressionFailed(status: Int32)
    /// The temporary file of a spilled interlaced image (``PNGDecodingOptions/spillAbove``)
    /// could not be made: the directory is missing, not writable or full.
    case temporaryStorage(reason: String)

    /// A stable name for the case (vector tables record it).
    public var code: String {
        switch self {
        case .invalidSignature: "invalidSignature"
        case .invalidChunkLength: "invalidChunkLength"
        case .invalidChunkType: "invalidChunkType"
        case .badCRC: "badCRC"
        case .missingHeader: "missingHeader"
        case .duplicateChunk: "duplicateChunk"
        case .chunkOutOfOrder: "chunkOutOfOrder"
        case .unknownCriticalChunk: "unknownCriticalChunk"
        case .chunkAfterEnd: "chunkAfterEnd"
        case .nonContiguousImageData: "nonContiguousImageData"
        case .missingImageData: "missingImageData"
        case .invalidDimensions: "invalidDimensions"
        case .invalidColorTypeAndDepth: "invalidColorTypeAndDepth"
        case .invalidCompressionMethod: "invalidCompressionMethod"
        case .invalidFilterMethod: "invalidFilterMethod"
        case .invalidInterlaceMethod: "invalidInterlaceMethod"
        case .invalidHeaderLength: "invalidHeaderLength"
        case .missingPalette: "missingPalette"
        case .unexpectedPalette: "unexpectedPalette"
        case .invalidPalette: "invalidPalette"
        case .invalidTransparency: "invalidTransparency"
        case .invalidFilterType: "invalidFilterType"
        case .corruptImageData: "corruptImageData"
        case .tooMuchImageData: "tooMuchImageData"
        case .notEnoughImageData: "notEnoughImageData"
        case .unterminatedImageData: "unterminatedImageData"
        case .paletteIndexOutOfRange: "paletteIndexOutOfRange"
        case .malformedChunk: "malformedChunk"
        case .limitExceeded: "limitExceeded"
        case .truncated: "truncated"
        case .apngSequence: "apngSequence"
        case .apngFrameOutsideCanvas: "apngFrameOutsideCanvas"
        case .apngInvalidChunk: "apngInvalidChunk"
        case .apngFrameCount: "apngFrameCount"
        case .apngFrameData: "apngFrameData"
        case .invalidParameter: "invalidParameter"
        case .unrepresentable: "unrepresentable"
        case .compressionFailed: "compressionFailed"
        case .temporaryStorage: "temporaryStorage"
        }
    }

    /// The byte offset the error refers to, where there is one.
    public var offset: Int? {
        switch self {
        case let .invalidSignature(o), let .invalidChunkLength(_, o), let .invalidChunkType(_, o),
             let .badCRC(_, _, _, o), let .missingHeader(o), let .duplicateChunk(_, o),
             let .chunkOutOfOrder(_, o), let .unknownCriticalChunk(_, o), let .chunkAfterEnd(o),
             let .nonContiguousImageData(o), let .missingImageData(o), let .invalidDimensions(_, _, o),
             let .invalidColorTypeAndDepth(_, _, o), let .invalidCompressionMethod(_, o),
             let .invalidFilterMethod(_, o), let .invalidInterlaceMethod(_, o), let .invalidHeaderLength(_, o),
             let .missingPalette(o), let .unexpectedPalette(o), let .invalidPalette(_, o),
             let .invalidTransparency(_, o), let .invalidFilterType(_, _, o), let .corruptImageData(_, o),
             let .tooMuchImageData(o), let .notEnoughImageData(o), let .unterminatedImageData(o),
             let .paletteIndexOutOfRange(_, _, o), let .malformedChunk(_, _, o), let .limitExceeded(_, o), let .truncated(o, _),
             let .apngSequence(_, _, o), let .apngFrameOutsideCanvas(_, _, _, _, o), let .apngInvalidChunk(_, _, o),
             let .apngFrameCount(_, _, o), let .apngFrameData(_, _, o):
            o
        case .invalidParameter, .unrepresentable, .compressionFailed, .temporaryStorage:
            nil
        }
    }

    /// A one-line English message ending in the byte offset, e.g. "PNG: duplicate PLTE chunk at byte 57".
    public var description: String {
        "PNG: " + message + (offset.map { " at byte \($0)" } ?? "")
    }

    /// What went wrong, without the "PNG:" prefix and the byte offset ("duplicate PLTE chunk").
    public var message: String {
        switch self {
        case .invalidSignature: "not a PNG file (bad signature)"
        case let .invalidChunkLength(length, _): "chunk length \(length) exceeds 2^31-1"
        case let .invalidChunkType(type, _): "invalid chunk type \"\(type)\""
        case let .badCRC(chunk, declared, computed, _):
            "CRC mismatch in \(chunk) chunk (declared \(hex(declared)), computed \(hex(computed)))"
        case .missingHeader: "IHDR is not the first chunk"
        case let .duplicateChunk(chunk, _): "duplicate \(chunk) chunk"
        case let .chunkOutOfOrder(chunk, _): "\(chunk) chunk out of order"
        case let .unknownCriticalChunk(chunk, _): "unknown critical chunk \(chunk)"
        case .chunkAfterEnd: "data after IEND"
        case .nonContiguousImageData: "IDAT chunks are not consecutive"
        case .missingImageData: "no IDAT chunk before IEND"
        case let .invalidDimensions(w, h, _): "invalid image size \(w)x\(h)"
        case let .invalidColorTypeAndDepth(c, d, _): "invalid colour type \(c) with bit depth \(d)"
        case let .invalidCompressionMethod(m, _): "unknown compression method \(m)"
        case let .invalidFilterMethod(m, _): "unknown filter method \(m)"
        case let .invalidInterlaceMethod(m, _): "unknown interlace method \(m)"
        case let .invalidHeaderLength(l, _): "IHDR length \(l), expected 13"
        case .missingPalette: "palette image without PLTE"
        case .unexpectedPalette: "PLTE chunk in a grayscale image"
        case let .invalidPalette(n, _): "invalid palette of \(n) bytes"
        case let .invalidTransparency(reason, _): "invalid tRNS: \(reason)"
        case let .invalidFilterType(t, row, _): "invalid filter type \(t) on row \(row)"
        case let .corruptImageData(message, _): "corrupt compressed image data (\(message))"
        case .tooMuchImageData: "more image data than the image holds"
        case .notEnoughImageData: "image data ends before the last row"
        case .unterminatedImageData: "the image data's zlib stream does not end with the IDAT chunks"
        case let .paletteIndexOutOfRange(index, row, _): "palette index \(index) past the palette on row \(row)"
        case let .malformedChunk(chunk, reason, _): "\(chunk) chunk ignored: \(reason)"
        case let .limitExceeded(violation, _): "limit exceeded: \(violation)"
        case .truncated: "file is truncated"
        case let .apngSequence(expected, found, _): "APNG sequence number \(found) where \(expected) was expected"
        case let .apngFrameOutsideCanvas(x, y, w, h, _): "APNG frame \(w)x\(h) at \(x),\(y) is empty or outside the canvas"
        case let .apngInvalidChunk(chunk, reason, _): "invalid \(chunk): \(reason)"
        case let .apngFrameCount(declared, found, _): "acTL declares \(declared) frames, the file has \(found)"
        case let .apngFrameData(frame, reason, _): "APNG frame \(frame): \(reason)"
        case let .invalidParameter(message): "invalid parameter: \(message)"
        case let .unrepresentable(message): "cannot encode: \(message)"
        case let .compressionFailed(status): "zlib deflate failed (status \(status))"
        case let .temporaryStorage(reason): "temporary storage for the interlaced image failed: \(reason)"
        }
    }
}

private func hex(_ v: UInt32) -> String {
    let s = String(v, radix: 16)
    return "0x" + String(repeating: "0", count: max(0, 8 - s.count)) + s
}
