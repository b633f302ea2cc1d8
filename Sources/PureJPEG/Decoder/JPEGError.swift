import ImageCore

/// Everything that can go wrong decoding a JPEG. Each case carries the byte offset in the file
/// where the problem was found, and its evidence where that helps.
///
/// ```swift
/// do { _ = try JPEGDecoder.decode(bytes) }
/// catch let error as JPEGError { print(error.code, error) }   // e.g. "unsupported"
/// ```
public enum JPEGError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A marker that cannot appear here (T.81 B.1.1.3): no SOI at the start (`marker` is then the
    /// first byte), a second SOI or SOF, RSTn before any scan, a reserved marker, a segment length below 2.
    case invalidMarker(marker: UInt8, offset: Int)
    /// A marker segment whose length or contents are malformed (T.81 B.2.4, B.2.5).
    case invalidSegment(marker: UInt8, reason: String, offset: Int)
    /// A DHT segment that does not describe a valid canonical code (T.81 C).
    case invalidHuffmanTable(reason: String, offset: Int)
    /// A scan refers to a Huffman or quantization table that was never defined.
    case missingTable(kind: String, index: Int, offset: Int)
    /// Width or height 0 in SOF (height 0 would need DNL, T.81 B.2.5, which is not supported).
    case invalidDimensions(width: Int, height: Int, offset: Int)
    /// A coding process, precision or layout this decoder does not implement (never a wrong image).
    case unsupported(process: String, offset: Int)
    /// An SOS header that is malformed or violates the progression rules (T.81 B.2.3, G.1.1.1).
    case invalidScan(reason: String, offset: Int)
    /// Values no valid file holds: entropy-coded data that cannot be decoded (an invalid Huffman
    /// code, a run past the block), or header fields out of range (sampling factors, table
    /// indices, DQT precision, a scan naming a component the frame lacks).
    case corruptData(reason: String, offset: Int)
    /// The input exceeds one of the `DecodingLimits` other than the scan count.
    case limitExceeded(LimitViolation, offset: Int)
    /// More progressive scans than `DecodingLimits.maxScans`.
    case tooManyScans(limit: Int, offset: Int)
    /// The input ended early; `partial` holds what was decoded (the rest mid-gray).
    case truncated(offset: Int, partial: Image?)
    /// Bytes after EOI, with ``JPEGLeniencies/dataAfterEnd`` left out (strict decoding).
    case dataAfterEnd(offset: Int)
    /// A decoding option outside its documented range.
    case invalidOption(String)
    /// The temporary file of a spilled coefficient store (``JPEGDecodingOptions/spillAbove``)
    /// could not be made: the directory is missing, not writable or full.
    case temporaryStorage(reason: String)

    /// A stable name for the case (vector tables record it).
    public var code: String {
        switch self {
        case .invalidMarker: "invalidMarker"
        case .invalidSegment: "invalidSegment"
        case .invalidHuffmanTable: "invalidHuffmanTable"
        case .missingTable: "missingTable"
        case .invalidDimensions: "invalidDimensions"
        case .unsupported: "unsupported"
        case .invalidScan: "invalidScan"
        case .corruptData: "corruptData"
        case .limitExceeded: "limitExceeded"
        case .tooManyScans: "tooManyScans"
        case .truncated: "truncated"
        case .dataAfterEnd: "dataAfterEnd"
        case .invalidOption: "invalidOption"
        case .temporaryStorage: "temporaryStorage"
        }
    }

    /// The byte offset the error refers to, where there is one.
    public var offset: Int? {
        switch self {
        case let .invalidMarker(_, o), let .invalidSegment(_, _, o), let .invalidHuffmanTable(_, o),
             let .missingTable(_, _, o), let .invalidDimensions(_, _, o),
             let .unsupported(_, o), let .invalidScan(_, o), let .corruptData(_, o),
             let .limitExceeded(_, o), let .tooManyScans(_, o), let .truncated(o, _), let .dataAfterEnd(o):
            o
        case .invalidOption, .temporaryStorage: nil
        }
    }

    /// A one-line English message with the byte offset, e.g. "invalid marker 0xC8 at offset 2".
    public var description: String {
        switch self {
        case let .invalidMarker(m, o): "invalid marker 0x\(hex(m)) at offset \(o)"
        case let .invalidSegment(m, r, o): "malformed segment FF\(hex(m)) at offset \(o): \(r)"
        case let .invalidHuffmanTable(r, o): "invalid Huffman table at offset \(o): \(r)"
        case let .missingTable(k, i, o): "\(k) table \(i) used at offset \(o) was never defined"
        case let .invalidDimensions(w, h, o): "invalid image size \(w)x\(h) at offset \(o)"
        case let .unsupported(p, o): "unsupported JPEG process at offset \(o): \(p)"
        case let .invalidScan(r, o): "invalid scan at offset \(o): \(r)"
        case let .corruptData(r, o): "corrupt entropy-coded data at offset \(o): \(r)"
        case let .limitExceeded(v, o): "limit exceeded at offset \(o): \(v)"
        case let .tooManyScans(l, o): "more than \(l) progressive scans (at offset \(o))"
        case let .truncated(o, p): "input truncated at offset \(o)" + (p == nil ? "" : " (partial image available)")
        case let .dataAfterEnd(o): "data after EOI at offset \(o)"
        case let .invalidOption(r): "invalid decoding option: \(r)"
        case let .temporaryStorage(r): "temporary storage for the coefficients failed: \(r)"
        }
    }
}

@inline(__always) func hex(_ b: UInt8) -> String {
    let digits = Array("0123456789ABCDEF")
    return String([digits[Int(b >> 4)], digits[Int(b & 15)]])
}
