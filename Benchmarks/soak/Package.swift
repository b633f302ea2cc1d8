// swift-tools-version: 6.0
// The long run: decodes and encodes the vector set in a loop and reports the process's RSS
// every minute (Benchmarks/soak.sh). Its own package, so the library's targets stay as they are.
import PackageDescription

let package = Package(
    name: "Soak",
    platforms: [.macOS(.v13)],
    dependencies: [
        .package(name: "PureImage", path: "../.."),
    ],
    targets: [
        .executableTarget(name: "Soak", dependencies: [.product(name: "PureImage", package: "PureImage")]),
    ]
)
