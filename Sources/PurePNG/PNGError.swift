import ImageCore

/// Everything that can go wrong reading or writing a PNG. Each decoding case carries the
/// byte offset in the file where the problem was found (and its evidence where useful).
public enum PNGError: Error, Sendable, Equatable, CustomStringConvertible {
    // Container (PNG 5.2-5.6)
    case invalidSignature(offset: Int)
    case invalidChunkLength(length: UInt32, offset: Int)
    case invalidChunkType(type: String, offset: Int)
    case badCRC(chunk: String, declared: UInt32, computed: UInt32, offset: Int)
    case missingHeader(offset: Int)
    case duplicateChunk(chunk: String, offset: Int)
    case chunkOutOfOrder(chunk: String, offset: Int)
    case unknownCriticalChunk(chunk: String, offset: Int)
    case chunkAfterEnd(offset: Int)
    case nonContiguousImageData(offset: Int)
    case missingImageData(offset: Int)
    // Header values (PNG 11.2.2)
    case invalidDimensions(width: UInt32, height: UInt32, offset: Int)
    case invalidColorTypeAndDepth(colorType: UInt8, bitDepth: UInt8, offset: Int)
    case invalidCompressionMethod(UInt8, offset: Int)
    case invalidFilterMethod(UInt8, offset: Int)
    case invalidInterlaceMethod(UInt8, offset: Int)
    case invalidHeaderLength(length: UInt32, offset: Int)
    // Palette and transparency (PNG 11.2.3, 11.3.2.1)
    case missingPalette(offset: Int)
    case unexpectedPalette(offset: Int)
    case invalidPalette(entries: Int, offset: Int)
    case invalidTransparency(reason: String, offset: Int)
    // Image data (PNG 9, 10)
    case invalidFilterType(UInt8, row: Int, offset: Int)
    case corruptImageData(message: String, offset: Int)
    case tooMuchImageData(offset: Int)
    case notEnoughImageData(offset: Int)
    // Limits and truncation
    case limitExceeded(LimitViolation, offset: Int)
    /// The input ended early; `partial` holds the rows decoded so far (the rest zero).
    case truncated(offset: Int, partial: Image?)
    // Encoding
    case invalidParameter(String)
    case unrepresentable(String)
    case compressionFailed(status: Int32)

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
        case .limitExceeded: "limitExceeded"
        case .truncated: "truncated"
        case .invalidParameter: "invalidParameter"
        case .unrepresentable: "unrepresentable"
        case .compressionFailed: "compressionFailed"
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
             let .tooMuchImageData(o), let .notEnoughImageData(o), let .limitExceeded(_, o), let .truncated(o, _):
            o
        case .invalidParameter, .unrepresentable, .compressionFailed:
            nil
        }
    }

    public var description: String {
        let at = offset.map { " at byte \($0)" } ?? ""
        let what: String = switch self {
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
        case let .limitExceeded(violation, _): "limit exceeded: \(violation)"
        case .truncated: "file is truncated"
        case let .invalidParameter(message): "invalid parameter: \(message)"
        case let .unrepresentable(message): "cannot encode: \(message)"
        case let .compressionFailed(status): "zlib deflate failed (status \(status))"
        }
        return "PNG: " + what + at
    }
}

private func hex(_ v: UInt32) -> String {
    let s = String(v, radix: 16)
    return "0x" + String(repeating: "0", count: max(0, 8 - s.count)) + s
}
