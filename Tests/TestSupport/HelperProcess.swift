import Foundation
import Testing

/// Runs the package's helper executables (`cache-writer`) from the build directory the tests run
/// from, and awaits their exit without blocking a thread of the cooperative pool.
public enum HelperProcess {
    /// The build directory holding the test bundle and the package's executables.
    public static let binDirectory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()

    /// Whether the executable `name` was built beside the tests.
    public static func isBuilt(_ name: String) -> Bool {
        FileManager.default.isExecutableFile(atPath: binDirectory.appendingPathComponent(name).path)
    }

    /// Why a test needing `cache-writer` is skipped.
    public static let cacheWriterRequirement: Comment =
        "needs the cache-writer helper built beside the tests: swift build --build-tests (or --product cache-writer)"

    /// What a finished process reported.
    public struct Outcome: Sendable {
        public var status: Int32
        public var output: String
    }

    /// Starts `name` with `arguments` and returns when it exits, with its exit status and output.
    public static func run(_ name: String, _ arguments: [String]) async throws -> Outcome {
        let process = Process()
        process.executableURL = binDirectory.appendingPathComponent(name)
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        return try await withCheckedThrowingContinuation { continuation in
            process.terminationHandler = { finished in
                let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
                continuation.resume(returning: Outcome(status: finished.terminationStatus, output: text))
            }
            do {
                try process.run()
            } catch {
                process.terminationHandler = nil
                continuation.resume(throwing: error)
            }
        }
    }
}
