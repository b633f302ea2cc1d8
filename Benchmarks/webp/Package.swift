// swift-tools-version: 6.0
// The Swift side of the WebP benchmark (see run.sh): decodes a file N times through PureWebP's
// public API and prints the median seconds.
import PackageDescription

let package = Package(
    name: "webpbench",
    platforms: [.macOS(.v13)],
    dependencies: [.package(name: "PureImage", path: "../..")],
    targets: [
        .executableTarget(name: "webpbench", dependencies: [.product(name: "PureWebP", package: "PureImage"), .product(name: "ImageCore", package: "PureImage")]),
    ]
)
