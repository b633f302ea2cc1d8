import Testing
// The PurePNG suite grows with its module.
