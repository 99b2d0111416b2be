extension DotLottie {
    /// Checks that theme rules target animations of the archive and slots they declare, and that state
    /// machine states play animations of the archive.
    ///
    /// - Throws: `DotLottieError.unknownSlot`, `invalidTheme` or `invalidStateMachine` with the JSON path.
    func validateVersion2References() throws {
        let animationsByID = Dictionary(
            animations.map { ($0.id, $0.animation) }, uniquingKeysWith: { first, _ in first })
        for theme in themes {
            for (index, rule) in theme.rules.enumerated() {
                let path = "$.rules[\(index)]"
                var targets: [LottieDocument] = []
                for (animationIndex, id) in (rule.animationIDs ?? animations.map(\.id)).enumerated() {
                    guard let animation = animationsByID[id] else {
                        throw DotLottieError.invalidTheme(
                            id: theme.id, path: path + ".animations[\(animationIndex)]",
                            reason: "no animation of the archive has id \(id.debugDescription)"
                        )
                    }
                    targets.append(animation)
                }
                guard targets.contains(where: { $0.slotIDs.contains(rule.slotID) }) else {
                    throw DotLottieError.unknownSlot(themeID: theme.id, slot: rule.slotID, path: path + ".id")
                }
            }
        }
        for machine in stateMachines {
            for (index, state) in machine.states.enumerated() {
                if let id = state.animationID, !id.isEmpty, animationsByID[id] == nil {
                    throw DotLottieError.invalidStateMachine(
                        id: machine.id, path: "$.states[\(index)].animation",
                        reason: "no animation of the archive has id \(id.debugDescription)"
                    )
                }
            }
        }
    }
}
