import Foundation

@testable import MediaAssetsAnimation

/// Hand-written animations used across the suites.
enum LottieFixtures {
    /// Shape layers with transforms, keyframes and shapes; a null parent; markers; bodymovin `v`.
    static let shapes = #"""
        {"v":"5.5.2","fr":30,"ip":0,"op":90,"w":512,"h":256,"nm":"Shapes","ddd":0,"assets":[],
         "layers":[
          {"ddd":0,"ind":1,"ty":3,"nm":"Controller","sr":1,
           "ks":{"o":{"a":0,"k":0},"p":{"a":1,"k":[{"i":{"x":0.667,"y":1},"o":{"x":0.333,"y":0},"t":0,
                 "s":[100,100,0],"to":[10,0,0],"ti":[-10,0,0]},{"t":45,"s":[400,100,0]}]}},
           "ip":0,"op":90,"st":0},
          {"ddd":0,"ind":2,"ty":4,"nm":"Circle","parent":1,
           "ks":{"r":{"a":1,"k":[{"t":0,"s":[0]},{"t":90,"s":[360]}]},"s":{"a":0,"k":[100,100,100]}},
           "shapes":[{"ty":"gr","it":[
             {"ty":"el","d":1,"s":{"a":0,"k":[80,80]},"p":{"a":0,"k":[0,0]},"nm":"Ellipse"},
             {"ty":"sh","ks":{"a":0,"k":{"i":[[0,0],[1.5,-2e-3]],"o":[[0,0],[0,0]],"v":[[0,0],[10,10]],"c":false}}},
             {"ty":"fl","c":{"a":0,"k":[1,0.5,0,1]},"o":{"a":0,"k":100},"nm":"Fill"},
             {"ty":"tr","p":{"a":0,"k":[0,0]},"a":{"a":0,"k":[0,0]},"s":{"a":0,"k":[100,100]},
              "r":{"a":0,"k":0},"o":{"a":0,"k":100}}],"nm":"Group"}],
           "ip":0,"op":90,"st":0,"bm":0}
         ],
         "markers":[{"cm":"intro","tm":0,"dr":30},{"cm":"outro","tm":60,"dr":30.5}]}
        """#

    /// Precompositions, an external and an embedded image, integer `ver`, fonts and chars.
    static let precompositions = #"""
        {"ver":10203,"fr":24,"ip":10,"op":70.5,"w":1920,"h":1080,"ddd":1,
         "assets":[
          {"id":"image_0","w":64,"h":32,"u":"images/","p":"img_0.png","e":0},
          {"id":"image_1","w":1,"h":1,"u":"","p":"data:image\/png;base64,iVBORw0KGgo=","e":1},
          {"id":"comp_0","nm":"Inner","fr":24,"layers":[
            {"ty":2,"ind":1,"nm":"Picture","refId":"image_0","ip":0,"op":60},
            {"ty":4,"ind":2,"parent":1,"shapes":[]},
            {"ty":0,"ind":3,"refId":"comp_1"}]},
          {"id":"comp_1","layers":[{"ty":1,"ind":1,"sc":"#ff0000","sw":10,"sh":10}]}
         ],
         "layers":[
          {"ty":0,"ind":1,"nm":"Precomp","refId":"comp_0","w":1920,"h":1080,"ip":10,"op":70.5},
          {"ty":2,"ind":2,"refId":"image_1"},
          {"ty":5,"ind":3,"t":{"d":{"k":[{"s":{"t":"Hi","f":"Roboto"},"t":0}]}}}
         ],
         "fonts":{"list":[{"fName":"Roboto","fFamily":"Roboto"},{"fName":"Mono","fFamily":"Mono"}]},
         "chars":[{"ch":"H","data":{}},{"ch":"i","data":{}},{"ch":"!","data":{}}]}
        """#

    /// The smallest valid animation, with `extra` spliced into the root object and `layers` as given.
    static func minimal(layers: String = "[]", assets: String = "[]", extra: String = "") -> String {
        #"{"fr":30,"ip":0,"op":60,"w":100,"h":100,"layers":\#(layers),"assets":\#(assets)\#(extra)}"#
    }

    static func parse(_ json: String, options: LottieParsingOptions = .init()) throws -> LottieDocument {
        try LottieDocument.parse(Data(json.utf8), options: options)
    }

    /// The error parsing `json` throws, or nil if it parses (or throws something else).
    static func error(_ json: String, options: LottieParsingOptions = .init()) -> LottieError? {
        error(Data(json.utf8), options: options)
    }

    static func error(_ data: Data, options: LottieParsingOptions = .init()) -> LottieError? {
        do {
            _ = try LottieDocument.parse(data, options: options)
            return nil
        } catch {
            return error as? LottieError
        }
    }
}
