import ImageCore
import PureQuant

/// Opaque colours (RGBA8 words, never 0) to their first palette index: open addressing over
/// 512 slots, 0 marking an empty one (a dictionary's hashing cost a tenth of the frame work).
struct ColourIndex {
    private var keys = [UInt32](repeating: 0, count: 512)
    private var values = [UInt8](repeating: 0, count: 512)

    mutating func insert(_ key: UInt32, _ value: UInt8) {
        var s = Int((key &* 0x9E37_79B1) &>> 23)
        while keys[s] != 0 && keys[s] != key { s = (s &+ 1) & 511 }
        keys[s] = key
        values[s] = value
    }

    subscript(key: UInt32) -> UInt8? {
        guard key != 0 else { return nil }
        var s = Int((key &* 0x9E37_79B1) &>> 23)
        while true {
            let k = keys[s]
            if k == key { return values[s] }
            if k == 0 { return nil }
            s = (s &+ 1) & 511
        }
    }
}

/// Where a frame's LZW data is made: on a thread of its own (`ThreadWork`, not Dispatch's
/// pool: inside `jpng convert` pool threads are busy decoding frames ahead) when more than
/// one thread is allowed and the frame is large enough to pay for the thread, else at once.
/// The bytes are the same either way.
struct FrameCoder: Sendable {
    let threads: Int
    /// Pixels below which a frame is coded on the caller's thread (a thread costs some tens
    /// of microseconds; LZW on this many pixels a few hundred).
    static let minimumPixels = 16_384

    func runs(pixels: Int) -> Bool { threads > 1 && pixels >= Self.minimumPixels }
}

/// A frame's LZW data and the transparent index its graphic control extension names.
struct CodedFrame: Sendable {
    var data: [UInt8]
    var transparent: Int?
}

enum FrameCoding: Sendable {
    case running(ThreadWork<CodedFrame>)
    case done(CodedFrame)

    var value: CodedFrame {
        switch self {
        case let .running(work): work.value()
        case let .done(coded): coded
        }
    }
}

/// A frame worked out but for its data: its blocks' fields.
struct SettledFrame: Sendable {
    /// The global table, on the first frame (the header goes before it).
    var globalTable: [RGBAColor]?
    var disposal: Int
    var delay: Int
    var x: Int, y: Int, width: Int, height: Int
    var localTable: [RGBAColor]?
    var coding: FrameCoding
}
