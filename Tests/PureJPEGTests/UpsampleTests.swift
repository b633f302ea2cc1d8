import Foundation
import Testing
@testable import PureJPEG

/// `Vectors/jpeg/kernels/planes_*.bin` (kernel_dump.c "planes"): per component the downsampled
/// plane libjpeg-turbo's IDCT produced and the plane its upsampler made from it (decoded to
/// YCbCr, so before colour conversion); then libjpeg-turbo's RGB output of the same file.
struct PlanesVector {
    struct Component {
        var h: Int, v: Int, width: Int, height: Int
        var plane: [UInt8]
        var upsampled: [UInt8]
    }
    var width: Int, height: Int, maxH: Int, maxV: Int
    var components: [Component]
    var rgb: [UInt8]

    static func load(_ name: String) throws -> PlanesVector {
        let bytes = try TestVectors.bytes("jpeg/kernels/" + name)
        var at = 0
        func u32() -> Int {
            defer { at += 4 }
            return Int(bytes[at]) | Int(bytes[at + 1]) << 8 | Int(bytes[at + 2]) << 16 | Int(bytes[at + 3]) << 24
        }
        func take(_ n: Int) -> [UInt8] {
            defer { at += n }
            return Array(bytes[at..<(at + n)])
        }
        let width = u32(), height = u32(), count = u32(), maxH = u32(), maxV = u32()
        var components: [Component] = []
        for _ in 0..<count {
            let h = u32(), v = u32(), w = u32(), hh = u32()
            let plane = take(w * hh)
            components.append(Component(h: h, v: v, width: w, height: hh, plane: plane, upsampled: take(width * height)))
        }
        let rgb = take(width * height * (count == 1 ? 1 : 3))
        #expect(at == bytes.count)
        return PlanesVector(width: width, height: height, maxH: maxH, maxV: maxV, components: components, rgb: rgb)
    }

    static var names: [String] { TestVectors.files(in: "jpeg/kernels").filter { $0.hasPrefix("planes_") } }
}

/// Upsamples `plane` (width x height) by (h, v) over `rows`, `chunk` output rows per call, into a
/// full-size buffer with a stride wider than needed, checking nothing lands in the gap.
func upsampled(_ plane: [UInt8], width: Int, height: Int, h: Int, v: Int, fancy: Bool, outputWidth: Int,
               outputHeight: Int, chunk: Int, useSIMD: Bool) -> [UInt8] {
    let stride = outputWidth + 5
    var out = [UInt8](repeating: 0x5A, count: stride * outputHeight)
    plane.withUnsafeBufferPointer { p in
        out.withUnsafeMutableBufferPointer { o in
            var y = 0
            while y < outputHeight {
                let rows = y..<min(y + chunk, outputHeight)
                Upsample.upsample(h: h, v: v, fancy: fancy, inputWidth: width, inputHeight: height,
                                  outputWidth: outputWidth, outputRows: rows,
                                  row: { p.baseAddress! + $0 * width },
                                  output: o.baseAddress! + y * stride, outputStride: stride, useSIMD: useSIMD)
                y = rows.upperBound
            }
        }
    }
    for r in 0..<outputHeight { #expect(out[(r * stride + outputWidth)..<((r + 1) * stride)].allSatisfy { $0 == 0x5A }) }
    return (0..<outputHeight).flatMap { r in out[(r * stride)..<(r * stride + outputWidth)] }
}

@Suite("Upsample")
struct UpsampleTests {
    @Test("libjpeg-turbo's upsampled planes, every sampling", arguments: PlanesVector.names)
    func matchesLibjpeg(name: String) throws {
        let vector = try PlanesVector.load(name)
        #expect(!vector.components.isEmpty)
        for component in vector.components {
            let h = vector.maxH / component.h, v = vector.maxV / component.v
            for (useSIMD, chunk) in [(true, vector.height), (false, vector.height), (true, 1), (true, 3)] {
                let result = upsampled(component.plane, width: component.width, height: component.height, h: h, v: v,
                                       fancy: true, outputWidth: vector.width, outputHeight: vector.height,
                                       chunk: chunk, useSIMD: useSIMD)
                #expect(result == component.upsampled, "h\(h)v\(v) simd \(useSIMD) chunk \(chunk)")
            }
        }
    }

    static let factors: [(Int, Int)] = [(1, 1), (2, 1), (1, 2), (2, 2), (3, 1), (4, 1), (4, 2), (3, 2), (1, 4), (4, 4)]

    @Test("SIMD rows equal the scalar reference at every width")
    func simdEqualsScalar() {
        var rng = SplitMix64(state: 11)
        for width in 1...70 {
            let height = Int.random(in: 1...6, using: &rng)
            let plane = (0..<(width * height)).map { _ in UInt8.random(in: 0 ... 255, using: &rng) }
            for (h, v) in [(2, 1), (2, 2), (1, 2)] {
                for outputWidth in Set([width * h, max(width * h - 1, 1)]) {
                    let a = upsampled(plane, width: width, height: height, h: h, v: v, fancy: true,
                                      outputWidth: outputWidth, outputHeight: height * v, chunk: 2, useSIMD: true)
                    let b = upsampled(plane, width: width, height: height, h: h, v: v, fancy: true,
                                      outputWidth: outputWidth, outputHeight: height * v, chunk: 5, useSIMD: false)
                    #expect(a == b, "h\(h)v\(v) width \(width) -> \(outputWidth)")
                }
            }
        }
    }

    @Test("extreme samples: 0/255 checkerboards do not overflow 16-bit lanes")
    func extremes() {
        let width = 40, height = 4
        let plane = (0..<(width * height)).map { UInt8(($0 / width + $0 % width) % 2 == 0 ? 255 : 0) }
        for (h, v) in [(2, 1), (2, 2)] {
            let a = upsampled(plane, width: width, height: height, h: h, v: v, fancy: true,
                              outputWidth: width * h, outputHeight: height * v, chunk: 1, useSIMD: true)
            let b = upsampled(plane, width: width, height: height, h: h, v: v, fancy: true,
                              outputWidth: width * h, outputHeight: height * v, chunk: 1, useSIMD: false)
            #expect(a == b)
        }
        let flat = [UInt8](repeating: 255, count: width * height)
        for (h, v) in Self.factors {
            let out = upsampled(flat, width: width, height: height, h: h, v: v, fancy: true,
                                outputWidth: width * h, outputHeight: height * v, chunk: 1, useSIMD: true)
            #expect(out.allSatisfy { $0 == 255 })
        }
    }

    @Test("box replication for every factor pair, and for fancy off")
    func box() {
        let width = 5, height = 3
        let plane = (0..<(width * height)).map { UInt8($0 * 10) }
        for (h, v) in Self.factors {
            for fancy in [false, true] where !fancy || ![(2, 1), (1, 2), (2, 2)].contains(where: { $0 == (h, v) }) {
                let out = upsampled(plane, width: width, height: height, h: h, v: v, fancy: fancy,
                                    outputWidth: width * h - 1, outputHeight: height * v, chunk: 2, useSIMD: true)
                for y in 0..<(height * v) {
                    for x in 0..<(width * h - 1) {
                        #expect(out[y * (width * h - 1) + x] == plane[(y / v) * width + x / h])
                    }
                }
            }
        }
    }

    @Test("h2v1 and h2v2 fall back to box at component widths 1 and 2, as libjpeg-turbo does")
    func narrowIsBox() {
        for width in [1, 2] {
            let plane: [UInt8] = width == 1 ? [10, 200] : [10, 90, 200, 30]
            for (h, v) in [(2, 1), (2, 2)] {
                let fancy = upsampled(plane, width: width, height: 2, h: h, v: v, fancy: true, outputWidth: 2 * width,
                                      outputHeight: 2 * v, chunk: 1, useSIMD: true)
                let box = upsampled(plane, width: width, height: 2, h: h, v: v, fancy: false, outputWidth: 2 * width,
                                    outputHeight: 2 * v, chunk: 1, useSIMD: true)
                #expect(fancy == box)
            }
        }
    }

    @Test("h1v2 fancy biases: +1 for the upper row of a pair, +2 for the lower")
    func h1v2Bias() {
        // Rows 0 and 1: 3*near + far. Output row 1 (lower of pair 0) uses row 1 as far, bias 2;
        // output row 2 (upper of pair 1) uses row 0 as far, bias 1.
        let plane: [UInt8] = [1, 2]  // width 1, height 2
        let out = upsampled(plane, width: 1, height: 2, h: 1, v: 2, fancy: true, outputWidth: 1, outputHeight: 4,
                            chunk: 4, useSIMD: false)
        let expected: [UInt8] = [1, 1, 2, 2]  // (4+1)>>2, (3+2+2)>>2, (6+1+1)>>2, (8+2)>>2
        #expect(out == expected)
        let wide: [UInt8] = [100, 3]
        let out2 = upsampled(wide, width: 1, height: 2, h: 1, v: 2, fancy: true, outputWidth: 1, outputHeight: 4,
                             chunk: 1, useSIMD: true)
        let expected2: [UInt8] = [100, 76, 27, 3]  // (400+1)>>2, (300+3+2)>>2, (9+100+1)>>2, (12+2)>>2
        #expect(out2 == expected2)
    }
}
