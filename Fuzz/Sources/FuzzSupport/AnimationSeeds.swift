import Foundation

/// Hand-written Lottie JSON and dotLottie archives (stored zip entries) covering the parser's branches.
enum AnimationSeeds {
    static let shapes = #"""
        {"v":"5.5.2","fr":30,"ip":0,"op":90,"w":512,"h":256,"nm":"Shapes","ddd":0,"assets":[],
         "layers":[
          {"ddd":0,"ind":1,"ty":3,"nm":"Controller","sr":1,
           "ks":{"o":{"a":0,"k":0},"p":{"a":1,"k":[{"i":{"x":0.667,"y":1},"o":{"x":0.333,"y":0},"t":0,
                 "s":[100,100,0],"to":[10,0,0],"ti":[-10,0,0]},{"t":45,"s":[400,100,0]}]}},"ip":0,"op":90,"st":0},
          {"ddd":0,"ind":2,"ty":4,"nm":"Circle","parent":1,
           "shapes":[{"ty":"gr","it":[{"ty":"el","d":1,"s":{"a":0,"k":[80,80]},"p":{"a":0,"k":[0,0]}},
             {"ty":"fl","c":{"a":0,"k":[1,0.5,0,1]},"o":{"a":0,"k":100}}]}],"ip":0,"op":90,"st":0}],
         "markers":[{"cm":"intro","tm":0,"dr":30},{"cm":"outro","tm":60,"dr":30.5}]}
        """#

    static let precompositions = #"""
        {"ver":10203,"fr":24,"ip":10,"op":70.5,"w":1920,"h":1080,"ddd":1,
         "assets":[
          {"id":"image_0","w":64,"h":32,"u":"images/","p":"img_0.png","e":0},
          {"id":"image_1","w":1,"h":1,"u":"","p":"data:image\/png;base64,iVBORw0KGgo=","e":1},
          {"id":"comp_0","nm":"Inner","fr":24,"layers":[
            {"ty":2,"ind":1,"nm":"Picture","refId":"image_0","ip":0,"op":60},
            {"ty":0,"ind":3,"refId":"comp_1"}]},
          {"id":"comp_1","layers":[{"ty":1,"ind":1,"sc":"#ff0000","sw":10,"sh":10}]}],
         "layers":[{"ty":0,"ind":1,"refId":"comp_0","w":1920,"h":1080,"ip":10,"op":70.5},
          {"ty":5,"ind":3,"t":{"d":{"k":[{"s":{"t":"Hi \u00e9\ud83d\ude00","f":"Roboto"},"t":0}]}}}],
         "fonts":{"list":[{"fName":"Roboto","fFamily":"Roboto"}]},"chars":[{"ch":"H","data":{}}]}
        """#

    static let minimal = #"{"fr":30,"ip":0,"op":60,"w":100,"h":100,"layers":[],"assets":[]}"#

    static func lottie() -> [String: Data] {
        [
            "shapes.json": Data(shapes.utf8), "precompositions.json": Data(precompositions.utf8),
            "minimal.json": Data(minimal.utf8),
        ]
    }

    static func dotLottie() -> [String: Data] {
        let v1Manifest =
            #"{"version":"1.0","generator":"fuzz","activeAnimationId":"a","animations":[{"id":"a"},{"id":"b"}]}"#
        let v2Manifest = #"{"version":"2","generator":"fuzz","animations":[{"id":"m"}]}"#
        return [
            "v1.lottie": zip([
                ("manifest.json", Data(v1Manifest.utf8)), ("animations/a.json", Data(shapes.utf8)),
                ("animations/b.json", Data(precompositions.utf8)),
                ("images/img_0.png", Data([0x89, 0x50, 0x4E, 0x47])),
            ]),
            "v2.lottie": zip([("manifest.json", Data(v2Manifest.utf8)), ("a/m.json", Data(minimal.utf8))]),
        ]
    }

    /// dotLottie v2 themes, state machines and manifests, each behind the selector byte the
    /// "dotlottie-v2" target reads (0 theme, 1 state machine, 2 manifest).
    static func dotLottieVersion2() -> [String: Data] {
        let theme = #"""
            {"rules":[{"id":"background","type":"Color","value":[0.1,0.1,0.1,1]},
              {"id":"size","type":"Scalar","animations":["wave"],"keyframes":[{"t":0,"s":[10]},{"t":30,"s":[20]}]},
              {"id":"label","type":"Text","value":{"text":"Hi"}}]}
            """#
        let stateMachine = #"""
            {"initial":"resting","states":[
              {"name":"resting","type":"PlaybackState","animation":"idle","loop":true,"autoplay":true,
               "transitions":[{"type":"Transition","toState":"waving",
                 "guards":[{"type":"Boolean","inputName":"hovered","conditionType":"Equal","compareTo":true}]}]},
              {"name":"waving","type":"PlaybackState","animation":"wave",
               "transitions":[{"type":"Transition","toState":"resting"}]}],
             "inputs":[{"type":"Boolean","name":"hovered","value":false},{"type":"Numeric","name":"speed","value":1}],
             "interactions":[{"type":"PointerEnter",
               "actions":[{"type":"SetBoolean","inputName":"hovered","value":true}]}]}
            """#
        let manifest = #"""
            {"version":"2","generator":"fuzz","animations":[
              {"id":"idle","initialTheme":"dark","themes":["dark","light"],"background":"#000000"},{"id":"wave"}],
             "themes":[{"id":"dark"},{"id":"light"}],"stateMachines":[{"id":"buttons"}],
             "initial":{"animation":"idle","stateMachine":"buttons"}}
            """#
        return [
            "theme.json": Data([0]) + Data(theme.utf8), "state-machine.json": Data([1]) + Data(stateMachine.utf8),
            "manifest.json": Data([2]) + Data(manifest.utf8),
        ]
    }

    /// A zip archive of stored (method 0) entries: local headers and data, central directory, end record.
    static func zip(_ entries: [(name: String, contents: Data)]) -> Data {
        var body = Data()
        var directory = Data()
        for entry in entries {
            let name = Data(entry.name.utf8)
            let crc = crc32(entry.contents), size = UInt32(entry.contents.count), offset = UInt32(body.count)
            body.appendLittleEndian(UInt32(0x0403_4B50), UInt16(20), UInt16(0x0800), UInt16(0), UInt16(0), UInt16(0x21))
            body.appendLittleEndian(crc, size, size)
            body.appendLittleEndian(UInt16(name.count), UInt16(0))
            body.append(name)
            body.append(entry.contents)
            directory.appendLittleEndian(UInt32(0x0201_4B50), UInt16(20), UInt16(20), UInt16(0x0800), UInt16(0))
            directory.appendLittleEndian(UInt16(0), UInt16(0x21))
            directory.appendLittleEndian(crc, size, size)
            directory.appendLittleEndian(UInt16(name.count), UInt16(0), UInt16(0), UInt16(0), UInt16(0))
            directory.appendLittleEndian(UInt32(0), offset)
            directory.append(name)
        }
        var archive = body
        archive.append(directory)
        archive.appendLittleEndian(
            UInt32(0x0605_4B50), UInt16(0), UInt16(0), UInt16(entries.count), UInt16(entries.count))
        archive.appendLittleEndian(UInt32(directory.count), UInt32(body.count))
        archive.appendLittleEndian(UInt16(0))
        return archive
    }
}
