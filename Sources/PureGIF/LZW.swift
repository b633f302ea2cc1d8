/// The variable-length-code LZW decoder of GIF89a appendix F, resumable at any byte.
///
/// The string table is a prefix/suffix table with each entry's first byte and length kept
/// beside it, so a code's string is written straight into the output back to front: no stack,
/// no allocation per code. Codes are read least-significant bit first; the code width grows
/// when the next free entry reaches `1 << width` (the decoder's view of the encoder's
/// "early change"), stops growing at 12 bits, and once the table holds 4096 entries nothing is
/// added until a clear code (the "deferred clear" some encoders use).
///
/// ```swift
/// var lzw = LZWDecoder(minimumCodeSize: 2)
/// var position = 0
/// let (status, used) = lzw.decode(data, into: out, capacity: count, position: &position)
/// ```
@_spi(Testing) public struct LZWDecoder: Sendable {
    /// Why ``decode(_:into:capacity:position:)`` or ``decodeTail(_:)`` returned.
    public enum Status: Equatable, Sendable {
        /// Every input byte was used; more may come.
        case needInput
        /// The end-of-information code was read.
        case end
        /// The output is full (a string that did not fit was clipped to it).
        case outputFull
        /// `code` is neither in the table nor the next one to be added.
        case invalidCode(Int)
        /// A code other than clear or end arrived after the output was full (``decodeTail``).
        case excessData
    }

    static let maxCodes = 4096
    /// Entry `c`: prefix code in bits 0-15, last byte in bits 16-23, first byte in bits 24-31.
    private var link: [UInt32]
    /// Entry `c`: length of its string.
    private var length: [UInt16]
    /// The LZW minimum code size of the image (the byte before its data sub-blocks).
    public let minimumCodeSize: Int
    let clearCode: Int
    let endCode: Int
    private var nextCode: Int
    private var codeSize: Int
    /// The previous code, or -1 after a clear (no entry is added for the next code).
    private var previous: Int
    private var bits: UInt64 = 0
    private var bitCount: Int = 0

    /// `minimumCodeSize` in 1...11; the caller validated it (GIF allows 2...8, and encoders write 1
    /// for two-colour images).
    public init(minimumCodeSize: Int) {
        self.minimumCodeSize = minimumCodeSize
        clearCode = 1 << minimumCodeSize
        endCode = clearCode + 1
        nextCode = clearCode + 2
        codeSize = minimumCodeSize + 1
        previous = -1
        link = [UInt32](repeating: 0, count: LZWDecoder.maxCodes)
        length = [UInt16](repeating: 1, count: LZWDecoder.maxCodes)
        for c in 0 ..< clearCode {
            link[c] = UInt32(c) << 16 | UInt32(c) << 24 | UInt32(c)
        }
    }

    /// Whole bytes taken from the input but not yet decoded: `used - bufferedBytes - 1` is the
    /// offset of the byte holding the end of the last code read.
    public var bufferedBytes: Int { bitCount / 8 }

    /// Starts a new image with the same minimum code size, keeping the tables' storage.
    public mutating func restart() {
        nextCode = clearCode + 2
        codeSize = minimumCodeSize + 1
        previous = -1
        bits = 0
        bitCount = 0
    }

    /// Decodes codes from `input` into `output[position ..< capacity]`, advancing `position`.
    /// Returns the status and the number of input bytes taken into the bit buffer (all of them
    /// for `.needInput`); ``bufferedBytes`` of those are not yet decoded.
    public mutating func decode(_ input: UnsafeBufferPointer<UInt8>, into output: UnsafeMutablePointer<UInt8>,
                         capacity: Int, position: inout Int) -> (Status, Int) {
        if position >= capacity { return (.outputFull, 0) }
        // A call that ended `.needInput` left fewer bits than a code, so empty input has nothing to do.
        guard input.count > 0, let base = input.baseAddress else { return (.needInput, 0) }
        var registers = Registers(bits: bits, bitCount: bitCount, codeSize: codeSize, nextCode: nextCode,
                                  previous: previous, position: position)
        let (clearCode, minimumCodeSize) = (self.clearCode, self.minimumCodeSize)
        let result = link.withUnsafeMutableBufferPointer { linkBuffer in
            length.withUnsafeMutableBufferPointer { lengthBuffer in
                guard let link = linkBuffer.baseAddress, let length = lengthBuffer.baseAddress else {
                    return (Status.needInput, 0)
                }
                return LZWDecoder.kernel(&registers, link: link, length: length, input: base, count: input.count,
                                         output: output, capacity: capacity, clearCode: clearCode,
                                         minimumCodeSize: minimumCodeSize)
            }
        }
        bits = registers.bits; bitCount = registers.bitCount
        codeSize = registers.codeSize; nextCode = registers.nextCode; previous = registers.previous
        position = registers.position
        return result
    }

    /// The decoder's state while a kernel runs: copied into locals so that it lives in registers.
    private struct Registers {
        var bits: UInt64, bitCount: Int, codeSize: Int, nextCode: Int, previous: Int, position: Int
    }

    /// The hot loop, over pointers whose extents the caller checked: `link` and `length` hold
    /// 4096 entries, `input` `count` bytes, `output` `capacity` bytes.
    @inline(never)
    private static func kernel(_ r: inout Registers, link: UnsafeMutablePointer<UInt32>, length: UnsafeMutablePointer<UInt16>,
                               input base: UnsafePointer<UInt8>, count n: Int, output: UnsafeMutablePointer<UInt8>,
                               capacity: Int, clearCode: Int, minimumCodeSize: Int) -> (Status, Int) {
        var bits = r.bits, bitCount = r.bitCount, codeSize = r.codeSize
        var nextCode = r.nextCode, previous = r.previous, pos = r.position
        let endCode = clearCode &+ 1
        var i = 0
        var status = Status.needInput
        var mask = (UInt64(1) << UInt64(codeSize)) &- 1
        while true {
            if bitCount < codeSize {
                if i &+ 8 <= n {
                    // Whole 8-byte load; the bytes above `bitCount` that do not fit are loaded again next time.
                    let word = UInt64(littleEndian: UnsafeRawPointer(base + i).loadUnaligned(as: UInt64.self))
                    bits |= word << UInt64(bitCount)
                    i &+= (63 &- bitCount) >> 3
                    bitCount |= 56
                } else {
                    while bitCount <= 56 && i < n {
                        bits |= UInt64(base[i]) << UInt64(bitCount)
                        bitCount &+= 8
                        i &+= 1
                    }
                    if bitCount < codeSize { break }
                }
            }
            let code = Int(truncatingIfNeeded: bits & mask)
            bits >>= UInt64(codeSize)
            bitCount &-= codeSize

            if code < clearCode {
                // A literal: the commonest short string, written without the table walk.
                if previous >= 0 && nextCode < LZWDecoder.maxCodes {
                    let p = link[previous]
                    link[nextCode] = UInt32(truncatingIfNeeded: previous) | UInt32(truncatingIfNeeded: code) << 16 | (p & 0xFF00_0000)
                    length[nextCode] = length[previous] &+ 1
                    nextCode &+= 1
                    if nextCode == 1 << codeSize && codeSize < 12 {
                        codeSize &+= 1
                        mask = (UInt64(1) << UInt64(codeSize)) &- 1
                    }
                } else if nextCode == 1 << codeSize && codeSize < 12 {
                    // Minimum code size 1: the first free code (4) already needs 3 bits, so the
                    // width grows after the first code following a clear (as giflib and Pillow read it).
                    codeSize &+= 1
                    mask = (UInt64(1) << UInt64(codeSize)) &- 1
                }
                output[pos] = UInt8(truncatingIfNeeded: code)
                pos &+= 1
                previous = code
                if pos == capacity { status = .outputFull; break }
                continue
            }
            if code == clearCode {
                nextCode = clearCode &+ 2
                codeSize = minimumCodeSize &+ 1
                mask = (UInt64(1) << UInt64(codeSize)) &- 1
                previous = -1
                continue
            }
            if code == endCode { status = .end; break }

            // A table entry, or the entry being defined (the KwKwK case, appendix F).
            let firstByte: UInt32
            let stringLength: Int
            let walkFrom: Int
            if code < nextCode {
                firstByte = link[code] >> 24
                stringLength = Int(length[code])
                walkFrom = code
            } else if code == nextCode && previous >= 0 {
                firstByte = link[previous] >> 24
                stringLength = Int(length[previous]) &+ 1
                walkFrom = previous
            } else {
                status = .invalidCode(code)
                break
            }
            let room = capacity &- pos
            if stringLength <= room {
                var p = output + (pos &+ stringLength &- 1)
                var c = walkFrom
                if walkFrom != code { p.pointee = UInt8(truncatingIfNeeded: firstByte); p -= 1 }
                // Chains end at a literal: every prefix is smaller than its entry.
                while c >= clearCode {
                    let e = link[c]
                    p.pointee = UInt8(truncatingIfNeeded: e >> 16)
                    p -= 1
                    c = Int(truncatingIfNeeded: e & 0xFFFF)
                }
                p.pointee = UInt8(truncatingIfNeeded: c)
            } else {
                writeClipped(link: link, walkFrom: walkFrom, defined: walkFrom != code,
                             firstByte: UInt8(truncatingIfNeeded: firstByte), length: stringLength,
                             into: output + pos, room: room, clearCode: clearCode)
            }
            if previous >= 0 && nextCode < LZWDecoder.maxCodes {
                let p = link[previous]
                link[nextCode] = UInt32(truncatingIfNeeded: previous) | firstByte << 16 | (p & 0xFF00_0000)
                length[nextCode] = length[previous] &+ 1
                nextCode &+= 1
                if nextCode == 1 << codeSize && codeSize < 12 {
                    codeSize &+= 1
                    mask = (UInt64(1) << UInt64(codeSize)) &- 1
                }
            } else if nextCode == 1 << codeSize && codeSize < 12 {
                codeSize &+= 1
                mask = (UInt64(1) << UInt64(codeSize)) &- 1
            }
            previous = code
            if stringLength >= room { pos = capacity; status = .outputFull; break }
            pos &+= stringLength
        }
        r = Registers(bits: bits, bitCount: bitCount, codeSize: codeSize, nextCode: nextCode, previous: previous, position: pos)
        return (status, status == .needInput ? n : i)
    }

    /// The last `room` bytes do not fit: writes the first `room` bytes of the string.
    private static func writeClipped(link: UnsafeMutablePointer<UInt32>, walkFrom: Int, defined: Bool,
                                     firstByte: UInt8, length: Int, into output: UnsafeMutablePointer<UInt8>,
                                     room: Int, clearCode: Int) {
        var index = length - 1
        if defined {
            if index < room { output[index] = firstByte }
            index -= 1
        }
        var c = walkFrom
        while c >= clearCode {
            let e = link[c]
            if index < room { output[index] = UInt8(truncatingIfNeeded: e >> 16) }
            index -= 1
            c = Int(truncatingIfNeeded: e & 0xFFFF)
        }
        if index >= 0 && index < room { output[index] = UInt8(truncatingIfNeeded: c) }
    }

    /// After the output is full: reads codes until the end code, accepting only clear codes on
    /// the way (strict decoding of excess data). Returns `.needInput`, `.end` or `.excessData`.
    public mutating func decodeTail(_ input: UnsafeBufferPointer<UInt8>) -> (Status, Int) {
        var i = 0
        while true {
            while bitCount < codeSize && i < input.count {
                bits |= UInt64(input[i]) << UInt64(bitCount)
                bitCount += 8
                i += 1
            }
            if bitCount < codeSize { return (.needInput, input.count) }
            let code = Int(truncatingIfNeeded: bits & ((UInt64(1) << UInt64(codeSize)) - 1))
            bits >>= UInt64(codeSize)
            bitCount -= codeSize
            if code == endCode { return (.end, i) }
            if code != clearCode { return (.excessData, i) }
            nextCode = clearCode + 2
            codeSize = minimumCodeSize + 1
            previous = -1
        }
    }
}
