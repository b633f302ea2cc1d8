import ArgumentParser
import Hummingbird
import PureImage

/// The server's command line: where to listen and how much to accept.
@main
struct ThumbnailServer: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ThumbnailService",
        abstract: "An HTTP service that makes thumbnails of uploaded PNG, JPEG, GIF, WebP and JPNG images with PureImage."
    )

    @Option(help: "Address to listen on ($HOST when set).")
    var host: String = Environment().get("HOST") ?? "127.0.0.1"

    @Option(help: "Port to listen on ($PORT when set).")
    var port: Int = Environment().get("PORT").flatMap { Int($0) } ?? 8080

    @Option(name: .customLong("max-upload-mb"),
            help: "Largest upload, in MiB; a larger Content-Length is refused before reading.")
    var maxUploadMB = 64

    @Option(help: "Largest image accepted, in millions of pixels (per frame and canvas).")
    var maxMegapixels = 100

    @Option(name: .customLong("max-memory-mb"), help: "Most working memory one decode may allocate, in MiB.")
    var maxMemoryMB = 512

    @Option(help: "Most uploads decoded at once; later ones wait (their bodies unread).")
    var maxConcurrentDecodes = 8

    @Option(help: "Largest thumbnail size a request may ask for.")
    var maxThumbnailSize = 4096

    func validate() throws {
        guard (0 ... 65535).contains(port) else { throw ValidationError("--port must be in 0...65535") }
        // Upper bounds keep the byte and pixel counts computed from them far from overflow;
        // 65535 is the largest side a JPEG can have.
        for (name, value, most) in [("--max-upload-mb", maxUploadMB, 1 << 20), ("--max-megapixels", maxMegapixels, 1 << 20),
                                    ("--max-memory-mb", maxMemoryMB, 1 << 20),
                                    ("--max-concurrent-decodes", maxConcurrentDecodes, 1 << 20),
                                    ("--max-thumbnail-size", maxThumbnailSize, 65535)] where !(1 ... most).contains(value) {
            throw ValidationError("\(name) must be from 1 to \(most)")
        }
    }

    func run() async throws {
        var limits = DecodingLimits.default
        limits.maxPixels = maxMegapixels * 1_000_000
        limits.maxBytes = maxMemoryMB << 20
        let routes = ImageRoutes(limits: limits, maxUploadBytes: maxUploadMB << 20,
                                 maxThumbnailSize: maxThumbnailSize, gate: DecodeGate(limit: maxConcurrentDecodes))
        let router = Router()
        routes.add(to: router)
        let app = Application(
            router: router,
            configuration: ApplicationConfiguration(address: .hostname(host, port: port), serverName: "ThumbnailService")
        )
        // Serves until SIGINT or SIGTERM, then finishes the requests in flight.
        try await app.runService()
    }
}
