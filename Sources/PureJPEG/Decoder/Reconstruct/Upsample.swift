/// Chroma upsampling, bit-exact with libjpeg-turbo's jdsample.c (what `djpeg` runs by default).
///
/// - Box replication (`int_upsample`, `h2v1_upsample`, `h2v2_upsample`) for every integer
///   factor pair, and whenever `fancy` is false.
/// - The "fancy" triangle filter for h2v1, h1v2 and h2v2: each output sample is 3/4 of the
///   nearer input plus 1/4 of the next nearer, separably, with jdsample.c's rounding biases
///   (h2v1 and h1v2: +1 for the left/upper output, +2 for the right/lower one; h2v2: +8 and +7
///   on the 4-bit result), so rounding errors do not accumulate in one direction.
/// - As in libjpeg-turbo (jinit_upsampler), h2v1 and h2v2 use box replication when the
///   component is at most 2 samples wide; h1v2 is fancy at any width.
/// - Edges replicate the first/last row and column (jdmainct.c's context rows; the SIMD
///   jdsample's "dummy sample" on the right).
///
/// The caller decides `fancy`: libjpeg-turbo turns it off at 1/8 scale (min DCT size 1).
/// The h2v1 and h2v2 fancy rows have 16-bit-lane SIMD versions beside their scalar references.
@usableFromInline
enum Upsample {
    /// Writes output rows `outputRows` (full-resolution row numbers) of one component upsampled by
    /// (h, v) to `outputWidth` samples per row; row `k` of `outputRows` goes to
    /// `output + k * outputStride`. `row(i)` gives downsampled row i (0..<inputHeight) with at
    /// least `inputWidth` samples. Factors outside 1...4 are clamped into it; empty inputs write
    /// nothing.
    @usableFromInline
    static func upsample(h: Int, v: Int, fancy: Bool, inputWidth: Int, inputHeight: Int, outputWidth: Int,
                         outputRows: Range<Int>, row: (Int) -> UnsafePointer<UInt8>,
                         output: UnsafeMutablePointer<UInt8>, outputStride: Int) {
        upsample(h: h, v: v, fancy: fancy, inputWidth: inputWidth, inputHeight: inputHeight,
                 outputWidth: outputWidth, outputRows: outputRows, row: row, output: output,
                 outputStride: outputStride, useSIMD: true)
    }

    /// As above, choosing the scalar reference rows when `useSIMD` is false (for tests).
    @usableFromInline
    static func upsample(h: Int, v: Int, fancy: Bool, inputWidth: Int, inputHeight: Int, outputWidth: Int,
                         outputRows: Range<Int>, row: (Int) -> UnsafePointer<UInt8>,
                         output: UnsafeMutablePointer<UInt8>, outputStride: Int, useSIMD: Bool) {
        guard inputWidth > 0, inputHeight > 0, outputWidth > 0 else { return }
        for (k, r) in outputRows.enumerated() {
            upsampleRow(r, h: h, v: v, fancy: fancy, inputWidth: inputWidth, inputHeight: inputHeight,
                        outputWidth: outputWidth, samples: 0 ..< inputWidth, row: row, output: output + k * outputStride,
                        useSIMD: useSIMD)
        }
    }

    /// The input rows output row `r` is made from: `near` always, `far` too when the vertical
    /// triangle filter is in use (else `far == near`).
    @inline(__always)
    static func sourceRows(of r: Int, h: Int, v: Int, fancy: Bool, inputWidth: Int, inputHeight: Int) -> (near: Int, far: Int) {
        let h = min(max(h, 1), 4), v = min(max(v, 1), 4)
        let near = min(max(r / v, 0), inputHeight - 1)
        let fancyV2 = fancy && v == 2 && (h == 1 || (h == 2 && inputWidth > 2))
        guard fancyV2 else { return (near, near) }
        return (near, r & 1 == 0 ? max(near - 1, 0) : min(near + 1, inputHeight - 1))
    }

    /// Writes the outputs of input samples `samples` (outputs `h * lower ..< h * upper`, clipped
    /// to `outputWidth`, plus the edge repeat past the component's width when `samples` reaches
    /// its end) of output row `r` to `output` (the start of the output row). Only those bytes
    /// are written, so a cached upsampled plane can be brought up to date piece by piece.
    @usableFromInline
    static func upsampleRow(_ r: Int, h: Int, v: Int, fancy: Bool, inputWidth: Int, inputHeight: Int, outputWidth: Int,
                            samples: Range<Int>, row: (Int) -> UnsafePointer<UInt8>,
                            output out: UnsafeMutablePointer<UInt8>, useSIMD: Bool = true) {
        guard inputWidth > 0, inputHeight > 0, outputWidth > 0 else { return }
        let (near, far) = sourceRows(of: r, h: h, v: v, fancy: fancy, inputWidth: inputWidth, inputHeight: inputHeight)
        upsampleSpan(h: h, v: v, fancy: fancy, inputWidth: inputWidth, outputWidth: outputWidth, near: row(near),
                     far: row(far), lower: r & 1 == 1, samples: samples, output: out, useSIMD: useSIMD)
    }

    /// ``upsampleRow(_:h:v:fancy:inputWidth:inputHeight:outputWidth:samples:row:output:useSIMD:)``
    /// given the input rows of ``sourceRows(of:h:v:fancy:inputWidth:inputHeight:)`` (`lower`:
    /// the output row is odd), for callers that keep them.
    @usableFromInline
    static func upsampleSpan(h: Int, v: Int, fancy: Bool, inputWidth: Int, outputWidth: Int,
                             near: UnsafePointer<UInt8>, far: UnsafePointer<UInt8>, lower: Bool, samples: Range<Int>,
                             output out: UnsafeMutablePointer<UInt8>, useSIMD: Bool = true) {
        guard inputWidth > 0, outputWidth > 0 else { return }
        let h = min(max(h, 1), 4), v = min(max(v, 1), 4)
        let width = min(outputWidth, inputWidth * h)
        let start = max(samples.lowerBound, 0), end = min(samples.upperBound, inputWidth, (width + h - 1) / h)
        guard start < end else { return }
        let fancyH2 = fancy && h == 2 && inputWidth > 2
        let fancyV2 = fancy && v == 2 && (h == 1 || fancyH2)
        if fancyV2 {
            if h == 1 {
                fancyH1V2Row(near: near + start, far: far + start, lower: lower, width: end - start, output: out + start)
            } else if useSIMD {
                fancyH2V2SpanSIMD(near: near, far: far, inputWidth: inputWidth, outputWidth: width,
                                  from: start, to: end, output: out)
            } else {
                fancyH2V2Span(near: near, far: far, inputWidth: inputWidth, outputWidth: width,
                              from: start, to: end, output: out)
            }
        } else if fancyH2 && v == 1 {
            if useSIMD {
                fancyH2V1SpanSIMD(near, inputWidth: inputWidth, outputWidth: width, from: start, to: end, output: out)
            } else {
                fancyH2V1Span(near, inputWidth: inputWidth, outputWidth: width, from: start, to: end, output: out)
            }
        } else {
            boxRow(near + start, h: h, outputWidth: min(width, end * h) - start * h, output: out + start * h)
        }
        if width < outputWidth && end == min(inputWidth, (width + h - 1) / h) {
            // Wider than the component covers (never for libjpeg's rounded-up widths): repeat the edge.
            (out + width).update(repeating: out[width - 1], count: outputWidth - width)
        }
    }

    /// Box replication along a row: each input sample `h` times.
    @inlinable
    static func boxRow(_ input: UnsafePointer<UInt8>, h: Int, outputWidth: Int, output: UnsafeMutablePointer<UInt8>) {
        if h == 1 {
            output.update(from: input, count: outputWidth)
            return
        }
        var x = 0, i = 0
        while x + h <= outputWidth {
            (output + x).update(repeating: input[i], count: h)
            x += h
            i += 1
        }
        if x < outputWidth { (output + x).update(repeating: input[i], count: outputWidth - x) }
    }

    /// h2v1 fancy, scalar reference (jdsample.c h2v1_fancy_upsample) for input samples
    /// `start ..< end` (their outputs `2 * start ..< 2 * end`, clipped to `outputWidth`):
    /// outputs 2i and 2i+1 are (3*in[i] + in[i-1] + 1) >> 2 and (3*in[i] + in[i+1] + 2) >> 2,
    /// edges replicated (which reproduces libjpeg's exact copies at both ends).
    @inlinable
    static func fancyH2V1Span(_ input: UnsafePointer<UInt8>, inputWidth: Int, outputWidth: Int, from start: Int, to end: Int,
                              output: UnsafeMutablePointer<UInt8>) {
        let last = inputWidth - 1
        for i in max(start, 0) ..< max(start, min(end, inputWidth, (outputWidth + 1) / 2)) {
            let c = 3 &* Int(input[i])
            let l = Int(input[max(i - 1, 0)]), r = Int(input[min(i + 1, last)])
            output[2 * i] = UInt8(truncatingIfNeeded: (c &+ l &+ 1) >> 2)
            if 2 * i + 1 < outputWidth { output[2 * i + 1] = UInt8(truncatingIfNeeded: (c &+ r &+ 2) >> 2) }
        }
    }

    /// h1v2 fancy (jdsample.c h1v2_fancy_upsample): (3*near + far + bias) >> 2, bias 1 for the
    /// upper output row of a pair and 2 for the lower.
    @inlinable
    static func fancyH1V2Row(near: UnsafePointer<UInt8>, far: UnsafePointer<UInt8>, lower: Bool, width: Int,
                             output: UnsafeMutablePointer<UInt8>) {
        let bias = lower ? 2 : 1
        for i in 0..<width {
            output[i] = UInt8(truncatingIfNeeded: (3 &* Int(near[i]) &+ Int(far[i]) &+ bias) >> 2)
        }
    }

    /// h2v2 fancy, scalar reference (jdsample.c h2v2_fancy_upsample) for input samples
    /// `start ..< end` (their outputs `2 * start ..< 2 * end`, clipped to `outputWidth`): column
    /// sums s[i] = 3*near[i] + far[i], then (3*s[i] + s[i-1] + 8) >> 4 and (3*s[i] + s[i+1] + 7) >> 4.
    @inlinable
    static func fancyH2V2Span(near: UnsafePointer<UInt8>, far: UnsafePointer<UInt8>, inputWidth: Int,
                              outputWidth: Int, from start: Int, to end: Int, output: UnsafeMutablePointer<UInt8>) {
        @inline(__always) func sum(_ i: Int) -> Int {
            let j = min(max(i, 0), inputWidth - 1)
            return 3 &* Int(near[j]) &+ Int(far[j])
        }
        for i in max(start, 0) ..< max(start, min(end, inputWidth, (outputWidth + 1) / 2)) {
            let c = 3 &* sum(i)
            output[2 * i] = UInt8(truncatingIfNeeded: (c &+ sum(i - 1) &+ 8) >> 4)
            if 2 * i + 1 < outputWidth { output[2 * i + 1] = UInt8(truncatingIfNeeded: (c &+ sum(i + 1) &+ 7) >> 4) }
        }
    }

    /// Runs `step` (input samples i ..< i+16: it reads samples i-1 ... i+16 and writes outputs
    /// 2i ..< 2i+32) over as much of samples `start ..< end` as it may cover, the last step
    /// overlapping the one before (it rewrites the same values). Scalar code is left samples
    /// `start ..< max(start, 1)` (sample 0: its left neighbour is itself) and `returned ..< end`.
    @inline(__always)
    static func vectorSteps(from start: Int, to end: Int, inputWidth: Int, outputWidth: Int, _ step: (Int) -> Void) -> Int {
        let first = max(start, 1)
        // A step at i needs i + 17 <= inputWidth (its right neighbours) and 2i + 32 <= outputWidth.
        let limit = min(end, inputWidth &- 1, outputWidth / 2)
        guard limit &- first >= 16 else { return first }
        var i = first
        while i &+ 16 <= limit {
            step(i)
            i &+= 16
        }
        if i < limit { step(limit &- 16) }
        return limit
    }

    /// Writes 32 output bytes for 16 input samples: `even` lane k is the output pair of sample
    /// 2k, `odd` lane k that of sample 2k+1 (each 16-bit word: left output, right output).
    /// Interleaving the words of the two vectors (`punpcklwd`, `punpckhwd`: vectors built from
    /// lanes of others at constant indices) puts them back in order.
    @inline(__always)
    static func storeWords(even we: SIMD8<UInt16>, odd wo: SIMD8<UInt16>, _ output: UnsafeMutablePointer<UInt8>) {
        let low = SIMD8<UInt16>(we[0], wo[0], we[1], wo[1], we[2], wo[2], we[3], wo[3])
        let high = SIMD8<UInt16>(we[4], wo[4], we[5], wo[5], we[6], wo[6], we[7], wo[7])
        let out = UnsafeMutableRawPointer(output)
        out.storeBytes(of: low, as: SIMD8<UInt16>.self)
        out.storeBytes(of: high, toByteOffset: 16, as: SIMD8<UInt16>.self)
    }

    /// h2v1 fancy for input samples `start ..< end`, 16 samples (32 outputs) per step in
    /// 16-bit lanes, with the even/odd split of ``fancyH2V2SpanSIMD``; sample 0 and the tail go
    /// through the scalar reference. Writes exactly what ``fancyH2V1Span`` writes.
    static func fancyH2V1SpanSIMD(_ input: UnsafePointer<UInt8>, inputWidth: Int, outputWidth: Int,
                                  from start: Int, to end: Int, output: UnsafeMutablePointer<UInt8>) {
        #if _endian(little)
        typealias U = SIMD8<UInt16>
        @inline(__always) func load(_ at: Int) -> U { UnsafeRawPointer(input + at).loadUnaligned(as: U.self) }
        let low = U(repeating: 255)
        @inline(__always) func step(_ i: Int) {
            let a = load(i &- 1), b = load(i), c = load(i &+ 1)
            let before = a & low, even = b & low, odd = b &>> 8, after = c &>> 8
            let ce = even &* 3, co = odd &* 3
            let we = ((ce &+ before &+ 1) &>> 2) | (((ce &+ odd &+ 2) &>> 2) &<< 8)
            let wo = ((co &+ even &+ 1) &>> 2) | (((co &+ after &+ 2) &>> 2) &<< 8)
            storeWords(even: we, odd: wo, output + 2 &* i)
        }
        let rest = vectorSteps(from: start, to: end, inputWidth: inputWidth, outputWidth: outputWidth, step)
        fancyH2V1Span(input, inputWidth: inputWidth, outputWidth: outputWidth, from: start, to: min(max(start, 1), end),
                      output: output)
        fancyH2V1Span(input, inputWidth: inputWidth, outputWidth: outputWidth, from: rest, to: end, output: output)
        #else
        fancyH2V1Span(input, inputWidth: inputWidth, outputWidth: outputWidth, from: start, to: end, output: output)
        #endif
    }

    /// h2v2 fancy for input samples `start ..< end`, 16 column sums (32 outputs) per step in
    /// 16-bit lanes (sums reach 4*4*255 + 8, well inside 16 bits); sample 0 and the tail go
    /// through the scalar reference. Writes exactly what ``fancyH2V2Span`` writes.
    ///
    /// Only concrete SIMD operators are used: the generic `SIMD8<UInt16>(truncatingIfNeeded:)`
    /// widening is not inlined here and cost a call per vector. Sixteen bytes loaded as eight
    /// 16-bit lanes give the even samples (`& 255`) and the odd ones (`>> 8`) already widened;
    /// loads at i-1, i and i+1 supply every neighbour in the right lane, and the even- and
    /// odd-sample output words are interleaved back by ``storeWords(even:odd:_:)``.
    static func fancyH2V2SpanSIMD(near: UnsafePointer<UInt8>, far: UnsafePointer<UInt8>, inputWidth: Int,
                                  outputWidth: Int, from start: Int, to end: Int, output: UnsafeMutablePointer<UInt8>) {
        #if _endian(little)
        typealias U = SIMD8<UInt16>
        @inline(__always) func load(_ p: UnsafePointer<UInt8>, _ at: Int) -> U {
            UnsafeRawPointer(p + at).loadUnaligned(as: U.self)
        }
        let low = U(repeating: 255)
        @inline(__always) func step(_ i: Int) {
            let nearA = load(near, i &- 1), nearB = load(near, i), nearC = load(near, i &+ 1)
            let farA = load(far, i &- 1), farB = load(far, i), farC = load(far, i &+ 1)
            let before = (nearA & low) &* 3 &+ (farA & low)          // s[i+2k-1]
            let even = (nearB & low) &* 3 &+ (farB & low)            // s[i+2k]
            let odd = (nearB &>> 8) &* 3 &+ (farB &>> 8)             // s[i+2k+1]
            let after = (nearC &>> 8) &* 3 &+ (farC &>> 8)           // s[i+2k+2]
            let ce = even &* 3, co = odd &* 3
            // Output word (out[2j], out[2j+1]) for j = i+2k (we) and j = i+2k+1 (wo).
            let we = ((ce &+ before &+ 8) &>> 4) | (((ce &+ odd &+ 7) &>> 4) &<< 8)
            let wo = ((co &+ even &+ 8) &>> 4) | (((co &+ after &+ 7) &>> 4) &<< 8)
            storeWords(even: we, odd: wo, output + 2 &* i)
        }
        let rest = vectorSteps(from: start, to: end, inputWidth: inputWidth, outputWidth: outputWidth, step)
        fancyH2V2Span(near: near, far: far, inputWidth: inputWidth, outputWidth: outputWidth, from: start,
                      to: min(max(start, 1), end), output: output)
        fancyH2V2Span(near: near, far: far, inputWidth: inputWidth, outputWidth: outputWidth, from: rest, to: end,
                      output: output)
        #else
        fancyH2V2Span(near: near, far: far, inputWidth: inputWidth, outputWidth: outputWidth, from: start, to: end,
                      output: output)
        #endif
    }
}
