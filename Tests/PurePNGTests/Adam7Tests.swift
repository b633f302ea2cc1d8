import ImageCore
import Testing
@testable import PurePNG

@Suite struct Adam7Tests {
    /// PNG 8.2 pass sizes for a 10x10 image, counted by hand: e.g. pass 4 starts at column 2 every 4 -> 2, 6.
    @Test func passSizes() {
        let sizes = (0 ..< 7).map { Adam7.size(pass: $0, width: 10, height: 10) }
        #expect(sizes.map(\.width) == [2, 1, 3, 2, 5, 5, 10])
        #expect(sizes.map(\.height) == [2, 2, 1, 3, 2, 5, 5])
        #expect(Adam7.size(pass: 1, width: 4, height: 4) == (0, 1))
        #expect(Adam7.size(pass: 6, width: 1, height: 1) == (1, 0))
    }

    /// The preview by the definition: each decoded pixel, in pass order, paints its block.
    static func referencePreview(_ full: Image, passesDone: Int, rowsDone: Int) -> [UInt8] {
        let bpp = full.format.bytesPerPixel
        var out = [UInt8](repeating: 0, count: full.pixels.count)
        for index in 0 ... min(passesDone, 6) {
            let p = Adam7.passes[index]
            let (pw, ph) = Adam7.size(pass: index, width: full.width, height: full.height)
            let rows = index < passesDone ? ph : min(rowsDone, ph)
            for r in 0 ..< rows {
                for i in 0 ..< pw {
                    let x = p.x0 + i * p.dx, y = p.y0 + r * p.dy
                    for yy in y ..< min(y + p.blockHeight, full.height) {
                        for xx in x ..< min(x + p.blockWidth, full.width) {
                            for k in 0 ..< bpp {
                                out[(yy * full.width + xx) * bpp + k] = full.pixels[(y * full.width + x) * bpp + k]
                            }
                        }
                    }
                }
            }
        }
        return out
    }

    @Test(arguments: ["rgba8-adam7-split.png", "wide-adam7.png", "gray1-adam7.png", "rgb16-trns-adam7.png",
                      "ga16-adam7.png", "rgb16-adam7.png", "tiny3x2-adam7.png"])
    func previewMatchesDefinitionAtEveryStep(_ name: String) throws {
        let bytes = try TestVectors.bytes("png/unit/" + name)
        let full = try PNGDecoder.decode(bytes)
        var decoder = PNGDecoder()
        var checked = 0
        for (i, byte) in bytes.enumerated() {
            _ = try decoder.append([byte])
            // Sample a spread of points, including mid-pass ones.
            guard i % 23 == 0, let preview = decoder.preview() else { continue }
            // Rebuild progress from the decoded pixels: the reference needs passes and rows.
            let progress = Self.progress(of: decoder)
            let expected = Self.referencePreview(full, passesDone: progress.passes, rowsDone: progress.rows)
            #expect(preview.pixels == expected, "\(name) at byte \(i), pass \(progress.passes) row \(progress.rows)")
            checked += 1
        }
        #expect(checked > 0 || bytes.count < 100)
        #expect(try decoder.finish() == full)
    }

    static func progress(of decoder: PNGDecoder) -> (passes: Int, rows: Int) {
        // `@testable` reach into the stage: the current pass and its rows finished.
        let mirror = Mirror(reflecting: decoder)
        guard let data = mirror.children.first(where: { $0.label == "imageData" })?.value as? ImageDataDecoder else {
            return (0, 0)
        }
        return (data.pass, data.row)
    }
}
