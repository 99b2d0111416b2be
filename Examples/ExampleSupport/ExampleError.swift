import Foundation

/// What went wrong in an example's own work: its arguments, its inputs, its output files.
///
/// Errors of the package (`AssetsError`, `LottieError`, …) pass through unchanged; these cover
/// what only a command-line program has.
public enum ExampleError: Error, Sendable, Equatable, CustomStringConvertible, LocalizedError {
    /// The command line does not fit the usage; `reason` names the offending argument.
    case usage(reason: String)
    /// An input names a local file that does not exist or is not a regular file.
    case noSuchFile(path: String)
    /// An input's URL scheme is none of file, http, https.
    case unsupportedScheme(input: String)
    /// An output file could not be written.
    case cannotWrite(path: String, reason: String)
    /// A directory the example needs could not be created or cleared.
    case cannotPrepareDirectory(path: String, reason: String)
    /// What the example shows did not happen (a worker failed, a cache did not serve); `reason` says what.
    case failed(reason: String)

    public var description: String {
        switch self {
        case .usage(let reason):
            return "\(reason) (run with --help for usage)"
        case .noSuchFile(let path):
            return "no such file: \(path)"
        case .unsupportedScheme(let input):
            return "unsupported input \(input): give a file path, or a file://, http:// or https:// URL"
        case .cannotWrite(let path, let reason):
            return "cannot write \(path): \(reason)"
        case .cannotPrepareDirectory(let path, let reason):
            return "cannot prepare the directory \(path): \(reason)"
        case .failed(let reason):
            return reason
        }
    }

    public var errorDescription: String? { description }
}
