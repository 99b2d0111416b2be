import Foundation
import MediaAssets
import MediaAssetsImage
import SampleOrigin
import TestSupport

@testable import MediaAssetsAnimation

/// An origin, a manager, and an AnimationUtil over it whose ImageUtil (for image assets) the test can count.
struct AnimationEnvironment {
    let base: OriginEnvironment
    let images: ImageUtil
    let util: AnimationUtil
    var origin: SampleOrigin { base.origin }
    var manager: AssetsManager { base.manager }

    init() throws {
        base = try OriginEnvironment()
        images = ImageUtil(manager: base.manager)
        util = AnimationUtil(manager: base.manager, images: images)
    }

    func tearDown() { base.tearDown() }

    /// Serves Lottie JSON at `path`, held at the origin's gate when `gated`, and returns its URL.
    func serve(_ path: String, _ json: String, gated: Bool = false) -> URL {
        base.serve(path, Data(json.utf8), contentType: "application/json", behavior: gated ? .init(gated: true) : nil)
    }

    /// Serves an animation that refers to `images` at `path` and returns its URL.
    @discardableResult
    func serveAnimation(_ path: String, _ images: [AssetFixtures.ImageAsset]) -> URL {
        serve(path, AssetFixtures.animation(images: images))
    }

    /// Serves a solid PNG with this red channel at `path`, held at the origin's gate when `gated`.
    func servePNG(_ path: String, red: UInt8 = 200, gated: Bool = false) {
        base.serve(
            path, AssetFixtures.png(red: red), contentType: "image/png", behavior: gated ? .init(gated: true) : nil)
    }
}
