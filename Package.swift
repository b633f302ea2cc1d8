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
        .executable(name: "jpng", targets: ["JPNGTool"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
    ],
    targets: [
        .target(name: "ImageCore"),
        .systemLibrary(
            name: "CZlib",
            pkgConfig: "zlib",
            providers: [.apt(["zlib1g-dev"]), .brew(["zlib"])]
        ),
        .target(name: "PurePNG", dependencies: ["ImageCore", "CZlib"], exclude: ["Notes.md", "EncoderNotes.md"]),
        .target(name: "PureJPEG", dependencies: ["ImageCore"]),
        .target(name: "PureGIF", dependencies: ["ImageCore"], exclude: ["Notes.md"]),
        .target(name: "JPNG", dependencies: ["ImageCore", "PurePNG", "PureJPEG", "PureGIF"]),
        .executableTarget(
            name: "JPNGTool",
            dependencies: ["JPNG", .product(name: "ArgumentParser", package: "swift-argument-parser")]
        ),
        .testTarget(name: "ImageCoreTests", dependencies: ["ImageCore"]),
        .testTarget(name: "PurePNGTests", dependencies: ["PurePNG"]),
        .testTarget(name: "PureJPEGTests", dependencies: ["PureJPEG"]),
        .testTarget(name: "PureGIFTests", dependencies: ["PureGIF"]),
        .testTarget(name: "JPNGTests", dependencies: ["JPNG"]),
        .testTarget(name: "JPNGToolTests", dependencies: ["JPNGTool", "JPNG", "PurePNG", "PureJPEG", "PureGIF"]),
    ]
)
