/// Byte transposes for the loop filter's vertical edges, with SSE2 unpack-style shuffles (each
/// vector built from lanes of two others at constant indices becomes one `punpck*`). The
/// byte loops in `VP8LoopFilterSIMD.transpose`/`untranspose` are the scalar twins (tested equal).
enum VP8Transpose {
    typealias B = SIMD16<UInt8>
    typealias H = SIMD8<UInt16>
    typealias D = SIMD4<UInt32>
    typealias Q = SIMD2<UInt64>

    @inline(__always)
    static func lo8(_ a: B, _ b: B) -> B {
        B(a[0], b[0], a[1], b[1], a[2], b[2], a[3], b[3], a[4], b[4], a[5], b[5], a[6], b[6], a[7], b[7])
    }
    @inline(__always)
    static func hi8(_ a: B, _ b: B) -> B {
        B(a[8], b[8], a[9], b[9], a[10], b[10], a[11], b[11], a[12], b[12], a[13], b[13], a[14], b[14], a[15], b[15])
    }
    @inline(__always)
    static func lo16(_ a: B, _ b: B) -> B {
        let x = unsafeBitCast(a, to: H.self), y = unsafeBitCast(b, to: H.self)
        return unsafeBitCast(H(x[0], y[0], x[1], y[1], x[2], y[2], x[3], y[3]), to: B.self)
    }
    @inline(__always)
    static func hi16(_ a: B, _ b: B) -> B {
        let x = unsafeBitCast(a, to: H.self), y = unsafeBitCast(b, to: H.self)
        return unsafeBitCast(H(x[4], y[4], x[5], y[5], x[6], y[6], x[7], y[7]), to: B.self)
    }
    @inline(__always)
    static func lo32(_ a: B, _ b: B) -> B {
        let x = unsafeBitCast(a, to: D.self), y = unsafeBitCast(b, to: D.self)
        return unsafeBitCast(D(x[0], y[0], x[1], y[1]), to: B.self)
    }
    @inline(__always)
    static func hi32(_ a: B, _ b: B) -> B {
        let x = unsafeBitCast(a, to: D.self), y = unsafeBitCast(b, to: D.self)
        return unsafeBitCast(D(x[2], y[2], x[3], y[3]), to: B.self)
    }
    @inline(__always)
    static func lo64(_ a: B, _ b: B) -> B {
        let x = unsafeBitCast(a, to: Q.self), y = unsafeBitCast(b, to: Q.self)
        return unsafeBitCast(Q(x[0], y[0]), to: B.self)
    }
    @inline(__always)
    static func hi64(_ a: B, _ b: B) -> B {
        let x = unsafeBitCast(a, to: Q.self), y = unsafeBitCast(b, to: Q.self)
        return unsafeBitCast(Q(x[1], y[1]), to: B.self)
    }

    /// Transposes the 16x16 bytes `get(0..<16)` (vector i, at byte 16 i, is row i) in place.
    @inline(__always)
    static func transpose16(_ v: UnsafeMutableRawPointer) {
        @inline(__always) func get(_ i: Int) -> B { v.loadUnaligned(fromByteOffset: 16 * i, as: B.self) }
        @inline(__always) func set(_ i: Int, _ x: B) { v.storeBytes(of: x, toByteOffset: 16 * i, as: B.self) }
        // Rows 2k, 2k+1 interleaved: t[2k] columns 0-7, t[2k+1] columns 8-15, in byte pairs.
        var t = (B(), B(), B(), B(), B(), B(), B(), B(), B(), B(), B(), B(), B(), B(), B(), B())
        withUnsafeMutableBytes(of: &t) { raw in
            let s = raw.baseAddress!.assumingMemoryBound(to: B.self)
            for k in 0 ..< 8 {
                s[2 * k] = lo8(get(2 * k), get(2 * k + 1))
                s[2 * k + 1] = hi8(get(2 * k), get(2 * k + 1))
            }
            // Groups of four rows: u[4j + q] holds columns 4q...4q+3 of rows 4j...4j+3.
            for j in 0 ..< 4 {
                let a0 = s[4 * j], a1 = s[4 * j + 1], b0 = s[4 * j + 2], b1 = s[4 * j + 3]
                set(4 * j, lo16(a0, b0))
                set(4 * j + 1, hi16(a0, b0))
                set(4 * j + 2, lo16(a1, b1))
                set(4 * j + 3, hi16(a1, b1))
            }
            // Groups of eight rows: w[8m + 2q + h] holds columns 4q + 2h, 4q + 2h + 1 of rows 8m...8m+7.
            for m in 0 ..< 2 {
                for q in 0 ..< 4 {
                    let a = get(8 * m + q), b = get(8 * m + 4 + q)
                    s[8 * m + 2 * q] = lo32(a, b)
                    s[8 * m + 2 * q + 1] = hi32(a, b)
                }
            }
            // All sixteen rows: column c = 2p + e.
            for p in 0 ..< 8 {
                let a = s[p], b = s[8 + p]
                set(2 * p, lo64(a, b))
                set(2 * p + 1, hi64(a, b))
            }
        }
    }

    /// `VP8LoopFilterSIMD.transpose` of 16 rows (columns `first ..< first + cols`, cols 16 or 20
    /// with first -4 or 0 as the caller has them): the 16 columns from `src` on go through
    /// `transpose16`, the 4 before (when asked) bytewise.
    @inline(__always)
    static func lumaIn(_ src: UnsafePointer<UInt8>, stride s: Int, withLeft: Bool, into dst: UnsafeMutablePointer<UInt8>) {
        // dst: 16 bytes a row; row c + 4 is column c (c in -4 ..< 16).
        let v = UnsafeMutableRawPointer(dst + 4 * 16)
        for i in 0 ..< 16 { v.storeBytes(of: UnsafeRawPointer(src + i * s).loadUnaligned(as: B.self), toByteOffset: 16 * i, as: B.self) }
        transpose16(v)
        if withLeft {
            for i in 0 ..< 16 {
                let row = src + i * s
                for c in 0 ..< 4 { dst[c * 16 + i] = row[c - 4] }
            }
        }
    }

    /// The inverse of `lumaIn`: columns 0 ..< 16 back, and with `withLeft` columns -3 ..< 0.
    @inline(__always)
    static func lumaOut(_ srcRows: UnsafeMutablePointer<UInt8>, into dst: UnsafeMutablePointer<UInt8>, stride s: Int,
                        withLeft: Bool) {
        if withLeft {
            for i in 0 ..< 16 {
                let row = dst + i * s
                for c in 1 ..< 4 { row[c - 4] = srcRows[c * 16 + i] }
            }
        }
        let v = UnsafeMutableRawPointer(srcRows + 4 * 16)
        transpose16(v)
        for i in 0 ..< 16 { UnsafeMutableRawPointer(dst + i * s).storeBytes(of: v.loadUnaligned(fromByteOffset: 16 * i, as: B.self), as: B.self) }
    }

    /// The U and V columns of a chroma macroblock as rows for the vertical-edge filter: row
    /// c + 8 of `dst` (16 bytes a row) is column c, U rows 0-7 in lanes 0-7 and V rows in lanes
    /// 8-15. With `withLeft` columns -8 ..< 8 (the left neighbour's right half; rows 4-11 are
    /// what the left edge reads), else 0 ..< 8 (rows 0-7 then hold zeros). Reads only bytes of
    /// this macroblock and of its left neighbour in the same rows.
    @inline(__always)
    static func chromaIn(_ u: UnsafePointer<UInt8>, _ v: UnsafePointer<UInt8>, stride s: Int, withLeft: Bool,
                         into dst: UnsafeMutablePointer<UInt8>) {
        let t = UnsafeMutableRawPointer(dst)
        @inline(__always) func row(_ p: UnsafePointer<UInt8>) -> B {
            withLeft ? UnsafeRawPointer(p - 8).loadUnaligned(as: B.self)
                : B(lowHalf: SIMD8(), highHalf: UnsafeRawPointer(p).loadUnaligned(as: SIMD8<UInt8>.self))
        }
        for i in 0 ..< 8 {
            t.storeBytes(of: row(u + i * s), toByteOffset: 16 * i, as: B.self)
            t.storeBytes(of: row(v + i * s), toByteOffset: 16 * (i + 8), as: B.self)
        }
        transpose16(t)
    }

    /// The inverse of `chromaIn` (it transposes `src` in place): columns -8 ..< 8 back with
    /// `withLeft`, else columns 0 ..< 8.
    @inline(__always)
    static func chromaOut(_ src: UnsafeMutablePointer<UInt8>, into u: UnsafeMutablePointer<UInt8>,
                          _ v: UnsafeMutablePointer<UInt8>, stride s: Int, withLeft: Bool) {
        let t = UnsafeMutableRawPointer(src)
        transpose16(t)
        @inline(__always) func put(_ x: B, _ p: UnsafeMutablePointer<UInt8>) {
            if withLeft {
                UnsafeMutableRawPointer(p - 8).storeBytes(of: x, as: B.self)
            } else {
                UnsafeMutableRawPointer(p).storeBytes(of: x.highHalf, as: SIMD8<UInt8>.self)
            }
        }
        for i in 0 ..< 8 {
            put(t.loadUnaligned(fromByteOffset: 16 * i, as: B.self), u + i * s)
            put(t.loadUnaligned(fromByteOffset: 16 * (i + 8), as: B.self), v + i * s)
        }
    }
}
