import ImageCore
import Testing
@testable import PureWebP

/// What libwebp 1.2.4 reads besides a plain RIFF file, and how its demuxer bounds an animation
/// frame (diff-webp's classes "libwebp decodes, PureWebP invalid (RIFF/WEBP signature)",
/// "... (first chunk ...)", "libwebp decodes the animation, PureWebP truncated (VP8L
/// bitstream)" and "libwebp rejects (demux), PureWebP decodes the animation"). Vectors and
/// references (dwebp, WebPAnimDecoder): Vectors/regressions/make_webp_containers.py.
@Suite("WebP containers as libwebp reads them")
struct ContainerRuleTests {
    static func warnings(_ run: Run) -> Int { run.events.filter { if case .warning = $0 { true } else { false } }.count }

    /// A raw VP8 or VP8L bitstream, a bare VP8L chunk, RIFF around a raw bitstream, a VP8L
    /// chunk whose size (3) ends inside its stream's header, ALPH and VP8 chunks with no RIFF
    /// header, a still with a second VP8X chunk: dwebp decodes each (the plain file's pixels),
    /// and so does the decoder with a warning, whole and in pieces. `strict` refuses each.
    @Test(arguments: ["webp-raw-vp8l", "webp-raw-vp8", "webp-bare-vp8l-chunk", "webp-riff-raw-vp8", "webp-vp8l-short-chunk",
                      "webp-alph-bare-chunks", "webp-second-vp8x"])
    func stillsWithoutAPlainContainer(_ name: String) throws {
        let bytes = try TestVectors.bytes("regressions/\(name).webp")
        let reference = try PAM.rgba(TestVectors.bytes("regressions/\(name).pam"))
        for piece in [Int.max, 1, 7, 4096] {
            let run = Run(bytes, chunk: piece)
            #expect(run.error == nil, "\(name), pieces of \(piece): \(String(describing: run.error))")
            #expect(run.image?.rgba == reference, "\(name), pieces of \(piece)")
            #expect(Self.warnings(run) >= 1, "\(name)")
        }
        let strict = Run(bytes, options: WebPDecodingOptions(strict: true))
        #expect(strict.image == nil, "\(name) strict")
        #expect(strict.error != nil)
    }

    /// Under 12 bytes libwebp decides nothing (NOT_ENOUGH_DATA); 12 bytes that are neither RIFF,
    /// a VP8/VP8L chunk nor a VP8 key frame are refused. `strict` refuses a non-RIFF prefix at once.
    @Test func notWebP() {
        #expect(Run(Array("RIFX".utf8)).error?.code == "incomplete")
        #expect(Run(Array("RIFX".utf8), options: WebPDecodingOptions(strict: true)).error == .invalid(what: "RIFF signature", offset: 0))
        #expect(Run(Array("Hello, world! This is text.".utf8)).error?.code == "invalid")
        #expect(Run(Array("RIFF\u{4}\0\0\0WEBX".utf8)).error == .invalid(what: "RIFF/WEBP signature", offset: 0))
    }

    /// The first frame's VP8L chunk size is one less than its stream, so the stream's last byte
    /// is the chunk's padding byte: the demuxer hands the codec the chunk with that byte, and
    /// WebPAnimDecoder's canvases are the plain file's. `strict`: the chunk alone, truncated.
    @Test func frameReadsItsPaddingByte() throws {
        let bytes = try TestVectors.bytes("regressions/webp-anim-frame-padding.webp")
        let canvases = try PAM.rgba(TestVectors.bytes("regressions/webp-anim-frame-padding.pam"))
        let animation = try WebPAnimation(bytes: bytes)
        var got: [UInt8] = []
        try animation.forEachFrame { _, canvas in got += canvas.pixels }
        #expect(got == canvases)
        #expect(throws: WebPError.self) {
            let strict = try WebPAnimation(bytes: bytes, options: WebPDecodingOptions(strict: true))
            try strict.forEachFrame { _, _ in }
        }
    }

    /// An animation whose VP8X flags set a reserved bit: libwebp's demuxer refuses it.
    @Test func reservedFlagInAnAnimation() throws {
        let bytes = try TestVectors.bytes("regressions/webp-anim-reserved-flag.webp")
        #expect(throws: WebPError.self) { try WebPAnimation(bytes: bytes) }
        #expect(Run(bytes).error?.code == "invalid")
    }
}
