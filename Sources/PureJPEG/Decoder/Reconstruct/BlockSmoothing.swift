import ImageCore

/// libjpeg-turbo's interblock smoothing of progressive images (jdcoefct.c `smoothing_ok`,
/// `decompress_smooth_data`, 2.1.5), applied to the final image when the scans stopped before the
/// first nine AC coefficients were fully refined (a file cut short, or a scan script that never
/// sends the last refinement). djpeg does it by default (`do_block_smoothing`), so such files only
/// match it with the same estimates.
///
/// Each block's coefficients 1...9 in zig-zag order (the 2x2-ish low-frequency corner) that are
/// still zero and not known exactly are estimated from the DC values of the 5x5 blocks around it,
/// rounded and, when `Al` low bits are still missing, kept below `2^Al` in magnitude (a larger
/// value would have been sent). When no AC coefficient of a component has been sent at all, the
/// estimates use gaussian-like kernels over the whole 5x5 neighbourhood and the DC itself is
/// replaced by a weighted average ("DC interpolation"); otherwise the first five use the K.8 style
/// kernels of T.81 over a cross of five blocks.
///
/// The estimates read only stored DC values, so each block is smoothed into a workspace just
/// before its IDCT, as libjpeg does, and the band pipeline renders the result at any scale; the
/// coefficient store is left as decoded (no second store).
enum BlockSmoothing {
    /// Natural-order positions of zig-zag coefficients 0...9 (the quantizers `smoothing_ok` checks).
    static let positions = [0, 1, 8, 16, 9, 2, 3, 10, 17, 24]

    /// One component's facts for the smoothing pass.
    struct Component {
        /// Blocks that hold samples (libjpeg's width_in_blocks, height_in_blocks); padding blocks
        /// are rendered unsmoothed (libjpeg never transforms them, and no output sample shows them).
        var blocksWide: Int, blocksHigh: Int
        /// Int16 values from one block row to the next in the store.
        var rowStride: Int
        /// The component's vertical sampling factor: libjpeg takes the neighbour rows of the
        /// window per iMCU row of `v` block rows, which matters at the image's top and bottom.
        var v: Int
        /// Quantizers at ``positions``.
        var quant: [Int]
        /// libjpeg's latched coef_bits[0...9] (the last Al of each coefficient, -1 before any), and
        /// the statuses before the last scan (used for iMCU rows past `lastGoodRow`; entry 0 unused).
        var bits: [Int]
        var previousBits: [Int]
    }

    /// `smoothing_ok`: whether smoothing applies to a progressive frame whose components have
    /// quantizers `quant[c]` at ``positions`` (nil when not latched) and coefficient status
    /// `bits[c]` (0...9). Every component needs a latched table without a zero among those ten
    /// quantizers and a DC scan; smoothing is useful when some coefficient 1...9 of some component
    /// is not exact (status other than 0).
    static func applies(quant: [[Int]?], bits: [[Int]]) -> Bool {
        var useful = false
        for (q, b) in zip(quant, bits) {
            guard let q, !q.contains(0), b[0] >= 0 else { return false }
            if b[1...9].contains(where: { $0 != 0 }) { useful = true }
        }
        return useful
    }

    /// One block row's sliding 5x5 window of DC values (libjpeg's DC01...DC25): rows a (two
    /// up) ... e (two down), columns 0 (two left) ... 4 (two right); c2 is the block itself.
    /// ``estimate(_:x:into:)`` is called for x = 0, 1, 2 ... in order.
    struct Row {
        let a: UnsafePointer<Int16>, b: UnsafePointer<Int16>, c: UnsafePointer<Int16>
        let d: UnsafePointer<Int16>, e: UnsafePointer<Int16>
        let last: Int
        let interpolateDC: Bool
        let al1: Int, al2: Int, al3: Int, al4: Int, al5: Int, al6: Int, al7: Int, al8: Int, al9: Int
        let q00: Int, q01: Int, q10: Int, q20: Int, q11: Int, q02: Int, q03: Int, q12: Int, q21: Int, q30: Int
        /// False when nothing in the row can change (every status that is looked at is 0).
        let active: Bool
        var a0, a1, a2, a3, a4, b0, b1, b2, b3, b4, c0, c1, c2, c3, c4: Int
        var d0, d1, d2, d3, d4, e0, e1, e2, e3, e4: Int

        /// Block row `y` of `component`, whose DC values are `dc` (`blocksWide` a row). `lastRow`
        /// is the frame's last iMCU row (MCU rows minus one), `lastGoodRow` the last iMCU row
        /// whose final-scan data arrived (libjpeg's `last_good_iMCU_row`; later rows use
        /// `previousBits`).
        ///
        /// `version3`: the rows libjpeg-turbo 3 takes (the 12-bit path, whose reference is 3.1),
        /// which differ from 2.1.5's for components two blocks high per iMCU row: `dc` then
        /// holds the rows of the last iMCU row's padding too (3.x may read one).
        init(_ component: Component, dc: UnsafePointer<Int16>, y: Int, lastRow: Int, lastGoodRow: Int, version3: Bool = false) {
            let v = max(component.v, 1), wide = component.blocksWide
            let r = y / v, b = y % v
            // The last iMCU row holds the remaining 1...v block rows.
            let rowsHere = r == lastRow ? component.blocksHigh - lastRow * v : v
            let up1: Int, up2: Int, down1: Int, down2: Int
            if version3 {
                // 3.x numbers the rows as iMCU row times the block rows of the current one
                // (fewer in a short last iMCU row) and looks one or two rows away while that
                // number stays inside its count of rows.
                let imageRow = r * rowsHere + b, imageRows = rowsHere * (lastRow + 1)
                up1 = imageRow > 0 ? y - 1 : y
                up2 = imageRow > 1 ? y - 2 : up1
                down1 = imageRow < imageRows - 1 ? y + 1 : y
                down2 = imageRow < imageRows - 2 ? y + 2 : down1
            } else {
                // 2.1.5 picks rows within the image, except that it looks two rows up only from
                // the third iMCU row or the third block row of an iMCU row (two rows down
                // likewise), else repeats the row next to this one.
                up1 = b > 0 || r > 0 ? y - 1 : y
                up2 = b > 1 || r > 1 ? y - 2 : up1
                down1 = b < rowsHere - 1 || r < lastRow ? y + 1 : y
                down2 = b < rowsHere - 2 || r + 1 < lastRow ? y + 2 : down1
            }
            a = dc + up2 * wide; self.b = dc + up1 * wide; c = dc + y * wide
            d = dc + down1 * wide; e = dc + down2 * wide
            last = wide - 1
            let bits = r > lastGoodRow ? component.previousBits : component.bits
            // DC interpolation only when no AC coefficient 1...9 has been sent.
            interpolateDC = bits[1...9].allSatisfy { $0 == -1 }
            al1 = bits[1]; al2 = bits[2]; al3 = bits[3]; al4 = bits[4]; al5 = bits[5]
            al6 = bits[6]; al7 = bits[7]; al8 = bits[8]; al9 = bits[9]
            active = interpolateDC || al1 != 0 || al2 != 0 || al3 != 0 || al4 != 0 || al5 != 0
            let q = component.quant
            q00 = q[0]; q01 = q[1]; q10 = q[2]; q20 = q[3]; q11 = q[4]; q02 = q[5]
            q03 = q[6]; q12 = q[7]; q21 = q[8]; q30 = q[9]
            // libjpeg fills the whole window with column 0 first, then loads column 3 at the first
            // block and column 4 while x + 2 is before the last column: at the right edge the last
            // column repeats, and a two-block row keeps column 0 in the right half of the window.
            a0 = Int(a[0]); b0 = Int(self.b[0]); c0 = Int(c[0]); d0 = Int(d[0]); e0 = Int(e[0])
            a1 = a0; a2 = a0; a3 = a0; a4 = a0
            b1 = b0; b2 = b0; b3 = b0; b4 = b0
            c1 = c0; c2 = c0; c3 = c0; c4 = c0
            d1 = d0; d2 = d0; d3 = d0; d4 = d0
            e1 = e0; e2 = e0; e3 = e0; e4 = e0
        }

        /// Block `x` of the row (`block`, its 64 coefficients) smoothed: `workspace` when an
        /// estimate changed it, else `block` itself.
        @inline(__always)
        mutating func estimate(_ block: UnsafePointer<Int16>, x: Int, into workspace: UnsafeMutablePointer<Int16>)
            -> UnsafePointer<Int16> {
            if x == 0 && x < last {
                a3 = Int(a[1]); b3 = Int(b[1]); c3 = Int(c[1]); d3 = Int(d[1]); e3 = Int(e[1])
            }
            if x + 1 < last {
                a4 = Int(a[x + 2]); b4 = Int(b[x + 2]); c4 = Int(c[x + 2]); d4 = Int(d[x + 2]); e4 = Int(e[x + 2])
            }
            defer {
                a0 = a1; a1 = a2; a2 = a3; a3 = a4
                b0 = b1; b1 = b2; b2 = b3; b3 = b4
                c0 = c1; c1 = c2; c2 = c3; c3 = c4
                d0 = d1; d1 = d2; d2 = d3; d3 = d4
                e0 = e1; e1 = e2; e2 = e3; e3 = e4
            }
            guard active else { return block }
            var changed = false
            func set(_ k: Int, _ value: Int16) {
                if !changed {
                    workspace.update(from: block, count: 64)
                    changed = true
                }
                workspace[k] = value
            }
            // First horizontal and vertical frequencies (zig-zag 1 and 2): left minus right (top
            // minus bottom); the kernels of 2 are the transposes of those of 1.
            if al1 != 0 && block[1] == 0 {
                let sum = interpolateDC
                    ? 38 &* (c1 &- c3) &+ 13 &* (b1 &- b3 &+ d1 &- d3) &+ 3 &* (b4 &- b0 &+ c4 &- c0 &+ d4 &- d0)
                        &+ (a3 &+ a4 &- a0 &- a1 &+ e3 &+ e4 &- e0 &- e1)
                    : 50 &* (c1 &- c3) &+ 7 &* (c4 &- c0)
                set(1, BlockSmoothing.estimate(q00 &* sum, q01, al1))
            }
            if al2 != 0 && block[8] == 0 {
                let sum = interpolateDC
                    ? 38 &* (b2 &- d2) &+ 13 &* (b1 &- d1 &+ b3 &- d3) &+ 3 &* (e1 &- a1 &+ e2 &- a2 &+ e3 &- a3)
                        &+ (d0 &+ d4 &+ e0 &+ e4 &- a0 &- a4 &- b0 &- b4)
                    : 50 &* (b2 &- d2) &+ 7 &* (e2 &- a2)
                set(8, BlockSmoothing.estimate(q00 &* sum, q10, al2))
            }
            // Second vertical and horizontal (zig-zag 3 and 5): curvature across three rows (columns).
            if al3 != 0 && block[16] == 0 {
                let sum = interpolateDC
                    ? a2 &+ e2 &+ 2 &* (b1 &+ b3 &+ d1 &+ d3) &+ 7 &* (b2 &+ d2) &- 5 &* (c1 &+ c3) &- 14 &* c2
                    : 13 &* (b2 &+ d2) &- 24 &* c2 &- a2 &- e2
                set(16, BlockSmoothing.estimate(q00 &* sum, q20, al3))
            }
            // The diagonal (zig-zag 4).
            if al4 != 0 && block[9] == 0 {
                let sum = interpolateDC
                    ? 9 &* (b1 &- b3 &- d1 &+ d3) &+ a4 &- a0 &+ e0 &- e4
                    : 10 &* (b1 &- b3 &- d1 &+ d3) &+ a3 &- a1 &+ b4 &- b0 &+ d0 &- d4 &+ e1 &- e3
                set(9, BlockSmoothing.estimate(q00 &* sum, q11, al4))
            }
            if al5 != 0 && block[2] == 0 {
                let sum = interpolateDC
                    ? c0 &+ c4 &+ 2 &* (b1 &+ b3 &+ d1 &+ d3) &+ 7 &* (c1 &+ c3) &- 5 &* (b2 &+ d2) &- 14 &* c2
                    : 13 &* (c1 &+ c3) &- 24 &* c2 &- c0 &- c4
                set(2, BlockSmoothing.estimate(q00 &* sum, q02, al5))
            }
            if interpolateDC {
                // Third frequencies and the mixed ones (zig-zag 6...9), from the 3x3 centre.
                if al6 != 0 && block[3] == 0 {
                    set(3, BlockSmoothing.estimate(q00 &* (b1 &- b3 &+ 2 &* (c1 &- c3) &+ d1 &- d3), q03, al6))
                }
                if al7 != 0 && block[10] == 0 {
                    set(10, BlockSmoothing.estimate(q00 &* (b1 &+ b3 &- d1 &- d3 &- 3 &* (b2 &- d2)), q12, al7))
                }
                if al8 != 0 && block[17] == 0 {
                    set(17, BlockSmoothing.estimate(q00 &* (b1 &- b3 &+ d1 &- d3 &- 3 &* (c1 &- c3)), q21, al8))
                }
                if al9 != 0 && block[24] == 0 {
                    set(24, BlockSmoothing.estimate(q00 &* (b1 &+ b3 &- d1 &- d3 &+ 2 &* (b2 &- d2)), q30, al9))
                }
                // The DC becomes a weighted average of the window (weights sum to 256).
                let ring = 2 &* (a0 &+ a4 &+ e0 &+ e4) &+ 6 &* (a1 &+ a3 &+ e1 &+ e3 &+ b0 &+ b4 &+ d0 &+ d4)
                    &+ 8 &* (a2 &+ e2 &+ c0 &+ c4)
                let inner = 6 &* (b1 &+ b3 &+ d1 &+ d3) &+ 42 &* (b2 &+ d2 &+ c1 &+ c3) &+ 152 &* c2
                set(0, BlockSmoothing.estimate(q00 &* (inner &- ring), q00, 0))
            }
            return changed ? UnsafePointer(workspace) : block
        }
    }

    /// `num / (q * 256)` rounded half away from zero, its magnitude capped at `2^al - 1` when
    /// `al > 0`, with libjpeg's int and JCOEF truncations (only reachable by absurd tables).
    @inline(__always)
    static func estimate(_ num: Int, _ q: Int, _ al: Int) -> Int16 {
        let divisor = q &<< 8, half = q &<< 7
        var pred = Int32(truncatingIfNeeded: (num >= 0 ? half &+ num : half &- num) / divisor)
        if al > 0 && pred >= Int32(1) &<< Int32(al) { pred = (Int32(1) &<< Int32(al)) &- 1 }
        if num < 0 { pred = 0 &- pred }
        return Int16(truncatingIfNeeded: pred)
    }
}

extension JPEGDecoder {
    /// Per component, the facts for ``BlockSmoothing``, when `smoothing_ok` says smoothing applies
    /// to the coefficients as they stand (libjpeg decides, and latches the statuses, when its
    /// output pass starts: at EOI for a whole-file decode).
    func blockSmoothingPlan(frame: Frame) -> [BlockSmoothing.Component]? {
        guard frame.isProgressive, coefficientState.store.counts.count == frame.components.count else { return nil }
        let n = frame.components.count
        var quant: [[Int]?] = [], bits: [[Int]] = []
        for c in 0 ..< n {
            quant.append(tables.quantLatched[c]
                ? BlockSmoothing.positions.map { Int(tables.componentQuant[c * JPEGKernels.quantStride + $0]) } : nil)
            bits.append((0 ... 9).map { Int(coefficientState.coefficientBits[c * 64 + $0]) })
        }
        guard BlockSmoothing.applies(quant: quant, bits: bits) else { return nil }
        return frame.components.enumerated().map { c, fc in
            // Before the second scan libjpeg latches no previous statuses (-1).
            let previous = (0 ... 9).map { k in k > 0 && scansStarted > 1 ? Int(coefficientState.previousCoefficientBits[c * 64 + k]) : -1 }
            return BlockSmoothing.Component(blocksWide: fc.blocksWide, blocksHigh: fc.blocksHigh,
                                            rowStride: fc.paddedBlocksWide * fc.valuesPerBlock, v: fc.iMCURows,
                                            quant: quant[c] ?? [], bits: bits[c], previousBits: previous)
        }
    }

    /// The final image of a progressive file whose first AC coefficients are not all exact,
    /// rendered as djpeg renders it; nil when smoothing does not apply. ``render(frame:geometry:)``
    /// with each block smoothed just before its IDCT, as decompress_smooth_data does: a
    /// workspace block, and the DC values copied into one small plane per component first
    /// (2 bytes a block) so the window reads them from there. Previews are never smoothed
    /// (``preview()`` renders the coefficients as they stand).
    func smoothedRender(frame: Frame, geometry: OutputGeometry, lastGoodRow: Int = .max) -> Image? {
        guard let smoothing = smoothingContext(frame: frame, lastGoodRow: lastGoodRow) else { return nil }
        return renderWhole(frame: frame, geometry: geometry, smoothing: smoothing)
    }
}
