import ImageCore
import PureQuant

/// A streaming GIF animation encoder: full-canvas frames in, file bytes out as frames are
/// settled. Memory is two canvases (what decoders show, and the last frame, held until the
/// next one says whether it repeats) and a mask.
///
/// Each frame is written as a change on what is shown:
/// - a frame identical to the one before is not written; its delay is added to that frame's;
/// - only the rectangle around the pixels whose drawn colour changes is written;
/// - a pixel inside it that shows as before is written as the transparent index or as its
///   shown colour, whichever continues the LZW string (a frame may also take as its
///   transparent index a colour none of its drawn pixels needs, when that codes smaller);
/// - every palette holds `maxColors - 1` colours and a transparent entry (two colours and the
///   transparent entry when `maxColors` is 2), or exactly a frame's `maxColors` opaque colours
///   when the frame needs no transparent entry;
/// - the first frame's palette is the global colour table; a later frame whose changed pixels
///   the global palette serves clearly worse than a palette of their own (undithered mean
///   error over 1.5 times that and its error on the first frame) gets a local table.
///   `GIFEncoder.encode(animation:)` instead gives the encoder one palette made from every
///   frame, and a local table only to a frame whose own palette holds it exactly;
/// - a frame is disposed to background (its rectangle cleared, grown to cover them) when the
///   next frame makes pixels transparent that it left opaque; otherwise frames stay in place.
///
/// Delays are kept on the millisecond timeline and rounded to centiseconds where each frame
/// starts, so rounding does not add up over many frames.
///
/// ```swift
/// var encoder = try GIFAnimationEncoder(width: 64, height: 64, options: GIFEncodingOptions(loopCount: 0))
/// var file: [UInt8] = []
/// for (frame, delay) in frames { file += try encoder.add(frame, delayMilliseconds: delay) }
/// file += try encoder.finish()
/// ```
public struct GIFAnimationEncoder: Sendable {
    public let width: Int
    public let height: Int
    public let options: GIFEncodingOptions
    /// RGBA8 words (memory order) as decoders show the canvas after the frames written so far.
    private var shown: [UInt32]
    /// The last frame added, not yet written, alpha made 0 or 255.
    private var pending: [UInt32]?
    /// Pixels of `pending` that must be drawn (they differ from what is shown).
    private var mask: [UInt8]
    private var startMilliseconds = 0
    private var pendingDelay = 0
    private var globalPalette: [RGBAColor]?
    /// The global palette's searches, built once for the frames that use it.
    private var preparedGlobal: PreparedPalette?
    /// The undithered mean error of the global palette on the first frame.
    private var referenceError = 0.0
    /// The global palette was made from every frame (`init(width:height:options:globalPalette:)`).
    private var presetPalette = false
    /// Frames written (identical ones merged).
    public private(set) var framesWritten = 0
    /// Whether every frame written so far shows exactly as it was given: 8-bit samples, alpha 0
    /// or 255 (the colour of a fully transparent pixel aside), every changed pixel in its
    /// palette. A frame of at most `maxColors - 1` colours, or `maxColors` counting the
    /// transparent one, always is (the quantizer's exact path); so is one of `maxColors` opaque
    /// colours that needs no transparent entry. The last frame counts once
    /// ``finish()`` has written it.
    public private(set) var isExact = true
    private var finished = false
    /// Frames worked out whose blocks are not yet returned (their LZW data may be coding on
    /// another thread while the next frame is worked out).
    private var settled: [SettledFrame] = []
    private let coder: FrameCoder

    public init(width: Int, height: Int, options: GIFEncodingOptions = .init()) throws(GIFEncodingError) {
        try options.validate()
        try GIFEncoder.checkSize(width, height)
        self.width = width
        self.height = height
        self.options = options
        coder = FrameCoder(threads: options.threads ?? Processors.online)
        shown = [UInt32](repeating: 0, count: width * height)
        mask = [UInt8](repeating: 1, count: width * height)
    }

    /// An encoder whose global table is `palette` (at most `maxColors` entries, a fully
    /// transparent one among them unless they are `maxColors` opaque colours), made from the
    /// frames ahead (``GIFEncoder/globalPalette(for:options:)``).
    init(width: Int, height: Int, options: GIFEncodingOptions, globalPalette palette: [RGBAColor]) throws(GIFEncodingError) {
        try self.init(width: width, height: height, options: options)
        globalPalette = palette
        presetPalette = true
    }

    /// The canvas as decoders show it after the frames written so far (RGBA8).
    public var canvas: Image { GIFEncoder.image(shown, width: width, height: height) }

    /// Adds a full-canvas frame shown for `delayMilliseconds`; returns the bytes now settled
    /// (the header and the frame before this one, once it is known not to repeat).
    public mutating func add(_ frame: Image, delayMilliseconds: Int) throws(GIFEncodingError) -> [UInt8] {
        guard !finished else { throw .invalidParameter("frame added after finish()") }
        guard frame.width == width, frame.height == height else {
            throw .invalidParameter("frame of \(frame.width)x\(frame.height) on a \(width)x\(height) canvas")
        }
        let words = GIFEncoder.binarized(frame, threshold: options.alphaThreshold)
        if isExact && !GIFEncoder.isExactlyRepresented(frame, by: words) { isExact = false }
        let delay = max(0, delayMilliseconds)
        guard let previous = pending else {
            pending = words
            pendingDelay = delay
            return []
        }
        if words == previous {
            pendingDelay += delay
            return []
        }
        write(previous, next: words)
        var out: [UInt8] = []
        emit(keeping: 1, into: &out)
        words.withUnsafeBufferPointer { w in
            previous.withUnsafeBufferPointer { p in
                shown.withUnsafeBufferPointer { s in
                    mask.withUnsafeMutableBufferPointer { m in
                        for i in 0 ..< min(w.count, p.count, s.count, m.count) {
                            m[i] = w[i] != p[i] || (w[i] != 0 && s[i] == 0) ? 1 : 0
                        }
                    }
                }
            }
        }
        pending = words
        startMilliseconds += pendingDelay
        pendingDelay = delay
        return out
    }

    /// Writes the last frame and the trailer.
    public mutating func finish() throws(GIFEncodingError) -> [UInt8] {
        guard !finished else { throw .invalidParameter("finish() called twice") }
        guard let last = pending else { throw .invalidParameter("an animation needs at least one frame") }
        finished = true
        write(last, next: nil)
        var out: [UInt8] = []
        emit(keeping: 0, into: &out)
        BlockWriter.trailer(into: &out)
        pending = nil
        return out
    }

    private struct Rect {
        var x0: Int, y0: Int, x1: Int, y1: Int  // x1, y1 exclusive
        static let empty = Rect(x0: .max, y0: .max, x1: .min, y1: .min)
        var isEmpty: Bool { x0 >= x1 || y0 >= y1 }
        mutating func add(_ x: Int, _ y: Int) {
            x0 = min(x0, x); y0 = min(y0, y); x1 = max(x1, x + 1); y1 = max(y1, y + 1)
        }
        func union(_ o: Rect) -> Rect {
            Rect(x0: min(x0, o.x0), y0: min(y0, o.y0), x1: max(x1, o.x1), y1: max(y1, o.y1))
        }
    }

    /// Works out `frame`'s rectangle, palette, indices and what decoders then show, and leaves
    /// its LZW data to `coder` (see `emit`).
    private mutating func write(_ frame: [UInt32], next: [UInt32]?) {
        let first = framesWritten == 0
        var changed = Rect.empty, clear = Rect.empty
        let (width, height) = (self.width, self.height)
        mask.withUnsafeBufferPointer { m in
            for y in 0 ..< height {
                let row = y * width
                for x in 0 ..< width where m[row + x] != 0 { changed.add(x, y) }
            }
        }
        if let next {
            next.withUnsafeBufferPointer { n in
                frame.withUnsafeBufferPointer { f in
                    for y in 0 ..< height {
                        let row = y * width
                        for x in 0 ..< width where n[row + x] == 0 && f[row + x] != 0 { clear.add(x, y) }
                    }
                }
            }
        }
        var rect = first ? Rect(x0: 0, y0: 0, x1: width, y1: height) : changed.union(clear)
        if rect.isEmpty { rect = Rect(x0: 0, y0: 0, x1: 1, y1: 1) }
        let disposal = clear.isEmpty ? 1 : 2
        let rw = rect.x1 - rect.x0, rh = rect.y1 - rect.y0
        var words = [UInt32](repeating: 0, count: rw * rh)
        var rectMask = [UInt8](repeating: 0, count: rw * rh)
        var rectShown = [UInt32](repeating: 0, count: rw * rh)
        for y in 0 ..< rh {
            let from = (rect.y0 + y) * width + rect.x0, to = y * rw
            words.replaceSubrange(to ..< to + rw, with: frame[from ..< from + rw])
            rectMask.replaceSubrange(to ..< to + rw, with: mask[from ..< from + rw])
            rectShown.replaceSubrange(to ..< to + rw, with: shown[from ..< from + rw])
        }
        let (palette, indices, local) = choosePalette(words, rw, rh, rectMask, rectShown)
        // A palette of N opaque colours has no transparent entry (`usable` made sure the frame
        // needs none): its unchanged pixels are drawn in their shown colour.
        let transparent = palette.firstIndex { $0.a == 0 }
        let table = palette.map { $0.packed.bigEndian }
        var exact = ColourIndex()
        for (k, c) in table.enumerated() where c != 0 && exact[c] == nil { exact.insert(c, UInt8(k)) }
        // Each pixel's value and an alternative that shows the same: an unchanged pixel is the
        // transparent index or its shown colour where the palette has it; a changed pixel
        // whose palette colour is the one shown may also be transparent. The LZW coder picks
        // whichever extends its current string.
        var primary = indices, alternative = indices
        var free = [Bool](repeating: true, count: rw * rh)
        var need = Rect.empty
        let lut = table + [UInt32](repeating: 0, count: 256 - table.count)
        primary.withUnsafeMutableBufferPointer { pr in
            alternative.withUnsafeMutableBufferPointer { al in
                free.withUnsafeMutableBufferPointer { fr in
                    rectMask.withUnsafeBufferPointer { m in
                        rectShown.withUnsafeBufferPointer { sh in
                            lut.withUnsafeBufferPointer { lut in
                                for y in 0 ..< rh {
                                    for x in 0 ..< rw {
                                        let p = y * rw + x
                                        if m[p] == 0 {
                                            let s = exact[sh[p]]
                                            pr[p] = UInt8(transparent ?? Int(s ?? 0))
                                            al[p] = s ?? pr[p]
                                        } else if lut[Int(pr[p])] == sh[p] {
                                            if let transparent { al[p] = UInt8(transparent) }
                                        } else {
                                            need.add(x, y)
                                            fr[p] = false
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        // What decoders now show (every pixel of the rectangle shows as `primary` draws it).
        var exactSoFar = isExact
        shown.withUnsafeMutableBufferPointer { shown in
            frame.withUnsafeBufferPointer { frame in
                primary.withUnsafeBufferPointer { pr in
                    lut.withUnsafeBufferPointer { lut in
                        let t = transparent ?? 256
                        for y in 0 ..< rh {
                            let row = (rect.y0 + y) * width + rect.x0
                            for x in 0 ..< rw {
                                let k = Int(pr[y * rw + x])
                                let i = row + x
                                if k != t { shown[i] = lut[k] }
                                if shown[i] != frame[i] { exactSoFar = false }
                            }
                        }
                    }
                }
            }
        }
        isExact = exactSoFar
        // Pixels that show as they did need no drawing: the rectangle shrinks to the others
        // (not on the first frame, which covers the canvas, nor when the frame is cleared).
        var cut = Rect(x0: 0, y0: 0, x1: rw, y1: rh)
        if !first && disposal == 1 {
            cut = need.isEmpty ? Rect(x0: 0, y0: 0, x1: 1, y1: 1) : need
        }
        let cw = cut.x1 - cut.x0, ch = cut.y1 - cut.y0
        var free2 = free, shown2 = rectShown
        if cw != rw || ch != rh {
            var p2 = [UInt8](repeating: 0, count: cw * ch), a2 = p2
            free2 = [Bool](repeating: true, count: cw * ch)
            shown2 = [UInt32](repeating: 0, count: cw * ch)
            for y in 0 ..< ch {
                let q = (cut.y0 + y) * rw + cut.x0, o = y * cw
                p2.replaceSubrange(o ..< o + cw, with: primary[q ..< q + cw])
                a2.replaceSubrange(o ..< o + cw, with: alternative[q ..< q + cw])
                free2.replaceSubrange(o ..< o + cw, with: free[q ..< q + cw])
                shown2.replaceSubrange(o ..< o + cw, with: rectShown[q ..< q + cw])
            }
            primary = p2
            alternative = a2
        }
        let codeSize = LZWEncoder.minimumCodeSize(forTableEntries: palette.count)
        // The LZW data (and the choice of transparent index, which only changes it) is left to
        // another thread while the next frame is remapped: nothing after depends on it.
        let trial = !first && disposal == 1
        let (paletteCount, cut2, exactIndex) = (palette.count, (primary, alternative, free2, shown2), exact)
        let code: @Sendable () -> CodedFrame = {
            Self.code(cut2.0, cut2.1, free: cut2.2, shown: cut2.3, exact: exactIndex, paletteCount: paletteCount,
                      transparent: transparent, tryTransparent: trial, codeSize: codeSize)
        }
        let start = (startMilliseconds + 5) / 10
        let end = (startMilliseconds + pendingDelay + 5) / 10
        let coding: FrameCoding = coder.runs(pixels: cw * ch) ? .running(ThreadWork(code)) : .done(code())
        settled.append(SettledFrame(globalTable: first ? globalPalette : nil, disposal: disposal, delay: end - start,
                                    x: rect.x0 + cut.x0, y: rect.y0 + cut.y0, width: cw, height: ch,
                                    localTable: local ? palette : nil, coding: coding))
        framesWritten += 1
        if disposal == 2 {
            for y in rect.y0 ..< rect.y1 { for x in rect.x0 ..< rect.x1 { shown[y * width + x] = 0 } }
        }
    }

    /// Appends the blocks of the settled frames but the last `keep` (waiting for their data).
    private mutating func emit(keeping keep: Int, into out: inout [UInt8]) {
        while settled.count > keep {
            let frame = settled.removeFirst()
            if let global = frame.globalTable {
                BlockWriter.header(width: width, height: height, globalTable: global, into: &out)
                if let loop = options.loopCount { BlockWriter.loop(count: loop, into: &out) }
                if let comment = options.comment { BlockWriter.comment(comment, into: &out) }
            }
            let coded = frame.coding.value
            BlockWriter.graphicControl(disposal: frame.disposal, delayCentiseconds: frame.delay,
                                       transparentIndex: coded.transparent, into: &out)
            BlockWriter.imageDescriptor(x: frame.x, y: frame.y, width: frame.width, height: frame.height,
                                        localTable: frame.localTable, into: &out)
            out += coded.data
        }
    }

    /// A frame's LZW data and transparent index: `lzw`'s smallest, and, when `tryTransparent`,
    /// the frame with a colour that no drawn pixel needs as its transparent index instead
    /// (gifsicle's trick): the unchanged pixels that show it and those shown otherwise become
    /// one value. The colour most shown under free pixels is tried.
    private static func code(_ primary: [UInt8], _ alternative: [UInt8], free: [Bool], shown: [UInt32], exact: ColourIndex,
                             paletteCount: Int, transparent: Int?, tryTransparent: Bool, codeSize: Int) -> CodedFrame {
        var data = lzw(primary, alternative, codeSize) ?? []
        var frameTransparent = transparent
        guard tryTransparent else { return CodedFrame(data: data, transparent: frameTransparent) }
        var used = [Bool](repeating: false, count: 256), counts = [Int](repeating: 0, count: 256)
        for p in primary.indices {
            if !free[p] { used[Int(primary[p])] = true } else if let k = exact[shown[p]] { counts[Int(k)] += 1 }
        }
        var best = -1
        for k in 0 ..< paletteCount where !used[k] && k != transparent && counts[k] > (best < 0 ? 0 : counts[best]) { best = k }
        // A drawn pixel on the transparent entry (none is expected here) would turn opaque.
        if let transparent, used[transparent] { best = -1 }
        if best >= 0 {
            var p3 = primary, a3 = alternative
            for p in primary.indices where free[p] {
                p3[p] = UInt8(best)
                a3[p] = exact[shown[p]] ?? UInt8(best)
            }
            if let other = lzw(p3, a3, codeSize, below: data.count) { data = other; frameTransparent = best }
        }
        return CodedFrame(data: data, transparent: frameTransparent)
    }

    /// LZW data for pixels that take `primary` or `alternative` values. Greedy choices depend
    /// on which value a pixel prefers when neither extends the string: both preferences are
    /// coded, and `primary` alone (every free pixel transparent, as ffmpeg writes them: the
    /// smallest on a cross-fade), and the smallest kept (the first of equal sizes); nil when none
    /// is smaller than `limit`.
    private static func lzw(_ primary: [UInt8], _ alternative: [UInt8], _ codeSize: Int, below limit: Int = .max) -> [UInt8]? {
        // Each candidate must come out smaller than the best so far (`limit` at first): the
        // coder gives up on one as soon as it cannot (on the mandelbrot clip the swapped
        // preference is 9-90% larger).
        var best: [UInt8]? = nil
        primary.withUnsafeBufferPointer { p in
            alternative.withUnsafeBufferPointer { a in
                func consider(_ x: UnsafeBufferPointer<UInt8>, _ y: UnsafeBufferPointer<UInt8>) {
                    var out: [UInt8] = []
                    if LZWEncoder.encode(x, alternatives: y, minimumCodeSize: codeSize, into: &out, below: best?.count ?? limit) {
                        best = out
                    }
                }
                consider(p, a)
                if primary != alternative {
                    consider(a, p)
                    consider(p, p)
                }
            }
        }
        return best
    }

    /// The palette for a frame's rectangle, its indices (0 outside the mask) and whether the
    /// palette is local. A palette has a fully transparent entry, unless it holds exactly the
    /// frame's N opaque colours and the frame needs none (see `usable`).
    private mutating func choosePalette(_ words: [UInt32], _ w: Int, _ h: Int,
                                        _ mask: [UInt8], _ shown: [UInt32]) -> ([RGBAColor], [UInt8], Bool) {
        guard let global = globalPalette else {
            let own = ownPalette(words, w, h, mask, shown)
            globalPalette = own.palette
            referenceError = plainError(words, w, h, mask, own.palette)
            return (own.palette, own.indices, false)
        }
        guard usable(global, words, mask, shown) else {
            let own = ownPalette(words, w, h, mask, shown)
            return (own.palette, own.indices, true)
        }
        if presetPalette {
            // One palette made from every frame serves all but those a palette of their own
            // holds exactly (as ffmpeg's `palettegen`: no local tables for a lossy frame).
            if fewColours(words, mask) {
                if let indices = Self.exactIndices(words, mask, global) { return (global, indices, false) }
                let own = ownPalette(words, w, h, mask, shown)
                if own.meanSquaredError == 0 { return (own.palette, own.indices, true) }
            }
            return (global, remapGlobal(words, w, h, mask, global, options).indices, false)
        }
        // Undithered errors decide (a dithered remap costs several plain ones): the global
        // palette serves when it maps these pixels within 1.5 times the error it had on the
        // frame it was made for, or within 1.5 times that of a palette of their own.
        let plain = remapGlobal(words, w, h, mask, global, options.undithered)
        let globalError = plain.meanSquaredError
        if globalError == 0 { return (global, plain.indices, false) }
        // Pixels that a palette of their own holds exactly get it.
        let exactable = fewColours(words, mask)
        if !exactable && globalError <= referenceError * 1.5 {
            return (global, remapGlobal(words, w, h, mask, global, options).indices, false)
        }
        let own = ownPalette(words, w, h, mask, shown)
        if own.meanSquaredError == 0 { return (own.palette, own.indices, true) }
        if globalError <= plainError(words, w, h, mask, own.palette) * 1.5 + 1e-9 {
            return (global, remapGlobal(words, w, h, mask, global, options).indices, false)
        }
        return (own.palette, own.indices, true)
    }

    /// `GIFEncoder.remap` to the global palette, its searches built once.
    private mutating func remapGlobal(_ words: [UInt32], _ w: Int, _ h: Int, _ mask: [UInt8], _ global: [RGBAColor],
                                      _ options: GIFEncodingOptions) -> QuantizedImage {
        if preparedGlobal?.palette != global { preparedGlobal = try? PreparedPalette(global) }
        guard let prepared = preparedGlobal else {
            return GIFEncoder.remap(words, width: w, height: h, mask: mask, palette: global, options: options)
        }
        return GIFEncoder.remap(words, width: w, height: h, mask: mask, prepared: prepared, options: options)
    }

    /// Whether the masked pixels hold at most `maxColors` colours (transparent counted).
    /// The masked pixels' indices when every colour is in `palette` (the lowest index of a
    /// colour, 0 for pixels outside the mask: what a nearest-entry remap gives), else nil.
    private static func exactIndices(_ words: [UInt32], _ mask: [UInt8], _ palette: [RGBAColor]) -> [UInt8]? {
        var index = ColourIndex()
        var transparent: UInt8? = nil
        for (k, c) in palette.enumerated() {
            let word = c.packed.bigEndian
            if word == 0 { if transparent == nil { transparent = UInt8(k) } } else if index[word] == nil { index.insert(word, UInt8(k)) }
        }
        var out = [UInt8](repeating: 0, count: words.count)
        for p in words.indices where mask[p] != 0 {
            guard let k = words[p] == 0 ? transparent : index[words[p]] else { return nil }
            out[p] = k
        }
        return out
    }

    private func fewColours(_ words: [UInt32], _ mask: [UInt8]) -> Bool {
        Self.fewColours(words, mask, maxColors: options.maxColors)
    }

    private static func fewColours(_ words: [UInt32], _ mask: [UInt8], maxColors: Int) -> Bool {
        colourCount(words, mask, limit: maxColors).count <= maxColors
    }

    /// The distinct colours of the masked pixels (transparent counted), up to `limit + 1`,
    /// and whether one is transparent. Open addressing over 1,024 slots (at most 257 colours
    /// go in), 0 for empty; the transparent colour 0 is counted apart.
    private static func colourCount(_ words: [UInt32], _ mask: [UInt8], limit: Int) -> (count: Int, transparent: Bool) {
        var slots = [UInt32](repeating: 0, count: 1024)
        var count = 0, zero = false
        var last: UInt32? = nil
        for p in words.indices where mask[p] != 0 && words[p] != last {
            let c = words[p]
            last = c
            if c == 0 {
                if !zero { zero = true; count += 1 }
            } else {
                var s = Int((c &* 0x9E37_79B1) &>> 22)
                while slots[s] != 0 && slots[s] != c { s = (s &+ 1) & 1023 }
                if slots[s] == 0 { slots[s] = c; count += 1 }
            }
            if count > limit {
                if !zero { zero = words.indices.contains { mask[$0] != 0 && words[$0] == 0 } }
                return (count, zero)
            }
        }
        return (count, zero)
    }

    /// The mean error of the nearest-entry mapping of the masked pixels to `palette`.
    private func plainError(_ words: [UInt32], _ w: Int, _ h: Int, _ mask: [UInt8], _ palette: [RGBAColor]) -> Double {
        GIFEncoder.remap(words, width: w, height: h, mask: mask, palette: palette, options: options.undithered).meanSquaredError
    }

    /// Whether a frame's rectangle can be written with `palette`: one with a transparent entry
    /// always; one without only when no changed pixel is transparent and every unchanged pixel
    /// is shown in one of its colours.
    private func usable(_ palette: [RGBAColor], _ words: [UInt32], _ mask: [UInt8], _ shown: [UInt32]) -> Bool {
        if palette.contains(where: { $0.a == 0 }) { return true }
        let colours = Set(palette.map { $0.packed.bigEndian })
        for p in words.indices {
            if mask[p] != 0 ? words[p] == 0 : !colours.contains(shown[p]) { return false }
        }
        return true
    }

    private func ownPalette(_ words: [UInt32], _ w: Int, _ h: Int, _ mask: [UInt8], _ shown: [UInt32]) -> QuantizedImage {
        // A transparent pixel among those drawn is one of the quantizer's colours and takes the
        // transparent entry itself; otherwise one entry is kept back for it.
        let (count, anyTransparent) = Self.colourCount(words, mask, limit: options.maxColors)
        let colors = anyTransparent ? options.maxColors : max(2, options.maxColors - 1)
        if !anyTransparent && count == options.maxColors {
            // Exactly N opaque colours: kept exactly, without a transparent entry, when the
            // frame needs none.
            var exact = options.quantization(colors: options.maxColors)
            exact.importanceMap = false   // the exact path weighs nothing
            let full = GIFEncoder.quantize(words, width: w, height: h, mask: mask, options: exact)
            if full.meanSquaredError == 0 && usable(full.palette, words, mask, shown) { return full }
        }
        var quantization = options.quantization(colors: colors)
        if count <= colors { quantization.importanceMap = false }   // exact: the weights go unused
        var q = GIFEncoder.quantize(words, width: w, height: h, mask: mask, options: quantization)
        if !q.palette.contains(where: { $0.a == 0 }) { q.palette.append(RGBAColor(r: 0, g: 0, b: 0, a: 0)) }
        return q
    }
}
