import Foundation
import TestSupport
import Testing

@testable import MediaAssetsAnimation

@Suite("Lottie model", .offThePool)
struct LottieModelTests {
    @Test("shape layers, parents and markers are read; drawing content is skipped")
    func shapeAnimation() throws {
        // Given
        let json = LottieFixtures.shapes

        // When
        let animation = try LottieFixtures.parse(json)

        // Then
        #expect(animation.version == LottieVersion(major: 5, minor: 5, patch: 2, origin: .bodymovin))
        #expect(animation.frameRate == 30)
        #expect(animation.inPoint == 0)
        #expect(animation.outPoint == 90)
        #expect(animation.width == 512)
        #expect(animation.height == 256)
        #expect(animation.name == "Shapes")
        #expect(animation.is3D == false)
        #expect(
            animation.layers == [
                LottieLayer(type: .null, name: "Controller", index: 1, inPoint: 0, outPoint: 90),
                LottieLayer(type: .shape, name: "Circle", index: 2, parent: 1, inPoint: 0, outPoint: 90),
            ])
        #expect(
            animation.markers == [
                LottieMarker(comment: "intro", time: 0, duration: 30),
                LottieMarker(comment: "outro", time: 60, duration: 30.5),
            ])
        #expect(animation.assets.isEmpty)
        #expect(animation.hasFonts == false)
        #expect(animation.data == Data(json.utf8))
    }

    @Test("precompositions, external and embedded images, integer ver, fonts and chars")
    func precompositionAnimation() throws {
        // Given
        let json = LottieFixtures.precompositions

        // When
        let animation = try LottieFixtures.parse(json)

        // Then
        #expect(animation.version == LottieVersion(major: 1, minor: 2, patch: 3, origin: .specification))
        #expect(animation.is3D)
        #expect(animation.layers.map(\.type) == [.precomposition, .image, .text])
        #expect(animation.layers[0].referenceID == "comp_0")
        #expect(
            animation.imageAssets == [
                LottieImageAsset(id: "image_0", width: 64, height: 32, directory: "images/", path: "img_0.png"),
                LottieImageAsset(
                    id: "image_1", width: 1, height: 1, directory: "", path: "data:image/png;base64,iVBORw0KGgo=",
                    isEmbedded: true
                ),
            ])
        let precompositions = animation.precompositions
        #expect(precompositions.map(\.id) == ["comp_0", "comp_1"])
        #expect(precompositions[0].name == "Inner")
        #expect(precompositions[0].frameRate == 24)
        #expect(precompositions[0].layers.map(\.type) == [.image, .shape, .precomposition])
        #expect(precompositions[0].layers[1].parent == 1)
        #expect(precompositions[1].layers == [LottieLayer(type: .solid, index: 1)])
        #expect(animation.fontCount == 2)
        #expect(animation.characterCount == 3)
        #expect(animation.hasFonts)
    }

    @Test("an embedded image decodes lazily from its data URL")
    func embeddedImage() throws {
        // Given
        let animation = try LottieFixtures.parse(LottieFixtures.precompositions)

        // When
        let embedded = animation.imageAssets[1]
        let external = animation.imageAssets[0]

        // Then
        #expect(embedded.dataURL == "data:image/png;base64,iVBORw0KGgo=")
        #expect(embedded.embeddedMediaType == "image/png")
        #expect(embedded.embeddedData() == Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]))
        #expect(external.dataURL == nil)
        #expect(external.embeddedData() == nil)
    }

    @Test("both version keys normalise; v wins when both are present")
    func versionKeys() throws {
        // Given
        let bodymovin = LottieFixtures.minimal(extra: #","v":"4.8""#)
        let specification = LottieFixtures.minimal(extra: #","ver":10000"#)
        let both = LottieFixtures.minimal(extra: #","ver":10000,"v":"5.12.1""#)

        // When
        let versions = try [bodymovin, specification, both].map { try LottieFixtures.parse($0).version }

        // Then
        #expect(versions.map { $0?.description } == ["4.8.0", "1.0.0", "5.12.1"])
        #expect(versions.map { $0?.origin } == [.bodymovin, .specification, .bodymovin])
        #expect(try LottieFixtures.parse(LottieFixtures.minimal()).version == nil)
        #expect(LottieVersion(bodymovin: "x.1") == nil)
        #expect(LottieVersion(specification: 50_903)?.description == "5.9.3")
    }

    @Test("unknown keys of every type are skipped at every level")
    func unknownKeys() throws {
        // Given
        let noise = #""zz":{"a":[1,{"b":null},"x\"y",true,false,-1.5e-3]},"longUnknownKey":[[],{}]"#
        let json = LottieFixtures.minimal(
            layers: #"[{"ty":4,\#(noise),"ind":7,"nm":"L"}]"#,
            assets: #"[{\#(noise),"id":"a","p":"a.png"}]"#,
            extra: #",\#(noise),"markers":[{\#(noise),"tm":5}]"#
        )

        // When
        let animation = try LottieFixtures.parse(json)

        // Then
        #expect(animation.layers == [LottieLayer(type: .shape, name: "L", index: 7)])
        #expect(animation.imageAssets.map(\.id) == ["a"])
        #expect(animation.markers == [LottieMarker(comment: nil, time: 5, duration: 0)])
    }

    @Test(
        "duration and frame count come from ip, op and fr",
        arguments: [
            (30.0, 0.0, 90.0, 3.0, 90),
            (24.0, 10.0, 70.5, 60.5 / 24.0, 61),
            (60.0, -30.0, 30.0, 1.0, 60),
        ])
    func durationAndFrames(frameRate: Double, inPoint: Double, outPoint: Double, seconds: Double, frames: Int) throws {
        // Given
        let json = #"{"fr":\#(frameRate),"ip":\#(inPoint),"op":\#(outPoint),"w":1,"h":1,"layers":[]}"#

        // When
        let animation = try LottieFixtures.parse(json)

        // Then
        #expect(abs(animation.duration - seconds) < 1e-12)
        #expect(animation.frameCount == frames)
    }

    @Test("external image URLs resolve against the animation URL; embedded images are skipped")
    func externalImageURLs() throws {
        // Given
        let assets = #"""
            [{"id":"a","u":"images/","p":"img_0.png"},{"id":"b","u":"/static/","p":"b.png"},
             {"id":"c","p":"https://other.example.com/c.png"},{"id":"d","u":"images/","p":"my image.png"},
             {"id":"e","p":"data:image/png;base64,AAAA","e":1},{"id":"f","u":"images/","p":"img_0.png"}]
            """#
        let animation = try LottieFixtures.parse(LottieFixtures.minimal(assets: assets))
        let base = try #require(URL(string: "https://cdn.example.com/anims/hero.json"))

        // When
        let urls = animation.externalImageURLs(relativeTo: base).map(\.absoluteString)

        // Then
        #expect(
            urls == [
                "https://cdn.example.com/anims/images/img_0.png",
                "https://cdn.example.com/static/b.png",
                "https://other.example.com/c.png",
                "https://cdn.example.com/anims/images/my%20image.png",
            ])
    }

    @Test("strings decode every escape, including surrogate pairs")
    func stringEscapes() throws {
        // Given
        let json = LottieFixtures.minimal(extra: #","nm":"a\"b\\c\/d\b\f\n\r\t\u00e9\u4E2D\uD83D\uDE00""#)

        // When
        let animation = try LottieFixtures.parse(json)

        // Then
        #expect(animation.name == "a\"b\\c/d\u{8}\u{C}\n\r\té中😀")
    }

    @Test("escaped keys are matched by their decoded text")
    func escapedKeys() throws {
        // Given
        let json = #"{"\u0066r":25,"ip":0,"op":50,"\u0077":10,"h":10,"l\u0061yers":[{"t\u0079":4}]}"#

        // When
        let animation = try LottieFixtures.parse(json)

        // Then
        #expect(animation.frameRate == 25)
        #expect(animation.width == 10)
        #expect(animation.layers.map(\.type) == [.shape])
    }

    @Test("numbers of every JSON form are read as Double")
    func numbers() throws {
        // Given
        let json = #"{"fr":29.97,"ip":-0.5,"op":1E2,"w":1e3,"h":12345678901234567890,"layers":[]}"#

        // When
        let animation = try LottieFixtures.parse(json)

        // Then
        #expect(animation.frameRate == 29.97)
        #expect(animation.inPoint == -0.5)
        #expect(animation.outPoint == 100)
        #expect(animation.width == 1000)
        #expect(animation.height == Double("12345678901234567890"))
    }

    @Test("layer types keep unknown values")
    func layerTypes() {
        // Given
        let rawValues = Array(0...15) + [42, -1]

        // When
        let types = rawValues.map(LottieLayerType.init(rawValue:))

        // Then
        #expect(types.map(\.rawValue) == rawValues)
        #expect(types[4] == .shape)
        #expect(types[16] == .unknown(42))
    }

    @Test("a byte order mark and surrounding whitespace are accepted")
    func byteOrderMark() throws {
        // Given
        let data = Data([0xEF, 0xBB, 0xBF]) + Data((" \n\t" + LottieFixtures.minimal() + "\r\n ").utf8)

        // When
        let animation = try LottieDocument.parse(data)

        // Then
        #expect(animation.frameRate == 30)
    }

    @Test("the memory cost is in bytes and grows with content")
    func memoryCost() throws {
        // Given
        let small = try LottieFixtures.parse(LottieFixtures.minimal())
        let layers = (1...200).map { #"{"ty":4,"ind":\#($0),"nm":"A layer with a long enough name \#($0)"}"# }
        let large = try LottieFixtures.parse(LottieFixtures.minimal(layers: "[" + layers.joined(separator: ",") + "]"))

        // When
        let smallCost = small.estimatedMemoryCost
        let largeCost = large.estimatedMemoryCost

        // Then
        #expect(smallCost >= small.data.count)
        #expect(largeCost >= large.data.count + 200 * MemoryLayout<LottieLayer>.stride)
        #expect(largeCost > smallCost)
    }
}
