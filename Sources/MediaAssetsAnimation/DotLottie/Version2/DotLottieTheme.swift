import Foundation

/// A dotLottie v2 theme (`t/<id>.json`): rules that set an animation's slots (colours, scalars,
/// positions, gradients, images, text) without editing its JSON.
public struct DotLottieTheme: Sendable, Hashable {
    /// What a rule sets; its `value` or `keyframes` take the shape of this type.
    package enum RuleType: String, Sendable, Hashable, CaseIterable {
        case color = "Color"
        case scalar = "Scalar"
        case position = "Position"
        case vector = "Vector"
        case gradient = "Gradient"
        case image = "Image"
        case text = "Text"
    }

    /// One rule: the slot it targets and what it sets there.
    package struct Rule: Sendable, Hashable {
        /// The slot identifier (a key of the animation's `slots`).
        package var slotID: String
        /// What the rule sets.
        package var type: RuleType
        /// The animations the rule applies to; nil means every animation of the archive.
        package var animationIDs: [String]?
        /// A static value, as written.
        package var value: DotLottieJSONValue?
        /// Keyframes, as written.
        package var keyframes: DotLottieJSONValue?
        /// An expression, if given.
        package var expression: String?

        /// Creates a rule.
        package init(
            slotID: String, type: RuleType, animationIDs: [String]? = nil, value: DotLottieJSONValue? = nil,
            keyframes: DotLottieJSONValue? = nil, expression: String? = nil
        ) {
            self.slotID = slotID
            self.type = type
            self.animationIDs = animationIDs
            self.value = value
            self.keyframes = keyframes
            self.expression = expression
        }
    }

    /// The theme's identifier (its file is `t/<id>.json`).
    public var id: String
    /// The rules, in file order.
    package var rules: [Rule]
    /// The file's bytes, written back unchanged on export.
    public var data: Data

    /// Creates a theme.
    package init(id: String, rules: [Rule], data: Data) {
        self.id = id
        self.rules = rules
        self.data = data
    }

    /// Parses `t/<id>.json`: `{"rules": [{"id", "type", "animations"?, "value"?, "keyframes"?, "expression"?}]}`.
    ///
    /// - Throws: `DotLottieError.invalidTheme` naming the JSON path (malformed JSON, a missing `id` or
    ///   `type`, an unknown type, a rule with neither `value` nor `keyframes`).
    package static func parse(_ data: Data, id: String, options: LottieParsingOptions = .init()) throws
        -> DotLottieTheme
    {
        let failure: @Sendable (String, String) -> DotLottieError = { .invalidTheme(id: id, path: $0, reason: $1) }
        let fields = try DotLottieFields.root(of: data, options: options, failure: failure)
        let rules = try fields.objects("rules") { _, rule in
            let typeName = try rule.requiredString("type")
            guard let type = RuleType(rawValue: typeName) else {
                let known = RuleType.allCases.map(\.rawValue).joined(separator: ", ")
                throw failure(rule.path("type"), "unknown rule type \(typeName.debugDescription) (known: \(known))")
            }
            let value = rule.members["value"], keyframes = rule.members["keyframes"]
            if value == nil, keyframes == nil, try rule.string("expression") == nil {
                throw failure(rule.path, "a rule needs a value, keyframes or an expression")
            }
            return Rule(
                slotID: try rule.requiredString("id"), type: type, animationIDs: try rule.strings("animations"),
                value: value, keyframes: keyframes, expression: try rule.string("expression")
            )
        }
        return DotLottieTheme(id: id, rules: rules, data: data)
    }
}
