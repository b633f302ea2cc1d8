import ImageCore

/// The PureJPEG module. It decodes nothing yet: its codec lands with its own issue.
public enum PureJPEG {}
