import ImageCore

/// Lossless JPEG settings (T.81 Annex H, SOF3), as libjpeg-turbo 3's `jpeg_enable_lossless`.
///
/// ```swift
/// // A 12-bit gray image (samples 0...4095, metadata.sampleBits 12), predictor 1:
/// let options = JPEGEncodingOptions(lossless: JPEGLossless(predictor: 1))
/// let bytes = try JPEGEncoder.encode(image, options: options)
/// ```
public struct JPEGLossless: Sendable, Equatable {
    /// How each sample is predicted from its left (Ra), upper (Rb) and upper-left (Rc)
    /// neighbours, 1...7 (T.81 table H.1): Ra, Rb, Rc, Ra + Rb - Rc, Ra + (Rb - Rc) / 2,
    /// Rb + (Ra - Rc) / 2, (Ra + Rb) / 2. 1 is the usual choice (DICOM's SV1).
    public var predictor: Int
    /// Low bits dropped from every sample before coding, 0...precision - 1 (0 keeps it lossless).
    public var pointTransform: Int
    /// Bits a sample, 2...16. nil: the image's `ImageMetadata.sampleBits`, else 8 or 16 by
    /// its format. 8-bit samples are coded as they are below 8 bits
    /// (a 2-bit image holds 0...3, as libjpeg-turbo takes and the decoder returns it); other
    /// depths are rescaled (rounded).
    public var precision: Int?

    /// Lossless settings; the defaults keep every bit.
    public init(predictor: Int = 1, pointTransform: Int = 0, precision: Int? = nil) {
        self.predictor = predictor
        self.pointTransform = pointTransform
        self.precision = precision
    }
}

/// Writes lossless JPEG files as libjpeg-turbo 3 does: JFIF (gray) or Adobe RGB (colour, ids
/// R, G, B, no colour transform), SOF3, one optimal Huffman table for every component (two
/// passes), SOS with the predictor and point transform.
enum LosslessEncoder {
    static func encode(_ original: Image, options: JPEGEncodingOptions, lossless: JPEGLossless) throws(JPEGEncoderError) -> [UInt8] {
        var image = original.isPremultiplied ? original.unpremultiplied() : original
        let color = image.format.isColor && !options.grayscale
        let inputBits = image.metadata.sampleBits ?? (image.format.is16Bit ? 16 : 8)
        if image.format.hasAlpha || image.format.isColor != color {
            // Alpha is dropped; gray from colour is Rec. 601 luma (a conversion keeps the sample range).
            let target = PixelFormat(color: color, alpha: false, sixteenBit: image.format.is16Bit)
            let bits = image.metadata.sampleBits
            image = image.fullRange().converted(to: target)
            if let bits { image = image.narrowed(to: bits) }
        }
        let precision = lossless.precision ?? inputBits
        guard (2 ... 16).contains(precision) else { throw .invalidParameter("lossless precision \(precision) is not in 2...16") }
        guard (1 ... 7).contains(lossless.predictor) else { throw .invalidParameter("lossless predictor \(lossless.predictor) is not in 1...7") }
        guard (0 ..< precision).contains(lossless.pointTransform) else {
            throw .invalidParameter("lossless point transform \(lossless.pointTransform) is not in 0...\(precision - 1)")
        }
        guard !options.progressive, !options.arithmetic else {
            throw .invalidParameter("lossless JPEG is sequential and Huffman-coded here (no progressive or arithmetic lossless)")
        }
        let width = image.width, height = image.height
        if options.restartInterval > 0 && options.restartInterval % width != 0 {
            throw .invalidParameter("a lossless restart interval must be whole rows (a multiple of \(width) samples)")
        }
        let channels = image.format.channels
        // Samples at the chosen precision, shifted by the point transform.
        var samples = [UInt16](repeating: 0, count: width * height * channels)
        let maxIn = (1 << inputBits) - 1, maxOut = (1 << precision) - 1
        // 8-bit samples are taken as they are up to 8 bits of precision (as libjpeg-turbo's
        // JSAMPLE buffers: a 2-bit file's samples are 0...3); other depths are rescaled.
        let rescale = inputBits != precision && !(inputBits == 8 && precision < 8)
        let pt = lossless.pointTransform
        image.pixels.withUnsafeBytes { raw in
            samples.withUnsafeMutableBufferPointer { out in
                for i in out.indices {
                    var v = image.format.is16Bit ? Int(raw.load(fromByteOffset: 2 * i, as: UInt16.self)) : Int(raw[i])
                    v = min(v, maxIn)
                    if rescale { v = (v * maxOut + maxIn / 2) / maxIn }
                    out[i] = UInt16(min(v, maxOut) >> pt)
                }
            }
        }
        let initial = 1 << (precision - pt - 1)
        let rowsPerInterval = options.restartInterval / width
        // Pass 1: the categories' counts; pass 2: the codes.
        var counts = [Int](repeating: 0, count: 257)
        samples.withUnsafeBufferPointer { s in
            forEachDifference(s, width: width, height: height, channels: channels, predictor: lossless.predictor,
                              initial: initial, rowsPerInterval: rowsPerInterval, restart: { _ in }) { d in
                counts[category(d)] += 1
            }
        }
        let spec = HuffmanSpec.optimal(frequencies: counts)
        let codes = HuffmanCodes(spec).entries

        var header = try JPEGWriter.header(options: optionsWithJFIF(options, color: color), metadata: original.metadata,
                                           components: color ? 3 : 1)
        if color {
            // libjpeg-turbo's Adobe marker for an RGB JPEG colour space: version 100, transform 0.
            let adobe = JPEGWriter.segment(0xEE, Array("Adobe".utf8) + [0, 100, 0, 0, 0, 0, 0])
            header = Array(header[0 ..< 2]) + adobe + Array(header[2...])
        }
        let ids: [UInt8] = color ? [0x52, 0x47, 0x42] : [1]
        var sof: [UInt8] = [UInt8(precision)] + JPEGWriter.be16(height) + JPEGWriter.be16(width) + [UInt8(channels)]
        for id in ids { sof += [id, 0x11, 0] }
        header += JPEGWriter.segment(0xC3, sof)
        header += JPEGWriter.dht(isAC: false, index: 0, spec: spec)
        if options.restartInterval > 0 { header += JPEGWriter.dri(options.restartInterval) }
        var sos: [UInt8] = [UInt8(channels)]
        for id in ids { sos += [id, 0] }
        sos += [UInt8(lossless.predictor), 0, UInt8(pt)]
        header += JPEGWriter.segment(0xDA, sos)

        var w = BitWriter(capacity: header.count + width * height * channels * 2 + 4096)
        w.append(header)
        samples.withUnsafeBufferPointer { s in
            codes.withUnsafeBufferPointer { table in
                forEachDifference(s, width: width, height: height, channels: channels, predictor: lossless.predictor,
                                  initial: initial, rowsPerInterval: rowsPerInterval,
                                  restart: { n in
                                      w.flushBits()
                                      w.append([0xFF, 0xD0 + UInt8(n & 7)])
                                  }) { d in
                    let n = category(d)
                    let entry = table[n]
                    w.reserve(16)
                    w.put(UInt64(entry & 0xFFFF), Int(entry >> 16))
                    // Category 16 (32768) has no extra bits; negative values send d - 1's low bits.
                    if n > 0 && n < 16 { w.put(UInt64(truncatingIfNeeded: (d < 0 ? d - 1 : d) & ((1 << n) - 1)), n) }
                }
            }
        }
        w.flushBits()
        w.append(JPEGWriter.marker(0xD9))
        return w.bytes()
    }

    /// JFIF for gray only (a colour lossless file carries the Adobe marker instead).
    private static func optionsWithJFIF(_ options: JPEGEncodingOptions, color: Bool) -> JPEGEncodingOptions {
        var o = options
        o.writeJFIF = options.writeJFIF && !color
        return o
    }

    /// The magnitude category of a difference (T.81 table H.2): 0...15, or 16 for 32768.
    @inline(__always)
    static func category(_ d: Int) -> Int {
        d == 32768 ? 16 : Int.bitWidth - abs(d).leadingZeroBitCount
    }

    /// Every sample's difference from its prediction, modulo 2^16 in -32767...32768
    /// (T.81 H.1.2), in scan order (components interleaved); `restart` before each new interval.
    @inline(__always)
    static func forEachDifference(_ s: UnsafeBufferPointer<UInt16>, width: Int, height: Int, channels: Int, predictor: Int,
                                  initial: Int, rowsPerInterval: Int, restart: (Int) -> Void, _ body: (Int) -> Void) {
        let stride = width * channels
        var restarts = 0
        for y in 0 ..< height {
            var first = y == 0
            if rowsPerInterval > 0 && y > 0 && y % rowsPerInterval == 0 {
                restart(restarts)
                restarts += 1
                first = true
            }
            let row = y * stride
            for x in 0 ..< width {
                for c in 0 ..< channels {
                    let i = row + x * channels + c
                    let prediction: Int
                    if first {
                        prediction = x == 0 ? initial : Int(s[i - channels])
                    } else if x == 0 {
                        prediction = Int(s[i - stride])
                    } else {
                        let ra = Int(s[i - channels]), rb = Int(s[i - stride]), rc = Int(s[i - stride - channels])
                        switch predictor {
                        case 1: prediction = ra
                        case 2: prediction = rb
                        case 3: prediction = rc
                        case 4: prediction = ra + rb - rc
                        case 5: prediction = ra + ((rb - rc) >> 1)
                        case 6: prediction = rb + ((ra - rc) >> 1)
                        default: prediction = (ra + rb) >> 1
                        }
                    }
                    var d = (Int(s[i]) - prediction) & 0xFFFF
                    if d > 32768 { d -= 65536 }
                    body(d)
                }
            }
        }
    }
}

extension Image {
    /// A full-range image brought to samples of `bits` bits (rounded), recorded as
    /// ``ImageMetadata/sampleBits``.
    func narrowed(to bits: Int) -> Image {
        guard bits < (format.is16Bit ? 16 : 8) else { return self }
        var out = self
        let maximum = (1 << bits) - 1
        if format.is16Bit {
            out.pixels.withUnsafeMutableBytes { raw in
                let samples = raw.bindMemory(to: UInt16.self)
                for i in samples.indices { samples[i] = UInt16((Int(samples[i]) * maximum + 32767) / 65535) }
            }
        } else {
            out.pixels.withUnsafeMutableBufferPointer { samples in
                for i in samples.indices { samples[i] = UInt8((Int(samples[i]) * maximum + 127) / 255) }
            }
        }
        out.metadata.sampleBits = bits
        out.metadata.significantBits = nil
        return out
    }
}
