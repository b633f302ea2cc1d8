extension JPEGDecoder {
    /// Input bytes consumed so far. After the `.end` event it is the offset just past EOI: where
    /// data appended after the JPEG (a JPNG mask, say) begins.
    public var bytesConsumed: Int { input.consumedTotal }
}
