import MediaAssets
import Testing

/// Runs every test of a suite with a preference for threads of their own, not the cooperative pool: for suites
/// whose bodies decode, resample, encode, parse or compare inline, seconds of CPU each in a debug build.
///
/// On Linux the cooperative pool is as wide as the cores (two here), and Swift Testing starts every test at once
/// and runs a synchronous test body on it. Thread dumps of the suite beside a CPU hog caught both pool threads in
/// such bodies (fuzz replays, Lottie corruptions, PNG and HEIF fixtures, PSNRs) for the first 70 s of the run,
/// while every test waiting on an origin, a download or a child process got a pool thread once a cycle: no test
/// finished before 70 s, and waits with a deadline (a child's 60 s request timeout, 90 s polls) ran out.
/// Suites that only compute and never wait on time take this trait; suites that wait stay on the pool.
public struct OffThePoolTrait: SuiteTrait, TestTrait, TestScoping {
    public var isRecursive: Bool { true }

    /// Two threads at the process's priority, shared by every suite that asks for them.
    static let executor = ThreadPoolExecutor(threadCount: 2, name: "CPU-bound tests")

    public func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        guard testCase != nil else { return try await function() }
        try await withTaskExecutorPreference(Self.executor) { try await function() }
    }
}

extension Trait where Self == OffThePoolTrait {
    /// Runs the suite's tests off the cooperative pool (``OffThePoolTrait``).
    public static var offThePool: Self { Self() }
}
