// swift-tools-version: 6.0
// A release binary timing PureColor's kernels on a 12 MP buffer, one thread (see README.md).
import PackageDescription

let package = Package(
    name: "ColorBench",
    dependencies: [.package(name: "PureImage", path: "../..")],
    targets: [
        .executableTarget(name: "ColorBench", dependencies: [.product(name: "PureColor", package: "PureImage")]),
    ]
)
