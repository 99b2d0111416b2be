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

    /// Starts `name` with `arguments` and returns when it exits, with its exit status and output.
    public static func run(_ name: String, _ arguments: [String]) async throws -> ChildProcess.Outcome {
        try await ChildProcess.run(binDirectory.appendingPathComponent(name), arguments)
    }
}
