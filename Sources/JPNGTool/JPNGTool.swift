import ArgumentParser

@main
struct JPNGTool: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "jpng",
        abstract: "Decode, inspect and benchmark PNG images (JPEG, GIF and JPNG as their codecs land).",
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
