/// The variable-length-code LZW decoder of GIF89a appendix F, resumable at any byte.
///
/// Every table entry's string is somewhere in the output already: an entry made from code p
/// followed by code q is p's string plus the first byte of q's, and q's string is written right
/// after p's. So the table keeps, for each entry, its length, its first eight bytes packed in a
/// `UInt64`, and where in the output its string starts. A string of at most eight bytes (most
/// of them) is written with one store of the packed bytes; a longer one is copied forward from
/// the output (eight bytes at a time where the source is at least eight bytes back), as an LZ77
/// match is: no chain of table lookups, no stack, no allocation per code. The output passed to every call for one image must therefore
/// be the same buffer (positions are offsets in it), holding what earlier calls wrote. Codes are
/// read least-significant bit first; the code width grows when the next free entry reaches
/// `1 << width` (the decoder's view of the encoder's "early change"), stops growing at 12 bits,
/// and once the table holds 4096 entries nothing is added until a clear code (the "deferred
/// clear" some encoders use).
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
    /// Entry `c` (above the end code): where its string starts in the output.
    private var start: [UInt32]
    /// Entry `c`: length of its string.
    private var length: [UInt16]
    /// Entry `c`: the first eight bytes of its string, first byte lowest (zero past the end of
    /// a shorter string). Literal codes hold their own value.
    private var head: [UInt64]
    /// Where the previous code's string starts in the output.
    private var previousStart: Int = 0
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
        start = [UInt32](repeating: 0, count: LZWDecoder.maxCodes)
        length = [UInt16](repeating: 1, count: LZWDecoder.maxCodes)
        head = (0 ..< LZWDecoder.maxCodes).map { UInt64($0 < 1 << minimumCodeSize ? $0 : 0) }
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
                                  previous: previous, previousStart: previousStart, position: position)
        let (clearCode, minimumCodeSize) = (self.clearCode, self.minimumCodeSize)
        let result = start.withUnsafeMutableBufferPointer { startBuffer in
            length.withUnsafeMutableBufferPointer { lengthBuffer in
                head.withUnsafeMutableBufferPointer { headBuffer in
                    guard let start = startBuffer.baseAddress, let length = lengthBuffer.baseAddress,
                          let head = headBuffer.baseAddress else {
                        return (Status.needInput, 0)
                    }
                    return LZWDecoder.kernel(&registers, start: start, length: length, head: head, input: base,
                                             count: input.count, output: output, capacity: capacity,
                                             clearCode: clearCode, minimumCodeSize: minimumCodeSize)
                }
            }
        }
        bits = registers.bits; bitCount = registers.bitCount
        codeSize = registers.codeSize; nextCode = registers.nextCode; previous = registers.previous
        previousStart = registers.previousStart
        position = registers.position
        return result
    }

    /// The decoder's state while a kernel runs: copied into locals so that it lives in registers.
    private struct Registers {
        var bits: UInt64, bitCount: Int, codeSize: Int, nextCode: Int, previous: Int, previousStart: Int, position: Int
    }

    /// The hot loop, over pointers whose extents the caller checked: `start`, `length` and
    /// `head` hold 4096 entries, `input` `count` bytes, `output` `capacity` bytes.
    @inline(never)
    private static func kernel(_ r: inout Registers, start: UnsafeMutablePointer<UInt32>, length: UnsafeMutablePointer<UInt16>,
                               head: UnsafeMutablePointer<UInt64>,
                               input base: UnsafePointer<UInt8>, count n: Int, output: UnsafeMutablePointer<UInt8>,
                               capacity: Int, clearCode: Int, minimumCodeSize: Int) -> (Status, Int) {
        var bits = r.bits, bitCount = r.bitCount, codeSize = r.codeSize
        var nextCode = r.nextCode, previous = r.previous, previousStart = r.previousStart, pos = r.position
        let endCode = clearCode &+ 1
        var i = 0
        var status = Status.needInput
        var mask = (UInt64(1) << UInt64(codeSize)) &- 1
        // The next free code at which the width grows (never once it is 12 bits).
        var growAt = codeSize < 12 ? 1 << codeSize : Int.max
        while true {
            if bitCount < codeSize {
                if i &+ 8 <= n {
                    // Whole 8-byte load; the bytes above `bitCount` that do not fit are loaded again next time.
                    let word = UInt64(littleEndian: UnsafeRawPointer(base + i).loadUnaligned(as: UInt64.self))
                    bits |= word &<< UInt64(bitCount)
                    i &+= (63 &- bitCount) >> 3
                    bitCount |= 56
                } else {
                    while bitCount <= 56 && i < n {
                        bits |= UInt64(base[i]) &<< UInt64(bitCount)
                        bitCount &+= 8
                        i &+= 1
                    }
                    if bitCount < codeSize { break }
                }
            }
            let code = Int(truncatingIfNeeded: bits & mask)
            bits &>>= UInt64(truncatingIfNeeded: codeSize)
            bitCount &-= codeSize

            let stringLength: Int
            /// The string's first byte (the last byte of the entry this code completes).
            let first: UInt64
            if code < clearCode {
                // A literal: one byte.
                output[pos] = UInt8(truncatingIfNeeded: code)
                stringLength = 1
                first = UInt64(truncatingIfNeeded: code)
            } else if code == clearCode {
                nextCode = clearCode &+ 2
                codeSize = minimumCodeSize &+ 1
                mask = (UInt64(1) << UInt64(codeSize)) &- 1
                growAt = 1 << codeSize
                previous = -1
                continue
            } else if code == endCode {
                status = .end
                break
            } else {
                // A table entry, or the entry being defined (the KwKwK case, appendix F: the
                // previous string and its own first byte, which the forward copy reads back).
                let packed: UInt64
                if code < nextCode {
                    stringLength = Int(truncatingIfNeeded: length[code])
                    packed = head[code]
                } else if code == nextCode && previous >= 0 {
                    let previousLength = Int(truncatingIfNeeded: length[previous])
                    stringLength = previousLength &+ 1
                    let p = head[previous]
                    packed = previousLength < 8 ? p | (p & 0xFF) &<< UInt64(previousLength &* 8) : p
                } else {
                    status = .invalidCode(code)
                    break
                }
                first = packed & 0xFF
                if stringLength <= 8 && pos &+ 8 <= capacity {
                    // Bytes past the string are scratch: nobody reads the output past the
                    // decoded position, and the next strings overwrite them.
                    UnsafeMutableRawPointer(output + pos).storeBytes(of: packed.littleEndian, as: UInt64.self)
                } else {
                    let from = code < nextCode ? Int(truncatingIfNeeded: start[code]) : previousStart
                    copy(output, from: from, to: pos, count: min(stringLength, capacity &- pos), capacity: capacity)
                }
            }
            if previous >= 0 && nextCode < LZWDecoder.maxCodes {
                // The previous string and this one's first byte, which follows it in the output.
                let previousLength = Int(truncatingIfNeeded: length[previous])
                let p = head[previous]
                head[nextCode] = previousLength < 8 ? p | first &<< UInt64(previousLength &* 8) : p
                start[nextCode] = UInt32(truncatingIfNeeded: previousStart)
                length[nextCode] = UInt16(truncatingIfNeeded: previousLength &+ 1)
                nextCode &+= 1
                if nextCode == growAt {
                    codeSize &+= 1
                    mask = (UInt64(1) << UInt64(codeSize)) &- 1
                    growAt = codeSize < 12 ? 1 << codeSize : Int.max
                }
            } else if nextCode == growAt {
                // Minimum code size 1: the first free code (4) already needs 3 bits, so the
                // width grows after the first code following a clear (as giflib and Pillow read it).
                codeSize &+= 1
                mask = (UInt64(1) << UInt64(codeSize)) &- 1
                growAt = codeSize < 12 ? 1 << codeSize : Int.max
            }
            previous = code
            previousStart = pos
            if stringLength >= capacity &- pos { pos = capacity; status = .outputFull; break }
            pos &+= stringLength
        }
        r = Registers(bits: bits, bitCount: bitCount, codeSize: codeSize, nextCode: nextCode, previous: previous,
                      previousStart: previousStart, position: pos)
        return (status, status == .needInput ? n : i)
    }

    /// Copies `count` bytes of `output` from `from` to `to` (`from < to`, `to + count <=
    /// capacity`), front to back, so an overlapping source repeats itself as LZ77 matches do.
    /// Eight bytes at a time when the source is at least eight bytes back. Away from the end of
    /// the output the last word may run up to seven bytes past the string: nobody reads the
    /// output past the decoded position, and the next strings overwrite those bytes. Near the
    /// end the last bytes are merged into the word already there.
    @inline(__always)
    private static func copy(_ output: UnsafeMutablePointer<UInt8>, from: Int, to: Int, count: Int, capacity: Int) {
        let s = UnsafeRawPointer(output + from), d = UnsafeMutableRawPointer(output + to)
        var k = 0
        if to &- from >= 8 && to &+ count &+ 8 <= capacity {
            repeat {
                d.storeBytes(of: s.loadUnaligned(fromByteOffset: k, as: UInt64.self), toByteOffset: k, as: UInt64.self)
                k &+= 8
            } while k < count
            return
        }
        if to &- from >= 8 {
            while k &+ 8 <= count {
                d.storeBytes(of: s.loadUnaligned(fromByteOffset: k, as: UInt64.self), toByteOffset: k, as: UInt64.self)
                k &+= 8
            }
            let rest = count &- k
            if rest > 0 && to &+ k &+ 8 <= capacity {
                let keep = UInt64.max &<< UInt64(rest &* 8)
                let old = d.loadUnaligned(fromByteOffset: k, as: UInt64.self)
                let new = s.loadUnaligned(fromByteOffset: k, as: UInt64.self)
                d.storeBytes(of: (new & ~keep) | (old & keep), toByteOffset: k, as: UInt64.self)
                return
            }
        }
        let sb = output + from, db = output + to
        while k < count {
            db[k] = sb[k]
            k &+= 1
        }
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
