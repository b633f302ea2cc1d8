/// The cross-colour inverse transform four pixels at a time: a pixel is a 32-bit
/// lane (B G R A bytes, so as 16-bit lanes `G << 8 | B` and `A << 8 | R`). The scalar function
/// in `VP8LInverse` is the twin (tests check them equal).
enum VP8LInverseSIMD {
    typealias U = SIMD4<UInt32>
    typealias S = SIMD8<Int16>

    /// Undoes the cross-colour transform on row `y` in place. The tile's three multipliers are
    /// sign-extended into 16-bit lanes; green, sign-extended into both halves of each pixel, is
    /// multiplied by (green-to-blue, green-to-red) with pmullw-style low products (a product of
    /// two signed bytes fits 16 bits) and shifted right by 5, exactly as `colorDelta`; the sums
    /// keep their low bytes. The new red, moved to the blue half, then gives red-to-blue's delta.
    /// With `source`, the row's input is read there instead (the coded pixels, saving a copy).
    static func crossColor(_ t: VP8LTransform, y: Int, row: UnsafeMutablePointer<UInt32>,
                           from source: UnsafePointer<UInt32>? = nil) {
        let src = source ?? UnsafePointer(row)
        let width = t.width
        let tileWidth = 1 << t.bits
        let tilesPerRow = VP8LCodes.subsample(width, t.bits)
        t.data.withUnsafeBufferPointer { elements in
            let base = (y >> t.bits) &* tilesPerRow
            var x = 0
            while x < width {
                let code = elements[base &+ (x >> t.bits)]
                let end = min(x &+ tileWidth, width)
                let g2r = Int16(Int8(truncatingIfNeeded: code))
                let g2b = Int16(Int8(truncatingIfNeeded: code >> 8))
                let r2b = Int16(Int8(truncatingIfNeeded: code >> 16))
                let m1 = S(g2b, g2r, g2b, g2r, g2b, g2r, g2b, g2r)
                // In both halves (the red half's input is 0): a zero multiplier in half the lanes made
                // the compiler take the product apart lane by lane.
                let m2 = S(repeating: r2b)
                let low = S(repeating: 0xFF)
                while x &+ 4 <= end {
                    let p = UnsafeMutableRawPointer(row + x)
                    let v = UnsafeRawPointer(src + x).loadUnaligned(as: U.self)
                    let g32 = v & U(repeating: 0xFF00)
                    let g = unsafeBitCast(g32 | (g32 &<< 16), to: S.self) &>> 8
                    let rb = (unsafeBitCast(v, to: S.self) &+ ((g &* m1) &>> 5)) & low
                    let r = unsafeBitCast((unsafeBitCast(rb, to: U.self) &<< 8) &>> 16, to: S.self) &>> 8
                    let rb2 = (rb &+ ((r &* m2) &>> 5)) & low
                    let out = (v & U(repeating: 0xFF00_FF00)) | unsafeBitCast(rb2, to: U.self)
                    p.storeBytes(of: out, as: U.self)
                    x &+= 4
                }
                while x < end {
                    row[x] = VP8LInverse.crossColorPixel(src[x], code)
                    x &+= 1
                }
            }
        }
    }
}
