/// Adam7 interlacing (PNG 8.2): seven passes over 8x8 blocks, each a reduced image with
/// its own rows and filter state.
enum Adam7 {
    struct Pass: Sendable, Equatable {
        /// First column and row, and the steps between them (PNG 8.2, Figure 8.2).
        let x0: Int, y0: Int, dx: Int, dy: Int
        /// The rectangle a pixel of this pass stands for in a preview: from itself to the
        /// next pixel of the same or an earlier pass (libpng's "rectangle" display).
        let blockWidth: Int, blockHeight: Int
    }

    static let passes: [Pass] = [
        Pass(x0: 0, y0: 0, dx: 8, dy: 8, blockWidth: 8, blockHeight: 8),
        Pass(x0: 4, y0: 0, dx: 8, dy: 8, blockWidth: 4, blockHeight: 8),
        Pass(x0: 0, y0: 4, dx: 4, dy: 8, blockWidth: 4, blockHeight: 4),
        Pass(x0: 2, y0: 0, dx: 4, dy: 4, blockWidth: 2, blockHeight: 4),
        Pass(x0: 0, y0: 2, dx: 2, dy: 4, blockWidth: 2, blockHeight: 2),
        Pass(x0: 1, y0: 0, dx: 2, dy: 2, blockWidth: 1, blockHeight: 2),
        Pass(x0: 0, y0: 1, dx: 1, dy: 2, blockWidth: 1, blockHeight: 1),
    ]

    /// The size of pass `index`'s reduced image; a pass with zero width or height holds no
    /// bytes at all, not even filter bytes (PNG 8.2).
    static func size(pass index: Int, width: Int, height: Int) -> (width: Int, height: Int) {
        let p = passes[index]
        let w = width > p.x0 ? (width - p.x0 + p.dx - 1) / p.dx : 0
        let h = height > p.y0 ? (height - p.y0 + p.dy - 1) / p.dy : 0
        return (w, h)
    }

    /// Writes the `count` expanded pixels of row `passRow` of pass `index` to their places
    /// in the full image.
    @inline(__always)
    static func scatter(_ pixels: UnsafePointer<UInt8>, count: Int, pass index: Int, passRow: Int,
                        imageWidth: Int, bytesPerPixel bpp: Int, into image: UnsafeMutablePointer<UInt8>) {
        let p = passes[index]
        let y = p.y0 &+ passRow &* p.dy
        let d = UnsafeMutableRawPointer(image + (y &* imageWidth &+ p.x0) &* bpp)
        let s = UnsafeRawPointer(pixels)
        let step = p.dx &* bpp
        // Fixed-size moves per pixel size: a memmove call per 3-byte pixel costs more than the pixel.
        @inline(__always) func move<T>(_: T.Type, _ extra: Int) {
            for i in 0 ..< count {
                let from = i &* bpp, to = i &* step
                d.storeBytes(of: s.loadUnaligned(fromByteOffset: from, as: T.self), toByteOffset: to, as: T.self)
                if extra == 1 {
                    d.storeBytes(of: s.load(fromByteOffset: from &+ bpp &- 1, as: UInt8.self), toByteOffset: to &+ bpp &- 1, as: UInt8.self)
                } else if extra == 2 {
                    d.storeBytes(of: s.loadUnaligned(fromByteOffset: from &+ bpp &- 2, as: UInt16.self),
                                 toByteOffset: to &+ bpp &- 2, as: UInt16.self)
                }
            }
        }
        switch bpp {
        case 1: move(UInt8.self, 0)
        case 2: move(UInt16.self, 0)
        case 3: move(UInt16.self, 1)
        case 4: move(UInt32.self, 0)
        case 6: move(UInt32.self, 2)
        case 8: move(UInt64.self, 0)
        default:
            for i in 0 ..< count {
                (d + i &* step).copyMemory(from: s + i &* bpp, byteCount: bpp)
            }
        }
    }

    /// The replicated preview of an interlaced image: every decoded pixel (all of the first
    /// `passesDone` passes, then `rowsDone` rows of the next) fills its block of pixels not
    /// yet decoded. Passes are drawn in order, so later, finer passes overwrite coarser ones.
    ///
    /// Each drawn row is replicated across, then copied whole to the rows its blocks cover:
    /// Adam7 blocks nest, so no earlier pass has a row strictly inside a later pass's block,
    /// and the earlier passes' values there are the same in every row of the block.
    static func preview(_ decoded: [UInt8], width: Int, height: Int, bytesPerPixel bpp: Int,
                        passesDone: Int, rowsDone: Int) -> [UInt8] {
        if passesDone >= 7 { return decoded }
        var out = [UInt8](repeating: 0, count: decoded.count)
        let rowBytes = width * bpp
        decoded.withUnsafeBytes { srcBuffer in
            out.withUnsafeMutableBytes { dstBuffer in
                guard let src = srcBuffer.baseAddress, let dst = dstBuffer.baseAddress else { return }
                for index in 0 ... passesDone {
                    let p = passes[index]
                    let (pw, ph) = size(pass: index, width: width, height: height)
                    let rows = index < passesDone ? ph : min(rowsDone, ph)
                    for r in 0 ..< rows {
                        let y = p.y0 + r * p.dy
                        let line = dst + y * rowBytes
                        replicate(from: src + y * rowBytes, into: line, count: pw, x0: p.x0, dx: p.dx,
                                  blockWidth: p.blockWidth, width: width, bpp: bpp)
                        for below in (y + 1) ..< min(y + p.blockHeight, height) {
                            (dst + below * rowBytes).copyMemory(from: line, byteCount: rowBytes)
                        }
                    }
                }
            }
        }
        return out
    }

    /// Writes each of the `count` pass pixels of a row over its `blockWidth` columns.
    @inline(__always)
    private static func replicate(from src: UnsafeRawPointer, into dst: UnsafeMutableRawPointer, count: Int,
                                  x0: Int, dx: Int, blockWidth: Int, width: Int, bpp: Int) {
        @inline(__always) func fill<T>(_: T.Type) {
            for i in 0 ..< count {
                let x = x0 &+ i &* dx
                let value = src.loadUnaligned(fromByteOffset: x &* bpp, as: T.self)
                for xx in x ..< min(x &+ blockWidth, width) {
                    dst.storeBytes(of: value, toByteOffset: xx &* bpp, as: T.self)
                }
            }
        }
        // RGB pixels as a pair of loads: 2 + 1 or 4 + 2 bytes.
        @inline(__always) func fillPair<T, U>(_: T.Type, _: U.Type) {
            let tail = MemoryLayout<T>.size
            for i in 0 ..< count {
                let x = x0 &+ i &* dx
                let head = src.loadUnaligned(fromByteOffset: x &* bpp, as: T.self)
                let rest = src.loadUnaligned(fromByteOffset: x &* bpp &+ tail, as: U.self)
                for xx in x ..< min(x &+ blockWidth, width) {
                    dst.storeBytes(of: head, toByteOffset: xx &* bpp, as: T.self)
                    dst.storeBytes(of: rest, toByteOffset: xx &* bpp &+ tail, as: U.self)
                }
            }
        }
        switch bpp {
        case 1: fill(UInt8.self)
        case 2: fill(UInt16.self)
        case 3: fillPair(UInt16.self, UInt8.self)
        case 4: fill(UInt32.self)
        case 6: fillPair(UInt32.self, UInt16.self)
        case 8: fill(UInt64.self)
        default:
            for i in 0 ..< count {
                let x = x0 &+ i &* dx
                for xx in x ..< min(x &+ blockWidth, width) {
                    (dst + xx &* bpp).copyMemory(from: src + x &* bpp, byteCount: bpp)
                }
            }
        }
    }
}
