// swift-tools-version: 6.0
// A new app's view of PureImage: one product, one import. `.ci/run` builds and runs it.
import PackageDescription

let package = Package(
    name: "QuickStart",
    platforms: [.macOS(.v13)],
    dependencies: [
        .package(name: "PureImage", path: "../.."),
    ],
    targets: [
        .executableTarget(name: "QuickStart", dependencies: [.product(name: "PureImage", package: "PureImage")]),
    ]
)
