// swift-tools-version: 6.0
// A release binary timing PureColor's kernels on a 12 MP buffer, one thread (see README.md).
// `ColorBench --pair` also times Debian's liblcms2 (liblcms2-dev) in the same process, run for
// run in turn; the library targets never link it.
import PackageDescription

let package = Package(
    name: "ColorBench",
    dependencies: [.package(name: "PureImage", path: "../..")],
    targets: [
        .systemLibrary(name: "CLcms2", providers: [.apt(["liblcms2-dev"])]),
        .executableTarget(name: "ColorBench", dependencies: [.product(name: "PureColor", package: "PureImage"), "CLcms2"]),
    ]
)
