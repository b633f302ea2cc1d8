import ImageCore

/// The PureGIF module. It decodes nothing yet: its codec lands with its own issue.
public enum PureGIF {}
