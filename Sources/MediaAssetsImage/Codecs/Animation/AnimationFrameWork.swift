import MediaAssets

/// Where an animation's per-frame CPU work runs: one frame (composite, reduce, style, encode) per call, never
/// a whole pass, so a long animation never holds a thread for long.
///
/// Today each frame takes a slot of the manager's decode limiter, at the request's priority, and runs on
/// the calling task (the cooperative pool, one frame per hop); without a manager it runs on the calling task
/// alone. This is the one place a manager-owned executor for CPU work plugs in.
struct AnimationFrameWork: Sendable {
    /// The limiter each frame's work takes a slot of, or `nil`.
    var limiter: WorkLimiter?
    /// The priority the work waits for a slot with.
    var priority: TaskPriority = .medium

    /// Runs one frame's work.
    func run<T: Sendable>(_ work: () throws -> T) async throws -> T {
        try Task.checkCancellation()
        guard let limiter else { return try work() }
        return try await limiter.run(priority: priority) { try work() }
    }
}
