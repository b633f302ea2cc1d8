/// The block kernels a JPEG decode uses, chosen once per image (scale and SIMD availability),
/// so the MCU loop calls a plain function value and never branches on the variant.
///
/// The decoder hands each block to ``idct`` with its coefficients in natural (row-major,
/// de-zigzagged) order, not yet dequantized, and the component's quantization table in the same
/// order. The kernel dequantizes, transforms, level-shifts by +128 and clamps, writing
/// `scale` x `scale` samples.
@usableFromInline
struct JPEGKernels: Sendable {
    /// Inverse DCT of one block: coefficients (64 Int16, natural order, not dequantized),
    /// quantization table (``quantStride`` UInt16 from ``prepareQuant(_:)``), output, output
    /// stride in bytes.
    @usableFromInline
    let idct: @Sendable (UnsafePointer<Int16>, UnsafePointer<UInt16>, UnsafeMutablePointer<UInt8>, Int) -> Void

    /// The output block size: 8, 4, 2 or 1 (decoding at 1/1, 1/2, 1/4, 1/8 of full size).
    @usableFromInline
    let scale: Int

    /// True when ``idct`` is ``IDCTSIMD/idct8x8(_:_:_:_:)``, which the sequential MCU loop then
    /// calls directly (no closure context to retain and release per block).
    @usableFromInline
    let isSIMD8x8: Bool

    @usableFromInline
    init(idct: @escaping @Sendable (UnsafePointer<Int16>, UnsafePointer<UInt16>, UnsafeMutablePointer<UInt8>, Int) -> Void,
         scale: Int, isSIMD8x8: Bool = false) {
        self.idct = idct
        self.scale = scale
        self.isSIMD8x8 = isSIMD8x8
    }

    /// The length of a prepared quantization table: the 64 quantizers in natural order (what the
    /// scalar kernels read), the same times 32 as the 16-bit SIMD kernel multiplies them
    /// (``IDCTSIMD/idct8x8(_:_:_:_:)``), and eight words that are all ones when some quantizer
    /// is 1024 or more (the fast path's range could be exceeded, so every block of that table
    /// takes ``IDCTSIMD/idct8x8Saturating(_:_:_:_:)``) and zero otherwise.
    @inlinable static var quantStride: Int { 136 }

    /// A quantization table (64 entries, natural order) prepared for the kernels: computed once
    /// per component when its table is latched, instead of shifting and testing the quantizers
    /// in every block.
    @usableFromInline
    static func prepareQuant(_ table: [UInt16]) -> [UInt16] {
        var prepared = [UInt16](repeating: 0, count: quantStride)
        var wide = false
        for k in 0 ..< min(table.count, 64) {
            prepared[k] = table[k]
            prepared[64 + k] = table[k] &<< 5
            wide = wide || table[k] >= 1024
        }
        if wide { for k in 128 ..< quantStride { prepared[k] = 0xFFFF } }
        return prepared
    }

    /// The kernels for one image. `scale` is the output block size (8, 4, 2 or 1; any other value
    /// is treated as 8). Every kernel gives the bytes of the one `djpeg -dct int` runs on
    /// x86-64 for that size, for any input: libjpeg-turbo's SIMD kernels for 8, 4 and 2
    /// (16-bit arithmetic, clamped outputs: `IDCT.*Saturating`), its C kernel for 1. `useSIMD`
    /// picks the vector full-size IDCT, which gives the same bytes as its scalar twin; the
    /// reduced-size IDCTs are cheap enough that only scalar versions exist. The C kernels of
    /// jidctint.c / jidctred.c (``IDCT/idct8x8(_:_:_:_:)``, ``IDCTScaled``; what djpeg runs
    /// with `JSIMD_FORCENONE=1`) differ from those only on blocks out of real images' range.
    @usableFromInline
    static func select(scale: Int = 8, useSIMD: Bool = true) -> JPEGKernels {
        switch scale {
        case 4: return JPEGKernels(idct: { IDCT.idct4x4Saturating($0, $1, $2, $3) }, scale: 4)
        case 2: return JPEGKernels(idct: { IDCT.idct2x2Saturating($0, $1, $2, $3) }, scale: 2)
        case 1: return JPEGKernels(idct: { IDCTScaled.idct1x1($0, $1, $2, $3) }, scale: 1)
        default:
            if useSIMD {
                return JPEGKernels(idct: { IDCTSIMD.idct8x8($0, $1, $2, $3) }, scale: 8, isSIMD8x8: true)
            }
            return JPEGKernels(idct: { IDCT.idct8x8Saturating($0, $1, $2, $3) }, scale: 8)
        }
    }

    /// The IDCT output size libjpeg-turbo uses for one component when decoding at `scale`
    /// (8, 4, 2, 1 for 1/1...1/8), so that a scaled decode matches `djpeg -scale` bit for bit.
    ///
    /// jdmaster.c enlarges the IDCT of a subsampled component instead of upsampling it: starting
    /// from `scale`, the size doubles while it is under 8 and both `maxH * scale` is a multiple of
    /// `h * size * 2` and `maxV * scale` of `v * size * 2`. The component is then upsampled by
    /// `(maxH * scale) / (h * size)` across and `(maxV * scale) / (v * size)` down, and its
    /// downsampled width is `ceil(imageWidth * h * size / (maxH * 8))` (same for height).
    /// Example: 4:2:0 at 1/2 decodes chroma with the full 8x8 IDCT and no upsampling; 4:1:1 at
    /// 1/2 keeps 4x4 chroma blocks and upsamples h4v1 (box). libjpeg-turbo also turns fancy
    /// upsampling off when `scale` is 1.
    ///
    /// ```swift
    /// let size = JPEGKernels.blockSize(scale: 4, h: 1, v: 1, maxH: 2, maxV: 2)   // 8
    /// let chroma = JPEGKernels.select(scale: size)
    /// ```
    @usableFromInline
    static func blockSize(scale: Int, h: Int, v: Int, maxH: Int, maxV: Int) -> Int {
        guard scale > 0, h > 0, v > 0, maxH > 0, maxV > 0 else { return 8 }
        var size = min(scale, 8)
        while size < 8 && (maxH * scale) % (h * size * 2) == 0 && (maxV * scale) % (v * size * 2) == 0 {
            size *= 2
        }
        return size
    }
}
