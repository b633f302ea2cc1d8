import Testing
// The PureGIF suite grows with its module.
