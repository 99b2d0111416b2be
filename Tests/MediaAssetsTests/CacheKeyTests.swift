import Foundation
import MediaAssets
import Testing

@Suite("CacheKey")
struct CacheKeyTests {
    @Test func aKeyKeptInPartsIsTheKeyOfItsJoinedText() {
        // Given a variant key and a versioned variant key, whose parts are kept apart
        let variant = CacheKey("https://cdn.example.com/a.jpg").variant("circle(96)")
        let versioned = CacheKey("https://cdn.example.com/a.jpg", version: "v2").variant("circle(96)")

        // Then each reads, equals and hashes as its joined text
        #expect(variant.rawValue == "https://cdn.example.com/a.jpg@circle(96)")
        #expect(variant == CacheKey("https://cdn.example.com/a.jpg@circle(96)"))
        #expect(variant.hashValue == CacheKey("https://cdn.example.com/a.jpg@circle(96)").hashValue)
        #expect(versioned.rawValue == "https://cdn.example.com/a.jpg version=v2@circle(96)")
        #expect(versioned == CacheKey("https://cdn.example.com/a.jpg version=v2@circle(96)"))
        #expect(versioned.hashValue == CacheKey(versioned.rawValue).hashValue)
        #expect(versioned.description == versioned.rawValue)
    }

    @Test func theSameTextSplitElsewhereIsTheSameKey() {
        // Given one text, "a@b@c", made in four ways
        let keys = [
            CacheKey("a@b").variant("c"), CacheKey("a").variant("b").variant("c"), CacheKey("a@b@c"),
            CacheKey("a").variant("b@c"),
        ]

        // Then they are one key
        for key in keys {
            for other in keys {
                #expect(key == other)
                #expect(key.hashValue == other.hashValue)
            }
        }
        #expect(Set(keys).count == 1)
        // And a dictionary holding the whole text finds it by parts
        let stored: [CacheKey: Int] = [CacheKey("a@b@c"): 1]
        #expect(stored[CacheKey("a").variant("b@c")] == 1)
    }

    @Test func aThirdVariantJoinsTheSecondAndKeepsTheText() {
        // Given a versioned key with three variants appended: a style, a format and a third
        let key = CacheKey("u", version: "2").variant("circle(96)").variant("auto-q85").variant("x")

        // Then its text, equality and hash are those of the joined text
        #expect(key.rawValue == "u version=2@circle(96)@auto-q85@x")
        #expect(key == CacheKey("u version=2@circle(96)@auto-q85@x"))
        #expect(key.hashValue == CacheKey("u version=2@circle(96)@auto-q85@x").hashValue)
        #expect(key == CacheKey("u", version: "2").variant("circle(96)@auto-q85").variant("x"))
    }

    @Test func keysOfOneLengthThatDifferInOneByteDiffer() {
        // Given texts of equal length split differently, and a versioned key against a near miss
        #expect(CacheKey("ab").variant("c") != CacheKey("a").variant("bd"))
        #expect(CacheKey("ab").variant("c") != CacheKey("ab@d"))
        #expect(CacheKey("x", version: "1") != CacheKey("x version=2"))
        #expect(CacheKey("x", version: "1") == CacheKey("x version=1"))
        // An empty version is no version
        #expect(CacheKey("x", version: "") == CacheKey("x"))
        #expect(CacheKey("x", version: "").rawValue == "x")
    }

    @Test func keysCompareAndOrderByTheirBytes() {
        // Given "é" written precomposed and as "e" with a combining accent: equal as Strings, not as bytes
        let precomposed = CacheKey("caf\u{E9}")
        let combining = CacheKey("cafe\u{301}")
        #expect("caf\u{E9}" == "cafe\u{301}")
        #expect(precomposed != combining)

        // And keys order by the bytes of their joined text, whatever their parts
        let sorted = [CacheKey("b"), CacheKey("a").variant("z"), CacheKey("a@b"), CacheKey("a", version: "1")].sorted()
        #expect(sorted.map(\.rawValue) == ["a version=1", "a@b", "a@z", "b"])
    }

    @Test func selectionsReadTheKeyPartByPart() {
        // Given a versioned variant key
        let asset = CacheKey("https://x/a.jpg", version: "7")
        let variant = asset.variant("circle(96)")

        // Then it belongs to its asset, matches its text's prefixes, and nothing else
        #expect(variant.isDerived(fromAsset: asset))
        #expect(variant.isDerived(fromAsset: CacheKey("https://x/a.jpg version=7")))
        #expect(!variant.isDerived(fromAsset: CacheKey("https://x/a.jpg", version: "77")))
        #expect(EntrySelection.keyPrefix("https://x/a.jpg version=7@circle").contains(key: variant, partition: nil))
        #expect(!EntrySelection.keyPrefix("https://x/a.jpg@").contains(key: variant, partition: nil))
        #expect(EntrySelection.asset(asset).contains(key: variant, partition: nil))
    }
}
