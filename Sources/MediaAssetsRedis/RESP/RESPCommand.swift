import Foundation

/// A command as Redis receives it: an array of binary-safe bulk strings.
package struct RESPCommand: Sendable, Hashable, CustomStringConvertible {
    /// The command name and its arguments.
    package var arguments: [Data]

    /// Creates a command from its name and arguments (strings are sent as UTF-8).
    package init(_ name: String, _ arguments: RESPArgument...) {
        self.arguments = [Data(name.utf8)] + arguments.map(\.data)
    }

    /// Creates a command from raw argument bytes, the name first.
    package init(arguments: [Data]) { self.arguments = arguments }

    /// The command's name, for error messages.
    package var name: String { arguments.first.map { String(decoding: $0, as: UTF8.self) } ?? "" }

    package var description: String { name }

    /// Appends the command's RESP encoding to `buffer`.
    package func encode(into buffer: inout [UInt8]) {
        appendHeader(UInt8(ascii: "*"), arguments.count, to: &buffer)
        for argument in arguments {
            appendHeader(UInt8(ascii: "$"), argument.count, to: &buffer)
            buffer.append(contentsOf: argument)
            buffer.append(UInt8(ascii: "\r"))
            buffer.append(UInt8(ascii: "\n"))
        }
    }

    private func appendHeader(_ type: UInt8, _ count: Int, to buffer: inout [UInt8]) {
        buffer.append(type)
        buffer.append(contentsOf: String(count).utf8)
        buffer.append(UInt8(ascii: "\r"))
        buffer.append(UInt8(ascii: "\n"))
    }
}

/// One argument of a `RESPCommand`: text, a number or raw bytes.
package struct RESPArgument: Sendable, ExpressibleByStringLiteral, ExpressibleByIntegerLiteral {
    /// The argument's bytes as sent.
    package let data: Data

    /// Raw bytes.
    package init(_ data: Data) { self.data = data }
    /// UTF-8 text.
    package init(_ text: String) { self.data = Data(text.utf8) }
    /// A decimal number.
    package init(_ number: Int) { self.data = Data(String(number).utf8) }
    package init(stringLiteral value: String) { self.init(value) }
    package init(integerLiteral value: Int) { self.init(value) }
}
