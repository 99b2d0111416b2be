import Foundation
import TestSupport
import Testing

@testable import MediaAssetsAnimation

@Suite("Lottie validation", .offThePool)
struct LottieValidationTests {
    /// The path of an `invalid` error, or nil for any other outcome.
    private func invalidPath(_ json: String) -> String? {
        guard case let .invalid(path, _)? = LottieFixtures.error(json) else { return nil }
        return path
    }

    @Test("each missing required key is named", arguments: ["w", "h", "fr", "ip", "op", "layers"])
    func missingRequiredKey(key: String) throws {
        // Given
        var object = #"{"fr":30,"ip":0,"op":60,"w":100,"h":100,"layers":[]}"#
        object = object.replacingOccurrences(of: #""\#(key)":"#, with: #""unused_\#(key)":"#)

        // When
        let error = LottieFixtures.error(object)

        // Then
        guard case let .invalid(path, reason)? = error else {
            Issue.record("expected an invalid error, got \(String(describing: error))")
            return
        }
        #expect(path == "$.\(key)")
        #expect(reason.hasPrefix("missing required key"))
    }

    @Test("a value of the wrong type names its path and both types")
    func wrongType() {
        // Given
        let json = LottieFixtures.minimal(extra: #","w":"abc""#).replacingOccurrences(of: #""w":100,"#, with: "")

        // When
        let error = LottieFixtures.error(json)

        // Then
        #expect(error == .invalid(path: "$.w", reason: "expected a number, found a string"))
        #expect(error?.description == "Invalid Lottie animation at $.w: expected a number, found a string")
    }

    @Test(
        "wrong types deep in the document name their path",
        arguments: [
            (#"{"fr":30,"ip":0,"op":60,"w":1,"h":1,"layers":{}}"#, "$.layers"),
            (LottieFixtures.minimal(layers: #"[{"ty":4},{"ty":"shape"}]"#), "$.layers[1].ty"),
            (LottieFixtures.minimal(layers: #"[{"ty":4,"ind":1.5}]"#), "$.layers[0].ind"),
            (LottieFixtures.minimal(layers: #"[{"ty":4,"nm":7}]"#), "$.layers[0].nm"),
            (LottieFixtures.minimal(layers: #"[4]"#), "$.layers[0]"),
            (LottieFixtures.minimal(assets: #"[{"id":"a","p":false}]"#), "$.assets[0].p"),
            (
                LottieFixtures.minimal(assets: #"[{"id":"a","layers":[{"ty":3,"parent":"x"}]}]"#),
                "$.assets[0].layers[0].parent"
            ),
            (LottieFixtures.minimal(extra: #","markers":[{"tm":"late"}]"#), "$.markers[0].tm"),
            (LottieFixtures.minimal(extra: #","fonts":{"list":3}"#), "$.fonts.list"),
            (LottieFixtures.minimal(extra: #","ddd":"yes""#), "$.ddd"),
        ])
    func nestedWrongTypes(json: String, path: String) {
        #expect(invalidPath(json) == path)
    }

    @Test("the frame rate must be positive", arguments: ["0", "-24"])
    func frameRate(value: String) {
        // Given
        let json = #"{"fr":\#(value),"ip":0,"op":60,"w":1,"h":1,"layers":[]}"#

        // When / Then
        #expect(invalidPath(json) == "$.fr")
    }

    @Test("the out point must follow the in point", arguments: ["60", "59.5"])
    func outPoint(value: String) {
        // Given
        let json = #"{"fr":30,"ip":60,"op":\#(value),"w":1,"h":1,"layers":[]}"#

        // When
        let error = LottieFixtures.error(json)

        // Then
        #expect(
            error
                == .invalid(
                    path: "$.op",
                    reason: "the out point (\(Double(value) ?? 0)) must be greater than the in point (60.0)"
                ))
    }

    @Test("a negative size is refused")
    func negativeSize() {
        #expect(invalidPath(#"{"fr":30,"ip":0,"op":60,"w":1,"h":-1,"layers":[]}"#) == "$.h")
    }

    @Test("a parent must exist in the same layer list")
    func missingParent() {
        // Given
        let topLevel = LottieFixtures.minimal(
            layers: #"[{"ty":3,"ind":1},{"ty":4,"ind":2,"parent":1},{"ty":4,"parent":9}]"#
        )
        let inPrecomposition = LottieFixtures.minimal(
            layers: #"[{"ty":3,"ind":5},{"ty":0,"refId":"c"}]"#,
            assets: #"[{"id":"c","layers":[{"ty":4,"ind":1},{"ty":4,"ind":2,"parent":5}]}]"#
        )

        // When / Then
        #expect(
            LottieFixtures.error(topLevel)
                == .invalid(
                    path: "$.layers[2].parent", reason: "no layer in this list has ind 9"
                ))
        #expect(invalidPath(inPrecomposition) == "$.assets[0].layers[1].parent")
    }

    @Test("a parent chain that loops is refused")
    func parentCycle() {
        // Given
        let json = LottieFixtures.minimal(
            layers: #"[{"ty":3,"ind":1},{"ty":3,"ind":2,"parent":3},{"ty":3,"ind":3,"parent":4},"#
                + #"{"ty":3,"ind":4,"parent":2}]"#
        )

        // When / Then
        #expect(invalidPath(json) == "$.layers[1].parent")
        #expect(invalidPath(LottieFixtures.minimal(layers: #"[{"ty":3,"ind":1,"parent":1}]"#)) == "$.layers[0].parent")
    }

    @Test("precomposition and image layers must name an existing asset of their kind")
    func references() {
        // Given
        let assets = #"[{"id":"img","p":"a.png"},{"id":"comp","layers":[]}]"#
        let missing = LottieFixtures.minimal(layers: #"[{"ty":4},{"ty":0,"refId":"nope"}]"#, assets: assets)
        let absent = LottieFixtures.minimal(layers: #"[{"ty":0}]"#, assets: assets)
        let wrongKind = LottieFixtures.minimal(layers: #"[{"ty":2,"refId":"comp"}]"#, assets: assets)
        let imageToPrecomp = LottieFixtures.minimal(layers: #"[{"ty":0,"refId":"img"}]"#, assets: assets)

        // When / Then
        #expect(
            LottieFixtures.error(missing)
                == .invalid(
                    path: "$.layers[1].refId", reason: #"no asset has id "nope""#
                ))
        #expect(invalidPath(absent) == "$.layers[0].refId")
        #expect(invalidPath(wrongKind) == "$.layers[0].refId")
        #expect(invalidPath(imageToPrecomp) == "$.layers[0].refId")
    }

    @Test("precompositions that render themselves are refused")
    func precompositionCycle() {
        // Given
        let assets =
            #"[{"id":"a","layers":[{"ty":0,"refId":"b"}]},"#
            + #"{"id":"b","layers":[{"ty":4},{"ty":0,"refId":"a"}]}]"#

        // When / Then
        #expect(invalidPath(LottieFixtures.minimal(assets: assets)) == "$.assets[1].layers[1].refId")
    }

    @Test("assets need an id, images need a path, ids are unique")
    func assetRules() {
        // Given
        let noPath = LottieFixtures.minimal(assets: #"[{"id":"a","p":"a.png"},{"id":"b","w":10,"h":10}]"#)
        let noIdentifier = LottieFixtures.minimal(assets: #"[{"p":"a.png"}]"#)
        let duplicate = LottieFixtures.minimal(assets: #"[{"id":"a","p":"a.png"},{"id":"a","layers":[]}]"#)

        // When
        let noPathError = LottieFixtures.error(noPath)

        // Then
        #expect(
            noPathError
                == .invalid(
                    path: "$.assets[1].p", reason: "missing required key (an image asset needs a path)"
                ))
        #expect(noPathError?.description.contains("$.assets[1].p") == true)
        #expect(invalidPath(noIdentifier) == "$.assets[0].id")
        #expect(invalidPath(duplicate) == "$.assets[1].id")
    }

    @Test("a layer needs a type")
    func layerType() {
        #expect(invalidPath(LottieFixtures.minimal(layers: #"[{"ty":4},{"nm":"x"}]"#)) == "$.layers[1].ty")
    }

    @Test("the root must be an object")
    func rootKind() {
        #expect(
            LottieFixtures.error("[1,2]")
                == .invalid(
                    path: "$", reason: "the root must be an object, found an array"
                ))
        #expect(invalidPath(#""text""#) == "$")
    }

    @Test("a syntax error after a type error is reported as malformed")
    func syntaxWinsOverTypes() {
        // Given
        let json = #"{"w":"abc","h":1,"fr":30,"ip":0,"op":1,"layers":[] x"#

        // When
        let error = LottieFixtures.error(json)

        // Then
        guard case .malformedJSON? = error else {
            Issue.record("expected malformedJSON, got \(String(describing: error))")
            return
        }
    }
}
