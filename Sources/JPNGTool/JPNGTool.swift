import ArgumentParser

@main
struct JPNGTool: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "jpng",
        abstract: "Decode, encode, inspect and benchmark PNG, JPEG and GIF images.",
        discussion: """
        Examples:
          jpng info photo.png --json
          jpng decode photo.png -o photo.pam
          jpng bench photo.png -n 10
        """,
        version: "0.1.0",
        subcommands: [Decode.self, Info.self, Bench.self]
    )
}
