import Foundation

/// Builds a large, realistic Lottie animation: `layerCount` shape layers with animated transforms,
/// bezier paths, fills and strokes, plus precompositions, image assets and markers.
///
/// About 2.3 KB of JSON per layer, so 1,000 layers make roughly 2.3 MB. Deterministic.
func makeLargeLottieJSON(layerCount: Int) -> Data {
    var random = SplitMix(seed: 0x5EED)
    var json = #"{"v":"5.7.4","fr":60,"ip":0,"op":180,"w":1080,"h":1920,"nm":"Benchmark","ddd":0,"assets":["#
    let precompositionCount = max(1, layerCount / 50)
    for precomposition in 0..<precompositionCount {
        if precomposition > 0 { json += "," }
        json += #"{"id":"comp_\#(precomposition)","nm":"Precomp \#(precomposition)","fr":60,"layers":["#
        for layer in 0..<5 {
            if layer > 0 { json += "," }
            json += shapeLayer(index: layer + 1, parent: layer > 0 ? 1 : nil, random: &random)
        }
        json += "]}"
    }
    for image in 0..<8 {
        json += #",{"id":"image_\#(image)","w":512,"h":512,"u":"images/","p":"img_\#(image).png","e":0}"#
    }
    json += #"],"layers":["#
    for layer in 0..<layerCount {
        if layer > 0 { json += "," }
        if layer % 25 == 24 {
            let reference = "comp_\(layer / 25 % precompositionCount)"
            json += #"{"ddd":0,"ind":\#(layer + 1),"ty":0,"nm":"Precomp layer","refId":"\#(reference)","#
            json += #""ks":\#(transform(random: &random)),"w":1080,"h":1920,"ip":0,"op":180,"st":0}"#
        } else {
            json += shapeLayer(index: layer + 1, parent: layer % 10 == 0 || layer == 0 ? nil : layer, random: &random)
        }
    }
    json += #"],"markers":[{"tm":0,"cm":"intro","dr":60},{"tm":60,"cm":"loop","dr":120}]}"#
    return Data(json.utf8)
}

private func shapeLayer(index: Int, parent: Int?, random: inout SplitMix) -> String {
    var layer = #"{"ddd":0,"ind":\#(index),"ty":4,"nm":"Shape Layer \#(index)","sr":1,"#
    if let parent { layer += #""parent":\#(parent),"# }
    layer += #""ks":\#(transform(random: &random)),"ao":0,"shapes":[{"ty":"gr","it":["#
    layer += #"{"ind":0,"ty":"sh","ix":1,"ks":{"a":0,"k":\#(bezier(random: &random)),"ix":2},"nm":"Path 1"},"#
    layer += #"{"ty":"fl","c":{"a":0,"k":[\#(random.unit()),\#(random.unit()),\#(random.unit()),1],"ix":4},"#
    layer += #""o":{"a":0,"k":100,"ix":5},"r":1,"bm":0,"nm":"Fill 1","hd":false},"#
    layer += #"{"ty":"st","c":{"a":0,"k":[0,0,0,1],"ix":3},"o":{"a":0,"k":100,"ix":4},"#
    layer += #""w":{"a":0,"k":\#(random.value(in: 1...8)),"ix":5},"lc":1,"lj":1,"ml":4,"nm":"Stroke 1"},"#
    layer += #"{"ty":"tr","p":{"a":0,"k":[0,0],"ix":2},"a":{"a":0,"k":[0,0],"ix":1},"#
    layer += #""s":{"a":0,"k":[100,100],"ix":3},"r":{"a":0,"k":0,"ix":6},"o":{"a":0,"k":100,"ix":7},"nm":"Transform"}"#
    layer += #"],"nm":"Group 1","np":3,"cix":2,"bm":0,"ix":1,"hd":false}],"ip":0,"op":180,"st":0,"bm":0}"#
    return layer
}

private func transform(random: inout SplitMix) -> String {
    var keyframes: [String] = []
    for frame in stride(from: 0, through: 180, by: 30) {
        let x = random.value(in: 0...1080), y = random.value(in: 0...1920)
        keyframes.append(
            #"{"i":{"x":0.667,"y":1},"o":{"x":0.333,"y":0},"t":\#(frame),"s":[\#(x),\#(y),0],"#
                + #""to":[\#(random.value(in: -50...50)),\#(random.value(in: -50...50)),0],"ti":[0,0,0]}"#
        )
    }
    let rotation =
        #"{"a":1,"k":[{"i":{"x":[0.833],"y":[0.833]},"o":{"x":[0.167],"y":[0.167]},"t":0,"s":[0]},"#
        + #"{"t":180,"s":[\#(random.value(in: -360...360))]}],"ix":10}"#
    return #"{"o":{"a":0,"k":100,"ix":11},"r":\#(rotation),"p":{"a":1,"k":[\#(keyframes.joined(separator: ","))],"#
        + #""ix":2},"a":{"a":0,"k":[0,0,0],"ix":1},"s":{"a":0,"k":[100,100,100],"ix":6}}"#
}

private func bezier(random: inout SplitMix) -> String {
    var inTangents: [String] = [], outTangents: [String] = [], vertices: [String] = []
    for _ in 0..<8 {
        inTangents.append("[\(random.value(in: -30...30)),\(random.value(in: -30...30))]")
        outTangents.append("[\(random.value(in: -30...30)),\(random.value(in: -30...30))]")
        vertices.append("[\(random.value(in: -200...200)),\(random.value(in: -200...200))]")
    }
    return #"{"i":[\#(inTangents.joined(separator: ","))],"o":[\#(outTangents.joined(separator: ","))],"#
        + #""v":[\#(vertices.joined(separator: ","))],"c":true}"#
}

/// A small deterministic generator, so every run benchmarks the same bytes.
private struct SplitMix {
    var state: UInt64

    init(seed: UInt64) {
        state = seed
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var mixed = state
        mixed = (mixed ^ (mixed >> 30)) &* 0xBF58_476D_1CE4_E5B9
        mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
        return mixed ^ (mixed >> 31)
    }

    /// A value in `range` rounded to three decimals, as exporters write them.
    mutating func value(in range: ClosedRange<Double>) -> Double {
        let unit = Double(next() >> 11) / Double(1 << 53)
        return ((range.lowerBound + unit * (range.upperBound - range.lowerBound)) * 1000).rounded() / 1000
    }

    mutating func unit() -> Double {
        value(in: 0...1)
    }
}
