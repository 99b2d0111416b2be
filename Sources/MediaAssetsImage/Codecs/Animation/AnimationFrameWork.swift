import MediaAssets

/// Where an animation's per-frame CPU work runs: one frame (composite, reduce, style, encode) per call, never
/// a whole pass, so a long animation never holds a thread for long.
///
/// Through a util, each frame takes a slot of the manager's decode limiter and runs on the manager's executor;
/// standalone, it runs on `executor` when one is given, else on the iterating task's own. A frame waits for its
/// slot at the iterating ask's live priority (`LivePriority.current`, which the decoding task inherits), else at
/// `priority`.
struct AnimationFrameWork: Sendable {
    /// The limiter each frame's work takes a slot of, or `nil`.
    var limiter: WorkLimiter?
    /// Where each frame's work runs, or `nil` for the decoding task's own executor.
    var executor: (any TaskExecutor)?
    /// The priority a frame waits with when no live priority is bound.
    var priority = LivePriority(.normal)

    /// Runs one frame's work.
    func run<T: Sendable>(_ work: () throws -> T) async throws -> T {
        try Task.checkCancellation()
        guard let limiter else { return try await onExecutor(work) }
        return try await limiter.run(priority: LivePriority.current ?? priority) { try await onExecutor(work) }
    }

    private func onExecutor<T: Sendable>(_ work: () throws -> T) async throws -> T {
        guard let executor else { return try work() }
        return try await withTaskExecutorPreference(executor) { try work() }
    }
}
