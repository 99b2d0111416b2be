import Foundation

/// Typed reads of one JSON object of a theme, state machine or manifest, each failure a
/// `DotLottieError` naming the JSON path.
struct DotLottieFields {
    let members: [String: DotLottieJSONValue]
    /// The object's JSON path (`$.states[2]`).
    let path: String
    /// Makes the error for a path and a reason (`invalidTheme`, `invalidStateMachine`, …).
    let failure: @Sendable (_ path: String, _ reason: String) -> DotLottieError

    /// Reads `value` as an object, or throws naming `path`.
    init(
        _ value: DotLottieJSONValue, path: String,
        failure: @escaping @Sendable (_ path: String, _ reason: String) -> DotLottieError
    ) throws {
        guard let members = value.objectValue else {
            throw failure(path, "expected an object, found \(value.kindName)")
        }
        self.members = members
        self.path = path
        self.failure = failure
    }

    /// Parses `data` and reads its root object; bad syntax or an exceeded limit is `failure("$", …)`.
    static func root(
        of data: Data, options: LottieParsingOptions,
        failure: @escaping @Sendable (_ path: String, _ reason: String) -> DotLottieError
    ) throws -> DotLottieFields {
        let root: DotLottieJSONValue
        do {
            root = try DotLottieJSONValue.parse(data, options: options)
        } catch let error as LottieError {
            throw failure("$", "\(error)")
        }
        return try DotLottieFields(root, path: "$", failure: failure)
    }

    /// The path of member `key`.
    func path(_ key: String) -> String { path + "." + key }

    /// The object at `value`'s path `path`, with the same failure.
    func nested(_ value: DotLottieJSONValue, path: String) throws -> DotLottieFields {
        try DotLottieFields(value, path: path, failure: failure)
    }

    /// A string member that must be present.
    func requiredString(_ key: String) throws -> String {
        guard let text = try string(key) else { throw failure(path(key), "missing required key") }
        return text
    }

    /// A string member, nil when absent or null.
    func string(_ key: String) throws -> String? {
        guard let value = members[key], value != .null else { return nil }
        guard let text = value.stringValue else {
            throw failure(path(key), "expected a string, found \(value.kindName)")
        }
        return text
    }

    /// An array member, nil when absent or null.
    func array(_ key: String) throws -> [DotLottieJSONValue]? {
        guard let value = members[key], value != .null else { return nil }
        guard let elements = value.arrayValue else {
            throw failure(path(key), "expected an array, found \(value.kindName)")
        }
        return elements
    }

    /// An array member that must be present.
    func requiredArray(_ key: String) throws -> [DotLottieJSONValue] {
        guard let elements = try array(key) else { throw failure(path(key), "missing required key") }
        return elements
    }

    /// An array of strings, nil when absent or null.
    func strings(_ key: String) throws -> [String]? {
        guard let elements = try array(key) else { return nil }
        return try elements.enumerated().map { index, element in
            guard let text = element.stringValue else {
                throw failure(path(key) + "[\(index)]", "expected a string, found \(element.kindName)")
            }
            return text
        }
    }

    /// Each object of array member `key` read by `body` with its index and fields.
    func objects<Element>(
        _ key: String, required: Bool = false, _ body: (Int, DotLottieFields) throws -> Element
    ) throws -> [Element] {
        let elements = required ? try requiredArray(key) : try array(key) ?? []
        return try elements.enumerated().map { index, element in
            try body(index, try nested(element, path: path(key) + "[\(index)]"))
        }
    }
}
