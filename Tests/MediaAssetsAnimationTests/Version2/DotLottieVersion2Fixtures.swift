import Foundation

/// A valid dotLottie v2 archive with two animations, two themes, a state machine and a WebP and a PNG image,
/// whose parts a test can replace to make each invalid case.
struct DotLottieVersion2Fixture {
    var manifest = #"""
        {"version":"2","generator":"tests","animations":[
          {"id":"idle","initialTheme":"dark","themes":["dark","light"],"background":"#000000"},
          {"id":"wave","themes":["light"]}],
         "themes":[{"id":"dark"},{"id":"light"}],
         "stateMachines":[{"id":"buttons"}],
         "initial":{"animation":"idle","stateMachine":"buttons"}}
        """#
    var dark = #"""
        {"rules":[
          {"id":"background","type":"Color","value":[0.1,0.1,0.1,1]},
          {"id":"size","type":"Scalar","animations":["wave"],"keyframes":[{"t":0,"s":[10]},{"t":30,"s":[20]}]}]}
        """#
    var light = #"{"rules":[{"id":"background","type":"Color","value":[1,1,1,1],"animations":["idle"]}]}"#
    var stateMachine = #"""
        {"initial":"resting","states":[
          {"name":"resting","type":"PlaybackState","animation":"idle","loop":true,"autoplay":true,
           "transitions":[{"type":"Transition","toState":"waving",
             "guards":[{"type":"Boolean","inputName":"hovered","conditionType":"Equal","compareTo":true}]}]},
          {"name":"waving","type":"PlaybackState","animation":"wave",
           "transitions":[{"type":"Transition","toState":"resting"}]}],
         "inputs":[{"type":"Boolean","name":"hovered","value":false},{"type":"Numeric","name":"speed","value":1}],
         "interactions":[{"type":"PointerEnter","actions":[{"type":"SetBoolean","inputName":"hovered","value":true}]}]}
        """#
    var idle = AssetFixtures.animation(
        images: [.external("photo", "photo.webp", directory: "/i/")], slots: ["background"])
    var wave = AssetFixtures.animation(images: [.external("logo", "logo.png", directory: "/i/")], slots: ["size"])
    var images = ["photo.webp": AssetFixtures.webp, "logo.png": AssetFixtures.png()]
    var omitted: Set<String> = []

    /// The archive bytes.
    func archive() -> Data {
        var writer = TestZipWriter()
        let entries: [(String, String)] = [
            ("manifest.json", manifest), ("a/idle.json", idle), ("a/wave.json", wave), ("t/dark.json", dark),
            ("t/light.json", light), ("s/buttons.json", stateMachine),
        ]
        for (name, text) in entries where !omitted.contains(name) { writer.add(name, text: text) }
        for (name, data) in images.sorted(by: { $0.key < $1.key }) { writer.add("i/" + name, data, method: .stored) }
        return writer.archive()
    }
}
