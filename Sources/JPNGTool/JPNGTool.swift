import ArgumentParser

@main
struct JPNGTool: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "jpng",
        abstract: "Decode, encode, inspect and convert PNG, JPEG, GIF and JPNG images.",
        version: "0.1.0",
        subcommands: []
    )
}
