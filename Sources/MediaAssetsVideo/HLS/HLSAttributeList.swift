/// An RFC 8216 attribute list (`NAME=value,NAME="quoted, string",…`) as name → value (quotes removed).
struct HLSAttributeList {
    private(set) var values: [String: String] = [:]

    /// Parses `text`; returns the reason when it is not a valid attribute list.
    static func parse(_ text: Substring) -> Result<HLSAttributeList, HLSLineError> {
        var list = HLSAttributeList()
        var rest = text[...]
        while !rest.isEmpty {
            guard let equals = rest.firstIndex(of: "=") else {
                return .failure(HLSLineError("attribute without a value in \"\(text.prefix(80))\""))
            }
            let name = rest[..<equals]
            guard !name.isEmpty, name.allSatisfy({ $0.isUppercase || $0.isNumber || $0 == "-" }) else {
                return .failure(HLSLineError("invalid attribute name \"\(name.prefix(40))\""))
            }
            rest = rest[rest.index(after: equals)...]
            let value: Substring
            if rest.first == "\"" {
                let body = rest.dropFirst()
                guard let close = body.firstIndex(of: "\"") else {
                    return .failure(HLSLineError("unterminated quoted string for \(name)"))
                }
                value = body[..<close]
                rest = body[body.index(after: close)...]
            } else {
                let end = rest.firstIndex(of: ",") ?? rest.endIndex
                value = rest[..<end]
                rest = rest[end...]
            }
            if !rest.isEmpty {
                guard rest.first == "," else {
                    return .failure(HLSLineError("expected a comma after the value of \(name)"))
                }
                rest = rest.dropFirst()
            }
            list.values[String(name)] = String(value)
        }
        return .success(list)
    }

    subscript(name: String) -> String? { values[name] }

    /// The attribute `name` as a required value.
    func required(_ name: String) throws(HLSLineError) -> String {
        guard let value = values[name] else { throw HLSLineError("missing required attribute \(name)") }
        return value
    }

    /// The attribute `name` as a non-negative decimal integer, when present.
    func integer(_ name: String) throws(HLSLineError) -> Int? {
        guard let text = values[name] else { return nil }
        guard let value = HLSLineError.decimal(text) else { throw HLSLineError("\(name) is not an integer: \(text)") }
        return value
    }
}

/// Why one line of a playlist is malformed; the parser adds the line number.
struct HLSLineError: Error {
    let reason: String

    init(_ reason: String) { self.reason = reason }

    /// A non-negative decimal integer of at most 18 digits (so sums of two never overflow).
    static func decimal(_ text: Substring) -> Int? {
        guard !text.isEmpty, text.count <= 18, text.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        return Int(text)
    }

    static func decimal(_ text: String) -> Int? { decimal(text[...]) }
}
