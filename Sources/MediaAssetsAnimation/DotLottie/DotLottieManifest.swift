import Foundation

/// The `manifest.json` of a dotLottie archive: its format version and the animations it holds.
///
/// Version 1 archives keep animations under `animations/` and images under `images/`; version 2
/// (`"version": "2"`) uses `a/` and `i/`.
package struct DotLottieManifest: Sendable, Hashable {
    /// One animation the manifest lists.
    package struct Animation: Sendable, Hashable {
        /// The animation's identifier; its JSON is `<directory>/<id>.json`.
        package var id: String
        /// v2: the theme applied when the animation is first shown (`initialTheme`), if any.
        package var initialThemeID: String?
        /// v2: the themes meant for this animation (`themes`).
        package var themeIDs: [String]
        /// v2: the background colour (`background`, for example `#FFFFFF`), if given.
        package var background: String?

        /// Creates a manifest animation entry.
        package init(id: String, initialThemeID: String? = nil, themeIDs: [String] = [], background: String? = nil) {
            self.id = id
            self.initialThemeID = initialThemeID
            self.themeIDs = themeIDs
            self.background = background
        }
    }

    /// The manifest's `version`, as written (`"1"`, `"1.0"`, `"2"`), or nil for early v1 archives without one.
    package var version: String?
    /// The tool that wrote the archive (`generator`), if given.
    package var generator: String?
    /// The archive's author (`author`), if given.
    package var author: String?
    /// The animations, in manifest order.
    package var animations: [Animation]
    /// The animation to show first: v2 `initial.animation` or v1 `activeAnimationId`, if given.
    package var initialAnimationID: String?
    /// v2: the themes of the archive (`themes[].id`), each in `t/<id>.json`.
    package var themeIDs: [String] = []
    /// v2: the state machines of the archive (`stateMachines[].id`), each in `s/<id>.json`.
    package var stateMachineIDs: [String] = []
    /// v2: the state machine to start (`initial.stateMachine`), if given.
    package var initialStateMachineID: String?

    /// Creates a manifest.
    package init(
        version: String?, generator: String? = nil, author: String? = nil, animations: [Animation],
        initialAnimationID: String? = nil
    ) {
        self.version = version
        self.generator = generator
        self.author = author
        self.animations = animations
        self.initialAnimationID = initialAnimationID
    }

    /// Whether this is a version 2 manifest (folders `a/` and `i/`).
    package var isVersion2: Bool {
        version.map { $0 == "2" || $0.hasPrefix("2.") } ?? false
    }

    /// The folder holding animation JSON files, with a trailing slash.
    package var animationsDirectory: String { isVersion2 ? "a/" : "animations/" }

    /// The folder holding images, with a trailing slash.
    package var imagesDirectory: String { isVersion2 ? "i/" : "images/" }
}
