// swift-tools-version: 6.0
import PackageDescription

let package = Package(
    name: "PureImage",
    platforms: [.macOS(.v13), .iOS(.v16), .tvOS(.v16), .watchOS(.v9), .visionOS(.v1)],
    products: [
        .library(name: "ImageCore", targets: ["ImageCore"]),
        .library(name: "PurePNG", targets: ["PurePNG"]),
        .library(name: "PureJPEG", targets: ["PureJPEG"]),
        .library(name: "PureGIF", targets: ["PureGIF"]),
        .library(name: "JPNG", targets: ["JPNG"]),
        .library(name: "PureImage", targets: ["PureImage"]),
        .library(name: "PureColor", targets: ["PureColor"]),
        .library(name: "PureWebP", targets: ["PureWebP"]),
        .library(name: "PureQuant", targets: ["PureQuant"]),
        .executable(name: "jpng", targets: ["JPNGTool"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        // Documentation only (`swift package generate-documentation`): no target depends on it.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.4.0"),
    ],
    targets: [
        .target(name: "ImageCore"),
        .systemLibrary(
            name: "CZlib",
            pkgConfig: "zlib",
            providers: [.apt(["zlib1g-dev"]), .brew(["zlib"])]
        ),
        .target(name: "PurePNG", dependencies: ["ImageCore", "CZlib", "PureQuant"], exclude: ["Notes.md", "Encoder/EncoderNotes.md"]),
        .target(name: "PureJPEG", dependencies: ["ImageCore"], exclude: ["Notes.md", "Encoder/EncoderNotes.md"]),
        .target(name: "PureQuant", dependencies: ["ImageCore"], exclude: ["Notes.md"]),
        .target(name: "PureGIF", dependencies: ["ImageCore", "PureQuant"], exclude: ["Notes.md"]),
        .target(name: "JPNG", dependencies: ["ImageCore", "PureJPEG", "PurePNG"], exclude: ["Notes.md"]),
        .target(name: "PureColor", dependencies: ["ImageCore"], exclude: ["Notes.md"]),
        .target(name: "PureWebP", dependencies: ["ImageCore"], exclude: ["Notes.md"]),
        .target(name: "PureImage", dependencies: ["ImageCore", "PurePNG", "PureJPEG", "PureGIF", "JPNG", "PureColor", "PureWebP"],
                exclude: ["Notes.md"]),
        .executableTarget(
            name: "JPNGTool",
            dependencies: ["PureImage", .product(name: "ArgumentParser", package: "swift-argument-parser")]
        ),
        .target(name: "TestSupport", dependencies: ["ImageCore"], path: "Tests/TestSupport"),
        .testTarget(name: "ImageCoreTests", dependencies: ["ImageCore", "TestSupport"]),
        .testTarget(name: "PurePNGTests", dependencies: ["TestSupport", "PurePNG"]),
        .testTarget(name: "PureJPEGTests", dependencies: ["TestSupport", "PureJPEG"]),
        .testTarget(name: "PureQuantTests", dependencies: ["TestSupport", "PureQuant"]),
        .testTarget(name: "PureGIFTests", dependencies: ["TestSupport", "PureGIF"]),
        .testTarget(name: "JPNGTests", dependencies: ["TestSupport", "JPNG"]),
        .testTarget(name: "PureColorTests", dependencies: ["TestSupport", "PureColor"]),
        .testTarget(name: "PureWebPTests", dependencies: ["TestSupport", "PureWebP"]),
        .testTarget(name: "PureImageTests", dependencies: ["TestSupport", "PureImage"]),
        .testTarget(name: "JPNGToolTests", dependencies: ["TestSupport", "JPNGTool", "PureImage"]),
    ]
)
