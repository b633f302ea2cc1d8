// swift-tools-version: 6.0
// A release binary timing PureQuant in process (quantize + Floyd-Steinberg remap, one thread),
// driven by speed.py, which times libimagequant in its own process image by image in turn.
import PackageDescription

let package = Package(
    name: "QuantBench",
    dependencies: [.package(name: "PureImage", path: "../..")],
    targets: [
        .executableTarget(name: "QuantBench", dependencies: [
            .product(name: "PureQuant", package: "PureImage"),
            .product(name: "PurePNG", package: "PureImage"),
        ]),
    ]
)
