import Testing
// The JPNGTool suite grows with its module.
