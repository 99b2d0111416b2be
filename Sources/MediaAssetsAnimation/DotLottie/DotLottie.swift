import Foundation
import MediaAssetsImage

/// A dotLottie (`.lottie`) archive read into memory: its manifest, parsed animations and images.
///
/// A dotLottie file is a zip holding `manifest.json`, animation JSON under `animations/` (v1) or
/// `a/` (v2), and images under `images/` (v1) or `i/` (v2). `read(_:options:)` reads the zip
/// itself (stored and deflate entries, CRC-32 checked), refuses zip bombs and escaping paths,
/// and parses every animation the manifest lists.
public struct DotLottie: Sendable, Hashable {
    /// The archive's manifest (what the accessors below read).
    package let manifest: DotLottieManifest
    /// The animations, in manifest order.
    public let animations: [DotLottieAnimation]
    /// The archive's images keyed by their path inside the images folder (for example `img_0.png`).
    public let images: [String: Data]
    /// v2: the themes, in manifest order, each checked against the animations' slots.
    public let themes: [DotLottieTheme]
    /// v2: the state machines, in manifest order, each checked against its states and the animations.
    public let stateMachines: [DotLottieStateMachine]

    /// Creates a dotLottie from its parts; `read(_:options:parsing:)` and `AnimationUtil.exportDotLottie` make one.
    package init(
        manifest: DotLottieManifest, animations: [DotLottieAnimation], images: [String: Data],
        themes: [DotLottieTheme] = [], stateMachines: [DotLottieStateMachine] = []
    ) {
        self.manifest = manifest
        self.animations = animations
        self.images = images
        self.themes = themes
        self.stateMachines = stateMachines
    }

    /// The theme with id `id`, if any.
    public func theme(withID id: String) -> DotLottieTheme? {
        themes.first { $0.id == id }
    }

    /// The state machine with id `id`, if any.
    public func stateMachine(withID id: String) -> DotLottieStateMachine? {
        stateMachines.first { $0.id == id }
    }

    /// The animation with manifest id `id`, if any.
    public func animation(withID id: String) -> LottieDocument? {
        animations.first { $0.id == id }?.animation
    }

    /// The animation to show first: the manifest's initial animation, else the first one.
    public var initialAnimation: LottieDocument? {
        manifest.initialAnimationID.flatMap { animation(withID: $0) } ?? animations.first?.animation
    }

    /// v2: the state machine to start (the manifest's `initial.stateMachine`), if any.
    public var initialStateMachine: DotLottieStateMachine? {
        manifest.initialStateMachineID.flatMap { stateMachine(withID: $0) }
    }

    /// Reads a dotLottie archive and parses its animations.
    ///
    /// Limits: `options` for the archive (size, entry count, total declared uncompressed size, compression
    /// ratio), `parsing` for each animation, theme and state machine in it.
    /// Nothing is inflated past an entry's declared size.
    ///
    /// - Throws: `DotLottieError` naming the entry, offset or animation id.
    public static func read(
        _ data: Data, options: DotLottieReadingOptions = .init(), parsing: LottieParsingOptions = .init()
    ) throws -> DotLottie {
        var options = options
        options.parsing = parsing
        return try read(data, limits: options)
    }

    /// `read(_:options:parsing:)` with the parsing limits inside `options`.
    package static func read(_ data: Data, limits options: DotLottieReadingOptions) throws -> DotLottie {
        let archive = try ZipArchive(data: data, options: options)
        guard let manifestEntry = archive.entry(named: "manifest.json") else { throw DotLottieError.missingManifest }
        var manifest: DotLottieManifest
        let manifestData = try archive.contents(of: manifestEntry)
        do {
            manifest = try DotLottieManifest.parse(manifestData, options: options.parsing)
        } catch let error as LottieError {
            throw DotLottieError.invalidManifest(error)
        }
        if manifest.isVersion2 { try manifest.readVersion2Fields(from: manifestData, options: options.parsing) }
        var animations: [DotLottieAnimation] = []
        for listed in manifest.animations {
            let candidates = [manifest.animationsDirectory, "animations/", "a/"].map { $0 + listed.id + ".json" }
            guard let entry = candidates.lazy.compactMap({ archive.entry(named: $0) }).first else {
                throw DotLottieError.missingAnimation(id: listed.id)
            }
            let json = try archive.contents(of: entry)
            do {
                let animation = try LottieDocument.parse(json, options: options.parsing)
                animations.append(
                    DotLottieAnimation(
                        id: listed.id, animation: animation, initialThemeID: listed.initialThemeID,
                        background: listed.background))
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
        let themes = try manifest.themeIDs.map { id in
            guard let entry = archive.entry(named: "t/\(id).json") else { throw DotLottieError.missingTheme(id: id) }
            return try DotLottieTheme.parse(try archive.contents(of: entry), id: id, options: options.parsing)
        }
        let stateMachines = try manifest.stateMachineIDs.map { id in
            guard let entry = archive.entry(named: "s/\(id).json") else {
                throw DotLottieError.missingStateMachine(id: id)
            }
            return try DotLottieStateMachine.parse(try archive.contents(of: entry), id: id, options: options.parsing)
        }
        let dotLottie = DotLottie(
            manifest: manifest, animations: animations, images: images, themes: themes, stateMachines: stateMachines
        )
        try dotLottie.validateVersion2References()
        return dotLottie
    }
}

/// One animation of a dotLottie archive: the manifest's id and what it says of the animation, and the parsed
/// animation.
public struct DotLottieAnimation: Sendable, Hashable {
    /// The id the manifest lists (the JSON file's name without `.json`).
    public var id: String
    /// The parsed, validated animation.
    public var animation: LottieDocument
    /// v2: the theme applied when the animation is first shown (`theme(withID:)` finds it), if any.
    public var initialThemeID: String?
    /// v2: the background colour the manifest gives (for example `#FFFFFF`), if any.
    public var background: String?

    /// Creates an archive animation.
    package init(id: String, animation: LottieDocument, initialThemeID: String? = nil, background: String? = nil) {
        self.id = id
        self.animation = animation
        self.initialThemeID = initialThemeID
        self.background = background
    }
}

extension DotLottie {
    /// Decodes every image of the archive through the image format plugins (JPEG, PNG, WebP, GIF,
    /// HEIF/AVIF — the optional ones loaded at run time), keyed like `images`.
    ///
    /// - Throws: `AnimationAssetError.undecodable` naming the first failing image (in name order) by its path
    ///   (`ImageError.libraryMissing` names the Debian package of a missing codec library).
    public func decodedImages(
        codecs: ImageCodecRegistry = .standard, options: ImageDecodingOptions = .init()
    ) throws -> [String: Image] {
        var decoded: [String: Image] = [:]
        for name in images.keys.sorted() {
            guard let data = images[name] else { continue }
            do {
                decoded[name] = try codecs.decode(data, options: options)
            } catch let error as ImageError {
                throw AnimationAssetError.undecodable(assetID: name, url: nil, reason: error)
            }
        }
        return decoded
    }
}
