// swift-tools-version: 6.0
import PackageDescription

// An example server on top of PureImage, kept out of the library's own package so the library
// gains no dependency: it depends on the repository's package by path and on Hummingbird 2.
let package = Package(
    name: "ThumbnailService",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "ThumbnailService", targets: ["ThumbnailService"]),
        .executable(name: "make-test-images", targets: ["MakeTestImages"]),
    ],
    dependencies: [
        .package(name: "PureImage", path: "../.."),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.0.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        // Already in the graph through Hummingbird; named for NIOCore's ByteBufferView.
        .package(url: "https://github.com/apple/swift-nio", from: "2.80.0"),
    ],
    targets: [
        .executableTarget(
            name: "ThumbnailService",
            dependencies: [
                .product(name: "PureImage", package: "PureImage"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "NIOCore", package: "swift-nio"),
            ]
        ),
        // Writes the end-to-end test's inputs (a 12 MP JPEG, a PNG with alpha) with PureImage
        // itself, so e2e.sh needs nothing but swift and python3.
        .executableTarget(
            name: "MakeTestImages",
            dependencies: [.product(name: "PureImage", package: "PureImage")]
        ),
    ]
)
