import Testing
import ImageCore
@testable import PureWebP

@Suite("WebP still vectors")
struct StillVectorTests {
    @Test func manifestIsPresent() {
        #expect(WebPVector.stills.count >= 60)
        #expect(WebPVector.animations.count >= 20)
    }

    @Test("whole file, exact against dwebp -pam", arguments: WebPVector.stills)
    func whole(_ v: WebPVector) throws {
        let run = Run(try v.bytes())
        guard let image = run.image else {
            Issue.record("\(v.name): \(run.error.map { String(describing: $0).prefix(200) } ?? "no image")")
            return
        }
        #expect(image.width == v.width && image.height == v.height)
        let ref = try v.reference()
        let got = image.rgba
        #expect(got == ref, "\(v.name): \(zip(got, ref).enumerated().first { $0.element.0 != $0.element.1 }.map { "byte \($0.offset): \($0.element.0) vs \($0.element.1)" } ?? "size")")
        #expect(run.events.last == .end)
    }
}
