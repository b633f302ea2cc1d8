import Foundation
import Testing
@testable import PureJPEG

func converted(_ y: [UInt8], _ cb: [UInt8], _ cr: [UInt8], alpha: Bool, useSIMD: Bool) -> [UInt8] {
    var out = [UInt8](repeating: 0, count: y.count * (alpha ? 4 : 3))
    y.withUnsafeBufferPointer { y in
        cb.withUnsafeBufferPointer { cb in
            cr.withUnsafeBufferPointer { cr in
                out.withUnsafeMutableBufferPointer { o in
                    ColorConvert.yccToPixels(y: y.baseAddress!, cb: cb.baseAddress!, cr: cr.baseAddress!, count: y.count,
                                             out: o.baseAddress!, alpha: alpha, useSIMD: useSIMD)
                }
            }
        }
    }
    return out
}

@Suite("ColorConvert")
struct ColorConvertTests {
    @Test("YCbCr -> RGB equals libjpeg-turbo's output for its own upsampled planes",
          arguments: PlanesVector.names)
    func matchesLibjpeg(name: String) throws {
        let vector = try PlanesVector.load(name)
        guard vector.components.count == 3 else { return }
        let (y, cb, cr) = (vector.components[0].upsampled, vector.components[1].upsampled, vector.components[2].upsampled)
        #expect(converted(y, cb, cr, alpha: false, useSIMD: true) == vector.rgb)
        #expect(converted(y, cb, cr, alpha: false, useSIMD: false) == vector.rgb)
        var rgb = [UInt8](repeating: 0, count: vector.rgb.count)
        y.withUnsafeBufferPointer { yp in
            cb.withUnsafeBufferPointer { bp in
                cr.withUnsafeBufferPointer { rp in
                    rgb.withUnsafeMutableBufferPointer { o in
                        ColorConvert.yccToRGB(y: yp.baseAddress!, cb: bp.baseAddress!, cr: rp.baseAddress!,
                                              count: y.count, rgb: o.baseAddress!)
                    }
                }
            }
        }
        #expect(rgb == vector.rgb)
        let rgba = converted(y, cb, cr, alpha: true, useSIMD: true)
        for i in 0..<y.count {
            #expect(Array(rgba[(4 * i)..<(4 * i + 3)]) == Array(vector.rgb[(3 * i)..<(3 * i + 3)]) && rgba[4 * i + 3] == 255)
        }
    }

    @Test("SIMD equals the tables on every (Cb, Cr) for a spread of Y", arguments: [0, 1, 16, 77, 128, 180, 235, 254, 255])
    func denseGrid(luma: Int) {
        let cb = (0..<65536).map { UInt8($0 & 255) }, cr = (0..<65536).map { UInt8($0 >> 8) }
        let y = [UInt8](repeating: UInt8(luma), count: 65536)
        #expect(converted(y, cb, cr, alpha: false, useSIMD: true) == converted(y, cb, cr, alpha: false, useSIMD: false))
        #expect(converted(y, cb, cr, alpha: true, useSIMD: true) == converted(y, cb, cr, alpha: true, useSIMD: false))
    }

    /// Previews convert spans in the middle of rows: nothing past the span may be written.
    @Test("RGB conversion writes exactly its pixels, for every count 0...40")
    func writesNoFurther() {
        var rng = SplitMix64(state: 9)
        for count in 0...40 {
            let y = (0..<count + 8).map { _ in UInt8.random(in: 0...255, using: &rng) }
            let cb = (0..<count + 8).map { _ in UInt8.random(in: 0...255, using: &rng) }
            let cr = (0..<count + 8).map { _ in UInt8.random(in: 0...255, using: &rng) }
            var out = [UInt8](repeating: 0xA5, count: (count + 8) * 3)
            y.withUnsafeBufferPointer { y in
                cb.withUnsafeBufferPointer { cb in
                    cr.withUnsafeBufferPointer { cr in
                        out.withUnsafeMutableBufferPointer { o in
                            ColorConvert.yccToRGB(y: y.baseAddress!, cb: cb.baseAddress!, cr: cr.baseAddress!, count: count,
                                                  rgb: o.baseAddress!)
                        }
                    }
                }
            }
            #expect(out[(count * 3)...].allSatisfy { $0 == 0xA5 }, "count \(count)")
            #expect(Array(out[..<(count * 3)]) == Array(converted(Array(y[..<count]), Array(cb[..<count]), Array(cr[..<count]),
                                                                   alpha: false, useSIMD: false)))
        }
    }

    @Test("SIMD equals the tables on random pixels and every count 0...40")
    func random() {
        var rng = SplitMix64(state: 5)
        for count in Array(0...40) + [1_000_003 % 4099] {
            let y = (0..<count).map { _ in UInt8.random(in: 0...255, using: &rng) }
            let cb = (0..<count).map { _ in UInt8.random(in: 0...255, using: &rng) }
            let cr = (0..<count).map { _ in UInt8.random(in: 0...255, using: &rng) }
            for alpha in [false, true] {
                #expect(converted(y, cb, cr, alpha: alpha, useSIMD: true) == converted(y, cb, cr, alpha: alpha, useSIMD: false))
            }
        }
    }

    @Test("jdcolor.c table entries at their known values")
    func tables() {
        #expect(ColorConvert.crR[0] == -179 && ColorConvert.crR[255] == 178)
        #expect(ColorConvert.cbB[0] == -227 && ColorConvert.cbB[255] == 225)
        #expect(ColorConvert.crR[128] == 0 && ColorConvert.cbG[128] == 32768 && ColorConvert.crG[128] == 0)
    }

    /// `kernels/cmyk_*.bin` (kernel_dump.c "cmyk"): the stored samples, then libjpeg's CMYK.
    static func cmykVector(_ name: String) throws -> (width: Int, height: Int, stored: [UInt8], cmyk: [UInt8]) {
        let bytes = try TestVectors.bytes("jpeg/kernels/cmyk_\(name).bin")
        let w = Int(bytes[0]) | Int(bytes[1]) << 8, h = Int(bytes[4]) | Int(bytes[5]) << 8
        let n = w * h * 4
        #expect(bytes.count == 8 + 2 * n)
        return (w, h, Array(bytes[8..<(8 + n)]), Array(bytes[(8 + n)...]))
    }

    @Test("YCCK -> CMYK equals libjpeg's ycck_cmyk_convert", arguments: ["ycck_imagemagick", "ycck_libjpeg"])
    func ycck(name: String) throws {
        let v = try Self.cmykVector(name)
        let count = v.width * v.height
        let planes = (0..<4).map { c in (0..<count).map { v.stored[4 * $0 + c] } }
        var cmyk = [UInt8](repeating: 0, count: 4 * count)
        planes[0].withUnsafeBufferPointer { y in
            planes[1].withUnsafeBufferPointer { cb in
                planes[2].withUnsafeBufferPointer { cr in
                    planes[3].withUnsafeBufferPointer { k in
                        cmyk.withUnsafeMutableBufferPointer { o in
                            ColorConvert.ycckToCMYK(y: y.baseAddress!, cb: cb.baseAddress!, cr: cr.baseAddress!,
                                                    k: k.baseAddress!, count: count, cmyk: o.baseAddress!)
                        }
                    }
                }
            }
        }
        #expect(cmyk == v.cmyk)
    }

    /// djpeg 2.1 writes CMYK files as RGB with the same rule: its .ppm is the expected output.
    @Test("CMYK -> RGB equals djpeg's PPM", arguments: ["cmyk_adobe", "ycck_imagemagick", "ycck_libjpeg"])
    func cmykToRGB(name: String) throws {
        let v = try Self.cmykVector(name)
        let ppm = try TestVectors.bytes("jpeg/valid/\(name).ppm")
        let pixels = Array(ppm.suffix(v.width * v.height * 3))
        var rgb = [UInt8](repeating: 0, count: pixels.count)
        v.cmyk.withUnsafeBufferPointer { c in
            rgb.withUnsafeMutableBufferPointer { o in
                ColorConvert.cmykToRGB(cmyk: c.baseAddress!, count: v.width * v.height, rgb: o.baseAddress!)
            }
        }
        #expect(rgb == pixels)
    }

    @Test("CMYK -> RGB rounding on inverted samples")
    func cmykRule() {
        let cmyk: [UInt8] = [255, 128, 0, 255, 0, 0, 0, 0, 10, 20, 30, 127]
        var inverted = [UInt8](repeating: 0, count: 9)
        cmyk.withUnsafeBufferPointer { c in
            inverted.withUnsafeMutableBufferPointer { ColorConvert.cmykToRGB(cmyk: c.baseAddress!, count: 3, rgb: $0.baseAddress!) }
        }
        for i in 0..<3 {
            for c in 0..<3 {
                let a = Double(cmyk[4 * i + c]), k = Double(cmyk[4 * i + 3])
                #expect(inverted[3 * i + c] == UInt8((a * k / 255).rounded()))
            }
        }
        for a in 0...255 {
            for k in 0...255 {
                let t = UInt32(a * k + 128)
                #expect(UInt8((t + (t >> 8)) >> 8) == UInt8((Double(a * k) / 255).rounded()))
            }
        }
    }

    @Test("interleave three planes")
    func interleave() {
        let r: [UInt8] = [1, 2, 3], g: [UInt8] = [4, 5, 6], b: [UInt8] = [7, 8, 9]
        var out = [UInt8](repeating: 0, count: 9)
        r.withUnsafeBufferPointer { r in
            g.withUnsafeBufferPointer { g in
                b.withUnsafeBufferPointer { b in
                    out.withUnsafeMutableBufferPointer {
                        ColorConvert.interleaveRGB(r: r.baseAddress!, g: g.baseAddress!, b: b.baseAddress!, count: 3, rgb: $0.baseAddress!)
                    }
                }
            }
        }
        #expect(out == [1, 4, 7, 2, 5, 8, 3, 6, 9])
    }
}
