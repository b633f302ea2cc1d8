/// Rows of a VP8 picture that are final, lent by `VP8Decoder.decode` to its `rows` callback:
/// valid only during the callback. `rows` are output rows (after the loop-filter delay, and in
/// fancy mode one more row, whose chroma below is not final yet); `write` converts them to RGB(A).
struct VP8RowBand {
    /// Output rows this band completes.
    let rows: Range<Int>
    let width: Int
    let height: Int
    let fancyUpsampling: Bool
    let luma: UnsafePointer<UInt8>
    /// Picture row of `luma`'s first row.
    let lumaFirstRow: Int
    let lumaStride: Int
    let u: UnsafePointer<UInt8>
    let v: UnsafePointer<UInt8>
    /// Chroma row of `u`'s and `v`'s first rows.
    let chromaFirstRow: Int
    let chromaStride: Int

    /// Luma samples of picture row `row` (in `rows`).
    func lumaRow(_ row: Int) -> UnsafePointer<UInt8> { luma + (row - lumaFirstRow) * lumaStride }
    /// U and V samples of chroma row `row` (picture rows `2 * row` and `2 * row + 1`).
    func chromaRows(_ row: Int) -> (u: UnsafePointer<UInt8>, v: UnsafePointer<UInt8>) {
        let o = (row - chromaFirstRow) * chromaStride
        return (u + o, v + o)
    }

    /// Writes `rows` as RGB (`bytesPerPixel` 3) or RGBA (4) into `destination`, which points at
    /// the first pixel of row `rows.lowerBound`, rows `stride` bytes apart. Alpha, when given,
    /// points at row `rows.lowerBound` of an alpha plane `alphaStride` bytes a row; without it
    /// RGBA gets 255.
    func write(to destination: UnsafeMutablePointer<UInt8>, stride: Int, bytesPerPixel: Int,
               alpha: UnsafePointer<UInt8>? = nil, alphaStride: Int = 0) {
        let lastChroma = (height + 1) / 2 - 1
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 4 * width + 64) { scratch in
            // U and V of the row being written, then of the next row when a pair was made.
            let uFull = scratch.baseAddress!, vFull = uFull + width + 16
            let uNext = vFull + width + 16, vNext = uNext + width + 16
            var nextReady = false
            for (i, row) in rows.enumerated() {
                let dst = destination + i * stride
                var (uRow, vRow) = (uFull, vFull)
                if fancyUpsampling {
                    let near = row == 0 ? 0 : (row & 1 == 1 ? (row - 1) >> 1 : row >> 1)
                    var far = row == 0 ? 0 : (row & 1 == 1 ? (row + 1) >> 1 : (row >> 1) - 1)
                    if far > lastChroma { far = near }
                    if nextReady {
                        // Made with the previous row (its chroma rows swapped).
                        (uRow, vRow) = (uNext, vNext)
                        nextReady = false
                    } else if row & 1 == 1, far != near, row + 1 < rows.upperBound {
                        // Rows 2k - 1 and 2k: the same two chroma rows, near and far swapped.
                        let n = chromaRows(near), f = chromaRows(far)
                        VP8Upsample.fancyChromaPair(n.u, f.u, outA: uFull, outB: uNext, width: width)
                        VP8Upsample.fancyChromaPair(n.v, f.v, outA: vFull, outB: vNext, width: width)
                        nextReady = true
                    } else {
                        let n = chromaRows(near), f = chromaRows(far)
                        VP8Upsample.fancyChroma(near: n.u, far: f.u, out: uFull, width: width)
                        VP8Upsample.fancyChroma(near: n.v, far: f.v, out: vFull, width: width)
                    }
                } else {
                    let c = chromaRows(row >> 1)
                    VP8Upsample.pointChroma(c.u, out: uFull, width: width)
                    VP8Upsample.pointChroma(c.v, out: vFull, width: width)
                }
                VP8Upsample.convertRow(y: lumaRow(row), u: uRow, v: vRow, dst: dst, width: width,
                                       bytesPerPixel: bytesPerPixel)
                if bytesPerPixel == 4, let alpha {
                    let a = alpha + i * alphaStride
                    for x in 0 ..< width { dst[4 * x + 3] = a[x] }
                }
            }
        }
    }
}

/// Memory that `VP8Decoder.decode` writes final rows into itself (a still's image, or the
/// caller's buffer): row 0's first pixel, rows `stride` bytes apart, RGB (`bytesPerPixel` 3) or
/// RGBA (4, alpha from the plane when given, else 255). With threads the decoder may write a
/// band on its worker thread; the `rows` callback still comes on the calling thread, in order,
/// once the band's pixels are written.
struct VP8Output {
    let pixels: UnsafeMutablePointer<UInt8>
    let stride: Int
    let bytesPerPixel: Int
    /// Row 0 of the alpha plane, `alphaStride` bytes a row (used for RGBA only).
    var alpha: UnsafePointer<UInt8>? = nil
    var alphaStride = 0

    /// Writes `band`'s rows at their place.
    func write(_ band: VP8RowBand) {
        let first = band.rows.lowerBound
        if bytesPerPixel == 4, let alpha {
            band.write(to: pixels + first * stride, stride: stride, bytesPerPixel: 4,
                       alpha: alpha + first * alphaStride, alphaStride: alphaStride)
        } else {
            band.write(to: pixels + first * stride, stride: stride, bytesPerPixel: bytesPerPixel)
        }
    }
}
