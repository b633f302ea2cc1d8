import ImageCore

/// The JPNG module. It decodes nothing yet: its codec lands with its own issue.
public enum JPNG {}
