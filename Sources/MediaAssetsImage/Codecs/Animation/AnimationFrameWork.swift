import MediaAssets

/// Where an animation's per-frame CPU work runs: one frame (composite, reduce, style, encode) per call, never
/// a whole pass, so a long animation never holds a thread for long.
///
/// Today each frame takes a slot of the manager's decode limiter and runs on the calling task (the
/// cooperative pool, one frame per hop); without a manager it runs on the calling task alone. A frame waits
/// for its slot at the iterating ask's live priority (`LivePriority.current`, which the decoding task
/// inherits), else at `priority`. This is the one place a manager-owned executor for CPU work plugs in.
struct AnimationFrameWork: Sendable {
    /// The limiter each frame's work takes a slot of, or `nil`.
    var limiter: WorkLimiter?
    /// The priority a frame waits with when no live priority is bound.
    var priority = LivePriority(.normal)

    /// Runs one frame's work.
    func run<T: Sendable>(_ work: () throws -> T) async throws -> T {
        try Task.checkCancellation()
        guard let limiter else { return try work() }
        return try await limiter.run(priority: LivePriority.current ?? priority) { try work() }
    }
}
