import PureImage
import ArgumentParser

/// The command-line interface (run from ``Entry``).
struct JPNGTool: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "jpng",
        abstract: "Encode, decode, convert, inspect and benchmark PNG, JPEG, GIF, WebP (decode) and JPNG images.",
        discussion: """
        Examples:
          jpng info photo.png --json
          jpng decode photo.png -o photo.pam
          jpng bench photo.png -n 10
          jpng tile huge.jpg --out tiles/
        """,
        version: PureImagePackage.version,
        subcommands: [Encode.self, Decode.self, Convert.self, Thumbnail.self, Info.self, Bench.self, Progressive.self, Tile.self]
    )
}
