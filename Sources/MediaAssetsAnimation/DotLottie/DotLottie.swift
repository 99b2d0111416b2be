import Foundation

/// A dotLottie (`.lottie`) archive read into memory: its manifest, parsed animations and images.
///
/// A dotLottie file is a zip holding `manifest.json`, animation JSON under `animations/` (v1) or
/// `a/` (v2), and images under `images/` (v1) or `i/` (v2). `read(_:options:)` reads the zip
/// itself (stored and deflate entries, CRC-32 checked), refuses zip bombs and escaping paths,
/// and parses every animation the manifest lists.
public struct DotLottie: Sendable, Hashable {
    /// The archive's manifest.
    public let manifest: DotLottieManifest
    /// The animations, in manifest order.
    public let animations: [DotLottieAnimation]
    /// The archive's images keyed by their path inside the images folder (for example `img_0.png`).
    public let images: [String: Data]

    /// Creates a dotLottie from its parts; `read(_:options:)` is the usual way.
    public init(manifest: DotLottieManifest, animations: [DotLottieAnimation], images: [String: Data]) {
        self.manifest = manifest
        self.animations = animations
        self.images = images
    }

    /// The animation with manifest id `id`, if any.
    public func animation(withID id: String) -> LottieAnimation? {
        animations.first { $0.id == id }?.animation
    }

    /// The animation to show first: the manifest's initial animation, else the first one.
    public var initialAnimation: LottieAnimation? {
        manifest.initialAnimationID.flatMap { animation(withID: $0) } ?? animations.first?.animation
    }

    /// Reads a dotLottie archive and parses its animations.
    ///
    /// Limits (see `DotLottieReadingOptions`): archive size, entry count, total declared
    /// uncompressed size, compression ratio, and the Lottie parsing limits for each animation.
    /// Nothing is inflated past an entry's declared size.
    ///
    /// - Throws: `DotLottieError` naming the entry, offset or animation id.
    public static func read(_ data: Data, options: DotLottieReadingOptions = .init()) throws -> DotLottie {
        let archive = try ZipArchive(data: data, options: options)
        guard let manifestEntry = archive.entry(named: "manifest.json") else { throw DotLottieError.missingManifest }
        let manifest: DotLottieManifest
        do {
            manifest = try DotLottieManifest.parse(try archive.contents(of: manifestEntry), options: options.parsing)
        } catch let error as LottieError {
            throw DotLottieError.invalidManifest(error)
        }
        var animations: [DotLottieAnimation] = []
        for listed in manifest.animations {
            let candidates = [manifest.animationsDirectory, "animations/", "a/"].map { $0 + listed.id + ".json" }
            guard let entry = candidates.lazy.compactMap({ archive.entry(named: $0) }).first else {
                throw DotLottieError.missingAnimation(id: listed.id)
            }
            let json = try archive.contents(of: entry)
            do {
                let animation = try LottieAnimation.parse(json, options: options.parsing)
                animations.append(DotLottieAnimation(id: listed.id, animation: animation))
            } catch let error as LottieError {
                throw DotLottieError.invalidAnimation(id: listed.id, error)
            }
        }
        var images: [String: Data] = [:]
        let imageFolders = [manifest.imagesDirectory, "images/", "i/"]
        for entry in archive.entries where !entry.isDirectory {
            guard let folder = imageFolders.first(where: { entry.name.hasPrefix($0) }) else { continue }
            let key = String(entry.name.dropFirst(folder.count))
            if images[key] == nil { images[key] = try archive.contents(of: entry) }
        }
        return DotLottie(manifest: manifest, animations: animations, images: images)
    }
}
