import Foundation
import MediaAssetsImage
import TestSupport
import Testing

@testable import MediaAssetsAnimation

@Suite("dotLottie v2: themes, state machines, images", .offThePool)
struct DotLottieVersion2Tests {
    private static let webpAvailable = (try? WebPLibrary.system.get()) != nil

    private func error(_ fixture: DotLottieVersion2Fixture) -> DotLottieError? {
        do {
            _ = try DotLottie.read(fixture.archive())
            return nil
        } catch {
            return error as? DotLottieError
        }
    }

    @Test func aValidArchiveIsReadIntoTypedValues() throws {
        // When
        let archive = try DotLottie.read(DotLottieVersion2Fixture().archive())

        // Then the manifest
        #expect(archive.manifest.themeIDs == ["dark", "light"])
        #expect(archive.manifest.stateMachineIDs == ["buttons"])
        #expect(archive.manifest.initialStateMachineID == "buttons")
        #expect(archive.manifest.animations.first?.initialThemeID == "dark")
        #expect(archive.manifest.animations.first?.themeIDs == ["dark", "light"])
        #expect(archive.manifest.animations.first?.background == "#000000")
        #expect(archive.animation(withID: "idle")?.slotIDs == ["background"])
        // The themes
        let dark = try #require(archive.theme(withID: "dark"))
        #expect(dark.rules.map(\.slotID) == ["background", "size"])
        #expect(dark.rules.map(\.type) == [.color, .scalar])
        #expect(dark.rules[0].value == .array([.number(0.1), .number(0.1), .number(0.1), .number(1)]))
        #expect(dark.rules[1].animationIDs == ["wave"])
        #expect(dark.rules[1].keyframes?.arrayValue?.count == 2)
        // The state machine
        let machine = try #require(archive.stateMachine(withID: "buttons"))
        #expect(machine.initialState == "resting")
        #expect(machine.states.map(\.name) == ["resting", "waving"])
        #expect(machine.state(named: "resting")?.animationID == "idle")
        let transition = try #require(machine.states.first?.transitions.first)
        #expect(transition.targetState == "waving")
        #expect(
            transition.guards == [
                .init(type: "Boolean", inputName: "hovered", conditionType: "Equal", compareTo: .bool(true))
            ])
        #expect(machine.inputs.map(\.name) == ["hovered", "speed"])
        #expect(machine.interactions.first?["type"] == .string("PointerEnter"))
    }

    @Test(arguments: [
        ("t/dark.json", #"{"rules":[{"id":"nowhere","type":"Color","value":[0,0,0,1]}]}"#, "$.rules[0].id"),
        // A slot that exists, but only in an animation the rule does not apply to
        (
            "t/light.json", #"{"rules":[{"id":"size","type":"Scalar","value":3,"animations":["idle"]}]}"#,
            "$.rules[0].id"
        ),
    ])
    func aThemeTargetingAnUnknownSlotIsATypedError(file: String, json: String, path: String) {
        var fixture = DotLottieVersion2Fixture()
        if file == "t/dark.json" { fixture.dark = json } else { fixture.light = json }
        let slot = file == "t/dark.json" ? "nowhere" : "size"
        let theme = file == "t/dark.json" ? "dark" : "light"
        #expect(error(fixture) == .unknownSlot(themeID: theme, slot: slot, path: path))
    }

    @Test(arguments: [
        (#"{"rules":[{"id":"background","type":"Colour","value":[0,0,0,1]}]}"#, "$.rules[0].type"),
        (#"{"rules":[{"type":"Color","value":[0,0,0,1]}]}"#, "$.rules[0].id"),
        (#"{"rules":[{"id":"background","type":"Color"}]}"#, "$.rules[0]"),
        (
            #"{"rules":[{"id":"background","type":"Color","value":1,"animations":["nope"]}]}"#,
            "$.rules[0].animations[0]"
        ),
        (#"{"rules":{}}"#, "$.rules"),
        (#"{"rules":[1]}"#, "$.rules[0]"),
        (#"{"rules":["#, "$"),
    ])
    func anInvalidThemeNamesItsPath(json: String, path: String) {
        var fixture = DotLottieVersion2Fixture()
        fixture.dark = json
        guard case let .invalidTheme(id, actualPath, _)? = error(fixture) else {
            Issue.record("expected invalidTheme for \(json), got \(String(describing: error(fixture)))")
            return
        }
        #expect(id == "dark")
        #expect(actualPath == path)
    }

    @Test func aTransitionToAnUnknownStateIsATypedError() {
        var fixture = DotLottieVersion2Fixture()
        fixture.stateMachine = fixture.stateMachine.replacingOccurrences(
            of: #""toState":"resting""#, with: #""toState":"sleeping""#
        )
        let expected = DotLottieError.unknownState(
            stateMachineID: "buttons", state: "sleeping", path: "$.states[1].transitions[0].toState"
        )
        #expect(error(fixture) == expected)
        #expect(expected.description.contains("s/buttons.json"))
    }

    @Test func anUnknownInitialStateIsATypedError() {
        var fixture = DotLottieVersion2Fixture()
        fixture.stateMachine = fixture.stateMachine.replacingOccurrences(
            of: #""initial":"resting""#, with: #""initial":"nap""#)
        #expect(error(fixture) == .unknownState(stateMachineID: "buttons", state: "nap", path: "$.initial"))
    }

    @Test(arguments: [
        (#""name":"waving""#, #""name":"resting""#, "$.states[1].name"),
        (
            #""inputName":"hovered","conditionType""#, #""inputName":"pressed","conditionType""#,
            "$.states[0].transitions[0].guards[0].inputName"
        ),
        (#""animation":"wave""#, #""animation":"jump""#, "$.states[1].animation"),
        (#""name":"speed""#, #""name":"hovered""#, "$.inputs[1].name"),
        (#""toState":"waving","#, #""toState":7,"#, "$.states[0].transitions[0].toState"),
        (#""states":["#, #""states":{},"ignored":["#, "$.states"),
    ])
    func anInvalidStateMachineNamesItsPath(replacing original: String, with replacement: String, path: String) {
        var fixture = DotLottieVersion2Fixture()
        fixture.stateMachine = fixture.stateMachine.replacingOccurrences(of: original, with: replacement)
        guard case let .invalidStateMachine(id, actualPath, _)? = error(fixture) else {
            Issue.record("expected invalidStateMachine, got \(String(describing: error(fixture)))")
            return
        }
        #expect(id == "buttons")
        #expect(actualPath == path)
    }

    @Test func missingThemeAndStateMachineFilesAreTypedErrors() {
        var fixture = DotLottieVersion2Fixture()
        fixture.omitted = ["t/light.json"]
        #expect(error(fixture) == .missingTheme(id: "light"))
        fixture.omitted = ["s/buttons.json"]
        #expect(error(fixture) == .missingStateMachine(id: "buttons"))
    }

    @Test(arguments: [
        (#""initialTheme":"dark""#, #""initialTheme":"dusk""#, "$.animations[0].initialTheme"),
        (#""themes":["light"]}"#, #""themes":["sepia"]}"#, "$.animations[1].themes[0]"),
        (#""stateMachine":"buttons""#, #""stateMachine":"sliders""#, "$.initial.stateMachine"),
        (#""initial":{"animation":"idle""#, #""initial":{"animation":"run""#, "$.initial.animation"),
        (#"{"id":"light"}]"#, #"{"id":"dark"}]"#, "$.themes[1].id"),
        (#"[{"id":"buttons"}]"#, #"[{"name":"buttons"}]"#, "$.stateMachines[0].id"),
    ])
    func manifestReferencesAreChecked(replacing original: String, with replacement: String, path: String) {
        var fixture = DotLottieVersion2Fixture()
        fixture.manifest = fixture.manifest.replacingOccurrences(of: original, with: replacement)
        guard case let .invalidManifest(.invalid(actualPath, _))? = error(fixture) else {
            Issue.record("expected invalidManifest, got \(String(describing: error(fixture)))")
            return
        }
        #expect(actualPath == path)
    }

    @Test func pngImagesInTheArchiveDecodeThroughTheFormatPlugins() throws {
        var fixture = DotLottieVersion2Fixture()
        fixture.images = ["logo.png": AssetFixtures.png(width: 5, height: 4)]
        fixture.idle = AssetFixtures.animation(images: [], slots: ["background"])
        let images = try DotLottie.read(fixture.archive()).decodedImages()
        #expect(images["logo.png"]?.width == 5)
    }

    @Test(.enabled(if: webpAvailable, "install libwebp7 to decode WebP images in dotLottie archives"))
    func webpImagesInTheArchiveDecodeThroughTheFormatPlugins() throws {
        let images = try DotLottie.read(DotLottieVersion2Fixture().archive()).decodedImages()
        let photo = try #require(images["photo.webp"])
        #expect(photo.width == 32 && photo.height == 32)
        #expect(photo[0, 0].alpha == 0)
        #expect(photo[16, 16].green > 100)
    }

    @Test func anUndecodableArchiveImageNamesItsPath() throws {
        var fixture = DotLottieVersion2Fixture()
        fixture.images["broken.png"] = Data([0x89, 0x50, 0x4E, 0x47, 0, 0])
        let archive = try DotLottie.read(fixture.archive())
        #expect {
            _ = try archive.decodedImages(codecs: ImageCodecRegistry(decoders: [PNGDecoder()]))
        } throws: { error in
            (error as? AnimationAssetError)?.assetID == "broken.png"
        }
    }

    @Test func version2ArchivesRoundTripThroughTheWriter() throws {
        // Given
        let archive = try DotLottie.read(DotLottieVersion2Fixture().archive())

        // When written in the v2 layout and read back
        let written = try archive.archiveData(layout: .version2)
        let reread = try DotLottie.read(written)

        // Then every part is equal, and the bytes are stable
        #expect(reread == archive)
        #expect(try reread.archiveData(layout: .version2) == written)
    }
}
