import Foundation

extension DotLottieStateMachine {
    /// Parses and validates `s/<id>.json`.
    ///
    /// Checks that state and input names are unique, that `initial` and every transition's `toState`
    /// name a state, and that every guard reads a declared input. Animation ids are checked against the
    /// manifest by `DotLottie.read(_:options:parsing:)`.
    ///
    /// - Throws: `DotLottieError.unknownState` for an `initial` or `toState` naming no state,
    ///   `DotLottieError.invalidStateMachine` naming the JSON path for anything else.
    package static func parse(
        _ data: Data, id: String, options: LottieParsingOptions = .init()
    ) throws -> DotLottieStateMachine {
        let failure: @Sendable (String, String) -> DotLottieError = {
            .invalidStateMachine(id: id, path: $0, reason: $1)
        }
        let fields = try DotLottieFields.root(of: data, options: options, failure: failure)
        let states = try fields.objects("states", required: true) { _, state in
            State(
                name: try state.requiredString("name"), type: try state.requiredString("type"),
                animationID: try state.string("animation"),
                transitions: try state.objects("transitions") { _, transition in
                    Transition(
                        type: try transition.requiredString("type"),
                        targetState: try transition.requiredString("toState"),
                        guards: try transition.objects("guards") { _, guardFields in
                            Guard(
                                type: try guardFields.requiredString("type"),
                                inputName: try guardFields.requiredString("inputName"),
                                conditionType: try guardFields.string("conditionType"),
                                compareTo: guardFields.members["compareTo"]
                            )
                        }
                    )
                }
            )
        }
        let inputs = try fields.objects("inputs") { _, input in
            Input(
                type: try input.requiredString("type"), name: try input.requiredString("name"),
                value: input.members["value"])
        }
        let machine = DotLottieStateMachine(
            id: id, initialState: try fields.requiredString("initial"), states: states, inputs: inputs,
            interactions: try fields.array("interactions") ?? [], data: data
        )
        try machine.validate()
        return machine
    }

    /// Checks the references inside the machine; see `parse(_:id:options:)`.
    func validate() throws {
        var stateNames = Set<String>()
        for (index, state) in states.enumerated() where !stateNames.insert(state.name).inserted {
            throw DotLottieError.invalidStateMachine(
                id: id, path: "$.states[\(index)].name", reason: "a second state named \(state.name.debugDescription)"
            )
        }
        var inputNames = Set<String>()
        for (index, input) in inputs.enumerated() where !inputNames.insert(input.name).inserted {
            throw DotLottieError.invalidStateMachine(
                id: id, path: "$.inputs[\(index)].name", reason: "a second input named \(input.name.debugDescription)"
            )
        }
        guard stateNames.contains(initialState) else {
            throw DotLottieError.unknownState(stateMachineID: id, state: initialState, path: "$.initial")
        }
        for (stateIndex, state) in states.enumerated() {
            for (transitionIndex, transition) in state.transitions.enumerated() {
                let path = "$.states[\(stateIndex)].transitions[\(transitionIndex)]"
                guard stateNames.contains(transition.targetState) else {
                    throw DotLottieError.unknownState(
                        stateMachineID: id, state: transition.targetState, path: path + ".toState"
                    )
                }
                for (guardIndex, guardValue) in transition.guards.enumerated()
                where !inputNames.contains(guardValue.inputName) {
                    throw DotLottieError.invalidStateMachine(
                        id: id, path: path + ".guards[\(guardIndex)].inputName",
                        reason: "no input is named \(guardValue.inputName.debugDescription)"
                    )
                }
            }
        }
    }
}
