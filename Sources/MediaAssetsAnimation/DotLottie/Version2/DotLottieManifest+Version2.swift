import Foundation

extension DotLottieManifest {
    /// Reads the v2 parts of `manifest.json` (themes, state machines, per-animation themes and
    /// background, `initial.stateMachine`) into `self` and checks that they name each other.
    ///
    /// - Throws: `DotLottieError.invalidManifest` naming the JSON path.
    mutating func readVersion2Fields(from data: Data, options: LottieParsingOptions) throws {
        let failure: @Sendable (String, String) -> DotLottieError = {
            .invalidManifest(.invalid(path: $0, reason: $1))
        }
        let fields = try DotLottieFields.root(of: data, options: options, failure: failure)
        themeIDs = try fields.objects("themes") { _, theme in try theme.requiredString("id") }
        stateMachineIDs = try fields.objects("stateMachines") { _, machine in try machine.requiredString("id") }
        if let initial = fields.members["initial"] {
            initialStateMachineID = try fields.nested(initial, path: "$.initial").string("stateMachine")
        }
        let listed = try fields.objects("animations") { index, animation -> Animation in
            let id = animations.indices.contains(index) ? animations[index].id : try animation.requiredString("id")
            return Animation(
                id: id, initialThemeID: try animation.string("initialTheme"),
                themeIDs: try animation.strings("themes") ?? [], background: try animation.string("background")
            )
        }
        if listed.count == animations.count { animations = listed }
        try checkVersion2References()
    }

    /// Every theme and state machine named is listed, and ids are unique.
    private func checkVersion2References() throws {
        func fail(_ path: String, _ reason: String) -> DotLottieError {
            .invalidManifest(.invalid(path: path, reason: reason))
        }
        for (name, ids) in [("themes", themeIDs), ("stateMachines", stateMachineIDs)] {
            var seen = Set<String>()
            for (index, id) in ids.enumerated() where !seen.insert(id).inserted || !ZipEntry.isSafePath(id + ".json") {
                throw fail("$.\(name)[\(index)].id", "\(id.debugDescription) is listed twice or is not a file name")
            }
        }
        let themes = Set(themeIDs)
        for (index, animation) in animations.enumerated() {
            if let initial = animation.initialThemeID, !themes.contains(initial) {
                throw fail("$.animations[\(index)].initialTheme", "no theme is listed as \(initial.debugDescription)")
            }
            for (themeIndex, theme) in animation.themeIDs.enumerated() where !themes.contains(theme) {
                throw fail(
                    "$.animations[\(index)].themes[\(themeIndex)]", "no theme is listed as \(theme.debugDescription)")
            }
        }
        if let machine = initialStateMachineID, !stateMachineIDs.contains(machine) {
            throw fail("$.initial.stateMachine", "no state machine is listed as \(machine.debugDescription)")
        }
        if isVersion2, let animation = initialAnimationID, !animations.contains(where: { $0.id == animation }) {
            throw fail("$.initial.animation", "no animation is listed as \(animation.debugDescription)")
        }
    }
}
