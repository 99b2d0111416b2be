import Foundation
import MediaAssetsImage

/// Image assets and animations that name them, for the asset, export and dotLottie v2 suites.
enum AssetFixtures {
    /// One image asset of an animation: external (`u` + `p`) or embedded (`p` a data URL, `e` 1).
    struct ImageAsset {
        var id: String
        var directory: String
        var path: String
        var width = 8
        var height = 6
        var embedded = false

        static func external(_ id: String, _ path: String, directory: String = "images/") -> ImageAsset {
            ImageAsset(id: id, directory: directory, path: path)
        }

        static func embedded(_ id: String, _ data: Data, mediaType: String = "image/png") -> ImageAsset {
            ImageAsset(
                id: id, directory: "", path: "data:\(mediaType);base64,\(data.base64EncodedString())", embedded: true
            )
        }
    }

    /// A PNG of `width`×`height` pixels in one colour.
    static func png(width: Int = 8, height: Int = 6, red: UInt8 = 200) -> Data {
        // A failed encode is a broken test environment, not a case to handle.
        try! ImageEncoder.png(Image(width: width, height: height, fill: RGBA(red: red, green: 40, blue: 90)))
    }

    /// A 32×32 lossless WebP with alpha (ImageMagick, from the image tests' samples).
    ///
    /// Decoded on each use rather than kept in a static: LeakSanitizer cannot see the pointer inside a
    /// global `Data`'s small-slice representation and reports the bytes as leaked.
    static var webp: Data {
        Data(
            base64Encoded:
                "UklGRq4AAABXRUJQVlA4TKEAAAAvH8AHEGcwgBFKAwBp4xA3uLVbvcAAGVHH86GErm7AbWzbqnK+4BRBThMUQPYjQvqgGA0908z"
                + "ldPXuO/cjBUT0n4Hbto3Yvdu7X+BPQrE7DTJlTpKLPDakCaPE6rwtdq0tIydb3GKsBj0K/WCsLIKzwgzAVaoAeEoNAG+pBY"
                + "BS28/8bn+Z/273u5T7brir7+p/d/e/+P+t9H8Fin347z8JAAA="
        )!
    }

    /// An animation with `images` as its assets, one image layer per image, and `slots` declared.
    static func animation(images: [ImageAsset], slots: [String] = []) -> String {
        let assets = images.map { image in
            #"{"id":"\#(image.id)","w":\#(image.width),"h":\#(image.height),"u":"\#(image.directory)","#
                + #""p":"\#(image.path)","e":\#(image.embedded ? 1 : 0)}"#
        }
        let layers = images.enumerated().map { index, image in
            #"{"ty":2,"ind":\#(index + 1),"refId":"\#(image.id)","ip":0,"op":60,"st":0}"#
        }
        let slotMembers = slots.map { #""\#($0)":{"p":{"a":0,"k":[1,0,0,1]}}"# }
        return #"{"v":"5.7.0","fr":30,"ip":0,"op":60,"w":64,"h":64,"assets":[\#(assets.joined(separator: ","))],"#
            + #""layers":[\#(layers.joined(separator: ","))],"slots":{\#(slotMembers.joined(separator: ","))}}"#
    }
}
