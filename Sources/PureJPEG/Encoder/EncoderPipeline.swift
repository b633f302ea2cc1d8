/// The front half of the encoder, one MCU row at a time (T.81 A.2: an MCU row is 8 * maxV
/// image rows): colour conversion, edge padding, downsampling, FDCT and quantization, into
/// quantized blocks laid out per component as `[v][blocksPerLine][64]` (natural order), each
/// with its zigzag-order nonzero map (see ``Quantize/quantize(_:_:_:_:_:)``).
///
/// Padding follows libjpeg exactly, since it changes the bits cjpeg writes: rows are widened
/// by repeating their last pixel; the image's last rows are repeated to a multiple of maxV
/// (jcprepare.c `expand_bottom_edge`), downsampled, and the last downsampled row repeated to
/// fill the MCU row; blocks wholly outside the component (right of `widthInBlocks`, below
/// `heightInBlocks`) are "dummy" blocks with zero AC whose DC repeats the block to the left, or
/// the last block of the same MCU in the row above (jccoefct.c).
final class MCURowProcessor {
    let layout: EncoderLayout
    /// Bytes per input pixel (8-bit samples): 1 gray, 2 gray + alpha, 3 RGB, 4 RGBA.
    let inputStride: Int
    let inputIsColor: Bool
    private let planeSize: Int
    private let full: UnsafeMutablePointer<UInt8>
    private let subStride: Int
    private let sub: UnsafeMutablePointer<UInt8>
    /// Two tables of ``QuantDivisors/uint16Table`` (192 `UInt16`s each), 16-byte aligned.
    private let divisors: UnsafeMutableRawPointer
    private let columnMaps: UnsafeMutablePointer<UInt64>
    private let divisorTables: [QuantDivisors]

    init(layout: EncoderLayout, inputStride: Int, inputIsColor: Bool, quantTables: [[UInt16]]) {
        self.layout = layout
        self.inputStride = inputStride
        self.inputIsColor = inputIsColor
        planeSize = layout.mcuHeight * layout.paddedWidth
        // Two sets of planes (slots 0 and 1): one converted on the caller's thread while the
        // other is transformed on the pipeline's (TransformPipeline).
        full = .allocate(capacity: 2 * planeSize * layout.components.count + 16)
        full.initialize(repeating: 0, count: 2 * planeSize * layout.components.count + 16)
        subStride = layout.mcusAcross * 8
        sub = .allocate(capacity: 2 * 8 * subStride + 16)
        sub.initialize(repeating: 0, count: 2 * 8 * subStride + 16)
        divisorTables = (0 ..< 2).map { QuantDivisors(table: quantTables[min($0, quantTables.count - 1)]) }
        divisors = .allocate(byteCount: 2 * 192 * 2, alignment: 16)
        let d = divisors.bindMemory(to: UInt16.self, capacity: 384)
        for t in 0 ..< 2 {
            for (i, v) in divisorTables[t].uint16Table.enumerated() { (d + t * 192 + i).initialize(to: v) }
        }
        let maps = UnsafeMutablePointer<UInt64>.allocate(capacity: 8 * 256)
        for (i, bits) in ZigzagMaps.columns.enumerated() { (maps + i).initialize(to: bits) }
        columnMaps = maps
    }

    deinit {
        full.deallocate()
        sub.deallocate()
        divisors.deallocate()
        columnMaps.deallocate()
    }

    /// Processes `count` (1 ... mcuHeight) input rows, `rowBytes` apart, as MCU row `mcuRow`;
    /// `out[c]` receives component c's `v * blocksPerLine` blocks and `masks[c]` their maps.
    func process(rows: UnsafePointer<UInt8>, rowBytes: Int, count: Int, mcuRow: Int,
                 out: [UnsafeMutablePointer<Int16>], masks: [UnsafeMutablePointer<UInt64>]) {
        convert(rows: rows, rowBytes: rowBytes, count: count, first: 0, slot: 0)
        transformConverted(count: count, mcuRow: mcuRow, slot: 0, out: out, masks: masks)
    }

    /// Slot `slot`'s planes (one per component, `planeSize` bytes each).
    private func planes(_ slot: Int) -> UnsafeMutablePointer<UInt8> { full + slot * layout.components.count * planeSize }

    /// The first stage: colour conversion (or the gray copy) of `count` input rows, `rowBytes`
    /// apart, into rows `first ..< first + count` of slot `slot`'s planes, widened to the
    /// padded width. Touches only that slot's planes.
    func convert(rows: UnsafePointer<UInt8>, rowBytes: Int, count: Int, first: Int, slot: Int) {
        let pw = layout.paddedWidth, w = layout.width
        let nComp = layout.components.count
        let base = planes(slot)
        for r in 0 ..< count {
            let src = rows + r * rowBytes
            let y = base + (first + r) * pw
            if nComp == 3 {
                EncoderColorConvert.rgbToYCbCr(src, pixelStride: inputStride, count: w,
                                               y: y, cb: y + planeSize, cr: y + 2 * planeSize)
            } else if inputIsColor {
                EncoderColorConvert.rgbToGrayTable(src, pixelStride: inputStride, count: w, y: y)
            } else if inputStride == 1 {
                y.update(from: src, count: w)
            } else {
                for x in 0 ..< w { y[x] = src[x * inputStride] }
            }
            for c in 0 ..< nComp {
                Downsample.expandRightEdge(y + c * planeSize, width: w, paddedWidth: pw)
            }
        }
    }

    /// The second stage, for an MCU row whose `count` rows ``convert(rows:rowBytes:count:first:slot:)``
    /// put in slot `slot`: bottom padding, downsampling, FDCT and quantization.
    func transformConverted(count: Int, mcuRow: Int, slot: Int,
                            out: [UnsafeMutablePointer<Int16>], masks: [UnsafeMutablePointer<UInt64>]) {
        let pw = layout.paddedWidth
        let nComp = layout.components.count
        let full = planes(slot)
        let padded = (count + layout.maxV - 1) / layout.maxV * layout.maxV
        for c in 0 ..< nComp {
            let plane = full + c * planeSize
            for r in count ..< padded { (plane + r * pw).update(from: plane + (count - 1) * pw, count: pw) }
        }
        for (c, comp) in layout.components.enumerated() {
            let source = full + c * planeSize
            var plane = source, stride = pw, validRows = padded
            if comp.h != layout.maxH || comp.v != layout.maxV {
                plane = sub + (c - 1) * 8 * subStride
                stride = subStride
                if layout.maxV == 2 {
                    validRows = padded / 2
                    for i in 0 ..< validRows {
                        Downsample.h2v2(source + 2 * i * pw, source + (2 * i + 1) * pw, plane + i * stride, outputCount: stride)
                    }
                } else {
                    for i in 0 ..< validRows { Downsample.h2v1(source + i * pw, plane + i * stride, outputCount: stride) }
                }
            }
            for r in validRows ..< comp.v * 8 {
                (plane + r * stride).update(from: plane + (validRows - 1) * stride, count: stride)
            }
            transform(comp, plane: plane, stride: stride, mcuRow: mcuRow, out: out[c], masks: masks[c],
                      divisors: UnsafeRawPointer(divisors + comp.table * 384), reference: divisorTables[comp.table])
        }
    }

    private func transform(_ comp: EncoderComponent, plane: UnsafeMutablePointer<UInt8>, stride: Int,
                           mcuRow: Int, out: UnsafeMutablePointer<Int16>, masks: UnsafeMutablePointer<UInt64>,
                           divisors d: UnsafeRawPointer, reference: QuantDivisors) {
        let bpl = comp.blocksPerLine
        for by in 0 ..< comp.v {
            let blockRow = mcuRow * comp.v + by
            let rowOut = out + by * bpl * 64
            let rowMasks = masks + by * bpl
            for bx in 0 ..< bpl { rowMasks[bx] = 0 }
            if blockRow < comp.heightInBlocks {
                let top = UnsafePointer(plane + by * 8 * stride)
                let maps = UnsafePointer(columnMaps)
                for bx in 0 ..< comp.widthInBlocks {
                    #if _endian(little)
                    rowMasks[bx] = Quantize.block(top + bx &* 8, stride: stride, d, rowOut + bx &* 64, maps)
                    #else
                    rowMasks[bx] = Quantize.blockScalar(top + bx * 8, stride: stride, reference, rowOut + bx * 64)
                    #endif
                }
                Self.dummyBlocks(comp, row: rowOut, above: nil)
            } else {
                Self.dummyBlocks(comp, row: rowOut, above: out + (by - 1) * bpl * 64)
            }
        }
    }

    /// jccoefct.c's dummy blocks, zero AC: right of the component's blocks (`above` nil) the DC
    /// of the block to the left; in a block row below them, the DC of the same MCU's last block
    /// in the row `above`.
    static func dummyBlocks(_ comp: EncoderComponent, row: UnsafeMutablePointer<Int16>, above: UnsafePointer<Int16>?) {
        let bpl = comp.blocksPerLine
        for bx in (above == nil ? comp.widthInBlocks : 0) ..< bpl {
            let block = row + bx * 64
            block.update(repeating: 0, count: 64)
            if let above {
                block[0] = above[(bx / comp.h * comp.h + comp.h - 1) * 64]
            } else {
                block[0] = block[-64]
            }
        }
    }
}
