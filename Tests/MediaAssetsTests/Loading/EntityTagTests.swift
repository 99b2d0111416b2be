import Foundation
import MediaAssets
import Testing

@Suite("Entity tags: RFC 9110 parsing and comparison")
struct EntityTagTests {
    @Test("a header value parses into its opaque tag and weakness, and prints back as it was")
    func parsesAndPrints() throws {
        let strong = try #require(EntityTag("\"xyzzy\""))
        #expect(strong.opaqueTag == "xyzzy" && !strong.isWeak)
        #expect(strong.description == "\"xyzzy\"")
        let weak = try #require(EntityTag("  W/\"r2d2xxxx\" "))
        #expect(weak.opaqueTag == "r2d2xxxx" && weak.isWeak)
        #expect(weak.description == "W/\"r2d2xxxx\"")
        #expect(EntityTag("\"\"")?.opaqueTag == "")
    }

    @Test("malformed values are refused", arguments: ["xyzzy", "\"open", "w/\"x\"", "W\"x\"", "\"a\"b", "\"a b\"", ""])
    func refusesMalformed(text: String) {
        #expect(EntityTag(text) == nil)
    }

    @Test("strong and weak comparison follow RFC 9110's table")
    func comparison() throws {
        // RFC 9110 §8.8.3.2: W/"1" vs W/"1": weak match only; W/"1" vs "1": weak match only; "1" vs "1": both.
        let weak1 = try #require(EntityTag("W/\"1\""))
        let weak2 = try #require(EntityTag("W/\"2\""))
        let strong1 = try #require(EntityTag("\"1\""))
        #expect(!weak1.matchesStrongly(weak1) && weak1.matchesWeakly(weak1))
        #expect(!weak1.matchesStrongly(weak2) && !weak1.matchesWeakly(weak2))
        #expect(!weak1.matchesStrongly(strong1) && weak1.matchesWeakly(strong1))
        #expect(strong1.matchesStrongly(strong1) && strong1.matchesWeakly(strong1))
    }

    @Test("If-None-Match: *, lists with weak tags, empty elements, and malformed headers")
    func ifNoneMatch() throws {
        let tag = try #require(EntityTag("\"abc\""))
        #expect(tag.isNotModified(ifNoneMatch: "*"))
        #expect(tag.isNotModified(ifNoneMatch: "\"abc\""))
        #expect(tag.isNotModified(ifNoneMatch: "\"x\", W/\"abc\""))
        #expect(tag.isNotModified(ifNoneMatch: " , \"x\",,\"abc\" ,"))
        #expect(tag.isNotModified(ifNoneMatch: "\"a,b\", \"abc\""))
        #expect(!tag.isNotModified(ifNoneMatch: "\"abd\""))
        #expect(!tag.isNotModified(ifNoneMatch: nil))
        #expect(!tag.isNotModified(ifNoneMatch: "abc"))
        #expect(!tag.isNotModified(ifNoneMatch: "\"abc\" junk"))
        #expect(!tag.isNotModified(ifNoneMatch: "*, \"abc\""))
        #expect(EntityTagCondition("W/\"1\", \"2\"") == .tags([EntityTag("W/\"1\"")!, EntityTag("\"2\"")!]))
    }

    @Test("If-Match compares strongly; a missing header lets the request proceed")
    func ifMatch() throws {
        let tag = try #require(EntityTag("\"abc\""))
        #expect(tag.satisfies(ifMatch: nil))
        #expect(tag.satisfies(ifMatch: "*"))
        #expect(tag.satisfies(ifMatch: "\"abc\""))
        #expect(!tag.satisfies(ifMatch: "W/\"abc\""))
        #expect(!tag.satisfies(ifMatch: "garbage"))
    }

    @Test("a strong tag of bytes is 16 hex digits, the same for the same bytes and different for others")
    func strongHash() throws {
        let first = EntityTag.strong(hashing: Data("variant".utf8))
        #expect(!first.isWeak)
        #expect(first.opaqueTag.count == 16 && first.opaqueTag.allSatisfy(\.isHexDigit))
        #expect(first == EntityTag.strong(hashing: Data("variant".utf8)))
        #expect(first != EntityTag.strong(hashing: Data("variant!".utf8)))
        #expect(EntityTag(first.description) == first)
    }

    @Test("obs-text (non-ASCII) in a tag is kept and compared as it is")
    func obsText() throws {
        let utf8 = try #require(EntityTag("\"café\""))
        #expect(utf8.opaqueTag == "café")
        #expect(utf8.isNotModified(ifNoneMatch: "\"café\""))
    }
}
