import Synchronization

/// The delivery of one avatar to one consumer (an image view), which the consumer can cancel.
///
/// Returned by `ImageUtil.setAvatar(_:deliver:)`. Cancelling stops the delivery, and the work behind it
/// unless other asks share that work.
public final class AvatarBinding: Sendable {
    private struct State {
        var isCancelled = false
        var task: Task<Void, Never>?
    }

    private let state: Mutex<State>

    /// A binding with no work attached yet (none at all when memory answered at once).
    init() {
        state = Mutex(State())
    }

    /// Stops any later delivery and cancels the work if nobody else needs it.
    ///
    /// A delivery already running when `cancel()` is called finishes; none starts afterwards.
    public func cancel() {
        let task = state.withLock { state -> Task<Void, Never>? in
            state.isCancelled = true
            return state.task
        }
        task?.cancel()
    }

    /// Whether `cancel()` was called.
    package var isCancelled: Bool { state.withLock { $0.isCancelled } }

    /// Waits until the work behind the binding has ended: delivered, failed or cancelled.
    public func wait() async {
        let task = state.withLock { $0.task }
        await task?.value
    }

    func attach(_ task: Task<Void, Never>) {
        let cancelled = state.withLock { state -> Bool in
            state.task = task
            return state.isCancelled
        }
        if cancelled { task.cancel() }
    }

    /// Calls `deliver` with `image` unless the binding was cancelled (outside the lock: it is user code).
    func deliver(_ image: Image, to deliver: @Sendable (Image) -> Void) {
        let isActive = state.withLock { !$0.isCancelled }
        if isActive { deliver(image) }
    }
}
