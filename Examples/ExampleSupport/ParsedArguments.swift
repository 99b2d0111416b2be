/// A command line split into inputs, options with values and flags, with no dependencies.
///
/// Options take their value as the next argument or after `=` (`--cache DIR`, `--cache=DIR`);
/// `--` ends the options. An option the example did not declare is a usage error, so a typo
/// never passes silently as an input.
public struct ParsedArguments: Sendable, Equatable {
    /// The arguments that are not options, in order.
    public private(set) var inputs: [String] = []
    /// The value of each option given; a repeated option keeps its last value.
    public private(set) var values: [String: String] = [:]
    /// The flags given (`--help`).
    public private(set) var flags: Set<String> = []

    /// Parses `arguments` (without the program name).
    ///
    /// - Parameters:
    ///   - valueOptions: the options that take a value, spelled with their dashes (`"--cache"`).
    ///   - flags: the options that take none; `--help` and `-h` are always accepted.
    /// - Throws: `ExampleError.usage` for an unknown option or an option missing its value.
    public init(_ arguments: [String], valueOptions: Set<String>, flags knownFlags: Set<String> = []) throws {
        var index = 0
        var optionsEnded = false
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            guard !optionsEnded, argument.hasPrefix("-"), argument != "-" else {
                inputs.append(argument)
                continue
            }
            if argument == "--" {
                optionsEnded = true
                continue
            }
            if argument == "-h" || argument == "--help" || knownFlags.contains(argument) {
                flags.insert(argument == "-h" ? "--help" : argument)
                continue
            }
            let parts = argument.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = String(parts[0])
            guard valueOptions.contains(name) else { throw ExampleError.usage(reason: "unknown option \(name)") }
            if parts.count == 2 {
                values[name] = String(parts[1])
            } else if index < arguments.count {
                values[name] = arguments[index]
                index += 1
            } else {
                throw ExampleError.usage(reason: "\(name) needs a value")
            }
        }
    }

    /// The value of `option`, or nil when it was not given.
    public func value(_ option: String) -> String? { values[option] }

    /// Whether `flag` was given.
    public func has(_ flag: String) -> Bool { flags.contains(flag) }
}
