import Foundation

/// One reply of the Redis serialization protocol (RESP2).
package enum RESPValue: Sendable, Hashable, CustomStringConvertible {
    /// A status line such as `OK` or `PONG` (`+`).
    case simpleString(String)
    /// An error line such as `MOVED 3999 127.0.0.1:7002` (`-`).
    case error(String)
    /// A signed 64-bit integer (`:`).
    case integer(Int64)
    /// Binary-safe bytes, or nil for the null bulk string (`$-1`).
    case bulkString(Data?)
    /// A list of replies, or nil for the null array (`*-1`).
    case array([RESPValue]?)

    /// The bytes of a bulk or simple string, nil for anything else.
    package var bytes: Data? {
        switch self {
        case .bulkString(let data): return data
        case .simpleString(let text): return Data(text.utf8)
        default: return nil
        }
    }

    /// The text of a bulk or simple string (lossily decoded as UTF-8), nil for anything else.
    package var text: String? { bytes.map { String(decoding: $0, as: UTF8.self) } }

    /// A short rendering for error messages: the type and at most 100 bytes of the value.
    package var description: String {
        switch self {
        case .simpleString(let text): return "+\(text.prefix(100))"
        case .error(let message): return "-\(message.prefix(100))"
        case .integer(let value): return ":\(value)"
        case .bulkString(nil): return "null bulk string"
        case .bulkString(let data?):
            return "bulk string of \(data.count) bytes \"\(String(decoding: data.prefix(100), as: UTF8.self))\""
        case .array(nil): return "null array"
        case .array(let values?): return "array of \(values.count)"
        }
    }
}
