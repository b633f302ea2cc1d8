import ImageCore
import CZlib

/// The PurePNG module.
public enum PurePNG {
    /// The version of the system zlib the module is linked against.
    public static var zlibVersion: String { String(cString: CZlib.zlibVersion()) }
}
