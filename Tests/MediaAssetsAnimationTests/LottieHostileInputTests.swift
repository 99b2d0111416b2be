import Foundation
import TestSupport
import Testing

@testable import MediaAssetsAnimation

@Suite("Lottie hostile input", .offThePool)
struct LottieHostileInputTests {
    private func malformedOffset(_ json: String) -> Int? {
        guard case let .malformedJSON(offset, _)? = LottieFixtures.error(json) else { return nil }
        return offset
    }

    @Test(
        "malformed JSON reports the byte offset",
        arguments: [
            (#"{"w":1,}"#, 7),
            (#"{"w" 1}"#, 5),
            (#"{"w":01}"#, 6),
            (#"{"w":1 "h":2}"#, 7),
            (#"{"w":-}"#, 6),
            (#"{"w":1.}"#, 7),
            (#"{"w":1e}"#, 7),
            (#"{"w":tru}"#, 5),
            (#"{"w":nul}"#, 5),
            (#"{"w":[1,2,]}"#, 10),
            (#"{"w":{"a":1,"b"}}"#, 15),
            (#"{"w":{1:2}}"#, 6),
            (#"{"nm":"a\x"}"#, 8),
            (#"{"nm":"\u12G4"}"#, 7),
            (#"{"nm":"\uD800"}"#, 7),
            (#"{"nm":"\uDC00\uD800"}"#, 7),
            (#"{"zz":"\q"}"#, 7),
            (#"{"w":1} {"#, 8),
            (#"{"w":1}]"#, 7),
            (#"@"#, 0),
            (#"   "#, 3),
            (#"{"nm":"abc"#, 10),
            (#"{"zz":"abc"#, 10),
            (#"{"w":[[[1]]"#, 11),
        ])
    func malformed(json: String, offset: Int) {
        #expect(malformedOffset(json) == offset)
    }

    @Test("control characters and invalid UTF-8 in strings are malformed")
    func badStringBytes() {
        // Given
        let control = Data(#"{"zz":"a"#.utf8) + Data([0x01]) + Data(#""}"#.utf8)
        let invalidUTF8 = Data(#"{"nm":"a"#.utf8) + Data([0xFF, 0xFE]) + Data(#""}"#.utf8)

        // When / Then
        #expect(
            LottieFixtures.error(control)
                == .malformedJSON(
                    offset: 8, reason: "unescaped control character byte 0x1 in a string"
                ))
        guard case .malformedJSON(7, _)? = LottieFixtures.error(invalidUTF8) else {
            Issue.record("invalid UTF-8 in a kept string should be malformed at the string's first content byte")
            return
        }
    }

    @Test("empty input is malformed at offset 0")
    func emptyInput() {
        #expect(LottieFixtures.error(Data()) == .malformedJSON(offset: 0, reason: "empty input"))
    }

    @Test("every truncation of a valid animation throws, never crashes")
    func truncations() throws {
        // Given
        let data = Data(LottieFixtures.precompositions.utf8)
        _ = try LottieDocument.parse(data)

        // When
        var unthrown: [Int] = []
        for length in 0..<data.count where LottieFixtures.error(data.prefix(length)) == nil {
            unthrown.append(length)
        }

        // Then
        #expect(unthrown.isEmpty)
    }

    @Test("single-byte corruptions parse or throw a LottieError, never crash")
    func corruptions() throws {
        // Given
        let original = [UInt8](LottieFixtures.shapes.utf8)
        let replacements: [UInt8] = [0x00, 0x22, 0x5C, 0x7B, 0x7D, 0x5B, 0x5D, 0x2C, 0x3A, 0x30, 0x2D, 0xFF]

        // When
        var otherErrors = 0
        for position in original.indices {
            for replacement in replacements {
                var mutated = original
                mutated[position] = replacement
                do {
                    _ = try LottieDocument.parse(Data(mutated))
                } catch is LottieError {
                } catch {
                    otherErrors += 1
                }
            }
        }

        // Then
        #expect(otherErrors == 0)
    }

    @Test("100,000 opening brackets hit the nesting limit, not the stack", arguments: ["[", "{\"a\":"])
    func deepNesting(opener: String) {
        // Given
        let deep = String(repeating: opener, count: 100_000)
        let insideLayer = LottieFixtures.minimal(layers: #"[{"ty":4,"ks":\#(deep)"#)

        // When
        let rootError = LottieFixtures.error(deep)
        let layerError = LottieFixtures.error(insideLayer)

        // Then
        #expect(rootError == .nestingTooDeep(offset: 512 * opener.utf8.count, limit: 512))
        guard case .nestingTooDeep(_, 512)? = layerError else {
            Issue.record("expected nestingTooDeep, got \(String(describing: layerError))")
            return
        }
    }

    @Test("nesting up to the limit is accepted, one more is refused")
    func nestingLimitBoundary() {
        // Given
        let options = LottieParsingOptions(maximumNestingDepth: 8)
        // The root object is depth 1, `layers` 2, a layer 3, so `ks` may open 5 more.
        let atLimit = LottieFixtures.minimal(layers: #"[{"ty":4,"ks":[[[[[]]]]]}]"#)
        let overLimit = LottieFixtures.minimal(layers: #"[{"ty":4,"ks":[[[[[[]]]]]]}]"#)

        // When / Then
        #expect(LottieFixtures.error(atLimit, options: options) == nil)
        guard case .nestingTooDeep(_, 8)? = LottieFixtures.error(overLimit, options: options) else {
            Issue.record("one level past the limit should throw nestingTooDeep")
            return
        }
    }

    @Test("more layers than the limit throws before reading on")
    func tooManyLayers() {
        // Given
        let layers = "[" + Array(repeating: #"{"ty":3}"#, count: 100_001).joined(separator: ",") + "]"
        let json = LottieFixtures.minimal(layers: layers)

        // When
        let error = LottieFixtures.error(json)

        // Then
        #expect(error == .tooManyElements(path: "$.layers", limit: 100_000))
    }

    @Test("asset, marker and layer limits are configurable")
    func configurableCounts() {
        // Given
        let options = LottieParsingOptions(maximumLayerCount: 3, maximumAssetCount: 1, maximumMarkerCount: 1)
        let nestedLayers = LottieFixtures.minimal(
            layers: #"[{"ty":3},{"ty":3}]"#, assets: #"[{"id":"c","layers":[{"ty":3},{"ty":3}]}]"#
        )
        let assets = LottieFixtures.minimal(assets: #"[{"id":"a","p":"a"},{"id":"b","p":"b"}]"#)
        let markers = LottieFixtures.minimal(extra: #","markers":[{"tm":1},{"tm":2}]"#)

        // When / Then
        // The limit counts across lists: the fourth layer is the second of the precomposition.
        #expect(
            LottieFixtures.error(nestedLayers, options: options)
                == .tooManyElements(
                    path: "$.assets[0].layers", limit: 3
                ))
        #expect(LottieFixtures.error(assets, options: options) == .tooManyElements(path: "$.assets", limit: 1))
        #expect(LottieFixtures.error(markers, options: options) == .tooManyElements(path: "$.markers", limit: 1))
    }

    @Test("input over the size limit is refused before reading")
    func inputSizeLimit() {
        // Given
        let json = LottieFixtures.minimal()
        let options = LottieParsingOptions(maximumInputSize: 16)

        // When
        let error = LottieFixtures.error(json, options: options)

        // Then
        #expect(error == .inputTooLarge(size: json.utf8.count, limit: 16))
        #expect(error?.description == "Lottie input of \(json.utf8.count) bytes exceeds the limit of 16 bytes")
    }
}
