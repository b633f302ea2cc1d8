import ImageCore

/// An RGBA test image: a colour ramp under a soft-edged disc of alpha.
public func sampleRGBA(width: Int = 48, height: Int = 40) -> Image {
    var image = Image(width: width, height: height, format: .rgba8)
    for y in 0 ..< height {
        for x in 0 ..< width {
            let dx = Double(x) - Double(width) / 2, dy = Double(y) - Double(height) / 2
            let d = (dx * dx + dy * dy).squareRoot()
            let alpha = max(0, min(255, Int((Double(min(width, height)) / 2 - d) * 40)))
            let i = 4 * (y * width + x)
            image.pixels[i] = UInt8(x * 255 / width)
            image.pixels[i + 1] = UInt8(y * 255 / height)
            image.pixels[i + 2] = 128
            image.pixels[i + 3] = UInt8(alpha)
        }
    }
    return image
}
