/// A Deep Zoom pyramid on disk (`NAME.dzi` + `NAME_files/`), read back tile by tile.
///
/// ```swift
/// let pyramid = try TilePyramid(directory: "out", name: "photo")
/// let top = pyramid.levels - 1                      // the full-size level
/// let (columns, rows) = pyramid.tileCount(ofLevel: top)
/// let corner = try pyramid.tile(level: top, column: columns - 1, row: rows - 1)
/// ```
public struct TilePyramid: Sendable {
    /// Levels, sizes and tile layout, read from the `.dzi`.
    public let geometry: TilePyramidGeometry
    /// The tiles' image format.
    public let format: TileFormat
    /// The `.dzi` file.
    public let descriptorPath: String
    /// The `NAME_files` folder.
    public let tilesPath: String

    /// Opens `directory/name.dzi`.
    public init(directory: String, name: String) throws(TilePyramidError) {
        try self.init(descriptorPath: directory + "/" + name + ".dzi")
    }

    /// Opens a `.dzi` file; its tiles are in the folder of the same name with `_files` in place
    /// of `.dzi`, as Deep Zoom lays them out.
    public init(descriptorPath: String) throws(TilePyramidError) {
        let bytes = try TileFiles.read(descriptorPath)
        (geometry, format) = try DeepZoomDescriptor.parse(String(decoding: bytes, as: UTF8.self))
        self.descriptorPath = descriptorPath
        let stem = descriptorPath.hasSuffix(".dzi") ? String(descriptorPath.dropLast(4)) : descriptorPath
        tilesPath = stem + "_files"
    }

    /// Levels 0 (1x1) ... `levels - 1` (the full image).
    public var levels: Int { geometry.levelCount }

    /// The full-size image's width.
    public var width: Int { geometry.width }
    /// The full-size image's height.
    public var height: Int { geometry.height }

    /// The size of a level (level 0 is 1x1, the last is full size).
    public func size(ofLevel level: Int) -> (width: Int, height: Int) { geometry.size(ofLevel: level) }

    /// Columns and rows of tiles in a level.
    public func tileCount(ofLevel level: Int) -> (columns: Int, rows: Int) { geometry.tileCount(ofLevel: level) }

    /// The file of a tile.
    public func path(level: Int, column: Int, row: Int) -> String {
        tilesPath + "/\(level)/\(column)_\(row).\(format.fileExtension)"
    }

    /// Decodes tile (column, row) of `level`. Throws ``TilePyramidError/noSuchTile(level:column:row:)``
    /// outside the pyramid, the file system's error if the file is missing, the codec's error
    /// if it does not decode, and ``TilePyramidError/invalidDescriptor(_:)`` if its size is not
    /// the one the geometry gives.
    public func tile(level: Int, column: Int, row: Int) throws -> Image {
        guard geometry.contains(level: level, column: column, row: row) else {
            throw TilePyramidError.noSuchTile(level: level, column: column, row: row)
        }
        let file = path(level: level, column: column, row: row)
        let image = try ImageSource.decode(try TileFiles.read(file))
        let rect = geometry.tileRect(level: level, column: column, row: row)
        guard image.width == rect.x.count, image.height == rect.y.count else {
            throw TilePyramidError.invalidDescriptor(
                "\(file) is \(image.width)x\(image.height), the descriptor makes it \(rect.x.count)x\(rect.y.count)")
        }
        return image
    }
}
