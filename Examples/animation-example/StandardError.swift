import ExampleSupport
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Progress and statistics go to standard error, so standard output stays one JSON line per animation.
enum StandardError {
    /// Writes `line` and a newline to standard error.
    static func print(_ line: String) {
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }

    /// Runs `body` with standard output pointed at standard error (for reports that `print`).
    static func redirectingStandardOutput(_ body: () async -> Void) async {
        ExampleRun.flushStandardOutput()
        let saved = dup(STDOUT_FILENO)
        guard saved >= 0 else { return await body() }
        dup2(STDERR_FILENO, STDOUT_FILENO)
        await body()
        ExampleRun.flushStandardOutput()
        dup2(saved, STDOUT_FILENO)
        close(saved)
    }
}
