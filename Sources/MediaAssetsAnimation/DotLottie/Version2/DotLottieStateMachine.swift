import Foundation

/// A dotLottie v2 state machine (`s/<id>.json`): states that play animations, transitions between them
/// guarded by inputs, and the interactions that set those inputs.
public struct DotLottieStateMachine: Sendable, Hashable {
    /// One state.
    package struct State: Sendable, Hashable {
        /// The state's name, unique in the machine.
        package var name: String
        /// `PlaybackState`, `GlobalState`, …
        package var type: String
        /// The manifest animation a playback state plays, if it names one.
        package var animationID: String?
        /// The ways out of this state, in file order.
        package var transitions: [Transition]

        /// Creates a state.
        package init(name: String, type: String, animationID: String? = nil, transitions: [Transition] = []) {
            self.name = name
            self.type = type
            self.animationID = animationID
            self.transitions = transitions
        }
    }

    /// A transition to another state, taken when all its guards hold.
    package struct Transition: Sendable, Hashable {
        /// `Transition` or `Tweened`.
        package var type: String
        /// The name of the state it leads to.
        package var targetState: String
        /// The conditions, all of which must hold.
        package var guards: [Guard]

        /// Creates a transition.
        package init(type: String, targetState: String, guards: [Guard] = []) {
            self.type = type
            self.targetState = targetState
            self.guards = guards
        }
    }

    /// A condition on an input.
    package struct Guard: Sendable, Hashable {
        /// `Boolean`, `Numeric`, `String` or `Event`.
        package var type: String
        /// The input it reads.
        package var inputName: String
        /// `Equal`, `NotEqual`, `GreaterThan`, …, if given.
        package var conditionType: String?
        /// The value compared with, as written.
        package var compareTo: DotLottieJSONValue?

        /// Creates a guard.
        package init(
            type: String, inputName: String, conditionType: String? = nil, compareTo: DotLottieJSONValue? = nil
        ) {
            self.type = type
            self.inputName = inputName
            self.conditionType = conditionType
            self.compareTo = compareTo
        }
    }

    /// An input the app or an interaction sets.
    package struct Input: Sendable, Hashable {
        /// `Boolean`, `Numeric`, `String` or `Event`.
        package var type: String
        /// The input's name, unique in the machine.
        package var name: String
        /// The initial value, as written.
        package var value: DotLottieJSONValue?

        /// Creates an input.
        package init(type: String, name: String, value: DotLottieJSONValue? = nil) {
            self.type = type
            self.name = name
            self.value = value
        }
    }

    /// The machine's identifier (its file is `s/<id>.json`).
    public var id: String
    /// The state the machine starts in.
    public var initialState: String
    /// The states, in file order.
    package var states: [State]
    /// The inputs, in file order.
    package var inputs: [Input]
    /// The interactions (pointer and animation events with their actions), as written.
    package var interactions: [DotLottieJSONValue]
    /// The file's bytes, written back unchanged on export.
    public var data: Data

    /// Creates a state machine.
    package init(
        id: String, initialState: String, states: [State], inputs: [Input] = [],
        interactions: [DotLottieJSONValue] = [], data: Data
    ) {
        self.id = id
        self.initialState = initialState
        self.states = states
        self.inputs = inputs
        self.interactions = interactions
        self.data = data
    }

    /// The state named `name`, if any.
    package func state(named name: String) -> State? {
        states.first { $0.name == name }
    }
}
