import Testing
// The PureJPEG suite grows with its module.
