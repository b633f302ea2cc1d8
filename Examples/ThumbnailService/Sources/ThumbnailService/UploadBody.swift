import Hummingbird
import NIOCore

/// An upload that went over the server's size limit while it streamed in (a chunked request has
/// no Content-Length to refuse it by up front).
struct UploadTooLarge: Error, CustomStringConvertible {
    let limit: Int

    var description: String { "upload exceeds the limit of \(limit) bytes" }
}

/// A request body as PureImage's async decoding wants it: each `ByteBuffer` handed on as its
/// `ByteBufferView` (a `Collection` of `UInt8` over the same storage: no copy), one buffer at a
/// time as the network delivers it, never gathered. It also counts the bytes, so an upload
/// without a Content-Length still stops at `limit`.
///
/// This is `body.map { $0.readableBytesView }` plus the count.
struct UploadBody<Base: AsyncSequence>: AsyncSequence where Base.Element == ByteBuffer {
    typealias Element = ByteBufferView

    let base: Base
    let limit: Int

    func makeAsyncIterator() -> Iterator {
        Iterator(base: base.makeAsyncIterator(), limit: limit)
    }

    struct Iterator: AsyncIteratorProtocol {
        var base: Base.AsyncIterator
        let limit: Int
        var received = 0

        mutating func next() async throws -> ByteBufferView? {
            guard let buffer = try await base.next() else { return nil }
            received += buffer.readableBytes
            if received > limit { throw UploadTooLarge(limit: limit) }
            return buffer.readableBytesView
        }
    }
}
