import Foundation
import MediaAssets

extension VideoUtil {
    /// Starts the fetch of a flight planned by `VideoState._plan`.
    func start(_ flight: RunFlight) {
        let task = Task { [self] in
            let result: Result<[Data], Error>
            do {
                result = .success(try await fetchRun(flight))
            } catch {
                result = .failure(error)
            }
            let waiters = state.withLock { $0._complete(flight.id, with: result) }
            for waiter in waiters { waiter.resume(with: result) }
        }
        // Every asker left before the task was recorded: nobody else will cancel it.
        if !state.withLock({ $0._attach(task, to: flight.id) }) { task.cancel() }
    }

    /// Waits for flight `id` on behalf of reader `asker`; cancelling the reader leaves the flight,
    /// which is cancelled when no reader is left.
    func awaitFlight(_ id: UInt64, asker: UInt64) async throws -> [Data] {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let wait = state.withLock {
                    $0._wait(id, asker: asker, continuation: continuation, isCancelled: Task.isCancelled)
                }
                switch wait {
                case .suspended:
                    break
                case .finished(let result):
                    continuation.resume(with: result)
                case .left(let task):
                    task?.cancel()
                    continuation.resume(throwing: CancellationError())
                }
            }
        } onCancel: {
            leave(id, asker: asker)
        }
    }

    /// Reader `asker` is done with flight `id` (idempotent).
    func leave(_ id: UInt64, asker: UInt64) {
        let (waiter, task) = state.withLock { $0._leave(id, asker: asker) }
        waiter?.resume(throwing: CancellationError())
        task?.cancel()
    }
}
