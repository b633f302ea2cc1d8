/// The adapter between the container and the lossy decoder under `Lossy/`.
struct LossyFrame: Sendable {
    let width: Int
    let height: Int
    /// The decoded ALPH plane, if the frame has one.
    var alpha: [UInt8]?
    let fancyUpsampling: Bool

    static let placeholder = LossyFrame(width: 0, height: 0, alpha: nil, fancyUpsampling: true)

    init(width: Int, height: Int, alpha: [UInt8]?, fancyUpsampling: Bool) {
        self.width = width
        self.height = height
        self.alpha = alpha
        self.fancyUpsampling = fancyUpsampling
    }

    mutating func advance(_ data: UnsafeBufferPointer<UInt8>, complete: Bool, payloadOffset: Int,
                          emit: (Int, UnsafeBufferPointer<UInt8>) -> Void) throws(WebPError) {
        throw .unsupported(what: "VP8 lossy bitstream (the lossy decoder is not merged yet)", offset: payloadOffset)
    }
}
