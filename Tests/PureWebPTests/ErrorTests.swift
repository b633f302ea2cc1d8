import Testing
@testable import PureWebP

@Suite struct WebPErrorTests {
    @Test func descriptionNamesTheOffset() {
        let error = WebPError.invalid(what: "RIFF header", offset: 12)
        #expect(error.offset == 12)
        #expect(error.description == "WebP: invalid RIFF header at byte 12")
    }
}
