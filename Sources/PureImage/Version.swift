/// The package as a whole.
public enum PureImagePackage {
    /// The package's version (semantic versioning), as `jpng --version` prints it.
    public static let version = "0.2.0"
}
