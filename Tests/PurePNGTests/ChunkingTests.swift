import Foundation
import ImageCore
import PurePNG
import Testing

/// Feeding a file in pieces of any size gives the same result as feeding it whole: the same
/// pixels and metadata, the same events (adjacent `.rows` merged, since batching may differ)
/// for valid files, the same error code for invalid ones.
@Suite struct ChunkingTests {
    /// Piece sizes besides "whole": wuffs's 4096 / 787 / 13 plus 1 and 7, and an irregular pattern.
    static let pieceSizes: [[Int]] = [[1], [7], [13], [787], [4096], [1, 2, 3, 5, 8, 13, 21, 34, 55, 89, 1000]]

    struct Outcome {
        var events: [DecodingEvent] = []
        var image: Image?
        var error: PNGError?
        /// Sizes of the preview at each event after the header (nil when there was none).
        var previewSizes: [String] = []
    }

    /// Decodes `bytes` in pieces cycling through `sizes` (nil = one piece).
    static func decode(_ bytes: [UInt8], pieces sizes: [Int]?, options: PNGDecodingOptions = .init()) -> Outcome {
        var outcome = Outcome()
        var decoder = PNGDecoder(options: options)
        var position = 0
        var turn = 0
        repeat {
            let size = sizes.map { $0[turn % $0.count] } ?? bytes.count
            let end = min(bytes.count, position + size)
            do throws(PNGError) {
                let events = try decoder.append(bytes[position ..< end])
                outcome.events += events
                if !events.isEmpty, decoder.header != nil {
                    outcome.previewSizes.append(decoder.preview().map { "\($0.width)x\($0.height) \($0.format)" } ?? "nil")
                }
            } catch {
                outcome.error = error
                return outcome
            }
            position = end
            turn += 1
        } while position < bytes.count
        do throws(PNGError) {
            outcome.image = try decoder.finish()
        } catch {
            outcome.error = error
        }
        return outcome
    }

    @Test(arguments: PNGManifest.valid)
    func validFileSameInAnyPieces(_ vector: PNGVector) throws {
        let bytes = try vector.bytes()
        let whole = Self.decode(bytes, pieces: nil)
        guard let reference = whole.image else {
            Issue.record("whole decode failed: \(whole.error.map { "\($0)" } ?? "?")")
            return
        }
        let expectedEvents = mergeAdjacentRows(whole.events)
        let size = "\(reference.width)x\(reference.height) \(reference.format)"
        for sizes in Self.pieceSizes {
            let outcome = Self.decode(bytes, pieces: sizes)
            #expect(outcome.error == nil, "pieces \(sizes): \(outcome.error.map { "\($0)" } ?? "")")
            #expect(outcome.image == reference, "pieces \(sizes): different image")
            #expect(mergeAdjacentRows(outcome.events) == expectedEvents, "pieces \(sizes): different events")
            #expect(outcome.previewSizes.allSatisfy { $0 == size }, "pieces \(sizes): previews \(Set(outcome.previewSizes))")
        }
    }

    static func onlyWarnings(_ events: [DecodingEvent]) -> [DecodingEvent] {
        events.filter { if case .warning = $0 { true } else { false } }
    }

    /// Rows are final once their IDAT bytes are in, so a warning about a chunk after IDAT
    /// comes after them whatever the chunking (png-decoder f2a6522 made it so).
    @Test func warningsKeepTheirPlaceAmongRows() throws {
        let bytes = try TestVectors.bytes("png/valid/benign_text_no_separator_10x6.png")
        let whole = mergeAdjacentRows(Self.decode(bytes, pieces: nil).events)
        let pieces = mergeAdjacentRows(Self.decode(bytes, pieces: [1]).events)
        #expect(Self.onlyWarnings(pieces).count == 1)
        #expect(pieces.firstIndex(of: .rows(0 ..< 6)).map { $0 < pieces.firstIndex { if case .warning = $0 { true } else { false } } ?? 0 } == true)
        #expect(whole == pieces)
    }

    @Test(arguments: PNGManifest.invalid)
    func invalidFileSameErrorInAnyPieces(_ vector: PNGVector) throws {
        let bytes = try vector.bytes()
        let whole = Self.decode(bytes, pieces: nil)
        checking(vector) {
            #expect(whole.error?.code == vector.error)
            for sizes in Self.pieceSizes {
                let outcome = Self.decode(bytes, pieces: sizes)
                #expect(outcome.error?.code == whole.error?.code, "pieces \(sizes): \(outcome.error.map { "\($0)" } ?? "no error")")
                // The same bytes were seen either way, so a truncated file's partial image is the same too.
                if case let .truncated(_, partial)? = outcome.error, case let .truncated(_, expected)? = whole.error {
                    #expect(partial == expected, "pieces \(sizes): different partial image")
                }
            }
        }
    }
}
