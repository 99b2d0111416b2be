import Foundation
import Testing

@testable import SampleOrigin

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite("Conditional requests")
struct ConditionalRequestTests {
    private static let modified = Date(timeIntervalSince1970: 1_700_000_000)
    private static let modifiedText = "Tue, 14 Nov 2023 22:13:20 GMT"

    /// An origin serving a 100-byte `/clip` last modified at `modified`, a session for it, and the clip's URL.
    private func makeClipOrigin() throws -> (SampleOrigin, URLSession, clip: URL) {
        let origin = SampleOrigin()
        origin.register(
            "/clip", data: OriginTestSupport.payload(count: 100), contentType: "video/mp4",
            lastModified: Self.modified)
        try origin.start()
        return (origin, OriginTestSupport.makeSession(), origin.url(for: "/clip"))
    }

    @Test("If-None-Match with the current ETag is 304 without body; another ETag is 200")
    func ifNoneMatch() async throws {
        // Given
        let (origin, session, clip) = try makeClipOrigin()
        defer { OriginTestSupport.close(origin, session) }
        let etag = try #require(origin.etag(for: "/clip"))

        // When
        let (matchData, match) = try await session.fetch(clip, headers: ["If-None-Match": etag])
        let (otherData, other) = try await session.fetch(clip, headers: ["If-None-Match": "\"other\""])

        // Then
        #expect(match.statusCode == 304)
        #expect(matchData.isEmpty)
        #expect(match.header("ETag") == etag)
        #expect(other.statusCode == 200)
        #expect(otherData.count == 100)
    }

    @Test("If-None-Match accepts *, lists and weak forms of the current tag")
    func ifNoneMatchForms() async throws {
        // Given
        let (origin, session, clip) = try makeClipOrigin()
        defer { OriginTestSupport.close(origin, session) }
        let etag = try #require(origin.etag(for: "/clip"))

        // When
        var statuses: [Int] = []
        for condition in ["*", "\"a\", \(etag)", "W/\(etag)"] {
            statuses.append(
                try await session.fetch(clip, headers: ["If-None-Match": condition]).1.statusCode)
        }

        // Then
        #expect(statuses == [304, 304, 304])
    }

    @Test("If-Modified-Since at or after Last-Modified is 304; before it is 200")
    func ifModifiedSince() async throws {
        // Given
        let (origin, session, clip) = try makeClipOrigin()
        defer { OriginTestSupport.close(origin, session) }

        // When
        let (_, same) = try await session.fetch(clip, headers: ["If-Modified-Since": Self.modifiedText])
        let (data, older) = try await session.fetch(
            clip, headers: ["If-Modified-Since": "Tue, 14 Nov 2023 22:13:19 GMT"])

        // Then
        #expect(same.statusCode == 304)
        #expect(older.statusCode == 200)
        #expect(data.count == 100)
    }

    @Test("If-Range that matches gives 206; a stale one gives the whole new body with 200")
    func ifRange() async throws {
        // Given
        let (origin, session, clip) = try makeClipOrigin()
        defer { OriginTestSupport.close(origin, session) }
        let etag = try #require(origin.etag(for: "/clip"))

        // When
        let (_, byETag) = try await session.fetch(clip, headers: ["Range": "bytes=0-9", "If-Range": etag])
        let (_, byDate) = try await session.fetch(clip, headers: ["Range": "bytes=0-9", "If-Range": Self.modifiedText])
        let (staleData, stale) = try await session.fetch(clip, headers: ["Range": "bytes=0-9", "If-Range": "\"old\""])

        // Then
        #expect(byETag.statusCode == 206)
        #expect(byDate.statusCode == 206)
        #expect(stale.statusCode == 200)
        #expect(staleData.count == 100)
    }

    @Test("HTTP dates round-trip and junk is refused")
    func httpDates() {
        // Given / When / Then
        #expect(HTTPDate.format(Self.modified) == Self.modifiedText)
        #expect(HTTPDate.parse(Self.modifiedText) == Self.modified)
        #expect(HTTPDate.parse("yesterday") == nil)
        #expect(HTTPDate.parse("Tue, 99 Nov 2023 22:13:20 GMT") == nil)
    }
}
