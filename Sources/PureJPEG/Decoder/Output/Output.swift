import ImageCore

/// Output geometry for a frame at a given scale, following libjpeg-turbo's jdmaster: each
/// component's IDCT size is raised from the output scale towards 8 while that replaces an
/// exact 2x upsampling step, and the remaining ratio must be a whole number (libjpeg's
/// JERR_FRACT_SAMPLE_NOTIMPL otherwise).
struct OutputGeometry: Sendable {
    struct Component: Sendable {
        /// IDCT output size per block (8, 4, 2 or 1).
        var blockSize: Int
        var hUp: Int, vUp: Int
        /// Scaled samples that carry image data.
        var width: Int, height: Int
        /// Bytes per plane row (the MCU-padded block grid times blockSize).
        var stride: Int
        /// Plane rows produced by one MCU row.
        var bandRows: Int
    }
    var scale: Int
    var width: Int, height: Int
    var components: [Component]
    /// Output rows produced by one MCU row.
    var bandRows: Int
    var bands: Int
    var transform: ColorTransform
    var format: PixelFormat
    var fancy: Bool

    init(frame: Frame, scale: Int, transform: ColorTransform, outputCMYK: Bool, fancy: Bool) throws(JPEGError) {
        self.scale = scale
        self.transform = transform
        width = (frame.width * scale + 7) / 8
        height = (frame.height * scale + 7) / 8
        bandRows = frame.vMax * scale
        bands = frame.mcusHigh
        // libjpeg-turbo skips fancy upsampling at 1/8 scale (jdsample.c, min_DCT_scaled_size > 1).
        self.fancy = fancy && scale > 1
        switch transform {
        case .gray: format = .gray8
        case .ycbcr, .rgb: format = .rgb8
        case .cmyk, .ycck: format = outputCMYK ? .rgba8 : .rgb8
        }
        components = []
        for c in frame.components {
            var size = scale
            while size < 8, (frame.hMax * scale) % (c.h * size * 2) == 0, (frame.vMax * scale) % (c.v * size * 2) == 0 {
                size *= 2
            }
            guard (frame.hMax * scale) % (c.h * size) == 0, (frame.vMax * scale) % (c.v * size) == 0 else {
                throw .unsupported(process: "fractional sampling ratio \(frame.hMax)/\(c.h) x \(frame.vMax)/\(c.v)", offset: frame.offset)
            }
            components.append(Component(
                blockSize: size,
                hUp: frame.hMax * scale / (c.h * size), vUp: frame.vMax * scale / (c.v * size),
                width: (frame.width * c.h * size + frame.hMax * 8 - 1) / (frame.hMax * 8),
                height: (frame.height * c.v * size + frame.vMax * 8 - 1) / (frame.vMax * 8),
                stride: c.paddedBlocksWide * size, bandRows: c.v * size))
        }
    }

    /// True when a band's output needs the first rows of the next band (vertical triangle filter).
    var needsContext: Bool { fancy && components.contains { $0.vUp == 2 } }

    /// Bytes of the band buffers a decode keeps.
    var workingBytes: Int {
        components.reduce(0) { $0 + 3 * $1.bandRows * $1.stride + bandRows * width } + width * 4
    }
}

/// Turns MCU rows of component samples into output rows: upsampling then colour conversion,
/// written straight into the output image (zune-jpeg's per-MCU-row pipeline).
///
/// Each component keeps a ring of three MCU-row bands, so the vertical triangle filter sees
/// the row above and below a band; with it the output lags one MCU row behind decoding.
struct BandPipeline: Sendable {
    let geometry: OutputGeometry
    let kernels: [JPEGKernels]
    /// Every component's ring of three bands, one after another (see ``planeOffsets``).
    var planes: [UInt8]
    let planeOffsets: [Int]
    /// Upsampled rows of one band per component that needs upsampling.
    var upsampled: [UInt8]
    let upsampledOffsets: [Int]
    var scratch: [UInt8]

    init(geometry: OutputGeometry, useSIMD: Bool = true) {
        self.geometry = geometry
        kernels = geometry.components.map { JPEGKernels.select(scale: $0.blockSize, useSIMD: useSIMD) }
        var offsets: [Int] = [], total = 0
        var upOffsets: [Int] = [], upTotal = 0
        for c in geometry.components {
            offsets.append(total)
            total += 3 * c.bandRows * c.stride
            upOffsets.append(upTotal)
            if c.hUp != 1 || c.vUp != 1 { upTotal += geometry.bandRows * geometry.width }
        }
        planeOffsets = offsets
        upsampledOffsets = upOffsets
        planes = [UInt8](repeating: 0, count: max(total, 1))
        upsampled = [UInt8](repeating: 0, count: max(upTotal, 1))
        scratch = [UInt8](repeating: 0, count: max(geometry.width * 4, 1))
    }

    /// Offset in ``planes`` of block column `blockX`, block row `blockRow` of MCU row `band`.
    @inline(__always)
    func blockOffset(component c: Int, band: Int, blockX: Int, blockRow: Int) -> Int {
        let g = geometry.components[c]
        return planeOffsets[c] + ((band % 3) * g.bandRows + blockRow * g.blockSize) * g.stride + blockX * g.blockSize
    }

    /// Output rows of band `b` (empty past the image).
    func rows(ofBand b: Int) -> Range<Int> {
        let start = min(b * geometry.bandRows, geometry.height)
        return start ..< min(start + geometry.bandRows, geometry.height)
    }

    /// Band `b` of every component is in its ring: emits what is now final and returns those rows.
    /// `output` holds image row `origin` and the rows after it (0: the whole image; row mode
    /// passes a band buffer whose first row is the first row not yet emitted).
    mutating func bandDone(_ b: Int, output: UnsafeMutablePointer<UInt8>, origin: Int = 0) -> Range<Int> {
        if !geometry.needsContext {
            emit(band: b, output: output, origin: origin)
            return rows(ofBand: b)
        }
        let previous = rows(ofBand: max(b - 1, 0))
        var done = previous.lowerBound ..< previous.lowerBound
        if b >= 1 {
            emit(band: b - 1, output: output, origin: origin)
            done = previous
        }
        if b == geometry.bands - 1 {
            emit(band: b, output: output, origin: origin)
            done = done.lowerBound ..< rows(ofBand: b).upperBound
        }
        return done
    }

    /// Upsamples and colour-converts band `b` into `output` (image row `origin` onwards).
    mutating func emit(band b: Int, output: UnsafeMutablePointer<UInt8>, origin: Int = 0) {
        let range = rows(ofBand: b)
        if range.isEmpty { return }
        let g = geometry
        let n = g.components.count
        let bpp = g.format.bytesPerPixel
        let planeOffsets = self.planeOffsets, upOffsets = self.upsampledOffsets
        planes.withUnsafeMutableBufferPointer { planeBuffer in
            upsampled.withUnsafeMutableBufferPointer { upBuffer in
                scratch.withUnsafeMutableBufferPointer { scratchBuffer in
                    guard let planeBase = planeBuffer.baseAddress, let upBase = upBuffer.baseAddress,
                          let scratchBase = scratchBuffer.baseAddress else { return }
                    for c in 0 ..< n {
                        let gc = g.components[c]
                        if gc.hUp == 1 && gc.vUp == 1 { continue }
                        let plane = UnsafePointer(planeBase + planeOffsets[c])
                        let ring = 3 * gc.bandRows, stride = gc.stride
                        Upsample.upsample(h: gc.hUp, v: gc.vUp, fancy: g.fancy, inputWidth: gc.width, inputHeight: gc.height,
                                          outputWidth: g.width, outputRows: range,
                                          row: { i in plane + (i % ring) * stride },
                                          output: upBase + upOffsets[c], outputStride: g.width)
                    }
                    let rows = UnsafeMutablePointer<UnsafePointer<UInt8>>.allocate(capacity: 4)
                    rows.initialize(repeating: UnsafePointer(planeBase), count: 4)
                    defer { rows.deallocate() }
                    for y in range {
                        for c in 0 ..< n {
                            let gc = g.components[c]
                            if gc.hUp == 1 && gc.vUp == 1 {
                                rows[c] = UnsafePointer(planeBase + planeOffsets[c] + (y % (3 * gc.bandRows)) * gc.stride)
                            } else {
                                rows[c] = UnsafePointer(upBase + upOffsets[c] + (y - range.lowerBound) * g.width)
                            }
                        }
                        Self.convert(UnsafePointer(rows), transform: g.transform, format: g.format, width: g.width,
                                     out: output + (y - origin) * g.width * bpp, scratch: scratchBase)
                    }
                }
            }
        }
    }

    /// Converts `w` samples of each component row (`rows`: four pointers, the unused ones any
    /// valid pointer), starting `offset` samples in (a span of the row; `out` is the span's own).
    /// The rows come through a pointer the caller keeps for its whole loop, not an array (an
    /// array argument cost a retain, a release and bounds checks per call).
    @inline(__always)
    static func convert(_ rows: UnsafePointer<UnsafePointer<UInt8>>, offset: Int = 0, transform: ColorTransform,
                        format: PixelFormat, width w: Int, out: UnsafeMutablePointer<UInt8>,
                        scratch: UnsafeMutablePointer<UInt8>) {
        let r = (rows[0] + offset, rows[1] + offset, rows[2] + offset, rows[3] + offset)
        switch transform {
        case .gray:
            out.update(from: r.0, count: w)
        case .ycbcr:
            ColorConvert.yccToRGB(y: r.0, cb: r.1, cr: r.2, count: w, rgb: out)
        case .rgb:
            ColorConvert.interleaveRGB(r: r.0, g: r.1, b: r.2, count: w, rgb: out)
        case .cmyk, .ycck:
            let cmyk = format == .rgba8 ? out : scratch
            if transform == .ycck {
                ColorConvert.ycckToCMYK(y: r.0, cb: r.1, cr: r.2, k: r.3, count: w, cmyk: cmyk)
            } else {
                for x in 0 ..< w {
                    cmyk[4 * x] = r.0[x]; cmyk[4 * x + 1] = r.1[x]; cmyk[4 * x + 2] = r.2[x]; cmyk[4 * x + 3] = r.3[x]
                }
            }
            if format != .rgba8 {
                ColorConvert.cmykToRGB(cmyk: UnsafePointer(cmyk), count: w, rgb: out)
            }
        }
    }
}
