import Testing
import ImageCore
@testable import PureWebP

@Suite("WebP animation vectors")
struct AnimationVectorTests {
    @Test("frame table and every composited canvas exact against WebPAnimDecoder", arguments: WebPVector.animations)
    func iteration(_ v: WebPVector) throws {
        let animation = try WebPAnimation(bytes: try v.bytes())
        #expect(animation.width == v.width && animation.height == v.height)
        #expect(animation.animLoopCount ?? 1 == v.loop)
        #expect(animation.frames.count == v.frames.count)
        for (info, f) in zip(animation.frames, v.frames) {
            #expect(info.x == f.x && info.y == f.y && info.width == f.width && info.height == f.height)
            #expect(info.durationMilliseconds == f.duration)
            #expect(info.disposeToBackground == f.disposeBackground && info.blend == f.blend)
            #expect(info.hasAlpha == f.hasAlpha, "\(v.name) frame \(info.index)")
        }
        let reference = try v.reference()
        let canvasBytes = v.width * v.height * 4
        var index = 0
        try animation.forEachFrame { i, canvas in
            let expected = reference[i * canvasBytes ..< (i + 1) * canvasBytes]
            #expect(canvas.pixels == Array(expected), "\(v.name) frame \(i)")
            index += 1
        }
        #expect(index == v.frames.count)
    }

    @Test("random access: frame(at:) equals the iteration", arguments: WebPVector.animations)
    func randomAccess(_ v: WebPVector) throws {
        let animation = try WebPAnimation(bytes: try v.bytes())
        let reference = try v.reference()
        let canvasBytes = v.width * v.height * 4
        for i in [v.frames.count - 1, 0, v.frames.count / 2] {
            let canvas = try animation.frame(at: i)
            #expect(canvas.pixels == Array(reference[i * canvasBytes ..< (i + 1) * canvasBytes]), "\(v.name) frame \(i)")
        }
        #expect(throws: WebPError.frameIndexOutOfRange(index: v.frames.count, count: v.frames.count)) {
            try animation.frame(at: v.frames.count)
        }
    }

    @Test("the incremental decoder reports the frames and ends on the first canvas", arguments: WebPVector.animations)
    func incremental(_ v: WebPVector) throws {
        let bytes = try v.bytes()
        let reference = try v.reference()
        for chunk in [1, 7, 4096] {
            let run = Run(bytes, chunk: chunk)
            guard let image = run.image else { Issue.record("\(v.name) in \(chunk)-byte pieces: \(String(describing: run.error).prefix(300))"); continue }
            #expect(image.rgba == Array(reference[0 ..< v.width * v.height * 4]))
            // gif2webp writes a one-frame GIF as a still image (no ANIM chunk): no frame events then.
            let frameEvents = run.events.filter { if case .frameComplete = $0 { return true } else { return false } }.count
            #expect(frameEvents == (run.decoder.isAnimated ? v.frames.count : 0))
            #expect(run.decoder.header?.frameCount == v.frames.count)
        }
    }
}
