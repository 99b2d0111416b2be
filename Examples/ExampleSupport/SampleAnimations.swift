import Foundation

/// Hand-written Lottie animations the sample origin serves.
public enum SampleAnimations {
    /// A badge image spinning in, a pulsing ring and two markers; its image asset's `u` + `p`
    /// (`images/badge.png`) resolves, against the animation's URL, to a PNG the origin serves.
    public static let confetti = #"""
        {"v":"5.7.4","nm":"Confetti","fr":30,"ip":0,"op":90,"w":512,"h":512,"ddd":0,
         "assets":[{"id":"badge","nm":"Badge","w":128,"h":128,"u":"images/","p":"badge.png","e":0}],
         "layers":[
          {"ddd":0,"ind":1,"ty":3,"nm":"Rig","sr":1,"ip":0,"op":90,"st":0,
           "ks":{"p":{"a":0,"k":[256,256,0]},"r":{"a":1,"k":[{"t":0,"s":[0]},{"t":90,"s":[360]}]}}},
          {"ddd":0,"ind":2,"ty":2,"nm":"Badge","refId":"badge","parent":1,"sr":1,"ip":0,"op":90,"st":0,
           "ks":{"a":{"a":0,"k":[64,64,0]},"s":{"a":1,"k":[{"t":0,"s":[0,0,100]},{"t":20,"s":[100,100,100]}]}}},
          {"ddd":0,"ind":3,"ty":4,"nm":"Ring","sr":1,"ip":0,"op":90,"st":0,
           "ks":{"p":{"a":0,"k":[256,256,0]},"o":{"a":1,"k":[{"t":45,"s":[100]},{"t":90,"s":[0]}]}},
           "shapes":[{"ty":"gr","nm":"Ring","it":[
             {"ty":"el","d":1,"s":{"a":1,"k":[{"t":0,"s":[40,40]},{"t":90,"s":[480,480]}]},"p":{"a":0,"k":[0,0]}},
             {"ty":"st","c":{"a":0,"k":[1,0.8,0.2,1]},"o":{"a":0,"k":100},"w":{"a":0,"k":8}},
             {"ty":"tr","p":{"a":0,"k":[0,0]},"a":{"a":0,"k":[0,0]},"s":{"a":0,"k":[100,100]},
              "r":{"a":0,"k":0},"o":{"a":0,"k":100}}]}]}
         ],
         "markers":[{"cm":"burst","tm":0,"dr":45},{"cm":"settle","tm":45,"dr":45}]}
        """#

    /// Three dots chasing each other: shape layers only, one marker.
    public static let spinner = #"""
        {"v":"5.9.0","nm":"Spinner","fr":60,"ip":0,"op":120,"w":200,"h":200,"ddd":0,"assets":[],
         "layers":[
          {"ddd":0,"ind":1,"ty":4,"nm":"Dot 1","sr":1,"ip":0,"op":120,"st":0,
           "ks":{"p":{"a":0,"k":[60,100,0]},"s":{"a":1,"k":[{"t":0,"s":[50,50]},{"t":60,"s":[100,100]}]}},
           "shapes":[{"ty":"el","d":1,"s":{"a":0,"k":[24,24]},"p":{"a":0,"k":[0,0]}},
                     {"ty":"fl","c":{"a":0,"k":[0.2,0.4,0.9,1]},"o":{"a":0,"k":100}}]},
          {"ddd":0,"ind":2,"ty":4,"nm":"Dot 2","sr":1,"ip":0,"op":120,"st":20,
           "ks":{"p":{"a":0,"k":[100,100,0]}},
           "shapes":[{"ty":"el","d":1,"s":{"a":0,"k":[24,24]},"p":{"a":0,"k":[0,0]}},
                     {"ty":"fl","c":{"a":0,"k":[0.2,0.4,0.9,1]},"o":{"a":0,"k":100}}]},
          {"ddd":0,"ind":3,"ty":4,"nm":"Dot 3","sr":1,"ip":0,"op":120,"st":40,
           "ks":{"p":{"a":0,"k":[140,100,0]}},
           "shapes":[{"ty":"el","d":1,"s":{"a":0,"k":[24,24]},"p":{"a":0,"k":[0,0]}},
                     {"ty":"fl","c":{"a":0,"k":[0.2,0.4,0.9,1]},"o":{"a":0,"k":100}}]}
         ],
         "markers":[{"cm":"loop","tm":0,"dr":120}]}
        """#

    /// Well-formed JSON that is not a valid animation: layer 2 names a parent that does not exist.
    public static let broken = #"""
        {"v":"5.7.4","fr":30,"ip":0,"op":30,"w":100,"h":100,"assets":[],
         "layers":[{"ty":3,"ind":1,"ip":0,"op":30,"st":0},{"ty":3,"ind":2,"parent":9,"ip":0,"op":30,"st":0}]}
        """#
}
