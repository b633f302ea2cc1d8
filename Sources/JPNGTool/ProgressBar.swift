/// The bar `jpng convert` and `jpng tile` draw on a terminal: `[#####.........]`, filled in
/// proportion to `done / total` (full when `total` is 0).
func progressBar(done: Int, total: Int, width: Int = 30) -> String {
    let filled = total <= 0 ? width : min(max(done, 0) * width / total, width)
    return "[" + String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled) + "]"
}
