import Hummingbird
import PureImage

/// The service's endpoints: `POST /thumbnail?size=N`, `POST /info`, `GET /health`.
///
/// Uploads are decoded as they arrive: the request body (an async sequence of `ByteBuffer`s)
/// goes straight into `ImageSource.decode(from:)`, which feeds each buffer to the incremental
/// decoder, so an upload is never held whole, and the decoder's `DecodingLimits` (pixels,
/// memory, and with a Content-Length the decompression ratio) refuse a hostile header before
/// anything large is allocated.
struct ImageRoutes: Sendable {
    /// Per-image bounds; `inputSize` is set per request from its Content-Length.
    var limits: DecodingLimits
    /// The largest upload accepted, in bytes.
    var maxUploadBytes: Int
    /// The largest `size` a thumbnail may ask for.
    var maxThumbnailSize: Int
    /// Bounds how many uploads are decoded at once.
    let gate: DecodeGate

    func add(to router: Router<some RequestContext>) {
        router.get("health") { _, _ in "ok" }
        router.post("thumbnail") { request, _ in try await thumbnail(request) }
        router.post("info") { request, _ in try await info(request) }
    }

    /// Decodes the upload at no more than `size` pixels on its longer side (JPEG by DCT
    /// scaling, then an area average), turned upright and converted to sRGB from its ICC
    /// profile, and answers it as a JPEG, or as a PNG when it has transparent pixels.
    func thumbnail(_ request: Request) async throws -> Response {
        guard let size = request.uri.queryParameters.get("size", as: Int.self),
              (1 ... maxThumbnailSize).contains(size) else {
            throw Refusal(.badRequest, "size must be a whole number from 1 to \(maxThumbnailSize): POST /thumbnail?size=N")
        }
        let image = try await decodingUpload(request) { body, limits in
            try await ImageSource.decode(
                from: body, options: ImageSourceOptions(limits: limits, maxPixelSize: size, applyOrientation: true,
                                                        colorSpace: .sRGB, metadata: .colorOnly))
        }
        // Outside the upload's error mapping: an encoder failure is the server's fault (500).
        let thumbnail = try encodeThumbnail(image)
        return Response(status: .ok, headers: [.contentType: thumbnail.contentType],
                        body: ResponseBody(byteBuffer: ByteBuffer(bytes: thumbnail.bytes)))
    }

    /// Describes the upload as `jpng info --json` does: format, size, colour, frames, metadata
    /// and the format's own facts. The whole file is decoded on the way, so a damaged one is
    /// refused, not described.
    func info(_ request: Request) async throws -> Response {
        let description = try await decodingUpload(request) { body, limits in
            try await ImageSource.describe(from: body, options: ImageSourceOptions(limits: limits))
        }
        return Response(status: .ok, headers: [.contentType: "application/json"],
                        body: ResponseBody(byteBuffer: ByteBuffer(string: description.jsonDocument() + "\n")))
    }

    /// Runs `decode` on the request's body once the gate lets it, with the limits for this
    /// request; turns what is wrong with the upload into a `Refusal` (see `uploadStatus(for:)`).
    private func decodingUpload<T: Sendable>(
        _ request: Request, _ decode: (UploadBody<RequestBody>, DecodingLimits) async throws -> T
    ) async throws -> T {
        var limits = self.limits
        if let field = request.headers[.contentLength] {
            guard let length = Int(field), length >= 0 else {
                throw Refusal(.badRequest, "invalid Content-Length \(field)")
            }
            // Refused before a byte of the body is read.
            if length > maxUploadBytes {
                throw Refusal(.contentTooLarge, "upload of \(length) bytes exceeds the limit of \(maxUploadBytes) bytes")
            }
            // Known length: the decoders also check the header against the bytes that will come
            // (an image they can hold, memory within the decompression ratio), which stops a
            // tiny file declaring a huge image at its header.
            limits.inputSize = length
        }
        let body = UploadBody(base: request.body, limit: maxUploadBytes)
        return try await gate.withPlace {
            do {
                return try await decode(body, limits)
            } catch {
                guard let status = uploadStatus(for: error) else { throw error }
                throw Refusal(status, "\(error)")
            }
        }
    }
}

/// A request the service turns down: its status, and a one-line reason (the codec's message
/// for a bad image) as the text/plain body.
struct Refusal: HTTPResponseError {
    let status: HTTPResponse.Status
    let message: String

    init(_ status: HTTPResponse.Status, _ message: String) {
        self.status = status
        self.message = message
    }

    func response(from request: Request, context: some RequestContext) throws -> Response {
        Response(status: status, headers: [.contentType: "text/plain; charset=utf-8"],
                 body: ResponseBody(byteBuffer: ByteBuffer(string: message + "\n")))
    }
}
