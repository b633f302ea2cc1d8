import Foundation
import TestSupport
import ImageCore
import Testing
@testable import PureJPEG

/// The spilling coefficient store: every coefficient-mode vector (progressive and multi-scan,
/// damaged ones included) decoded in row mode with `spillAbove: 0`, so every store goes to a
/// temporary file, gives `decode()`'s pixels, whole and in pieces, and leaves nothing behind.
@Suite("JPEG spilled coefficient store")
struct SpillTests {
    static let files: [String] = (TestVectors.files(in: "jpeg/valid", withExtension: "jpg").map { "jpeg/valid/" + $0 }
        + TestVectors.files(in: "jpeg-extra", withExtension: "jpg").map { "jpeg-extra/" + $0 }
        + TestVectors.files(in: "jpeg-damaged", withExtension: "jpg").map { "jpeg-damaged/" + $0 }
        + TestVectors.files(in: "jpeg-smoothing", withExtension: "jpg").map { "jpeg-smoothing/" + $0 })
        .filter { (try? JPEGDecoder.decode(TestVectors.bytes($0))) != nil }

    static func scratch() throws -> String {
        try Scratch.folder("spill")
    }

    @Test("rows through a spilled store equal decode()'s pixels; the folder stays empty", arguments: files)
    func spilledEqualsWhole(_ file: String) throws {
        let bytes = try TestVectors.bytes(file)
        let reference = try JPEGDecoder.decode(bytes)
        let dir = try Self.scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var options = JPEGDecodingOptions()
        options.spillAbove = 0
        options.spillDirectory = dir
        for size in bytes.count < 20_000 ? [nil, 7] : [nil, 4096] as [Int?] {
            let rows = decodeRows(bytes, size: size, options: options)
            #expect(rows.error == nil && rows.otherError == nil, "\(file)")
            #expect(rows.orderProblems.isEmpty, "\(file) \(rows.orderProblems)")
            #expect(rows.pixels == reference.pixels, "\(file), pieces of \(size ?? bytes.count)")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir).isEmpty)
    }

    @Test("a spilled decode that fails or is cut short leaves the folder empty too")
    func failuresLeaveNothing() throws {
        let bytes = try TestVectors.bytes("jpeg/valid/progressive_420.jpg")
        let dir = try Self.scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var options = JPEGDecodingOptions(strict: true)
        options.spillAbove = 0
        options.spillDirectory = dir
        for cut in [bytes.count / 3, bytes.count / 2, bytes.count - 3] {
            let rows = decodeRows(Array(bytes.prefix(cut)), size: 4096, options: options)
            #expect(rows.error != nil, "cut at \(cut)")
        }
        // A row consumer that throws stops the decode half way.
        struct Stop: Error {}
        var decoder = JPEGRowDecoder(options: options)
        #expect(throws: Stop.self) {
            try bytes.withUnsafeBytes { raw in _ = try decoder.append(raw) { _ in throw Stop() } }
            try decoder.finish { _ in throw Stop() }
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir).isEmpty)
    }

    @Test("a whole-image decode through a spilled store gives the same image")
    func wholeDecodeSpilled() throws {
        for file in ["jpeg-extra/prog_420.jpg", "jpeg/valid/progressive_420.jpg", "jpeg-extra/seq_2scans_422.jpg"] {
            let bytes = try TestVectors.bytes(file)
            var options = JPEGDecodingOptions()
            options.spillAbove = 0
            options.spillDirectory = try Self.scratch()
            #expect(try JPEGDecoder.decode(bytes, options: options) == (try JPEGDecoder.decode(bytes)), "\(file)")
        }
    }

    @Test("the store is spilled: a file, a window of memory; a folder that cannot take it is a typed error")
    func spilledAndErrors() throws {
        let bytes = try TestVectors.bytes("jpeg/valid/progressive_420.jpg")
        var options = JPEGDecodingOptions()
        options.spillAbove = 0
        options.spillDirectory = try Self.scratch()
        var decoder = JPEGDecoder(options: options)
        _ = try decoder.append(bytes)
        #expect(decoder.coefficientState.store.isSpilled)
        options.spillDirectory = "/nonexistent/folder"
        var failing = JPEGDecoder(options: options)
        #expect(throws: JPEGError.self) { _ = try failing.append(bytes) }
        do {
            _ = try JPEGDecoder.decode(bytes, options: options)
        } catch {
            #expect(error.code == "temporaryStorage", "\(error)")
        }
    }
}
