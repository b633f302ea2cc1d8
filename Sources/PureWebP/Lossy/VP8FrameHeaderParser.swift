/// Parses the frame-level fields of the first partition (RFC 6386 9.3-9.11, 19.2), as libwebp's
/// VP8GetHeaders, ParseSegmentHeader, ParseFilterHeader, ParsePartitions, VP8ParseQuant and
/// VP8ParseProba do, leaving `decoder` at the first macroblock header.
enum VP8FrameHeaderParser {
    /// Coefficient band of each position 0...16 (16: a sentinel, as in libwebp).
    static let bands: [Int] = [0, 1, 2, 3, 6, 4, 5, 6, 6, 6, 6, 6, 6, 6, 6, 7, 0]

    /// `partitionsStart` is the payload offset just past the first partition; `available` the
    /// number of payload bytes present. Throws `.truncated` when the partition size table is not
    /// all there (the caller waits for more when the input is incomplete).
    static func parse(_ decoder: inout VP8BoolDecoder, partitionsStart: Int, available: Int,
                      offset: Int) throws(WebPError) -> VP8FrameHeader {
        var h = VP8FrameHeader()
        h.colorSpace = decoder.literal(1)
        h.clampingType = decoder.literal(1)

        // Segments (9.3).
        var seg = VP8SegmentHeader()
        seg.enabled = decoder.literal(1) == 1
        if seg.enabled {
            seg.updateMap = decoder.literal(1) == 1
            if decoder.literal(1) == 1 {
                seg.absoluteDelta = decoder.literal(1) == 1
                for s in 0 ..< 4 { seg.quantizer[s] = decoder.optionalSigned(7) }
                for s in 0 ..< 4 { seg.filterStrength[s] = decoder.optionalSigned(6) }
            }
            if seg.updateMap {
                for s in 0 ..< 3 { seg.treeProbabilities[s] = decoder.literal(1) == 1 ? UInt8(decoder.literal(8)) : 255 }
            }
        }
        if decoder.eof { throw .truncated(what: "VP8 segment header", offset: offset) }
        h.segment = seg

        // Loop filter (9.4, 9.6).
        var f = VP8FilterHeader()
        f.simple = decoder.literal(1) == 1
        f.level = decoder.literal(6)
        f.sharpness = decoder.literal(3)
        f.useDeltas = decoder.literal(1) == 1
        if f.useDeltas, decoder.literal(1) == 1 {
            for i in 0 ..< 4 where decoder.literal(1) == 1 { f.referenceDeltas[i] = decoder.signedLiteral(6) }
            for i in 0 ..< 4 where decoder.literal(1) == 1 { f.modeDeltas[i] = decoder.signedLiteral(6) }
        }
        if decoder.eof { throw .truncated(what: "VP8 filter header", offset: offset) }
        h.filter = f

        // Token partitions (9.5): sizes are 3-byte little-endian, the last partition takes the rest.
        h.partitionCount = 1 << decoder.literal(2)
        let table = partitionsStart
        let last = h.partitionCount - 1
        var start = table + 3 * last
        if start > available {
            throw .truncated(what: "VP8 partition size table", offset: offset + table)
        }
        return try finish(&decoder, h, table: table, start: &start, offset: offset)
    }

    private static func finish(_ decoder: inout VP8BoolDecoder, _ header: VP8FrameHeader, table: Int,
                               start: inout Int, offset: Int) throws(WebPError) -> VP8FrameHeader {
        var h = header
        let bytes = decoder.bytes
        for p in 0 ..< h.partitionCount - 1 {
            let t = table + 3 * p
            let size = Int(bytes[t]) | Int(bytes[t + 1]) << 8 | Int(bytes[t + 2]) << 16
            h.partitionStarts.append(start)
            h.partitionEnds.append(start + size)
            start += size
        }
        h.partitionStarts.append(start)
        h.partitionEnds.append(Int.max)

        // Quantizers (9.6, 14.1) with libwebp's clamps.
        let base = decoder.literal(7)
        let y1dc = decoder.optionalSigned(4), y2dc = decoder.optionalSigned(4), y2ac = decoder.optionalSigned(4)
        let uvdc = decoder.optionalSigned(4), uvac = decoder.optionalSigned(4)
        let dcTable = VP8Tables.dcQuantizer, acTable = VP8Tables.acQuantizer
        func clip(_ v: Int, _ m: Int) -> Int { v < 0 ? 0 : v > m ? m : v }
        for s in 0 ..< 4 {
            var q = base
            if h.segment.enabled {
                q = h.segment.quantizer[s] + (h.segment.absoluteDelta ? 0 : base)
            } else if s > 0 {
                h.quantizers.append(h.quantizers[0])
                continue
            }
            var m = VP8Quantizer()
            m.y1 = (dcTable[clip(q + y1dc, 127)], acTable[clip(q, 127)])
            let y2ac = (acTable[clip(q + y2ac, 127)] &* 101581) >> 16
            m.y2 = (dcTable[clip(q + y2dc, 127)] * 2, max(y2ac, 8))
            m.uv = (dcTable[clip(q + uvdc, 117)], acTable[clip(q + uvac, 127)])
            h.quantizers.append(m)
        }

        // refresh_entropy_probs: ignored on a key frame (libwebp reads and drops it).
        _ = decoder.literal(1)

        // Token probability updates (13.4), expanded by position through the band table.
        let defaults = VP8Tables.coefficientProbabilities
        let updates = VP8Tables.coefficientUpdateProbabilities
        var byBand = [UInt8](repeating: 0, count: 4 * 8 * 33)
        for i in 0 ..< byBand.count {
            byBand[i] = decoder.bit(updates[i]) ? UInt8(decoder.literal(8)) : defaults[i]
        }
        var expanded = [UInt8](repeating: 0, count: 4 * 17 * 33)
        for t in 0 ..< 4 {
            for n in 0 ..< 17 {
                let src = (t * 8 + bands[n]) * 33, dst = (t * 17 + n) * 33
                for k in 0 ..< 33 { expanded[dst + k] = byBand[src + k] }
            }
        }
        h.tokenProbabilities = expanded
        if decoder.literal(1) == 1 { h.skipProbability = UInt8(decoder.literal(8)) }
        h.filterStrengths = filterStrengths(h)
        return h
    }

    /// libwebp's PrecomputeFilterStrengths: [segment][is 4x4].
    static func filterStrengths(_ h: VP8FrameHeader) -> [VP8FilterStrength] {
        var out = [VP8FilterStrength](repeating: VP8FilterStrength(), count: 8)
        guard h.filter.type > 0 else { return out }
        let f = h.filter
        for s in 0 ..< 4 {
            var base = f.level
            if h.segment.enabled {
                base = h.segment.filterStrength[s] + (h.segment.absoluteDelta ? 0 : f.level)
            }
            for i4x4 in 0 ... 1 {
                var level = base
                if f.useDeltas {
                    level += f.referenceDeltas[0]
                    if i4x4 == 1 { level += f.modeDeltas[0] }
                }
                level = min(max(level, 0), 63)
                guard level > 0 else { continue }
                var ilevel = level
                if f.sharpness > 0 {
                    ilevel >>= f.sharpness > 4 ? 2 : 1
                    ilevel = min(ilevel, 9 - f.sharpness)
                }
                ilevel = max(ilevel, 1)
                out[s * 2 + i4x4] = VP8FilterStrength(limit: Int32(2 * level + ilevel), interiorLimit: Int32(ilevel),
                                                      hevThreshold: level >= 40 ? 2 : level >= 15 ? 1 : 0)
            }
        }
        return out
    }
}
