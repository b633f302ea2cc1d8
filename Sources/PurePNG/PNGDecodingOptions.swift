import ImageCore

/// Choices that change how strictly a PNG is read.
///
/// By default a damaged file decodes the way libpng 1.6 decodes it with its default settings
/// (and so as browsers and most viewers show it), to the same pixels, each recovery reported as
/// a `.warning` event naming its byte offset:
///
/// - compressed data past the image: extra rows or bytes inside the zlib stream, bytes after
///   its end, more IDAT chunks after it (libpng: "Too much image data", "Extra compressed data");
/// - a wrong CRC in an ancillary chunk: the chunk is dropped (a critical chunk's stays an error);
/// - a malformed, misplaced or repeated ancillary chunk (gAMA, sRGB, iCCP, pHYs, tEXt, zTXt,
///   iTXt, ...), an invalid tRNS, a suggested PLTE that is not a palette, a PLTE in a gray
///   image, IEND with data: the chunk is ignored; a tRNS before the PLTE of an RGB image is
///   cancelled; a tRNS key over the bit depth is compared on its low bits;
/// - a palette longer than the bit depth can index is cut to 2^depth entries; palette indices
///   past PLTE are opaque black;
/// - once the image data is complete, an error in the chunks after it (the file ends before
///   IEND, a wrong IEND CRC, an unknown critical chunk, ...) ends the file and the image
///   stands; bytes after IEND are ignored.
///
/// What libpng refuses stays an error: a file cut before its image data is complete, corrupt
/// compressed data before the last row, a wrong Adler-32 read with the last row, a zlib stream
/// that needs more IDAT data than there is, a critical chunk's wrong CRC, an unknown critical
/// chunk before the image data.
///
/// ```swift
/// let image = try PNGDecoder.decode(bytes)                                          // as libpng
/// let checked = try PNGDecoder.decode(bytes, options: PNGDecodingOptions(strict: true)) // every rule
/// ```
public struct PNGDecodingOptions: Sendable, Equatable {
    /// When true (the default) a critical chunk's CRC mismatch is
    /// ``PNGError/badCRC(chunk:declared:computed:offset:)`` and an ancillary chunk with a wrong
    /// CRC is dropped with a warning (an error with ``strict``); when false CRC mismatches are
    /// ignored (libpng's "benign" CRC option).
    public var checkCRC: Bool = true
    /// When false (the default), each leniency of the type's discussion is taken, as libpng
    /// takes it, and reported as a `.warning`; an APNG whose animation chunks break the APNG
    /// specification is read as its static image, as browsers show it. When true, each of
    /// those is thrown as its ``PNGError``: `.tooMuchImageData`, `.corruptImageData` (a wrong
    /// Adler-32 or corrupt data after the last row), `.unterminatedImageData`, `.badCRC`,
    /// `.malformedChunk` (a malformed, misplaced or repeated ancillary chunk, IEND with data),
    /// `.invalidTransparency`, `.invalidPalette`, `.unexpectedPalette`, `.chunkOutOfOrder`,
    /// `.duplicateChunk`, `.paletteIndexOutOfRange`, `.nonContiguousImageData`, `.chunkAfterEnd`,
    /// `.missingHeader` (a chunk before IHDR), `.truncated` (no IEND), the error found after the
    /// image data, and the broken animation rule (`.apngSequence`, `.apngFrameOutsideCanvas`,
    /// `.apngInvalidChunk`, `.apngFrameCount`, `.apngFrameData`).
    public var strict: Bool = false
    /// Threads for one image. A still image's rows are unfiltered and checked on a second
    /// thread while the first inflates the next block of them; APNG frames are decoded ahead
    /// on as many threads while `APNGAnimation`'s iterator composites them. nil (the default)
    /// uses the processors online (a still image from 1 MiB of filtered data up), 1 does
    /// everything on the caller's thread. Pixels, events and errors are the same whatever the
    /// count.
    public var threads: Int?
    /// Row decoding (``PNGRowDecoder``) of an interlaced image, which is complete only after its
    /// last pass: above this many bytes of output the image is kept in a temporary file in
    /// ``spillDirectory`` (unlinked as soon as it is made, `SpillBuffer`), 16 MB of it in
    /// memory, and its rows handed out from there at IEND. nil: in memory, within the limits.
    public var spillAbove: Int? = nil
    /// Where a spilled image's temporary file goes: `TMPDIR`, else `/var/tmp`.
    public var spillDirectory: String = SpillBuffer.defaultDirectory

    /// Options; by default every chunk's CRC is checked, damaged files decode as libpng decodes
    /// them (see the type's discussion), a broken animation falls back to the static image, and
    /// APNG frames are decoded ahead on every core.
    public init(checkCRC: Bool = true, strict: Bool = false, threads: Int? = nil) {
        self.checkCRC = checkCRC
        self.strict = strict
        self.threads = threads
    }
}
