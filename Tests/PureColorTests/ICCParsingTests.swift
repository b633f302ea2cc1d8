import Testing
import TestSupport
@testable import PureColor

/// Every committed profile parses; damaged and hostile ones throw ``ICCError`` and never trap.
@Suite struct ICCParsingTests {
    static let profiles = TestVectors.files(in: "icc/profiles", withExtension: "icc")

    @Test func profilesAreCommitted() {
        #expect(Self.profiles.count >= 30)
    }

    @Test(arguments: profiles)
    func parses(name: String) throws {
        let profile = try ICCProfile(try TestVectors.bytes("icc/profiles/" + name))
        #expect(profile.header.size == profile.data.count)
        #expect(profile.header.versionMajor == 2 || profile.header.versionMajor == 4)
        #expect(profile.profileDescription?.isEmpty == false, "no description in \(name)")
        #expect(!profile.tags.isEmpty)
        if profile.model == .matrixShaper {
            #expect(profile.mediaWhitePoint != nil)
            #expect(profile.rgbCurves?.count == 3)
        }
    }

    @Test func v4Summary() throws {
        let profile = try ICCProfile(try TestVectors.bytes("icc/profiles/AdobeRGB1998.icc"))
        let summary = profile.summary
        #expect(summary.version == "4.4")
        #expect(summary.profileClass == "mntr")
        #expect(summary.colorSpace == "RGB")
        #expect(summary.pcs == "XYZ")
        #expect(summary.model == .matrixShaper)
        #expect(summary.name?.contains("Adobe") == true)
        #expect(profile.chromaticAdaptation != nil)
        #expect(profile.header.illuminant.x > 0.96 && profile.header.illuminant.x < 0.97)
        #expect(summary.description.hasSuffix("mntr RGB -> XYZ, v4.4"))
    }

    @Test func v2Summary() throws {
        let profile = try ICCProfile(try TestVectors.bytes("icc/profiles/sRGB.icc"))
        #expect(profile.summary.version == "2.3")
        #expect(profile.profileDescription?.isEmpty == false)
        #expect(profile.copyright?.isEmpty == false)
        if case .table(let entries) = profile.rgbCurves?[0] { #expect(entries.count == 1024) } else {
            Issue.record("rTRC is not a table")
        }
        let gray = try ICCProfile(try TestVectors.bytes("icc/profiles/Gray-CIE_L.icc"))
        #expect(gray.model == .grayTRC)
        #expect(gray.header.pcs == .lab)
        #expect(gray.header.colorSpace == .gray)
    }

    @Test func lutAndNamedProfilesAreNotMatrixShapers() throws {
        for (name, model) in [("ITULab.icc", ICCProfileModel.lutBased), ("CineLogCurve.icc", .lutBased),
                              ("Crayons.icc", .other), ("x11-colors.icc", .other)] {
            let profile = try ICCProfile(try TestVectors.bytes("icc/profiles/" + name))
            #expect(profile.model == model, "\(name)")
            #expect(throws: ICCError.self) { try ColorTransform(source: profile) }
        }
    }

    @Test func parametricCurveTypes() throws {
        let profile = try ICCProfile(try TestVectors.bytes("icc/profiles/sRGB-colord.icc"))
        guard case .parametric(3, let p) = profile.rgbCurves?[0] else {
            Issue.record("expected para type 3")
            return
        }
        #expect(abs(p[0] - 2.4) < 1e-4)
        #expect(abs(ToneCurve.sRGB.evaluate(0.5) - 0.214041) < 1e-5)
    }

    // MARK: - Hostile input

    @Test func truncatedEverySeventhByte() throws {
        for name in ["sRGB.icc", "AdobeRGB1998.icc", "Gray.icc", "CineLogCurve.icc"] {
            let bytes = try TestVectors.bytes("icc/profiles/" + name)
            for length in stride(from: 0, to: bytes.count, by: 7) {
                #expect(throws: ICCError.self) { try ICCProfile(Array(bytes[0 ..< length])) }
            }
        }
    }

    /// A profile with its declared size cut to `length` (tags past it then fall outside).
    @Test func declaredSizeCut() throws {
        let bytes = try TestVectors.bytes("icc/profiles/compatibleWithAdobeRGB1998.icc")
        var failures = 0
        for length in stride(from: 0, to: bytes.count, by: 7) {
            var cut = bytes
            Self.put32(&cut, 0, UInt32(length))
            do { _ = try ICCProfile(cut) } catch { failures += 1 }
        }
        #expect(failures > 0)
    }

    @Test func tagOffsetPastTheEnd() throws {
        var bytes = try TestVectors.bytes("icc/profiles/sRGB-colord.icc")
        Self.put32(&bytes, 132 + 4, UInt32(bytes.count + 100))
        #expect(throws: ICCError.self) { try ICCProfile(bytes) }
        var wrapped = try TestVectors.bytes("icc/profiles/sRGB-colord.icc")
        Self.put32(&wrapped, 132 + 4, 0xFFFF_FFF0)
        Self.put32(&wrapped, 132 + 8, 0x20)
        #expect(throws: ICCError.self) { try ICCProfile(wrapped) }
    }

    @Test func hugeTagCount() throws {
        var bytes = try TestVectors.bytes("icc/profiles/sRGB-colord.icc")
        Self.put32(&bytes, 128, 0xFFFF_FFFF)
        #expect(throws: ICCError.tooManyTags(offset: 128, count: 0xFFFF_FFFF)) { try ICCProfile(bytes) }
    }

    @Test func hugeCurve() throws {
        var bytes = try TestVectors.bytes("icc/profiles/sRGB.icc")
        let profile = try ICCProfile(bytes)
        let trc = try #require(profile.tag("rTRC"))
        Self.put32(&bytes, trc.offset + 8, 1_000_000)
        #expect(throws: ICCError.tooManyCurveEntries(offset: trc.offset + 8, count: 1_000_000)) { try ICCProfile(bytes) }
        // A count within the limit but past the tag's end.
        Self.put32(&bytes, trc.offset + 8, 60000)
        #expect(throws: ICCError.self) { try ICCProfile(bytes) }
    }

    @Test func hugeProfileSizeAndBadSignature() throws {
        var bytes = try TestVectors.bytes("icc/profiles/Gray.icc")
        Self.put32(&bytes, 0, 0x7FFF_FFFF)
        #expect(throws: ICCError.invalidProfileSize(offset: 0, size: 0x7FFF_FFFF)) { try ICCProfile(bytes) }
        var unsigned = try TestVectors.bytes("icc/profiles/Gray.icc")
        unsigned[36] = 0
        #expect(throws: ICCError.missingSignature(offset: 36)) { try ICCProfile(unsigned) }
    }

    @Test func badParametricType() throws {
        var bytes = try TestVectors.bytes("icc/profiles/sRGB-colord.icc")
        let trc = try #require(try ICCProfile(bytes).tag("gTRC"))
        bytes[trc.offset + 8] = 0
        bytes[trc.offset + 9] = 9
        #expect(throws: ICCError.self) { try ICCProfile(bytes) }
    }

    /// Random byte damage inside a real profile: anything may happen but a trap.
    @Test func randomDamageNeverTraps() throws {
        let original = try TestVectors.bytes("icc/profiles/AdobeRGB1998.icc")
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next() -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int(state >> 33)
        }
        for _ in 0 ..< 2000 {
            var bytes = original
            for _ in 0 ..< 4 { bytes[next() % min(bytes.count, 400)] = UInt8(truncatingIfNeeded: next()) }
            if let profile = try? ICCProfile(bytes), let transform = try? ColorTransform(source: profile) {
                var pixels: [UInt8] = [0, 128, 255, 10, 20, 30]
                transform.apply(toPixels: &pixels, format: .rgb8)
            }
        }
    }

    static func put32(_ bytes: inout [UInt8], _ at: Int, _ value: UInt32) {
        for i in 0 ..< 4 { bytes[at + i] = UInt8(truncatingIfNeeded: value >> UInt32(24 - 8 * i)) }
    }
}
