import Foundation

/// A JSON value kept as read: the parts of a dotLottie theme or state machine whose shape depends on
/// their type (a rule's `value`, a guard's `compareTo`, an interaction's actions).
package enum DotLottieJSONValue: Sendable, Hashable {
    /// `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// A number.
    case number(Double)
    /// A string.
    case string(String)
    /// An array, in order.
    case array([DotLottieJSONValue])
    /// An object; a key given twice keeps its last value.
    case object([String: DotLottieJSONValue])

    /// The string, if this is one.
    package var stringValue: String? {
        if case let .string(text) = self { return text }
        return nil
    }

    /// The number, if this is one.
    package var numberValue: Double? {
        if case let .number(number) = self { return number }
        return nil
    }

    /// The elements, if this is an array.
    package var arrayValue: [DotLottieJSONValue]? {
        if case let .array(elements) = self { return elements }
        return nil
    }

    /// The members, if this is an object.
    package var objectValue: [String: DotLottieJSONValue]? {
        if case let .object(members) = self { return members }
        return nil
    }

    /// The member `key` of an object; nil for a missing key or a value that is not an object.
    package subscript(key: String) -> DotLottieJSONValue? {
        objectValue?[key]
    }

    /// The JSON type's name, for error messages.
    var kindName: String {
        switch self {
        case .null: return "null"
        case .bool: return "a boolean"
        case .number: return "a number"
        case .string: return "a string"
        case .array: return "an array"
        case .object: return "an object"
        }
    }
}
