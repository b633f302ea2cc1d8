import PureImage

/// The bar `jpng convert` and `jpng tile` draw on a terminal: `[#####.........]`, filled in
/// proportion to `done / total` (full when `total` is 0).
func progressBar(done: Int, total: Int, width: Int = 30) -> String {
    let filled = total <= 0 ? width : min(max(done, 0) * width / total, width)
    return "[" + String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled) + "]"
}

/// The bar of `jpng tile`: rows of the full-size image done (stderr, on a terminal only).
final class TileProgress {
    private let showBar: Bool
    private let clock = ContinuousClock()
    private var lastDraw: ContinuousClock.Instant

    init(showBar: Bool) {
        self.showBar = showBar
        lastDraw = clock.now
    }

    func draw(_ builder: TilePyramidBuilder, force: Bool = false) {
        guard showBar, let height = builder.header?.height else { return }
        let now = clock.now
        guard force || now - lastDraw > .milliseconds(50) else { return }
        lastDraw = now
        let done = builder.rowsDone
        let text = "\r\u{1B}[K\(progressBar(done: done, total: height)) \(done * 100 / max(height, 1))% \(done)/\(height) rows, \(builder.tilesWritten) tiles"
        Console.error(text)
    }

    func clear() {
        if showBar { Console.error("\r\u{1B}[K") }
    }
}
