import Foundation

extension DotLottie {
    /// The folder layout of a written archive.
    public enum Layout: Sendable, Hashable {
        /// `manifest.json` version "1", `animations/` and `images/`: what most readers (python-lottie,
        /// older players) understand. Themes and state machines are left out: v1 has none.
        case version1
        /// `manifest.json` version "2", `a/`, `i/`, `t/` (themes) and `s/` (state machines).
        case version2
    }

    /// Writes the archive as a `.lottie` zip that `read(_:options:)` reads back to an equal value.
    ///
    /// Entries are deflated through zlib (stored when that does not make them smaller) with zlib's
    /// CRC-32. The manifest is written anew from `manifest` for `layout`; animations, images, themes
    /// and state machines are written as their bytes.
    ///
    /// - Throws: `DotLottieError.writeFailed` (zlib refused, over 4 GiB) or `unsafePath` for an id or
    ///   image name that would escape the archive.
    public func archiveData(layout: Layout = .version1) throws -> Data {
        let isVersion2 = layout == .version2
        var zip = ZipWriter()
        try zip.add("manifest.json", try manifestJSON(layout: layout))
        for animation in animations {
            try zip.add((isVersion2 ? "a/" : "animations/") + animation.id + ".json", animation.animation.data)
        }
        for name in images.keys.sorted() {
            guard let image = images[name] else { continue }
            try zip.add((isVersion2 ? "i/" : "images/") + name, image)
        }
        if isVersion2 {
            for theme in themes { try zip.add("t/\(theme.id).json", theme.data) }
            for machine in stateMachines { try zip.add("s/\(machine.id).json", machine.data) }
        }
        return zip.archive()
    }

    /// `manifest.json` for `layout`, keys sorted so that equal archives are equal bytes.
    private func manifestJSON(layout: Layout) throws -> Data {
        var manifest: [String: Any] = [
            "version": layout == .version2 ? "2" : "1",
            "generator": self.manifest.generator ?? "MediaAssets",
        ]
        if let author = self.manifest.author { manifest["author"] = author }
        manifest["animations"] = self.manifest.animations.map { animation -> [String: Any] in
            var entry: [String: Any] = ["id": animation.id]
            if layout == .version2 {
                if let theme = animation.initialThemeID { entry["initialTheme"] = theme }
                if !animation.themeIDs.isEmpty { entry["themes"] = animation.themeIDs }
                if let background = animation.background { entry["background"] = background }
            }
            return entry
        }
        switch layout {
        case .version1:
            if let initial = self.manifest.initialAnimationID { manifest["activeAnimationId"] = initial }
        case .version2:
            var initial: [String: Any] = [:]
            if let animation = self.manifest.initialAnimationID { initial["animation"] = animation }
            if let machine = self.manifest.initialStateMachineID { initial["stateMachine"] = machine }
            if !initial.isEmpty { manifest["initial"] = initial }
            if !themes.isEmpty { manifest["themes"] = themes.map { ["id": $0.id] } }
            if !stateMachines.isEmpty { manifest["stateMachines"] = stateMachines.map { ["id": $0.id] } }
        }
        return try JSONSerialization.data(withJSONObject: manifest, options: [.sortedKeys, .withoutEscapingSlashes])
    }
}
