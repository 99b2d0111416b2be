import MediaAssets
import Testing

/// Runs every test of a suite with a preference for threads of their own, not the cooperative pool: for suites
/// whose bodies decode, resample, encode or compare pictures inline, seconds of CPU each in a debug build.
///
/// On Linux the cooperative pool is as wide as the cores (two here). Beside a CPU hog, thread dumps caught both of
/// its threads in such bodies for over a minute (ProgressiveJPEGTests' PSNRs, ResizeTests, HEIF fixtures), while
/// every test waiting on an origin could not even send its request and timed out after 90 s.
struct OffThePoolTrait: SuiteTrait, TestTrait, TestScoping {
    var isRecursive: Bool { true }

    /// Two threads at the process's priority, shared by the suites that ask for them.
    static let executor = ThreadPoolExecutor(threadCount: 2, name: "CPU-bound tests")

    func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        guard testCase != nil else { return try await function() }
        try await withTaskExecutorPreference(Self.executor) { try await function() }
    }
}

extension Trait where Self == OffThePoolTrait {
    /// Runs the suite's tests off the cooperative pool (``OffThePoolTrait``).
    static var offThePool: Self { Self() }
}
