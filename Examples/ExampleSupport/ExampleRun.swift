import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Runs an example's body and turns its outcome into an exit status.
///
/// Any error the body throws is printed as one line on standard error (`<name>: error: …`) and the
/// process exits with status 1; `--help` prints the usage and exits with 0.
public enum ExampleRun {
    /// Parses the command line, runs `body` and exits with the status it returns (or 1 if it throws).
    ///
    /// - Parameters:
    ///   - name: the executable's name, used in messages.
    ///   - usage: the text `--help` prints.
    ///   - valueOptions: the options that take a value (`"--cache"`, `"--out"`, …).
    ///   - flags: the options that take none (`"--proxy"`); `--help` is always accepted.
    ///   - body: the example; returns its exit status (0, or 1 when some input failed).
    public static func main(
        _ name: String,
        usage: String,
        valueOptions: Set<String>,
        flags: Set<String> = [],
        body: (ParsedArguments) async throws -> Int32
    ) async -> Never {
        do {
            let arguments = try ParsedArguments(
                Array(CommandLine.arguments.dropFirst()), valueOptions: valueOptions, flags: flags
            )
            if arguments.has("--help") {
                print(usage)
                exit(0)
            }
            let status = try await body(arguments)
            flushStandardOutput()
            exit(status)
        } catch {
            flushStandardOutput()
            printError(error, program: name)
            exit(1)
        }
    }

    /// Prints `error` as one line on standard error: `<program>: error: <description>`.
    public static func printError(_ error: any Error, program: String) {
        let line = "\(program): error: \(oneLine(error))\n"
        FileHandle.standardError.write(Data(line.utf8))
    }

    /// The error's description on one line (its `errorDescription`, else its `description`).
    public static func oneLine(_ error: any Error) -> String {
        let text: String
        if let localized = error as? LocalizedError, let description = localized.errorDescription {
            text = description
        } else {
            text = String(describing: error)
        }
        return text.split(whereSeparator: \.isNewline).joined(separator: " ")
    }

    /// Flushes `print`'s buffer so output and error lines keep their order.
    public static func flushStandardOutput() {
        fflush(nil)
    }
}
